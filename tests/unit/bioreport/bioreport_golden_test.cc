// Golden-file tests: each report form on the fixed event set in
// tests/golden (events.jsonl and the same stream as events.pb, both written
// by `bioreport_gen --events 400 --seed 7 --stats-every 150
// --summary-every 100 --lost 3`; see docs/bioreport.md), compared byte for
// byte with tests/golden/expected/*.txt.
//
// To regenerate the expected files after an intended change:
//   BIOREPORT_UPDATE_GOLDEN=1 build/tests/unit/bioreport_tests
//   --gtest_filter='*BioreportGolden*'
// then review the diff.

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::GoldenPath;
using test_util::ReadFile;
using test_util::RunCli;

struct GoldenCase {
  const char* name;               // expected/<name>.txt
  std::vector<std::string> args;  // before the input file
};

const GoldenCase kCases[] = {
    {"summary", {"summary"}},
    {"summary_ms", {"summary", "-m"}},
    {"summary_filtered",
     {"summary", "--disk", "nvme0n1", "--op", "read", "--min-us", "20000",
      "--since", "2026-11-21T05:00:01.1Z", "--until",
      "2026-11-21T05:00:01.4Z"}},
    {"hist_us", {"hist"}},
    {"hist_ms", {"hist", "-m"}},
    {"hist_per_disk", {"hist", "-D"}},
    {"hist_disk_op", {"hist", "--by", "disk-op"}},
    {"csv", {"csv"}},
    {"json", {"json", "--tail-us", "50000"}},
    {"top", {"top", "--top", "5"}},
    {"sizes", {"sizes"}},
    {"errors", {"errors"}},
    {"baseline", {"baseline"}},
    {"baseline_per_interval", {"baseline", "--per-interval", "-m"}},
    {"baseline_filtered",
     {"baseline", "--disk", "nvme0n1", "--op", "read", "--since",
      "2026-11-21T05:00:01.1Z", "--until", "2026-11-21T05:00:01.3Z"}},
    {"baseline_csv", {"baseline", "--csv"}},
    {"baseline_json",
     {"baseline", "--json", "--per-interval", "--op", "flush"}},
    // The heat map's documents, byte for byte (deterministic: diffable).
    {"heatmap_by_disk", {"heatmap", "--by", "disk"}},
    {"heatmap_html",
     {"heatmap", "--html", "--bucket", "100ms", "--op", "read", "--since",
      "2026-11-21T05:00:01Z"}},
};

class BioreportGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(BioreportGoldenTest, MatchesExpectedOutput) {
  const GoldenCase& c = GetParam();
  const std::string expected_path =
      GoldenPath(std::string("expected/") + c.name + ".txt");
  for (const char* input : {"events.jsonl", "events.pb"}) {
    SCOPED_TRACE(input);
    std::vector<std::string> args = c.args;
    args.push_back(GoldenPath(input));
    const CliResult r = RunCli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    // The one place the format shows: the headings and JSON.
    const std::string out = absl::StrReplaceAll(
        r.out, {{"(proto)", "(jsonl)"},
                {"\"formats\":\"proto\"", "\"formats\":\"jsonl\""}});
    if (std::getenv("BIOREPORT_UPDATE_GOLDEN") != nullptr) {
      test_util::WriteFile(expected_path, out);
      continue;
    }
    EXPECT_EQ(out, ReadFile(expected_path)) << "bioreport " << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, BioreportGoldenTest,
                         ::testing::ValuesIn(kCases), [](const auto& info) {
                           return std::string(info.param.name);
                         });

// Conversion is lossless: each fixture converts to exactly the other.
TEST(BioreportGoldenConvert, JsonlAndProtoConvertToEachOther) {
  test_util::TempDir dir;
  const CliResult to_proto =
      RunCli({"convert", "--to", "proto", "-o", dir.Path("out.pb"),
              GoldenPath("events.jsonl")});
  ASSERT_EQ(to_proto.code, 0) << to_proto.err;
  EXPECT_EQ(ReadFile(dir.Path("out.pb")), ReadFile(GoldenPath("events.pb")));
  const CliResult to_jsonl =
      RunCli({"convert", "--to", "jsonl", "-o", dir.Path("out.jsonl"),
              GoldenPath("events.pb")});
  ASSERT_EQ(to_jsonl.code, 0) << to_jsonl.err;
  EXPECT_EQ(ReadFile(dir.Path("out.jsonl")),
            ReadFile(GoldenPath("events.jsonl")));
}

// biosnoop's own stream (tests/golden/stream/, written by its sinks from
// every record kind, calls and attribution included; stream_golden_test.cc):
// its protobuf form converts to exactly its JSON Lines form, and the JSON
// Lines form to protobuf and back to itself.  (bioreport's protobuf is
// the library's serialisation, so it is compared through JSON Lines.)
TEST(BioreportGoldenConvert, BiosnoopsOwnStreamConvertsLosslessly) {
  test_util::TempDir dir;
  const std::string jsonl = GoldenPath("stream/stream.jsonl");
  const CliResult from_pb =
      RunCli({"convert", "--to", "jsonl", "-o", dir.Path("from_pb.jsonl"),
              GoldenPath("stream/stream.pb")});
  ASSERT_EQ(from_pb.code, 0) << from_pb.err;
  EXPECT_EQ(ReadFile(dir.Path("from_pb.jsonl")), ReadFile(jsonl));
  const CliResult to_pb =
      RunCli({"convert", "--to", "proto", "-o", dir.Path("out.pb"), jsonl});
  ASSERT_EQ(to_pb.code, 0) << to_pb.err;
  const CliResult back = RunCli({"convert", "--to", "jsonl", "-o",
                                 dir.Path("back.jsonl"), dir.Path("out.pb")});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(ReadFile(dir.Path("back.jsonl")), ReadFile(jsonl));
}

}  // namespace
}  // namespace biosnoop::report
