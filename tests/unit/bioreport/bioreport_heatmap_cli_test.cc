// `bioreport heatmap` on the command line: its options and their usage
// errors, the same document from either format, -o under convert's rule,
// filters and the warnings.

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::GoldenPath;
using test_util::ReadFile;
using test_util::RunCli;

TEST(BioreportHeatmapCliTest, BadUsageExits64WithOneLine) {
  const std::string in = GoldenPath("events.jsonl");
  const std::vector<std::vector<std::string>> cases = {
      {"summary", "--html", in},
      {"hist", "--columns", "10", in},
      {"top", "--bucket", "1s", in},
      {"summary", "-o", "/tmp/x.svg", in},
      {"heatmap", "--to", "proto", in},
      {"heatmap", "--columns", "0", in},
      {"heatmap", "--columns", "2001", in},
      {"heatmap", "--columns", "10", "--bucket", "1s", in},
      {"heatmap", "--bucket", "1s", "--columns", "10", in},
      {"heatmap", "--bucket", "fast", in},
      {"heatmap", "--bucket", "-1s", in},
      {"heatmap", "--bucket", "0", in},
      {"heatmap", "--bucket", "100ns", in},
      {"heatmap", "--by", "host", in},
      {"heatmap", "--by", "op", "-D", in},
      // Valid, but too many columns for the span: known after reading.
      {"heatmap", "--bucket", "100us", in},
  };
  for (const auto& args : cases) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 64) << args[1] << " " << args[2] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("bioreport: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_TRUE(
      absl::StrContains(RunCli({"heatmap", "--bucket", "100us", in}).err,
                        "--bucket 100us gives more than 2000 columns"));
}

// The same stream in both formats gives the same bytes, and so does a
// second run: the document can be diffed and golden-tested.
TEST(BioreportHeatmapCliTest, SameDocumentFromEitherFormat) {
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{
           {},
           {"--html"},
           {"--by", "disk,op"},
           {"--by", "op", "--columns", "40"}}) {
    std::vector<std::string> a = {"heatmap"};
    a.insert(a.end(), extra.begin(), extra.end());
    std::vector<std::string> b = a;
    a.push_back(GoldenPath("events.jsonl"));
    b.push_back(GoldenPath("events.pb"));
    const CliResult ra = RunCli(a), rb = RunCli(b);
    ASSERT_EQ(ra.code, 0) << ra.err;
    ASSERT_EQ(rb.code, 0) << rb.err;
    EXPECT_EQ(ra.out, rb.out);
    EXPECT_EQ(ra.out, RunCli(a).out);
    // The golden stream reports 3 lost events: on stderr and in the map.
    EXPECT_TRUE(absl::StrContains(ra.err, "3 events lost in the kernel"));
    EXPECT_TRUE(
        absl::StrContains(ra.out, "WARNING: 3 events lost in the kernel"));
  }
  const CliResult html =
      RunCli({"heatmap", "--html", GoldenPath("events.jsonl")});
  EXPECT_TRUE(absl::StartsWith(html.out, "<!DOCTYPE html>"));
  EXPECT_TRUE(absl::EndsWith(html.out, "</html>\n"));
  const CliResult svg = RunCli({"heatmap", GoldenPath("events.jsonl")});
  EXPECT_TRUE(absl::StartsWith(svg.out, "<?xml"));
  EXPECT_TRUE(absl::StrContains(svg.out, "400 events"));
  EXPECT_TRUE(absl::StrContains(svg.out, "from the summary records"));
}

TEST(BioreportHeatmapCliTest, FiltersSelectTheEvents) {
  const CliResult r = RunCli({"heatmap", "--by", "disk", "--disk", "sda",
                              "--op", "read", GoldenPath("events.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "disk sda ("));
  EXPECT_FALSE(absl::StrContains(r.out, "disk vdb"));
  // The window sets the time axis, whatever the events.
  const CliResult w =
      RunCli({"heatmap", "--since", "2026-11-21T04:00:00Z", "--until",
              "2026-11-21T06:00:00Z", GoldenPath("events.jsonl")});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_TRUE(absl::StrContains(
      w.out, "11-21 04:00 .. 11-21 06:00 UTC, 120 columns of 1m"))
      << w.out.substr(0, 800);
}

// The golden stream with its header's threshold set to 0: every I/O is an
// event, and the title says so ("latency", not "slow I/O"), unless --min-us
// selects the slow ones again.
TEST(BioreportHeatmapCliTest, TitleSaysSlowOnlyWithAThreshold) {
  test_util::TempDir dir;
  std::string stream = ReadFile(GoldenPath("events.jsonl"));
  const size_t at = stream.find("\"min_us\":10000");
  ASSERT_LT(at, stream.find('\n'));  // the header's
  stream.replace(at, std::string("\"min_us\":10000").size(), "\"min_us\":0");
  test_util::WriteFile(dir.Path("all.jsonl"), stream);
  const CliResult all = RunCli({"heatmap", dir.Path("all.jsonl")});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_TRUE(absl::StrContains(all.out, "<title>I/O latency heat map: db7<"));
  EXPECT_FALSE(absl::StrContains(all.out, "Slow"));
  const CliResult slow =
      RunCli({"heatmap", "--min-us", "10000", dir.Path("all.jsonl")});
  ASSERT_EQ(slow.code, 0) << slow.err;
  EXPECT_TRUE(
      absl::StrContains(slow.out, "<title>Slow I/O latency heat map: db7<"));
  // The golden stream's own threshold, 10 ms.
  EXPECT_TRUE(
      absl::StrContains(RunCli({"heatmap", GoldenPath("events.jsonl")}).out,
                        "<title>Slow I/O latency heat map: db7<"));
}

TEST(BioreportHeatmapCliTest, NoEventsIsAnEmptyMapNotAnError) {
  const CliResult r =
      RunCli({"heatmap", "--disk", "nosuchdisk", GoldenPath("events.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "no events in the selection"));
}

TEST(BioreportHeatmapCliTest, OutputFollowsConvertsRule) {
  test_util::TempDir dir;
  const std::string in = GoldenPath("events.jsonl");
  const CliResult ok =
      RunCli({"heatmap", "--html", "-o", dir.Path("map.html"), in});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(ok.out.empty());
  EXPECT_EQ(ReadFile(dir.Path("map.html")),
            RunCli({"heatmap", "--html", in}).out);
  // Not over an existing file, not into a directory.
  const CliResult again =
      RunCli({"heatmap", "--html", "-o", dir.Path("map.html"), in});
  EXPECT_EQ(again.code, 64);
  EXPECT_TRUE(absl::StrContains(again.err, "exists and is not empty"));
  mkdir(dir.Path("d").c_str(), 0700);
  const CliResult into_dir = RunCli({"heatmap", "-o", dir.Path("d"), in});
  EXPECT_EQ(into_dir.code, 73) << into_dir.err;
}

}  // namespace
}  // namespace biosnoop::report
