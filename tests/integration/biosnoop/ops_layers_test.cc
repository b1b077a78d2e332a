// Why a call waited (--ops, issue #39), on the real kernel: fsync and
// fdatasync on ext4, xfs and btrfs over a disk that delays writes and
// flushes.  Each call's layers (block, writeback, journal, flush,
// others_writeback) are checked against two independent witnesses: the
// calling program's own clock, and the window's events (every request
// of the disk, --min-us 0) replayed on a timeline by the rule the layers
// follow.  The bound of the issue: where the window's requests account
// for the call's time, `other` is at most 10% of it, and each layer is
// within 1 ms or 2% of what the events say.

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "op_records.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

int64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The layers in the order the kernel side gives a call's own requests
// precedence; kOther: none.
enum Layer { kBlock, kWriteback, kJournal, kFlush, kOthers, kOther };
const char* const kLayerKeys[] = {"block", "writeback", "journal", "flush",
                                  "others_writeback"};

// One request of the window, in wall-clock microseconds.
struct Span {
  int64_t from_us;  // submission (or issue when its queue time is unknown)
  int64_t to_us;    // completion
  Layer layer;
  bool own;  // carries the call's op_id
};

// The layer a request counts in for call `op`, by the same rule as the
// kernel side: a flush, a metadata write (journal), the call's file's data
// (writeback), another file's data (others_writeback); the call's own
// reads are block; others' reads never count.
std::optional<Span> SpanOf(const json& e, const json& op) {
  const std::string kind = e.value("op", "");
  const std::string rwbs = e.value("rwbs", "");
  const bool own = e["op_id"].is_number() && U(e, "op_id") == U(op, "op_id");
  Layer layer;
  if (kind == "flush" || (kind == "write" && U(e, "bytes") == 0)) {
    layer = kFlush;
  } else if (kind == "write" && rwbs.find('M') != std::string::npos) {
    layer = kJournal;
  } else if (kind == "write") {
    bool mine = false;
    if (e["files"].is_array()) {
      for (const json& f : e["files"]) {
        if (U(f, "inode") == U(op["file"], "inode")) mine = true;
      }
    }
    layer = own ? (mine ? kWriteback : kBlock) : (mine ? kWriteback : kOthers);
  } else if (own) {
    layer = kBlock;
  } else {
    return std::nullopt;
  }
  const int64_t done = ParseRfc3339Ns(e["timestamp"]) / 1000;
  int64_t took = int64_t(U(e, "device_us"));
  if (e["queue_us"].is_number()) took += int64_t(U(e, "queue_us"));
  return Span{done - took, done, layer, own};
}

// What the window's requests say of each layer's wait: on a 1 us grid of
// the call's time, a moment belongs to the first layer of the call's own
// requests in flight then, else to the request of others in flight then
// that completed first (the one whose completion handed that time out).
std::map<Layer, int64_t> Replay(const std::vector<Span>& spans, int64_t start,
                                int64_t end) {
  std::map<Layer, int64_t> out;
  for (int64_t t = start; t < end; ++t) {
    Layer own = kOther;
    Layer other = kOther;
    int64_t first_done = INT64_MAX;
    for (const Span& s : spans) {
      if (t < s.from_us || t >= s.to_us) continue;
      if (s.own) {
        own = std::min(own, s.layer);
      } else if (s.to_us < first_done) {
        first_done = s.to_us;
        other = s.layer;
      }
    }
    const Layer l = own != kOther ? own : other;
    if (l != kOther) ++out[l];
  }
  return out;
}

class OpsLayersTest : public ::testing::TestWithParam<FsType> {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// pwrite 64 KiB + fsync, then pwrite 4 KiB + fdatasync, three times each,
// on a disk whose writes take 20 ms and flushes 10 ms: the case where an
// ext4 fsync used to be 75% "other".
TEST_P(OpsLayersTest, SyncCallsAreSplitIntoLayersTheEventsConfirm) {
  const FsType type = GetParam();
  SlowDisk disk({.size_mib = type == FsType::kXfs ? 320 : 160});
  ASSERT_TRUE(disk.ok()) << disk.error();
  FileSystem fs(disk.loop_path(), type);
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("wal");
  ASSERT_TRUE(WriteFile(path, 256 << 10, true));
  ASSERT_TRUE(disk.Set("write_delay_ms=20 flush_delay_ms=10").ok());

  Biosnoop b({"--ops", "--min-us", "0", "-d", disk.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // The child's own clock, per call, into a file the test reads after.
  TempDir tmp;
  const std::string clock_path = tmp.path() + "/clock";
  const std::string big(64 << 10, 'a');
  const std::string small(4 << 10, 'b');
  const pid_t child = RunChildIn(nullptr, "", "ops-layers", [&] {
    const int fd = open(path.c_str(), O_WRONLY);
    const int out = open(clock_path.c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || out < 0) return 1;
    char line[64];
    for (int i = 0; i < 6; ++i) {
      const bool full = i % 2 == 0;
      const std::string& data = full ? big : small;
      if (pwrite(fd, data.data(), data.size(), (i / 2) * 65536) !=
          ssize_t(data.size())) {
        return 2;
      }
      const int64_t t0 = MonotonicNs();
      if ((full ? fsync(fd) : fdatasync(fd)) != 0) return 3;
      const int64_t us = (MonotonicNs() - t0) / 1000;
      const int n =
          snprintf(line, sizeof(line), "%lld\n", static_cast<long long>(us));
      if (write(out, line, n) != n) return 4;
    }
    return close(fd) == 0 && close(out) == 0 ? 0 : 5;
  });
  ASSERT_GT(child, 0);
  auto by_child = [&](const json& o) {
    return U(o, "pid") == uint64_t(child) &&
           (o["call"] == "fsync" || o["call"] == "fdatasync");
  };
  ASSERT_TRUE(b.WaitForRecords("op", 6, by_child));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<int64_t> clock_us;
  {
    FILE* f = fopen(clock_path.c_str(), "r");
    ASSERT_NE(f, nullptr);
    long long v;
    while (fscanf(f, "%lld", &v) == 1) clock_us.push_back(v);
    fclose(f);
  }
  ASSERT_EQ(clock_us.size(), 6u);

  std::vector<json> calls;
  for (const json& o : b.RecordsOfType("op")) {
    if (by_child(o)) calls.push_back(o);
  }
  ASSERT_EQ(calls.size(), 6u) << b.Stdout();
  std::sort(calls.begin(), calls.end(), [](const json& a, const json& c) {
    return U(a, "op_id") < U(c, "op_id");
  });
  const std::vector<json> events = b.Events();
  int fully_accounted = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& op = calls[i];
    SCOPED_TRACE(op.dump());
    EXPECT_EQ(op["call"], i % 2 == 0 ? "fsync" : "fdatasync");
    const int64_t latency = int64_t(U(op, "latency_us"));
    // The caller's clock: its two reads are just outside the syscall.
    EXPECT_TRUE(Near(latency, clock_us[i], "latency_us against the caller"));

    const int64_t start = ParseRfc3339Ns(op["start_time"]) / 1000;
    const int64_t end = ParseRfc3339Ns(op["timestamp"]) / 1000;
    std::vector<Span> spans;
    for (const json& e : events) {
      if (e["disk"] != disk.loop_name()) continue;
      const std::optional<Span> s = SpanOf(e, op);
      if (s && s->to_us > start && s->from_us < end) spans.push_back(*s);
    }
    const std::map<Layer, int64_t> want = Replay(spans, start, end);
    int64_t accounted = 0;
    int64_t layers = 0;
    for (int l = kBlock; l <= kOthers; ++l) {
      const auto it = want.find(Layer(l));
      const int64_t w = it == want.end() ? 0 : it->second;
      accounted += w;
      const int64_t got = int64_t(U(op[kLayerKeys[l]], "wait_us"));
      layers += got;
      EXPECT_TRUE(Near(got, w, kLayerKeys[l]));
    }
    // No bio of these calls waited to become a request (nothing else
    // uses the disk, and it has requests to spare).
    const int64_t throttle = int64_t(U(op["throttle"], "wait_us"));
    EXPECT_TRUE(Near(throttle, 0, "throttle"));
    EXPECT_EQ(int64_t(U(op, "other_us")), latency - layers - throttle);
    // The disk was busy for this call nearly all the time: the flushes
    // and journal writes an fsync needs take 20 to 80 ms of device time
    // where its CPU work takes well under 1 ms.  Where the window's
    // requests account for 90% of the call, `other` is at most 10% (the
    // issue's bound).  On a loaded machine the file system's own work
    // between requests may wait for a CPU (seen in CI: 82% accounted on
    // xfs); the layers are then still held to the replay above, and the
    // bound to the calls it applies to, at least one of the six.
    if (accounted * 10 >= latency * 9) {
      ++fully_accounted;
      EXPECT_LE(int64_t(U(op, "other_us")) * 10, latency);
    } else {
      std::printf(
          "call %zu: the window's requests account for %lld of %lld "
          "us\n",
          i, static_cast<long long>(accounted),
          static_cast<long long>(latency));
    }
    // Every call waited for a cache flush; an fsync (the file's times
    // changed: its inode is metadata to log) also for journal or log
    // writes, where an fdatasync of blocks already allocated needs none.
    EXPECT_GT(U(op["flush"], "wait_us"), 0u);
    if (op["call"] == "fsync") {
      EXPECT_GT(U(op["journal"], "wait_us"), 0u);
    }
    // Culprits name tasks, and their waits fit in their layer's.
    for (const char* key : kLayerKeys) {
      uint64_t sum = 0;
      for (const json& c : op[key]["culprits"]) {
        EXPECT_FALSE(c.value("comm", "").empty()) << c;
        sum += U(c, "wait_us");
      }
      EXPECT_LE(sum, U(op[key], "wait_us") + 4) << key;
    }
  }
  EXPECT_GE(fully_accounted, 1) << "no call's window was accounted for";
}

INSTANTIATE_TEST_SUITE_P(FileSystems, OpsLayersTest,
                         ::testing::Values(FsType::kExt4, FsType::kXfs,
                                           FsType::kBtrfs),
                         [](const auto& info) {
                           return std::string(FsName(info.param));
                         });

}  // namespace
}  // namespace biosnoop::testing
