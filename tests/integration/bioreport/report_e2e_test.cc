// biosnoop writes a protobuf stream from real slow I/O; bioreport reads it
// back and its counts match the workload.

#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

TEST(ReportEndToEnd, ProtoStreamFromSlowIoReadsBackExactly) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.read_delay_ms = 15, .write_delay_ms = 25});
  ASSERT_TRUE(slow.ok()) << slow.error();
  char dir[] = "/tmp/biosnoop-report-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string pb = std::string(dir) + "/slow.pb";
  Biosnoop b({"--format", "proto", "-o", pb, "--min-us", "10000", "-d",
              slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(slow.loop_path(), true, 4096, 30).exit_code, 0);
  ASSERT_EQ(DirectDd(slow.loop_path(), false, 8192, 20, 100).exit_code, 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::optional<std::string> out = CommandOutput({BIOREPORT_BIN, "json", pb});
  ASSERT_TRUE(out.has_value());
  json report = json::parse(*out);
  EXPECT_EQ(report["formats"], "proto");
  EXPECT_EQ(report["events"], 50);
  EXPECT_EQ(report["lost"], 0);
  EXPECT_TRUE(report["loss_known"].get<bool>());
  // The stream's seq numbers and its stats' `written` agree: nothing is
  // missing from it, nothing is there twice.
  EXPECT_EQ(report["not_in_input"], 0) << *out;
  EXPECT_EQ(report["before_input"], 0) << *out;
  EXPECT_EQ(report["duplicate_events"], 0) << *out;
  EXPECT_GE(report["latency_us"]["min"].get<uint64_t>(), 15000u);
  EXPECT_EQ(report["errors"], 0);

  // Per operation, via CSV-free JSON conversion: convert to JSONL and count.
  const std::string jsonl = std::string(dir) + "/slow.jsonl";
  ASSERT_EQ(
      RunCommand({BIOREPORT_BIN, "convert", "--to", "jsonl", "-o", jsonl, pb}),
      0);
  std::optional<std::string> reads = CommandOutput(
      {"bash", "-c", "grep -c '\"type\":\"event\".*\"op\":\"read\"' " + jsonl});
  std::optional<std::string> writes = CommandOutput(
      {"bash", "-c",
       "grep -c '\"type\":\"event\".*\"op\":\"write\"' " + jsonl});
  ASSERT_TRUE(reads.has_value() && writes.has_value());
  EXPECT_EQ(*reads, "30");
  EXPECT_EQ(*writes, "20");
  // The baseline from the stream's summary records: every read and write
  // counted, all of them slow here.
  std::optional<std::string> baseline =
      CommandOutput({BIOREPORT_BIN, "baseline", "--csv", pb});
  ASSERT_TRUE(baseline.has_value());
  const std::string disk = slow.loop_name();
  EXPECT_NE(baseline->find("," + disk + ",read,10000,30,122880,30,100.0000,"),
            std::string::npos)
      << *baseline;
  EXPECT_NE(baseline->find("," + disk + ",write,10000,20,163840,20,100.0000,"),
            std::string::npos)
      << *baseline;
  // And back: the round trip is lossless.
  const std::string again = std::string(dir) + "/again.pb";
  ASSERT_EQ(RunCommand({BIOREPORT_BIN, "convert", "--to", "proto", "-o", again,
                        jsonl}),
            0);
  EXPECT_EQ(RunCommand({"cmp", pb, again}), 0);
  RunCommand({"rm", "-rf", dir});
}

}  // namespace
}  // namespace biosnoop::testing
