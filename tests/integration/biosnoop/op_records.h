#pragma once

// Op records (biosnoop --ops) and the events that carry their op_id, for
// the tests of calls on a disk (ops_test.cc), on each file system
// (ops_fs_test.cc), and of their layers (ops_layers_test.cc,
// ops_throttle_test.cc, ops_dirty_wait_test.cc); sysfs settings they make.

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"
#include "nlohmann/json.hpp"

namespace biosnoop::testing {

// Writes `value` to the sysfs file `path`; whether it took.
inline bool WriteSysfs(const std::string& path, const std::string& value) {
  std::ofstream f(path);
  f << value << "\n";
  f.flush();
  return f.good();
}

// The first line of the sysfs file `path`; empty when there is none.
inline std::string ReadSysfs(const std::string& path) {
  std::ifstream f(path);
  std::string v;
  std::getline(f, v);
  return v;
}

// Within 1 ms or 2% of `want` (the bound of issue #39's layers).
inline ::testing::AssertionResult Near(int64_t got, int64_t want,
                                       const char* what) {
  const int64_t slack = std::max<int64_t>(1000, want / 50);
  if (got >= want - slack && got <= want + slack) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << ": " << got << " us, the witness says " << want
         << " us (allowed " << slack << ")";
}

// An unsigned field of `j`, 0 when absent.
inline uint64_t U(const nlohmann::json& j, const char* key) {
  return j.value(key, uint64_t{0});
}

// The events carrying op_id `id`.
inline std::vector<nlohmann::json> EventsOf(
    const std::vector<nlohmann::json>& events, uint64_t id) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : events) {
    if (U(e, "op_id") == id) out.push_back(e);
  }
  return out;
}

// The op records of call `call` by task `comm`.
inline std::vector<nlohmann::json> OpsOf(const Biosnoop& b,
                                         const std::string& call,
                                         const std::string& comm) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& o : b.RecordsOfType("op")) {
    if (o["call"] == call && o["comm"] == comm) out.push_back(o);
  }
  return out;
}

// The requests of the op's block and writeback layers are exactly
// `events`: their count, bytes, the largest device time and the sum of
// them (us, each side rounded down from ns).
inline void ExpectLayersAre(const nlohmann::json& op,
                            const std::vector<nlohmann::json>& events) {
  const nlohmann::json& bl = op["block"];
  const nlohmann::json& wb = op["writeback"];
  EXPECT_EQ(U(bl, "requests") + U(wb, "requests"), events.size());
  uint64_t bytes = 0, max_device = 0, sum_device = 0;
  for (const nlohmann::json& e : events) {
    bytes += U(e, "bytes");
    max_device = std::max(max_device, U(e, "device_us"));
    sum_device += U(e, "device_us");
  }
  EXPECT_EQ(U(bl, "bytes") + U(wb, "bytes"), bytes);
  EXPECT_EQ(std::max(U(bl, "device_us_max"), U(wb, "device_us_max")),
            max_device);
  // Sums are rounded once, the events' each: they differ by < 1 us each.
  const uint64_t layer_sum = U(bl, "device_us_sum") + U(wb, "device_us_sum");
  EXPECT_GE(layer_sum + 1, sum_device);
  EXPECT_LE(layer_sum, sum_device + events.size());
}

}  // namespace biosnoop::testing
