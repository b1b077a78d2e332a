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

#include <cstdio>
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

// Every golden stream, converted to either format, is byte for byte that
// format's golden: bioreport writes each record as biosnoop did (events.*
// from an earlier version, without completion_context, stay without).
TEST(BioreportGoldenConvert, EveryGoldenConvertsByteIdentically) {
  test_util::TempDir dir;
  const struct {
    const char* jsonl;
    const char* pb;
  } kGoldens[] = {{"events.jsonl", "events.pb"},
                  {"stream/stream.jsonl", "stream/stream.pb"}};
  for (const auto& g : kGoldens) {
    for (const char* from : {g.jsonl, g.pb}) {
      for (const char* to : {"jsonl", "proto"}) {
        SCOPED_TRACE(std::string(from) + " to " + to);
        const std::string out = dir.Path("out");
        std::remove(out.c_str());
        const CliResult r =
            RunCli({"convert", "--to", to, "-o", out, GoldenPath(from)});
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(
            ReadFile(out),
            ReadFile(GoldenPath(std::string(to) == "jsonl" ? g.jsonl : g.pb)));
      }
    }
  }
}

// A record biosnoop could not have written is refused: one line naming the
// input, the record and the field, exit 65 as for other bad data.
TEST(BioreportGoldenConvert, RecordBiosnoopCannotWriteIsRefused) {
  test_util::TempDir dir;
  std::vector<std::string> lines = test_util::GoldenLines();
  const std::string key = R"("op":")";
  const size_t at = lines[2].find(key);  // the third record, an event
  ASSERT_NE(at, std::string::npos) << lines[2];
  const size_t end = lines[2].find('"', at + key.size());
  lines[2].replace(at + key.size(), end - at - key.size(), "s6");
  std::string data;
  for (const std::string& l : lines) data += l + "\n";
  const std::string in = dir.Path("bad.jsonl");
  test_util::WriteFile(in, data);
  const CliResult r =
      RunCli({"convert", "--to", "jsonl", "-o", dir.Path("out"), in});
  EXPECT_EQ(r.code, 65);
  EXPECT_EQ(r.err, "bioreport: " + in +
                       ": record 3 (event): op \"s6\" is not an operation "
                       "biosnoop writes\n");
  // To protobuf the record is its own bytes: nothing to refuse.
  const CliResult pb =
      RunCli({"convert", "--to", "proto", "-o", dir.Path("out.pb"), in});
  EXPECT_EQ(pb.code, 0) << pb.err;
}

}  // namespace
}  // namespace biosnoop::report
