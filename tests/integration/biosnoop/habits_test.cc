// What libbpf-tools' biosnoop and biolatency users type, run for real:
// `biosnoop 2` traces for 2 seconds, `biosnoop --hist 1 3` prints three
// 1-second reports and ends by itself.

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// libbpf-tools' biosnoop 2: the argument is the duration.
TEST(Habits, TheArgumentIsTheDuration) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"-d", loop.name(), "2"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // Ends by itself: no signal is sent.
  ASSERT_EQ(b.Wait(60000), 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  ASSERT_TRUE(s.count("duration_s")) << b.Stderr();
  EXPECT_GE(s["duration_s"], 1.9) << b.Stderr();
  EXPECT_EQ(b.RecordsOfType("header").size(), 1u) << b.Stdout();
}

// biolatency 1 3: a report every second, three of them, each its own
// second's I/O, then the run ends (no fourth, partial report at exit).
TEST(Habits, HistIntervalAndCount) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--hist", "--json", "-d", loop.name(), "1", "3"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kReads = 100;
  Workload dd = DirectDd(loop.path(), true, 4096, kReads);
  ASSERT_EQ(dd.exit_code, 0);
  ASSERT_EQ(b.Wait(60000), 0) << b.Stderr();
  const std::vector<json> reports = b.RecordsOfType("histogram");
  ASSERT_EQ(reports.size(), 3u) << b.Stdout();
  uint64_t reads = 0;
  for (const json& r : reports) {
    EXPECT_GE(r["interval_s"].get<double>(), 0.99) << r;
    for (const json& h : r["histograms"]) reads += h["count"].get<uint64_t>();
  }
  // Every read is in one report, or counted as missed (a completion the
  // kernel ran no BPF program for); the device's own probing may add some.
  std::map<std::string, double> s = b.Summary();
  ASSERT_TRUE(s.count("duration_s")) << b.Stderr();
  EXPECT_GE(reads + static_cast<uint64_t>(s["missed"]),
            static_cast<uint64_t>(kReads))
      << b.Stdout() << b.Stderr();
  EXPECT_GE(s["duration_s"], 2.9) << b.Stderr();
}

}  // namespace
}  // namespace biosnoop::testing
