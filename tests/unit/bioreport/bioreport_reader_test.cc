// bioreport's stream readers: format detection, the JSON parser's rules,
// damage (corrupt records, truncation, gzip cut short), empty input, time
// order of several files, and lossless conversion.

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bioreport_test_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "record_parsers.h"
#include "record_reader.h"
#include "record_writer.h"

namespace biosnoop::report {
namespace {

using google::protobuf::util::MessageDifferencer;
using test_util::GoldenPath;
using test_util::ReadFile;
using test_util::RunCli;

struct ReadResult {
  std::vector<ParsedRecord> records;
  std::vector<std::string> warnings;
  absl::Status status;
  StreamFormat format = StreamFormat::kUnknown;
  bool damaged = false;
  uint64_t skipped = 0;
};

ReadResult ReadBytes(const std::string& data, bool strict = false) {
  ReadResult r;
  ReaderOptions options;
  options.strict = strict;
  options.warn = [&r](absl::string_view w) { r.warnings.emplace_back(w); };
  RecordReader reader("input", MemoryInput(data), options);
  ParsedRecord rec;
  for (;;) {
    absl::StatusOr<bool> got = reader.Next(&rec);
    if (!got.ok()) {
      r.status = got.status();
      break;
    }
    if (!*got) break;
    r.records.push_back(rec);
  }
  r.format = reader.format();
  r.damaged = reader.damaged_end();
  r.skipped = reader.records_skipped();
  return r;
}

std::string ToJsonl(const std::vector<ParsedRecord>& recs) {
  std::string out;
  for (const ParsedRecord& r : recs)
    EXPECT_TRUE(AppendRecordJson(r, &out).ok());
  return out;
}

std::string ToProto(const std::vector<ParsedRecord>& recs) {
  std::string out;
  for (const ParsedRecord& r : recs) AppendRecordProto(r, &out);
  return out;
}

absl::Status ParseLine(const std::string& line, ParsedRecord* rec) {
  JsonRecordParser parser;
  return parser.Parse(line, rec);
}

// tests/golden/events.*: a header, 400 events, 3 stats and 4 summaries.
constexpr size_t kGoldenRecords = 408;

const char kEvent[] =
    R"({"type":"event","timestamp":"2026-11-21T05:44:01.123456789Z",)"
    R"("host":"db-7","disk":"sda","partition":null,"dev":"8:0","op":"read",)"
    R"("rwbs":"R","sector":8,"bytes":4096,"latency_us":15000,)"
    R"("device_us":15000,"queue_us":null,"queue_depth":1,"pid":1,"tid":1,)"
    R"("comm":"dd","error_code":0,"error":null,"seq":1})";

TEST(BioreportDetectTest, FormatsByFirstBytes) {
  EXPECT_EQ(DetectFormat(""), StreamFormat::kEmpty);
  EXPECT_EQ(DetectFormat("{\"type\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("  \n{\"a\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat(std::string("\x05\x12\x03", 3)),
            StreamFormat::kProtobuf);
  EXPECT_EQ(DetectFormat(std::string("\xac\x02\x0a", 3)),
            StreamFormat::kProtobuf);
  EXPECT_EQ(DetectFormat(std::string("{\x12", 2)), StreamFormat::kProtobuf);
  // A summary first (tag 0x22): protobuf, unless the varint is '{' (then
  // "{\"" is a JSON line).
  EXPECT_EQ(DetectFormat(std::string("\x05\x22\x03", 3)),
            StreamFormat::kProtobuf);
  EXPECT_EQ(DetectFormat("{\"type\":\"summary\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("<html>"), StreamFormat::kUnknown);
  EXPECT_EQ(DetectFormat(std::string("\x05\x08", 2)), StreamFormat::kUnknown);
  // Blank lines or a CR before the first JSON line: the protobuf test would
  // read "\r\n" as a 13-byte record with the header's tag (0x0a is '\n').
  EXPECT_EQ(DetectFormat("\r\n{\"type\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("\n\n{\"type\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat(" \n{\"type\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("\t\n{\"type\""), StreamFormat::kJsonLines);
  EXPECT_EQ(DetectFormat("\n\n\n"), StreamFormat::kJsonLines);
}

TEST(BioreportReaderTest, JsonLinesAfterBlankLinesReadWhole) {
  const std::string golden = ReadFile(GoldenPath("events.jsonl"));
  for (const char* lead : {"\r\n", "\n\n", " \n", "\t\n"}) {
    const ReadResult r = ReadBytes(lead + golden);
    EXPECT_EQ(r.format, StreamFormat::kJsonLines) << lead;
    EXPECT_EQ(r.records.size(), kGoldenRecords) << lead;
    EXPECT_EQ(r.skipped, 0u) << lead;
    EXPECT_FALSE(r.damaged) << lead;
  }
  const ReadResult blank = ReadBytes("\n\n\n");
  EXPECT_TRUE(blank.records.empty());
  EXPECT_FALSE(blank.damaged);
  EXPECT_TRUE(blank.warnings.empty());
}

TEST(BioreportReaderTest, ALineOverTheLimitIsRefusedEvenWhenReadWhole) {
  // Memory input fills the buffer as far as asked, so the 1.5 MB line
  // arrives whole (as from a file); a pipe would give it in pieces.
  std::string event = kEvent;
  const std::string long_line = event.replace(
      event.find("\"dd\""), 4, "\"" + std::string(1500000, 'y') + "\"");
  const ReadResult r =
      ReadBytes(absl::StrCat(kEvent, "\n", long_line, "\n", kEvent, "\n"));
  EXPECT_EQ(r.records.size(), 2u);
  EXPECT_EQ(r.skipped, 1u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "input:2: line longer than 1048576 bytes: skipped");
  EXPECT_FALSE(
      ReadBytes(absl::StrCat(kEvent, "\n", long_line, "\n"), true).status.ok());
}

const char kStats[] =
    R"({"type":"stats","timestamp":"2026-11-21T05:44:01Z","elapsed_s":1.5,)"
    R"("completions":9,"emitted":8,"lost":1,"orphans":2,"below_threshold":3,)"
    R"("filtered":4,"decode_errors":5,"expired":6,"written":7,"dropped":10,)"
    R"("final":true,"missed":11,"unfinished":12})";

// The members of a record line after its "type", as written.
std::vector<std::string> MembersAfterType(absl::string_view line) {
  const size_t start = line.find(',') + 1;
  return absl::StrSplit(line.substr(start, line.size() - 1 - start), ',');
}

TEST(BioreportJsonTest, StatsCarryEveryCounter) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kStats, &rec).ok());
  ASSERT_EQ(rec.kind, RecordKind::kStats);
  EXPECT_EQ(rec.stats.lost(), 1u);
  EXPECT_EQ(rec.stats.dropped(), 10u);
  EXPECT_EQ(rec.stats.missed(), 11u);
  EXPECT_EQ(rec.stats.unfinished(), 12u);
  EXPECT_TRUE(rec.stats.final());
}

const char kSummary[] =
    R"({"type":"summary","timestamp":"2026-11-21T05:45:00.000000000Z",)"
    R"("interval_s":60.5,)"
    R"("min_us":10000,"groups":[{"disk":"sda","op":"read","count":7,)"
    R"("bytes":28672,"slow":2,"latency_us_log2":[1,0,0,4,0,2],)"
    R"("size_log2":[0,0,7],"errors":3},{"disk":"vda","op":"flush","count":0,)"
    R"("bytes":0,"slow":0,"latency_us_log2":[],"size_log2":[],"errors":0}]})";

TEST(BioreportJsonTest, SummaryCarriesGroupsAndHistograms) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kSummary, &rec).ok()) << ParseLine(kSummary, &rec);
  ASSERT_EQ(rec.kind, RecordKind::kSummary);
  const v1::Summary& s = rec.summary;
  EXPECT_EQ(s.timestamp().seconds(), 1795239900);
  EXPECT_EQ(s.interval_s(), 60.5);
  EXPECT_EQ(s.min_us(), 10000u);
  ASSERT_EQ(s.groups_size(), 2);
  EXPECT_EQ(s.groups(0).disk(), "sda");
  EXPECT_EQ(s.groups(0).slow(), 2u);
  EXPECT_EQ(std::vector<uint64_t>(s.groups(0).latency_us_log2().begin(),
                                  s.groups(0).latency_us_log2().end()),
            (std::vector<uint64_t>{1, 0, 0, 4, 0, 2}));
  EXPECT_EQ(s.groups(0).size_log2_size(), 3);
  EXPECT_EQ(s.groups(0).errors(), 3u);
  EXPECT_EQ(s.groups(1).op(), "flush");
  EXPECT_EQ(s.groups(1).latency_us_log2_size(), 0);
  // Written back exactly (biosnoop's layout), and the same through protobuf.
  std::string json;
  EXPECT_TRUE(AppendRecordJson(rec, &json).ok());
  EXPECT_EQ(json, std::string(kSummary) + "\n");
  EXPECT_EQ(ToJsonl(ReadBytes(ToProto({rec})).records), json);

  // Any key order, whitespace, unknown keys (also inside a group, and
  // twice); the same reused record.
  ASSERT_TRUE(
      ParseLine(
          R"({ "groups" : [ {"x":{"y":[1]},"x":0,"disk":"a",)"
          R"("size_log2":[],"slow":0,"bytes":0,"count":3,"op":"read",)"
          R"("latency_us_log2":[ 1 , 2 ]} ],"new":1,"type":"summary","min_us":5,)"
          R"("interval_s":1,"timestamp":"2026-11-21T05:45:00Z"})",
          &rec)
          .ok());
  ASSERT_EQ(rec.kind, RecordKind::kSummary);
  ASSERT_EQ(rec.summary.groups_size(), 1);
  EXPECT_EQ(rec.summary.groups(0).disk(), "a");
  EXPECT_EQ(rec.summary.groups(0).latency_us_log2_size(), 2);
  EXPECT_EQ(rec.summary.groups(0).latency_us_log2(1), 2u);
  EXPECT_EQ(rec.summary.min_us(), 5u);
  EXPECT_EQ(rec.summary.interval_s(), 1);
  EXPECT_EQ(rec.summary.timestamp().seconds(), 1795239900);

  // Trailing zero buckets in the input: the same histogram without them,
  // as biosnoop writes it (normalised), through either format.
  ASSERT_TRUE(
      ParseLine(
          R"({"type":"summary","timestamp":"2026-11-21T05:45:00Z","interval_s":1,)"
          R"("min_us":0,"groups":[{"disk":"a","op":"read","count":1,"bytes":0,)"
          R"("slow":0,"latency_us_log2":[1,0,0],"size_log2":[0]}]})",
          &rec)
          .ok());
  json.clear();
  EXPECT_TRUE(AppendRecordJson(rec, &json).ok());
  EXPECT_NE(json.find(R"("latency_us_log2":[1],"size_log2":[])"),
            std::string::npos)
      << json;
  EXPECT_EQ(ToJsonl(ReadBytes(ToProto({rec})).records), json);
}

TEST(BioreportJsonTest, RejectsMalformedSummaries) {
  const std::string base = kSummary;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  std::string long_hist = "[0";
  for (int i = 1; i < 65; ++i) long_hist += ",1";
  long_hist += "]";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with("\"groups\":[", "\"groups\":null,\"x\":["),
       "expected an array of objects"},
      {with("[{\"disk\":\"sda\"", "[1,{\"disk\":\"sda\""),
       "\"groups\": group 1: at column"},
      {with("\"count\":0", "\"count\":-1"), "\"groups\": group 2: \"count\":"},
      {with("[1,0,0,4,0,2]", "[1,0,0,4,0,2.5]"), "\"latency_us_log2\":"},
      {with("[1,0,0,4,0,2]", "[1,0,0,4,0,]"), "\"latency_us_log2\":"},
      {with("[1,0,0,4,0,2]", "[1,0 0]"), "expected ',' or ']'"},
      {with("[1,0,0,4,0,2]", long_hist), "more than 64 histogram buckets"},
      {with("[0,0,7]", "\"7\""), "expected an array of integers"},
      {with("\"interval_s\":60.5", "\"interval_s\":\"60\""), "\"interval_s\":"},
      {with("\"interval_s\":60.5", "\"interval_s\":1e999"), "out of range"},
      // Finite but impossible: summed, they would overflow the report's
      // covered time to inf.
      {with("\"interval_s\":60.5", "\"interval_s\":1e308"),
       "interval_s 1e+308 is not a plausible interval (0 to 100 years)"},
      {with("\"interval_s\":60.5", "\"interval_s\":3155760001"),
       "not a plausible interval"},
      {with("\"interval_s\":60.5", "\"interval_s\":-1"),
       "interval_s -1 is not a plausible interval"},
      {with("}]}", "}]"), "expected ',' or '}'"},
      // A key given twice: which value is meant is unknown.
      {with("\"slow\":2,", "\"slow\":2,\"slow\":3,"),
       "\"groups\": group 1: group with \"slow\" twice"},
      {with("\"min_us\":10000,", "\"min_us\":10000,\"min_us\":1,"),
       "summary with \"min_us\" twice"},
  };
  for (const auto& [line, message_part] : cases) {
    ParsedRecord rec;
    const absl::Status s = ParseLine(line, &rec);
    EXPECT_FALSE(s.ok()) << line;
    EXPECT_NE(s.message().find(message_part), absl::string_view::npos)
        << line << "\n  -> " << s.message();
  }
  // 64 buckets are fine.
  std::string max_hist = "[0";
  for (int i = 1; i < 64; ++i) max_hist += ",1";
  max_hist += "]";
  ParsedRecord rec;
  EXPECT_TRUE(ParseLine(with("[1,0,0,4,0,2]", max_hist), &rec).ok());
  // 0 s (an interval cut short at once) and 100 years are the bounds.
  EXPECT_TRUE(
      ParseLine(with("\"interval_s\":60.5", "\"interval_s\":0"), &rec).ok());
  EXPECT_TRUE(
      ParseLine(with("\"interval_s\":60.5", "\"interval_s\":3155760000"), &rec)
          .ok());
}

TEST(BioreportProtoTest, SummaryRecordsAreValidatedLikeJson) {
  ProtoRecordParser parser;
  ParsedRecord rec;
  v1::Record record;
  v1::Summary* s = record.mutable_summary();
  s->mutable_timestamp()->set_seconds(1795239900);
  s->set_interval_s(1.5);
  v1::SummaryGroup* g = s->add_groups();
  g->set_disk("sda");
  for (int i = 0; i < 64; ++i) g->add_latency_us_log2(i);
  ASSERT_TRUE(parser.Parse(record.SerializeAsString(), &rec).ok());
  ASSERT_EQ(rec.kind, RecordKind::kSummary);
  EXPECT_EQ(rec.summary.groups(0).latency_us_log2_size(), 64);
  g->add_latency_us_log2(1);  // 65 buckets
  absl::Status st = parser.Parse(record.SerializeAsString(), &rec);
  EXPECT_NE(st.message().find("more than 64 buckets"), absl::string_view::npos)
      << st;
  g->mutable_latency_us_log2()->RemoveLast();
  s->set_interval_s(std::numeric_limits<double>::infinity());
  st = parser.Parse(record.SerializeAsString(), &rec);
  EXPECT_NE(st.message().find("interval_s is not a finite number"),
            absl::string_view::npos)
      << st;
  s->set_interval_s(-0.5);
  st = parser.Parse(record.SerializeAsString(), &rec);
  EXPECT_NE(st.message().find("interval_s -0.5 is not a plausible interval"),
            absl::string_view::npos)
      << st;
  s->set_interval_s(1e300);
  EXPECT_FALSE(parser.Parse(record.SerializeAsString(), &rec).ok());
  s->set_interval_s(1);
  s->mutable_timestamp()->set_nanos(-1);
  EXPECT_FALSE(parser.Parse(record.SerializeAsString(), &rec).ok());
}

TEST(BioreportJsonTest, ParsesWhatBiosnoopWrites) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kEvent, &rec).ok());
  EXPECT_EQ(rec.kind, RecordKind::kEvent);
  EXPECT_EQ(rec.event.timestamp().seconds(), 1795239841);
  EXPECT_EQ(rec.event.timestamp().nanos(), 123456789);
  EXPECT_FALSE(rec.event.has_partition());
  EXPECT_FALSE(rec.event.has_queue_us());
  EXPECT_EQ(rec.event.latency_us(), 15000u);
  EXPECT_EQ(rec.event.comm(), "dd");
}

TEST(BioreportJsonTest, EscapesAndSurrogatePairs) {
  ParsedRecord rec;
  std::string line = kEvent;
  line.replace(line.find(R"("comm":"dd")"), 11,
               R"("comm":"a\"\\\/\b\f\n\r\t\u0001\u00e9\ud83d\ude00z")");
  ASSERT_TRUE(ParseLine(line, &rec).ok()) << ParseLine(line, &rec);
  EXPECT_EQ(rec.event.comm(), "a\"\\/\b\f\n\r\t\x01\xc3\xa9\xf0\x9f\x98\x80z");
}

TEST(BioreportJsonTest, KeysInAnyOrderTypeOptionalUnknownKeysSkipped) {
  ParsedRecord rec;
  std::vector<std::string> stats = MembersAfterType(kStats);
  std::reverse(stats.begin(), stats.end());
  const std::string shuffled =
      absl::StrCat("{", absl::StrJoin(stats.begin(), stats.begin() + 6, ","),
                   R"(,"extra":{"a":[1,2,{"b":null}]},"type":"stats",)",
                   absl::StrJoin(stats.begin() + 6, stats.end(), ","), "}");
  ASSERT_TRUE(ParseLine(shuffled, &rec).ok())
      << shuffled << ": " << ParseLine(shuffled, &rec);
  EXPECT_EQ(rec.kind, RecordKind::kStats);
  EXPECT_EQ(rec.stats.lost(), 1u);
  EXPECT_TRUE(rec.stats.final());
  EXPECT_EQ(rec.stats.unfinished(), 12u);
  // No "type": an event, as lines were before typed records; its keys in
  // reverse order.
  std::vector<std::string> members = MembersAfterType(kEvent);
  std::reverse(members.begin(), members.end());
  const std::string untyped = "{" + absl::StrJoin(members, ",") + "}";
  ASSERT_TRUE(ParseLine(untyped, &rec).ok())
      << untyped << ": " << ParseLine(untyped, &rec);
  EXPECT_EQ(rec.kind, RecordKind::kEvent);
  EXPECT_EQ(rec.event.disk(), "sda");
  EXPECT_EQ(rec.event.latency_us(), 15000u);
  // comm_raw is hex; upper case accepted.
  std::string raw = kEvent;
  raw.insert(raw.find(",\"error_code\""), R"(,"comm_raw":"FF00")");
  ASSERT_TRUE(ParseLine(raw, &rec).ok()) << ParseLine(raw, &rec);
  EXPECT_EQ(rec.event.comm_raw(), std::string("\xff\x00", 2));
}

// The line `line` (a record written by biosnoop) once without each of its
// members after "type": (the key left out, the line without it).
std::vector<std::pair<std::string, std::string>> EachMemberLeftOut(
    absl::string_view line) {
  const std::string type(line.substr(0, line.find(',') + 1));
  const std::vector<std::string> members = MembersAfterType(line);
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t drop = 0; drop < members.size(); ++drop) {
    std::vector<std::string> kept = members;
    kept.erase(kept.begin() + drop);
    out.emplace_back(members[drop].substr(1, members[drop].find('"', 1) - 1),
                     type + absl::StrJoin(kept, ",") + "}");
  }
  return out;
}

// An event line cut down by some pipeline is refused, not read with zeros:
// a missing "latency_us" would make slow I/O fast, a missing "error_code"
// a failed I/O clean.  The nullable keys may be absent (absent is null).
TEST(BioreportJsonTest, EventWithoutARequiredKeyIsRefusedByName) {
  const auto cut = EachMemberLeftOut(kEvent);
  ASSERT_EQ(cut.size(), 19u);
  const std::set<std::string> nullable = {"partition", "queue_us", "error"};
  for (const auto& [key, line] : cut) {
    ParsedRecord rec;
    const absl::Status s = ParseLine(line, &rec);
    if (nullable.count(key)) {
      EXPECT_TRUE(s.ok()) << key << ": " << s;
    } else {
      EXPECT_EQ(s.message(), absl::StrCat("event without \"", key, "\""))
          << line;
    }
  }
  // Every missing key is named, in schema order.
  ParsedRecord rec;
  const absl::Status s = ParseLine(R"({"disk":"vda","latency_us":5})", &rec);
  EXPECT_EQ(s.message(),
            "event without \"timestamp\", \"host\", \"dev\", \"op\", \"rwbs\", "
            "\"sector\", \"bytes\", \"device_us\", \"queue_depth\", \"pid\", "
            "\"tid\", \"comm\", \"error_code\", \"seq\"");
  // Present but empty, or the epoch: not biosnoop's either.
  for (const auto& [from, to, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {R"("disk":"sda")", R"("disk":"")", "event with no \"disk\""},
           {R"("op":"read")", R"("op":"")", "event with no \"op\""},
           {"2026-11-21T05:44:01.123456789Z", "1970-01-01T00:00:00Z",
            "event without a timestamp"}}) {
    std::string line = kEvent;
    line.replace(line.find(from), from.size(), to);
    EXPECT_NE(ParseLine(line, &rec).message().find(message), std::string::npos)
        << line << " -> " << ParseLine(line, &rec);
  }
}

// A stats line without a counter would read as no loss: refused the same
// way.  "unfinished" may be absent (biosnoop counted it from a later
// version on; such runs counted none).
TEST(BioreportJsonTest, StatsWithoutACounterIsRefusedByName) {
  const auto cut = EachMemberLeftOut(kStats);
  ASSERT_EQ(cut.size(), 15u);
  for (const auto& [key, line] : cut) {
    ParsedRecord rec;
    const absl::Status s = ParseLine(line, &rec);
    if (key == "unfinished") {
      EXPECT_TRUE(s.ok()) << s;
      EXPECT_EQ(rec.stats.unfinished(), 0u);
    } else {
      EXPECT_EQ(s.message(), absl::StrCat("stats record without \"", key, "\""))
          << line;
    }
  }
  ParsedRecord rec;
  EXPECT_EQ(
      ParseLine(R"({"type":"stats","lost":0,"final":true})", &rec).message(),
      "stats record without \"timestamp\", \"elapsed_s\", \"completions\", "
      "\"emitted\", \"orphans\", \"below_threshold\", \"filtered\", "
      "\"decode_errors\", \"expired\", \"written\", \"dropped\", \"missed\"");
  // Protobuf cannot tell an absent counter from 0; a stats record with no
  // time is still refused.
  JsonRecordParser json;
  ASSERT_TRUE(json.Parse(kStats, &rec).ok());
  v1::Record record;
  *record.mutable_stats() = rec.stats;
  record.mutable_stats()->clear_timestamp();
  ProtoRecordParser proto;
  EXPECT_NE(proto.Parse(record.SerializeAsString(), &rec)
                .message()
                .find("stats record without a timestamp"),
            std::string::npos);
}

// Headers and summaries the same: a header without "boot_id" would merge
// two runs' loss figures, a summary group without "count" shrink a baseline.
TEST(BioreportJsonTest, HeaderSummaryOrGroupWithoutAKeyIsRefusedByName) {
  const std::string golden = ReadFile(GoldenPath("events.jsonl"));
  const std::string header = golden.substr(0, golden.find('\n'));
  ASSERT_EQ(header.rfind(R"({"type":"header",)", 0), 0u);
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(header, &rec).ok());
  const auto cut = EachMemberLeftOut(header);
  ASSERT_EQ(cut.size(), 14u);
  for (const auto& [key, line] : cut) {
    if (key == "stuck_after_us") {
      // Optional: headers before stuck records do not have it (0, off).
      EXPECT_TRUE(ParseLine(line, &rec).ok()) << ParseLine(line, &rec);
      EXPECT_EQ(rec.header.stuck_after_us(), 0u);
      continue;
    }
    EXPECT_EQ(ParseLine(line, &rec).message(),
              absl::StrCat("header without \"", key, "\""))
        << line;
  }
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {R"("interval_s":60.5,)", "", "summary without \"interval_s\""},
      {R"(,"groups":[{"disk":"sda")", R"(,"groupz":[{"disk":"sda")",
       "summary without \"groups\""},
      {R"("op":"read","count":7,)", R"("op":"read",)",
       "\"groups\": group 1: group without \"count\""},
      {R"({"disk":"vda","op":"flush",)", R"({"op":"flush",)",
       "\"groups\": group 2: group without \"disk\""},
      {R"(,"size_log2":[],)", ",",
       "\"groups\": group 2: group without \"size_log2\""},
  };
  for (const Case& c : cases) {
    std::string line = kSummary;
    ASSERT_NE(line.find(c.from), std::string::npos) << c.from;
    line.replace(line.find(c.from), c.from.size(), c.to);
    EXPECT_EQ(ParseLine(line, &rec).message(), c.message) << line;
  }
  // "errors" is optional: streams written before biosnoop counted
  // failures carry none, and read as 0.
  {
    std::string line = kSummary;
    const std::string from = R"(,"errors":3})";
    ASSERT_NE(line.find(from), std::string::npos);
    line.replace(line.find(from), from.size(), "}");
    ASSERT_TRUE(ParseLine(line, &rec).ok()) << line;
    EXPECT_EQ(rec.summary.groups(0).errors(), 0u);
  }
  // An empty group names everything it lacks.
  EXPECT_EQ(ParseLine(R"({"type":"summary","timestamp":"2026-11-21T05:45:00Z",)"
                      R"("interval_s":1,"min_us":0,"groups":[{}]})",
                      &rec)
                .message(),
            "\"groups\": group 1: group without \"disk\", \"op\", \"count\", "
            "\"bytes\", \"slow\", \"latency_us_log2\", \"size_log2\"");
  // Through protobuf: a header with no start_time, a summary with no time.
  ProtoRecordParser proto;
  ASSERT_TRUE(ParseLine(header, &rec).ok());
  v1::Record record;
  *record.mutable_header() = rec.header;
  record.mutable_header()->clear_start_time();
  EXPECT_NE(proto.Parse(record.SerializeAsString(), &rec)
                .message()
                .find("header without a start_time"),
            std::string::npos);
  ASSERT_TRUE(ParseLine(kSummary, &rec).ok());
  *record.mutable_summary() = rec.summary;
  record.mutable_summary()->clear_timestamp();
  EXPECT_NE(proto.Parse(record.SerializeAsString(), &rec)
                .message()
                .find("summary without a timestamp"),
            std::string::npos);
}

// A header of a format this bioreport does not know is refused, in either
// format, rather than read as version 1.
TEST(BioreportJsonTest, HeaderOfAnotherFormatVersionIsRefused) {
  const std::string golden = ReadFile(GoldenPath("events.jsonl"));
  std::string header = golden.substr(0, golden.find('\n'));
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(header, &rec).ok());
  ASSERT_EQ(rec.header.format_version(), 1u);
  v1::Record record;
  *record.mutable_header() = rec.header;
  header.replace(header.find("\"format_version\":1"), 18,
                 "\"format_version\":99");
  EXPECT_EQ(ParseLine(header, &rec).message(),
            "format_version 99 not supported (this bioreport reads 1)");
  ProtoRecordParser proto;
  ASSERT_TRUE(proto.Parse(record.SerializeAsString(), &rec).ok());
  for (uint32_t version : {0u, 2u}) {
    record.mutable_header()->set_format_version(version);
    EXPECT_EQ(proto.Parse(record.SerializeAsString(), &rec).message(),
              absl::StrCat("format_version ", version,
                           " not supported (this bioreport reads 1)"));
  }
}

// The same refusal for protobuf, where an absent field reads as zero or
// empty: an event record with no time, disk, device or operation.
TEST(BioreportProtoTest, EventWithoutTimeDiskOrOperationIsRefused) {
  ProtoRecordParser parser;
  JsonRecordParser json;
  ParsedRecord rec;
  ASSERT_TRUE(json.Parse(kEvent, &rec).ok());
  const v1::Event whole = rec.event;
  const auto parse = [&](const v1::Event& e) {
    v1::Record record;
    *record.mutable_event() = e;
    return parser.Parse(record.SerializeAsString(), &rec);
  };
  ASSERT_TRUE(parse(whole).ok()) << parse(whole);
  EXPECT_EQ(rec.event.latency_us(), 15000u);
  struct Case {
    std::function<void(v1::Event*)> cut;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::Event* e) { e->clear_timestamp(); }, "event without a timestamp"},
      {[](v1::Event* e) { e->clear_disk(); }, "event with no \"disk\""},
      {[](v1::Event* e) { e->clear_dev(); }, "event with no \"dev\""},
      {[](v1::Event* e) { e->clear_op(); }, "event with no \"op\""},
      {[](v1::Event* e) { e->clear_rwbs(); }, "event with no \"rwbs\""},
  };
  for (const Case& c : cases) {
    v1::Event e = whole;
    c.cut(&e);
    const absl::Status s = parse(e);
    EXPECT_NE(s.message().find(c.message), std::string::npos)
        << c.message << " -> " << s;
  }
  // Nullable fields and zeros biosnoop does write are fine.
  v1::Event e = whole;
  e.clear_partition();
  e.clear_queue_us();
  e.set_pid(0);
  e.set_comm("");
  EXPECT_TRUE(parse(e).ok()) << parse(e);
}

TEST(BioreportJsonTest, RejectsMalformedLinesWithAClearMessage) {
  struct Case {
    std::string line;
    std::string message_part;
  };
  const std::string base = kEvent;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<Case> cases = {
      {"", "expected a JSON object"},
      {"{}", "empty object"},
      {"[1]", "expected a JSON object"},
      {base.substr(0, 100), "\"partition\": at column 101: expected a string"},
      {base.substr(0, 96), "unterminated string"},
      {base + " x", "text after the object"},
      {with("\"bytes\":4096", "\"bytes\":4294967296"), "\"bytes\": at column"},
      {with("\"bytes\":4096", "\"bytes\":-1"), "non-negative"},
      {with("\"bytes\":4096", "\"bytes\":1.5"), "expected an integer"},
      {with("\"bytes\":4096", "\"bytes\":012"), "leading zero"},
      {with("\"bytes\":4096", "\"bytes\":\"4096\""), "expected a number"},
      {with("\"comm\":\"dd\"", "\"comm\":\"\\ud83d\""), "low surrogate"},
      {with("\"comm\":\"dd\"", "\"comm\":\"\\ude00\""), "lone low surrogate"},
      {with("\"comm\":\"dd\"", "\"comm\":\"\\x41\""), "invalid escape"},
      {with("\"comm\":\"dd\"", "\"comm\":\"a\x01\""), "control character"},
      {with("\"comm\":\"dd\"", "\"comm\":\"a\xff\""), "not valid UTF-8"},
      {with("\"comm\":\"dd\"", "\"comm\":\"\\u12\""), "4 hex digits"},
      {with("2026-11-21T05:44:01.123456789Z", "2026-13-21T05:44:01Z"),
       "no such date"},
      {with("\"type\":\"event\"", "\"type\":\"bogus\""), "unknown record type"},
      {with("\"seq\":1", "\"seq\":1,\"type\":\"stats\""), "two different"},
      {with("\"partition\":null", "\"partition\":nul"), "expected a string"},
      {R"({"type":"event","comm_raw":"abc"})", "comm_raw is not hex"},
      // A key given twice: which value is meant is unknown.
      {with("\"seq\":1", "\"seq\":1,\"latency_us\":1"),
       "event with \"latency_us\" twice"},
      {with("\"seq\":1", "\"seq\":1,\"type\":\"event\""), "\"type\" twice"},
      // JSON has no space inside a number: "- 5" is not -5.
      {with("\"error_code\":0", "\"error_code\":- 5"),
       "\"error_code\": at column 275: expected a digit after '-'"},
      {with("\"error_code\":0", "\"error_code\":-"),
       "expected a digit after '-'"},
  };
  for (const Case& c : cases) {
    ParsedRecord rec;
    const absl::Status s = ParseLine(c.line, &rec);
    EXPECT_FALSE(s.ok()) << c.line;
    EXPECT_NE(s.message().find(c.message_part), absl::string_view::npos)
        << c.line << "\n  -> " << s.message();
  }
}

TEST(BioreportJsonTest, NegativeIntegers) {
  std::string line = kEvent;
  line.replace(line.find("\"error_code\":0"), 14, "\"error_code\": -5 ");
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(line, &rec).ok()) << ParseLine(line, &rec);
  EXPECT_EQ(rec.event.error_code(), -5);
}

TEST(BioreportReaderTest, EmptyInputIsAnEmptyStream) {
  ReadResult r = ReadBytes("");
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.format, StreamFormat::kEmpty);
  const test_util::CliResult cli = RunCli({"summary", "/dev/null"});
  EXPECT_EQ(cli.code, 0) << cli.err;
  EXPECT_NE(cli.out.find("no events"), std::string::npos) << cli.out;
}

// A read that went on past damage: `records` whole, `skipped` corrupt,
// `warnings` lines said.  False (and a failure) otherwise.
bool ReadPastDamage(const ReadResult& r, size_t records, uint64_t skipped,
                    size_t warnings) {
  EXPECT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.records.size(), records);
  EXPECT_EQ(r.skipped, skipped);
  EXPECT_EQ(r.warnings.size(), warnings);
  return r.status.ok() && r.records.size() == records && r.skipped == skipped &&
         r.warnings.size() == warnings;
}

TEST(BioreportReaderTest, CorruptLineIsReportedWithLineNumberAndSkipped) {
  const std::string data = std::string(kEvent) +
                           "\n{\"type\":\"event\",\"bytes\":x}\n\n" + kEvent +
                           "\n";
  ReadResult r = ReadBytes(data);
  ASSERT_TRUE(ReadPastDamage(r, 2, 1, 1));
  EXPECT_EQ(r.warnings[0].rfind(
                "input:2: corrupt line skipped: \"bytes\": at column", 0),
            0u)
      << r.warnings[0];
  // --strict: an error instead.
  ReadResult strict = ReadBytes(data, /*strict=*/true);
  EXPECT_EQ(strict.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(strict.records.size(), 1u);
}

// A pipeline that cut every line must not bury the report under warnings:
// the first 100 corrupt records of an input are named, then one line says
// more follow; all are counted, and --strict still stops at the first.
TEST(BioreportReaderTest, OnlyTheFirstHundredCorruptRecordsAreNamed) {
  std::string data;
  for (int i = 0; i < 250; ++i)
    absl::StrAppend(&data, R"({"type":"event","x":1})", "\n");
  data += std::string(kEvent) + "\n";
  ReadResult r = ReadBytes(data);
  ASSERT_TRUE(ReadPastDamage(r, 1, 250, 101));
  EXPECT_EQ(
      r.warnings[99].rfind("input:100: corrupt line skipped: event without", 0),
      0u)
      << r.warnings[99];
  EXPECT_EQ(r.warnings[100],
            "input: more corrupt records: only the first 100 are named (the "
            "report's warning block counts them all)");
  ReadResult strict = ReadBytes(data, /*strict=*/true);
  EXPECT_EQ(strict.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(strict.skipped, 1u);
  // The same for protobuf records.
  std::string pb;
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kEvent, &rec).ok());
  v1::Record record;
  *record.mutable_event() = rec.event;
  record.mutable_event()->clear_disk();
  const std::string bad = record.SerializeAsString();
  for (int i = 0; i < 150; ++i) {
    pb.push_back(static_cast<char>(bad.size()));  // < 128: a one-byte varint
    pb += bad;
  }
  ASSERT_LT(bad.size(), 128u);
  r = ReadBytes(pb);
  ASSERT_TRUE(ReadPastDamage(r, 0, 150, 101));
  EXPECT_NE(r.warnings[100].find("only the first 100 are named"),
            std::string::npos);
}

TEST(BioreportReaderTest, TruncatedJsonLinesYieldEveryWholeLine) {
  const std::string golden = ReadFile(GoldenPath("events.jsonl"));
  const ReadResult whole = ReadBytes(golden);
  ASSERT_TRUE(whole.status.ok());
  ASSERT_EQ(whole.records.size(), kGoldenRecords);
  for (size_t cut :
       {size_t{1}, size_t{200}, golden.size() / 2, golden.size() - 2}) {
    const std::string data = golden.substr(0, cut);
    const size_t line_start =
        data.rfind('\n') == std::string::npos ? 0 : data.rfind('\n') + 1;
    const size_t whole_lines = std::count(data.begin(), data.end(), '\n');
    ReadResult r = ReadBytes(data);
    EXPECT_TRUE(r.status.ok());
    EXPECT_EQ(r.records.size(), whole_lines) << cut;
    EXPECT_TRUE(r.damaged);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find(absl::StrCat("at byte offset ", line_start)),
              std::string::npos)
        << r.warnings[0];
  }
  // Only the final newline missing: the last record is whole.
  ReadResult r = ReadBytes(golden.substr(0, golden.size() - 1));
  EXPECT_EQ(r.records.size(), kGoldenRecords);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(BioreportReaderTest, TruncatedProtobufYieldsEveryWholeRecord) {
  const std::string golden = ReadFile(GoldenPath("events.pb"));
  const ReadResult whole = ReadBytes(golden);
  ASSERT_TRUE(whole.status.ok());
  ASSERT_EQ(whole.records.size(), kGoldenRecords);
  // Record boundaries, from the framing.
  std::vector<size_t> ends;
  for (size_t pos = 0; pos < golden.size();) {
    uint64_t len = 0;
    int shift = 0;
    size_t i = pos;
    for (;; shift += 7) {
      const auto b = static_cast<unsigned char>(golden[i++]);
      len |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    pos = i + len;
    ends.push_back(pos);
  }
  ASSERT_EQ(ends.size(), kGoldenRecords);
  for (size_t cut :
       {ends[0] + 1, ends[10] + 5, ends[200] - 1, golden.size() - 1}) {
    const size_t whole_records =
        std::upper_bound(ends.begin(), ends.end(), cut) - ends.begin();
    const size_t partial_start =
        whole_records == 0 ? 0 : ends[whole_records - 1];
    ReadResult r = ReadBytes(golden.substr(0, cut));
    EXPECT_TRUE(r.status.ok());
    EXPECT_EQ(r.records.size(), whole_records);
    EXPECT_TRUE(r.damaged);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(
        r.warnings[0].find(absl::StrCat("at byte offset ", partial_start)),
        std::string::npos)
        << r.warnings[0];
    // The records are the stream's first ones, intact.
    for (size_t k = 0; k < r.records.size(); ++k) {
      ASSERT_TRUE(MessageDifferencer::Equals(r.records[k].event,
                                             whole.records[k].event));
    }
  }
}

TEST(BioreportReaderTest, CorruptProtobufRecordIsSkippedAndBadLengthStops) {
  const std::string golden = ReadFile(GoldenPath("events.pb"));
  std::string data = golden;
  // Record 2 (after the header): overwrite its first payload byte (the
  // Record tag) with an invalid wire type; its length stays right.
  const size_t header_len = 1 + static_cast<unsigned char>(data[0]);
  data[header_len + 1] = '\x0f';
  ReadResult r = ReadBytes(data);
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.records.size(), kGoldenRecords - 1);
  EXPECT_EQ(r.skipped, 1u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find(
                absl::StrCat("byte ", header_len, ": corrupt record 2")),
            std::string::npos)
      << r.warnings[0];

  // An impossible length: the framing is lost, the rest is not read.
  std::string bad = golden.substr(0, header_len) +
                    std::string("\xff\xff\xff\x7f", 4) +
                    golden.substr(header_len);
  r = ReadBytes(bad);
  EXPECT_EQ(r.records.size(), 1u);
  EXPECT_TRUE(r.damaged);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("implausible record length"), std::string::npos);
}

TEST(BioreportReaderTest, GzipIsDetectedByMagicIncludingConcatenatedMembers) {
  const std::string jsonl = ReadFile(GoldenPath("events.jsonl"));
  const std::string pb = ReadFile(GoldenPath("events.pb"));
  for (const std::string* plain : {&jsonl, &pb}) {
    const ReadResult want = ReadBytes(*plain);
    ReadResult gz = ReadBytes(test_util::Gzip(*plain));
    ASSERT_TRUE(gz.status.ok());
    EXPECT_EQ(ToProto(gz.records), ToProto(want.records));
    // Two members: `cat a.gz b.gz`.
    const size_t half =
        plain == &jsonl ? jsonl.find('\n', jsonl.size() / 2) + 1 : 0;
    if (half > 0) {
      ReadResult two = ReadBytes(test_util::Gzip(plain->substr(0, half)) +
                                 test_util::Gzip(plain->substr(half)));
      EXPECT_EQ(ToProto(two.records), ToProto(want.records));
      EXPECT_TRUE(two.warnings.empty());
    }
    // A .gz cut short: what was decompressed is still read, with warnings.
    const std::string gzipped = test_util::Gzip(*plain);
    ReadResult cut = ReadBytes(gzipped.substr(0, gzipped.size() / 2));
    EXPECT_TRUE(cut.status.ok());
    EXPECT_GT(cut.records.size(), 10u);
    EXPECT_LT(cut.records.size(), kGoldenRecords);
    EXPECT_TRUE(cut.damaged);
    ASSERT_FALSE(cut.warnings.empty());
    EXPECT_NE(cut.warnings[0].find("gzip data ends mid-stream"),
              std::string::npos)
        << cut.warnings[0];
  }
}

// After the last member: zero bytes (padding, which gzip -d ignores too)
// are nothing; other bytes are reported as what they are, not as a record
// cut short.
TEST(BioreportReaderTest, GzipTrailingZerosAreIgnoredOtherBytesNamed) {
  const std::string jsonl = ReadFile(GoldenPath("events.jsonl"));
  const std::string gz = test_util::Gzip(jsonl);
  ReadResult padded = ReadBytes(gz + std::string(4, '\0'));
  ASSERT_TRUE(ReadPastDamage(padded, kGoldenRecords, 0, 0));
  EXPECT_FALSE(padded.damaged);
  // Padding between members too.
  const size_t half = jsonl.find('\n', jsonl.size() / 2) + 1;
  padded =
      ReadBytes(test_util::Gzip(jsonl.substr(0, half)) +
                std::string(512, '\0') + test_util::Gzip(jsonl.substr(half)));
  ASSERT_TRUE(ReadPastDamage(padded, kGoldenRecords, 0, 0));

  ReadResult garbage = ReadBytes(gz + std::string("\0\0junk\n", 7));
  ASSERT_TRUE(ReadPastDamage(garbage, kGoldenRecords, 0, 1));
  EXPECT_TRUE(garbage.damaged);
  EXPECT_EQ(
      garbage.warnings[0],
      absl::StrCat("input: the bytes after the gzip data, from compressed "
                   "byte ",
                   gz.size() + 2, ", are not gzip: ignored"));
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("x.gz"), gz + "junk");
  const test_util::CliResult r = RunCli({"summary", dir.Path("x.gz")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(dir.Path("x.gz") +
                       " has bytes after its gzip data that are not gzip "
                       "(ignored)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("ends inside a record"), std::string::npos) << r.out;
}

TEST(BioreportReaderTest, RoundTripsAreLossless) {
  const std::string jsonl = ReadFile(GoldenPath("events.jsonl"));
  const std::string pb = ReadFile(GoldenPath("events.pb"));
  const ReadResult from_jsonl = ReadBytes(jsonl);
  const ReadResult from_pb = ReadBytes(pb);
  // Same records either way; each converts to exactly the other file.
  EXPECT_EQ(ToJsonl(from_pb.records), jsonl);
  EXPECT_EQ(ToProto(from_jsonl.records), pb);
  EXPECT_EQ(ToJsonl(ReadBytes(ToProto(from_jsonl.records)).records), jsonl);
  EXPECT_EQ(ToProto(ReadBytes(ToJsonl(from_pb.records)).records), pb);
}

TEST(BioreportReaderTest, SeveralFilesAreReadInTimeOrder) {
  test_util::TempDir dir;
  const std::string jsonl = ReadFile(GoldenPath("events.jsonl"));
  const std::vector<std::string> lines =
      absl::StrSplit(jsonl, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), kGoldenRecords);
  // Rotated: .2.gz oldest, then .1 (protobuf), then the live file.
  std::string part2, part1, part0;
  for (size_t i = 0; i < lines.size(); ++i) {
    (i < 100 ? part2 : i < 300 ? part1 : part0) += lines[i] + "\n";
  }
  const ReadResult p1 = ReadBytes(part1);
  test_util::WriteFile(dir.Path("slow.jsonl.2.gz"), test_util::Gzip(part2));
  test_util::WriteFile(dir.Path("slow.jsonl.1"), ToProto(p1.records));
  test_util::WriteFile(dir.Path("slow.jsonl"), part0);
  const test_util::CliResult r =
      RunCli({"convert", "--to", "jsonl", "-o", dir.Path("all.jsonl"),
              dir.Path("slow.jsonl"), dir.Path("slow.jsonl.2.gz"),
              dir.Path("slow.jsonl.1")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(dir.Path("all.jsonl")), jsonl);
}

}  // namespace
}  // namespace biosnoop::report
