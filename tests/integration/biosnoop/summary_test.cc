// Summary records in the event stream: the baseline of every I/O beside
// the slow events, counted in the kernel, independent of event loss.

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

struct Totals {
  uint64_t count = 0, slow = 0, bytes = 0, in_buckets = 0;
};

Totals SumSummaries(const std::vector<json>& summaries, const std::string& disk,
                    const std::string& op) {
  Totals t;
  for (const json& s : summaries) {
    for (const json& g : s["groups"]) {
      if (g["disk"] != disk || (!op.empty() && g["op"] != op)) continue;
      t.count += g["count"].get<uint64_t>();
      t.slow += g["slow"].get<uint64_t>();
      t.bytes += g["bytes"].get<uint64_t>();
      for (const json& b : g["latency_us_log2"])
        t.in_buckets += b.get<uint64_t>();
    }
  }
  return t;
}

TEST(Summary, BaselineCountsEveryIoBesideTheSlowEvents) {
  BIOSNOOP_REQUIRE_ROOT();
  // Reads in the first 64 KiB are slow (20 ms), the rest fast.
  SlowDisk disk({.read_delay_ms = 20, .slow_region = "0:64K"});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Biosnoop b(
      {"--min-us", "10000", "-d", disk.loop_name(), "--summary-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // 16 slow reads, then 184 fast ones, then 50 writes.
  ASSERT_EQ(DirectDd(disk.loop_path(), true, 4096, 200).exit_code, 0);
  ASSERT_EQ(DirectDd(disk.loop_path(), false, 4096, 50, 1000).exit_code, 0);
  EXPECT_TRUE(b.WaitForRecords("summary", 1));  // a periodic one
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<json> summaries = b.RecordsOfType("summary");
  ASSERT_GE(summaries.size(), 2u) << "periodic and final summaries";
  for (const json& s : summaries) {
    EXPECT_EQ(s["min_us"], 10000);
    EXPECT_GT(s["interval_s"].get<double>(), 0.0);
  }
  Totals reads = SumSummaries(summaries, disk.loop_name(), "read");
  Totals writes = SumSummaries(summaries, disk.loop_name(), "write");
  // Every I/O is counted, or counted as missed (a completion the kernel
  // ran no BPF program for, docs/reference/counters.md, "missed").
  std::map<std::string, double> st = b.Summary();
  const double missed = st["missed"];
  EXPECT_LE(reads.count, 200u);
  EXPECT_LE(writes.count, 50u);
  EXPECT_EQ(reads.count + writes.count + missed, 250) << b.Stderr();
  EXPECT_EQ(reads.in_buckets, reads.count);
  EXPECT_EQ(reads.bytes, reads.count * 4096);
  EXPECT_LE(reads.slow, 16u);
  EXPECT_GE(reads.slow + missed, 16) << b.Stderr();
  EXPECT_EQ(writes.slow, 0u);
  // The slow ones are exactly the events.
  EXPECT_EQ(b.Events().size(), reads.slow);
}

TEST(Summary, HistogramsKeepCountingWhileEventsAreLost) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.size_mib = 128, .read_delay_ms = 10});
  ASSERT_TRUE(disk.ok()) << disk.error();
  std::ofstream("/sys/block/" + disk.loop_name() + "/queue/nomerges") << "2\n";
  Biosnoop b(
      {"--min-us", "5000", "-d", disk.loop_name(), "--ringbuf-kib", "4"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // 4 KiB of ring buffer holds about 36 records and up to 256 completions
  // land within a few milliseconds, so a burst nearly always overflows it;
  // whether it does depends on when the consumer wakes.  So: bursts of
  // 6000 reads, at most five, until biosnoop reports a loss (within a
  // second of it).
  int bursts = 0;
  bool lost_seen = false;
  while (!lost_seen && bursts < 5) {
    std::optional<std::string> fio = CommandOutput(
        {"fio", "--name=burst", "--filename=" + disk.loop_path(),
         "--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio",
         "--iodepth=64", "--numjobs=4", "--size=6000k",
         "--offset_increment=6000k", "--output-format=terse"});
    ASSERT_TRUE(fio.has_value());
    ++bursts;
    for (int i = 0; i < 20 && !lost_seen; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      lost_seen = b.Stderr().find("events (kernel ring buffer full)") !=
                  std::string::npos;
    }
  }
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  ASSERT_GT(s["lost"], 0) << "the ring buffer was meant to overflow, in "
                          << bursts << " bursts\n"
                          << b.Stderr();
  Totals reads =
      SumSummaries(b.RecordsOfType("summary"), disk.loop_name(), "read");
  // Every completion the hook saw is in the histograms although events were
  // lost; completions it never saw are counted as missed.
  EXPECT_EQ(reads.count + s["missed"], 6000u * bursts) << b.Stderr();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  EXPECT_EQ(reads.slow, reads.count);
  EXPECT_EQ(reads.count, s["completions"]);
}

TEST(Summary, ExampleReportRunsOnARealLog) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 12});
  ASSERT_TRUE(disk.ok()) << disk.error();
  char dir[] = "/tmp/biosnoop-example-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string log = std::string(dir) + "/slow.jsonl";
  Biosnoop b({"--min-us", "10000", "-d", disk.loop_name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(disk.loop_path(), true, 4096, 10).exit_code, 0);
  ASSERT_EQ(b.Stop(), 0);
  std::optional<std::string> out = CommandOutput(
      {"bash", std::string(BIOSNOOP_SOURCE_DIR) + "/examples/slow-io-report.sh",
       log});
  ASSERT_TRUE(out.has_value()) << "the example script failed";
  EXPECT_NE(out->find(disk.loop_name() + "  read"), std::string::npos) << *out;
  EXPECT_NE(out->find("\"lost\":0"), std::string::npos) << *out;
  RunCommand({"rm", "-rf", dir});
}

}  // namespace
}  // namespace biosnoop::testing
