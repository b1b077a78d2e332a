// Stuck records (requests biosnoop found still in flight past
// --stuck-after) in bioreport: both readers accept them and refuse damaged
// ones as strictly as events; convert round-trips them and the header's
// stuck_after_us byte for byte; the reports show them in their own section
// and never count them as events.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"
#include "record_parsers.h"
#include "record_reader.h"
#include "record_writer.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::ReadFile;
using test_util::RunCli;
using test_util::TempDir;
using test_util::WriteFile;

// Exactly as biosnoop writes them.
const char kStuck[] =
    R"({"type":"stuck","timestamp":"2026-11-24T23:40:01.123456789Z",)"
    R"("host":"db7","disk":"loop3","partition":null,"dev":"7:3","op":"read",)"
    R"("rwbs":"R","sector":2048,"bytes":4096,"inflight_us":1500123,)"
    R"("queue_us":3,"queue_depth":1,"pid":4242,"tid":4243,"comm":"dd"})";

// A partition, no queue time, and a comm with an invalid byte (U+FFFD in
// comm, the raw bytes in comm_raw).
const char kStuckRaw[] =
    R"({"type":"stuck","timestamp":"2026-11-24T23:40:02.000000000Z",)"
    R"("host":"db7","disk":"vda","partition":"vda1","dev":"253:0",)"
    R"("op":"write","rwbs":"WS","sector":4096,"bytes":8192,)"
    R"("inflight_us":2500000,"queue_us":null,"queue_depth":3,"pid":77,)"
    "\"tid\":78,\"comm\":\"pg\xef\xbf\xbd\",\"comm_raw\":\"7067ff\"}";

const char kHeader[] =
    R"({"type":"header","format_version":1,"host":"db7","boot_id":"b-1",)"
    R"("start_time":"2026-11-24T23:40:00.000000000Z",)"
    R"("biosnoop_version":"0.2.0","kernel_release":"6.18.0","min_us":10000,)"
    R"("queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"",)"
    R"("op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000})";

std::string EventLine(const std::string& time, const std::string& disk,
                      int seq) {
  return absl::StrCat(
      R"({"type":"event","timestamp":")", time, R"(","host":"db7","disk":")",
      disk,
      R"(","partition":null,"dev":"7:3","op":"read","rwbs":"R",)"
      R"("sector":64,"bytes":4096,"latency_us":20000,"device_us":20000,)"
      R"("queue_us":5,"queue_depth":1,"pid":1,"tid":1,"comm":"dd",)"
      R"("error_code":0,"error":null,"seq":)",
      seq, "}");
}

const char kFinalStats[] =
    R"({"type":"stats","timestamp":"2026-11-24T23:40:04.000000000Z",)"
    R"("elapsed_s":4,"completions":10,"emitted":2,"lost":0,"orphans":0,)"
    R"("below_threshold":8,"filtered":0,"decode_errors":0,"expired":0,)"
    R"("written":2,"dropped":0,"final":true,"missed":0,"unfinished":0})";

// A whole run: its two events (seq 1 and 2) with both stuck records
// between them, as biosnoop writes them.
std::string Stream() {
  return absl::StrJoin({std::string(kHeader),
                        EventLine("2026-11-24T23:40:00.500000000Z", "loop3", 1),
                        std::string(kStuck), std::string(kStuckRaw),
                        EventLine("2026-11-24T23:40:03.000000000Z", "loop3", 2),
                        std::string(kFinalStats)},
                       "\n") +
         "\n";
}

absl::Status ParseLine(const std::string& line, ParsedRecord* rec) {
  JsonRecordParser parser;
  return parser.Parse(line, rec);
}

std::string ToJson(const ParsedRecord& rec) {
  std::string out;
  EXPECT_TRUE(AppendRecordJson(rec, &out).ok());
  return out;
}

std::string ToProto(const ParsedRecord& rec) {
  std::string out;
  AppendRecordProto(rec, &out);
  return out;
}

// `line` with `from` (which must be there) replaced by `to`.
std::string With(std::string line, const std::string& from,
                 const std::string& to) {
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) line.replace(at, from.size(), to);
  return line;
}

// The records of a whole stream, through the reader.
std::vector<ParsedRecord> ReadAll(const std::string& data,
                                  std::vector<std::string>* warnings) {
  ReaderOptions options;
  options.warn = [warnings](absl::string_view w) { warnings->emplace_back(w); };
  RecordReader reader("input", MemoryInput(data), options);
  std::vector<ParsedRecord> out;
  ParsedRecord rec;
  for (;;) {
    absl::StatusOr<bool> got = reader.Next(&rec);
    if (!got.ok() || !*got) break;
    out.push_back(rec);
  }
  return out;
}

TEST(BioreportStuckTest, JsonReadsWhatBiosnoopWritesAndWritesItBack) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kStuck, &rec).ok()) << ParseLine(kStuck, &rec);
  ASSERT_EQ(rec.kind, RecordKind::kStuck);
  const v1::Stuck& k = rec.stuck;
  EXPECT_EQ(k.timestamp().seconds(), 1795563601);
  EXPECT_EQ(k.timestamp().nanos(), 123456789);
  EXPECT_EQ(k.host(), "db7");
  EXPECT_EQ(k.disk(), "loop3");
  EXPECT_FALSE(k.has_partition());
  EXPECT_EQ(k.dev(), "7:3");
  EXPECT_EQ(k.op(), "read");
  EXPECT_EQ(k.rwbs(), "R");
  EXPECT_EQ(k.sector(), 2048u);
  EXPECT_EQ(k.bytes(), 4096u);
  EXPECT_EQ(k.inflight_us(), 1500123u);
  ASSERT_TRUE(k.has_queue_us());
  EXPECT_EQ(k.queue_us(), 3u);
  EXPECT_EQ(k.queue_depth(), 1u);
  EXPECT_EQ(k.pid(), 4242u);
  EXPECT_EQ(k.tid(), 4243u);
  EXPECT_EQ(k.comm(), "dd");
  EXPECT_FALSE(k.has_comm_raw());
  EXPECT_EQ(ToJson(rec), std::string(kStuck) + "\n");

  ASSERT_TRUE(ParseLine(kStuckRaw, &rec).ok()) << ParseLine(kStuckRaw, &rec);
  ASSERT_EQ(rec.kind, RecordKind::kStuck);
  EXPECT_EQ(rec.stuck.partition(), "vda1");
  EXPECT_FALSE(rec.stuck.has_queue_us());
  EXPECT_EQ(rec.stuck.comm_raw(), "pg\xff");
  EXPECT_EQ(ToJson(rec), std::string(kStuckRaw) + "\n");

  // Keys in another order, "type" last, an unknown key: read the same.
  ParsedRecord shuffled;
  const std::string reordered = absl::StrCat(
      R"({"comm":"dd","new_field":[1,{"a":null}],"pid":4242,"tid":4243,)"
      R"("queue_depth":1,"queue_us":3,"inflight_us":1500123,"bytes":4096,)"
      R"("sector":2048,"rwbs":"R","op":"read","dev":"7:3","disk":"loop3",)"
      R"("host":"db7","timestamp":"2026-11-24T23:40:01.123456789Z",)"
      R"("type":"stuck"})");
  ASSERT_TRUE(ParseLine(reordered, &shuffled).ok())
      << ParseLine(reordered, &shuffled);
  EXPECT_EQ(ToJson(shuffled), std::string(kStuck) + "\n");
}

// A stuck line cut down by some pipeline is refused, as an event is: a
// missing "inflight_us" would say the request had just been issued.  The
// nullable keys (partition, queue_us, comm_raw) may be absent.
TEST(BioreportStuckTest, JsonWithoutARequiredKeyIsRefusedByName) {
  const std::string line = kStuck;
  const size_t start = line.find(',') + 1;
  const std::vector<std::string> members =
      absl::StrSplit(line.substr(start, line.size() - 1 - start), ',');
  ASSERT_EQ(members.size(), 15u);
  for (size_t drop = 0; drop < members.size(); ++drop) {
    std::vector<std::string> kept = members;
    kept.erase(kept.begin() + drop);
    const std::string key =
        members[drop].substr(1, members[drop].find('"', 1) - 1);
    const std::string cut =
        absl::StrCat(R"({"type":"stuck",)", absl::StrJoin(kept, ","), "}");
    ParsedRecord rec;
    const absl::Status s = ParseLine(cut, &rec);
    if (key == "partition" || key == "queue_us") {
      EXPECT_TRUE(s.ok()) << key << ": " << s;
    } else {
      EXPECT_EQ(s.message(), absl::StrCat("stuck record without \"", key, "\""))
          << cut;
    }
  }
  ParsedRecord rec;
  EXPECT_EQ(ParseLine(R"({"type":"stuck","disk":"vda","inflight_us":5})", &rec)
                .message(),
            "stuck record without \"timestamp\", \"host\", \"dev\", \"op\", "
            "\"rwbs\", \"sector\", \"bytes\", \"queue_depth\", \"pid\", "
            "\"tid\", \"comm\"");
  // Present but empty, or the epoch: not biosnoop's either.
  EXPECT_EQ(ParseLine(With(kStuck, R"("disk":"loop3")", R"("disk":"")"), &rec)
                .message(),
            "stuck record with no \"disk\"");
  EXPECT_EQ(
      ParseLine(With(kStuck, R"("rwbs":"R")", R"("rwbs":"")"), &rec).message(),
      "stuck record with no \"rwbs\"");
  EXPECT_NE(ParseLine(With(kStuck, "2026-11-24T23:40:01.123456789Z",
                           "1970-01-01T00:00:00Z"),
                      &rec)
                .message()
                .find("stuck record without a timestamp"),
            std::string::npos);
}

TEST(BioreportStuckTest, JsonMalformedValuesAndDuplicateKeysAreRefused) {
  struct Case {
    std::string from, to, message_part;
  };
  const std::vector<Case> cases = {
      {R"("inflight_us":1500123)", R"("inflight_us":1500123,"inflight_us":1)",
       "stuck record with \"inflight_us\" twice"},
      {R"("comm":"dd")", R"("comm":"dd","comm":"x")",
       "stuck record with \"comm\" twice"},
      {R"("type":"stuck",)", R"("type":"stuck","type":"stuck",)",
       "\"type\" twice"},
      {R"("type":"stuck",)", R"("type":"stuck","type":"event",)",
       "two different \"type\" values"},
      {R"("inflight_us":1500123)", R"("inflight_us":"1500123")",
       "\"inflight_us\": "},
      {R"("inflight_us":1500123)", R"("inflight_us":-1)", "\"inflight_us\": "},
      {R"("inflight_us":1500123)", R"("inflight_us":1.5)", "\"inflight_us\": "},
      {R"("inflight_us":1500123)", R"("inflight_us":null)",
       "\"inflight_us\": "},
      {R"("bytes":4096)", R"("bytes":4294967296)", "\"bytes\": "},
      {R"("pid":4242)", R"("pid":true)", "\"pid\": "},
      {R"("comm":"dd")", R"("comm":5)", "\"comm\": "},
      {R"("comm":"dd")", "\"comm\":\"d\xff\"", "\"comm\": "},
      {R"("partition":null)", R"("partition":7)", "\"partition\": "},
      {R"("comm":"dd")", R"("comm":"dd","comm_raw":"7g")",
       "comm_raw is not hex digit pairs"},
      {"2026-11-24T23:40:01.123456789Z", "2026-11-24T25:40:01Z",
       "\"timestamp\": "},
      {"2026-11-24T23:40:01.123456789Z", "2262-04-12T00:00:00Z",
       "\"timestamp\": "},
      {R"("type":"stuck")", R"("type":"stuk")", "unknown record type"},
  };
  for (const Case& c : cases) {
    const std::string line = With(kStuck, c.from, c.to);
    ParsedRecord rec;
    const absl::Status s = ParseLine(line, &rec);
    EXPECT_FALSE(s.ok()) << line;
    EXPECT_NE(s.message().find(c.message_part), std::string::npos)
        << line << " -> " << s;
  }
  // Trailing text after the object.
  ParsedRecord rec;
  EXPECT_FALSE(ParseLine(std::string(kStuck) + "x", &rec).ok());
}

TEST(BioreportStuckTest, ProtoReadsTheSameRecord) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kStuckRaw, &rec).ok());
  const v1::Stuck whole = rec.stuck;
  ProtoRecordParser parser;
  // The framing biosnoop writes: Record field 5, tag 0x2a.
  std::string framed = ToProto(rec);
  ASSERT_GE(framed.size(), 3u);
  v1::Record record;
  *record.mutable_stuck() = whole;
  const std::string bytes = record.SerializeAsString();
  ASSERT_EQ(static_cast<unsigned char>(bytes[0]), 0x2a);
  EXPECT_EQ(framed.substr(framed.size() - bytes.size()), bytes);
  ParsedRecord back;
  ASSERT_TRUE(parser.Parse(bytes, &back).ok()) << parser.Parse(bytes, &back);
  ASSERT_EQ(back.kind, RecordKind::kStuck);
  EXPECT_EQ(back.stuck.SerializeAsString(), whole.SerializeAsString());
  EXPECT_EQ(ToJson(back), std::string(kStuckRaw) + "\n");
  // The general path (a Record that is not one member alone): an unknown
  // field before the member.
  const std::string general = std::string("\xf8\x07\x01", 3) + bytes;
  ASSERT_TRUE(parser.Parse(general, &back).ok())
      << parser.Parse(general, &back);
  EXPECT_EQ(back.kind, RecordKind::kStuck);
  EXPECT_EQ(ToJson(back), std::string(kStuckRaw) + "\n");
}

// Protobuf cannot tell an absent field from a zero or empty one: a stuck
// record with no time, disk, device, op or rwbs is refused, as an event.
TEST(BioreportStuckTest, ProtoWithoutTimeDiskOrOperationOrCorruptIsRefused) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kStuck, &rec).ok());
  const v1::Stuck whole = rec.stuck;
  ProtoRecordParser parser;
  const auto parse = [&](const v1::Stuck& k) {
    v1::Record record;
    *record.mutable_stuck() = k;
    return parser.Parse(record.SerializeAsString(), &rec);
  };
  ASSERT_TRUE(parse(whole).ok());
  const std::vector<std::pair<void (*)(v1::Stuck*), std::string>> cases = {
      {[](v1::Stuck* k) { k->clear_timestamp(); },
       "stuck record without a timestamp"},
      {[](v1::Stuck* k) { k->clear_disk(); }, "stuck record with no \"disk\""},
      {[](v1::Stuck* k) { k->clear_dev(); }, "stuck record with no \"dev\""},
      {[](v1::Stuck* k) { k->clear_op(); }, "stuck record with no \"op\""},
      {[](v1::Stuck* k) { k->clear_rwbs(); }, "stuck record with no \"rwbs\""},
      {[](v1::Stuck* k) { k->mutable_timestamp()->set_nanos(-1); },
       "timestamp: "},
  };
  for (const auto& [cut, message] : cases) {
    v1::Stuck k = whole;
    cut(&k);
    const absl::Status s = parse(k);
    EXPECT_NE(s.message().find(message), std::string::npos)
        << message << " -> " << s;
  }
  // Bytes that do not parse: a member cut short inside a string.
  v1::Record record;
  *record.mutable_stuck() = whole;
  std::string bytes = record.SerializeAsString();
  bytes[1] = static_cast<char>(bytes[1] + 5);  // the member claims more
  EXPECT_FALSE(parser.Parse(bytes, &rec).ok());
  const std::string cut = record.SerializeAsString().substr(0, 20);
  EXPECT_FALSE(parser.Parse(cut, &rec).ok());
}

TEST(BioreportStuckTest, TruncatedProtobufStreamYieldsTheWholeRecords) {
  std::vector<std::string> warnings;
  const std::vector<ParsedRecord> recs = ReadAll(Stream(), &warnings);
  ASSERT_EQ(recs.size(), 6u) << absl::StrJoin(warnings, "\n");
  std::string proto;
  for (const ParsedRecord& r : recs) AppendRecordProto(r, &proto);
  // A stream that starts with a stuck record is protobuf too.
  EXPECT_EQ(DetectFormat(ToProto(recs[2])), StreamFormat::kProtobuf);
  // Cut inside the first stuck record (the third record).
  const size_t before_stuck = ToProto(recs[0]).size() + ToProto(recs[1]).size();
  warnings.clear();
  const std::vector<ParsedRecord> cut =
      ReadAll(proto.substr(0, before_stuck + 10), &warnings);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[1].kind, RecordKind::kEvent);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("truncated"), std::string::npos) << warnings[0];
}

TEST(BioreportStuckTest, HeaderStuckAfterIsReadAndOptional) {
  ParsedRecord rec;
  ASSERT_TRUE(ParseLine(kHeader, &rec).ok()) << ParseLine(kHeader, &rec);
  EXPECT_EQ(rec.header.stuck_after_us(), 1000000u);
  EXPECT_EQ(ToJson(rec), std::string(kHeader) + "\n");
  // A header of a biosnoop from before stuck records: read, stuck_after_us
  // 0 (off); written back with the 0, as biosnoop writes it now.
  const std::string old_header =
      With(kHeader, R"(,"stuck_after_us":1000000})", "}");
  ASSERT_TRUE(ParseLine(old_header, &rec).ok()) << ParseLine(old_header, &rec);
  EXPECT_EQ(rec.header.stuck_after_us(), 0u);
  EXPECT_EQ(ToJson(rec), With(kHeader, R"("stuck_after_us":1000000)",
                              R"("stuck_after_us":0)") +
                             "\n");
  // Given, it is checked like any other field.
  EXPECT_NE(ParseLine(With(kHeader, "1000000}", "\"1s\"}"), &rec)
                .message()
                .find("\"stuck_after_us\": "),
            std::string::npos);
  EXPECT_EQ(
      ParseLine(With(kHeader, "1000000}", "1,\"stuck_after_us\":2}"), &rec)
          .message(),
      "header with \"stuck_after_us\" twice");
}

// JSON Lines -> protobuf -> JSON Lines gives the same bytes, for a stream
// with stuck records and a header with stuck_after_us; the protobuf has
// the stuck records as Record field 5.
TEST(BioreportStuckTest, ConvertRoundTripIsByteIdentical) {
  TempDir dir;
  const std::string jsonl = Stream();
  WriteFile(dir.Path("in.jsonl"), jsonl);
  const CliResult to_proto = RunCli({"convert", "--to", "proto", "-o",
                                     dir.Path("out.pb"), dir.Path("in.jsonl")});
  ASSERT_EQ(to_proto.code, 0) << to_proto.err;
  const std::string pb = ReadFile(dir.Path("out.pb"));
  std::vector<std::string> warnings;
  const std::vector<ParsedRecord> recs = ReadAll(pb, &warnings);
  ASSERT_EQ(recs.size(), 6u);
  EXPECT_EQ(recs[0].header.stuck_after_us(), 1000000u);
  EXPECT_EQ(recs[2].kind, RecordKind::kStuck);
  EXPECT_EQ(recs[3].kind, RecordKind::kStuck);
  EXPECT_EQ(recs[3].stuck.comm_raw(), "pg\xff");
  const CliResult back = RunCli({"convert", "--to", "jsonl", "-o",
                                 dir.Path("back.jsonl"), dir.Path("out.pb")});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(ReadFile(dir.Path("back.jsonl")), jsonl);
  // And protobuf -> protobuf is the same bytes.
  const CliResult again = RunCli({"convert", "--to", "proto", "-o",
                                  dir.Path("again.pb"), dir.Path("out.pb")});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(ReadFile(dir.Path("again.pb")), pb);

  // The filters select stuck records as events (but --min-us).
  const CliResult vda =
      RunCli({"convert", "--to", "jsonl", "--disk", "vda1", "--min-us",
              "999999999", "-o", dir.Path("vda.jsonl"), dir.Path("in.jsonl")});
  ASSERT_EQ(vda.code, 0) << vda.err;
  EXPECT_EQ(ReadFile(dir.Path("vda.jsonl")),
            absl::StrCat(kHeader, "\n", kStuckRaw, "\n", kFinalStats, "\n"));
}

// The reader at 3 a.m.: the summary says at once that a disk hung, and
// stuck records never count as events or as missing events.
TEST(BioreportStuckTest, SummaryShowsTheSectionAndCountsNoStuckAsEvent) {
  TempDir dir;
  WriteFile(dir.Path("in.jsonl"), Stream());
  const CliResult r = RunCli({"summary", dir.Path("in.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("records: 6, events: 2, stuck requests: 2\n"),
            std::string::npos)
      << r.out;
  const std::string section =
      "STUCK: 2 requests still in flight after 1 s (--stuck-after), on 2 "
      "disks (not events: a request that completed later is also an event)\n"
      "\n"
      "disk   stuck  max_inflight_us  first (UTC)              last (UTC)\n"
      "loop3      1          1500123  2026-11-24 23:40:01.123  2026-11-24 "
      "23:40:01.123\n"
      "vda        1          2500000  2026-11-24 23:40:02.000  2026-11-24 "
      "23:40:02.000\n"
      "\n"
      "longest in flight:\n"
      "found (UTC)              disk   op     sector    bytes  inflight_us   "
      "pid  comm\n"
      "2026-11-24 23:40:02.000  vda    write    4096  8.0 KiB      2500000    "
      "77  pg\xef\xbf\xbd\n"
      "2026-11-24 23:40:01.123  loop3  read     2048  4.0 KiB      1500123  "
      "4242  dd\n"
      "\n";
  EXPECT_NE(r.out.find(section), std::string::npos) << r.out;
  // Before the latency table, whose rows count the two events only.
  EXPECT_LT(r.out.find("STUCK:"), r.out.find("mean_us"));
  EXPECT_NE(r.out.find("\nall    all       2  8.0 KiB   20000"),
            std::string::npos)
      << r.out;

  // Without them, the same report but the section and the count.
  std::string no_stuck = Stream();
  for (const char* line : {kStuck, kStuckRaw}) {
    no_stuck = With(no_stuck, std::string(line) + "\n", "");
  }
  WriteFile(dir.Path("plain.jsonl"), no_stuck);
  const CliResult plain = RunCli({"summary", dir.Path("plain.jsonl")});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("STUCK"), std::string::npos);
  std::string expected = With(r.out, section, "");
  expected = With(expected, "records: 6, events: 2, stuck requests: 2",
                  "records: 4, events: 2");
  EXPECT_EQ(plain.out, expected);

  // In milliseconds with -m.
  const CliResult ms = RunCli({"summary", "-m", dir.Path("in.jsonl")});
  EXPECT_NE(ms.out.find("max_inflight_ms"), std::string::npos) << ms.out;
  EXPECT_NE(ms.out.find("  2500.0  "), std::string::npos) << ms.out;
}

TEST(BioreportStuckTest, JsonReportCarriesThemApartFromEvents) {
  TempDir dir;
  WriteFile(dir.Path("in.jsonl"), Stream());
  const CliResult r = RunCli({"json", dir.Path("in.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(R"("records":6,)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("events":2,)"), std::string::npos) << r.out;
  // The events' numbers are whole: stuck records have none and take none.
  EXPECT_NE(r.out.find(R"("not_in_input":0,"before_input":0,)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"("loss_known":true,)"), std::string::npos) << r.out;
  const std::string stuck =
      R"("stuck":{"requests":2,"stuck_after_us":[1000000],"disks":[)"
      R"({"disk":"loop3","count":1,"max_inflight_us":1500123,)"
      R"("first":"2026-11-24T23:40:01.123456789Z",)"
      R"("last":"2026-11-24T23:40:01.123456789Z"},)"
      R"({"disk":"vda","count":1,"max_inflight_us":2500000,)"
      R"("first":"2026-11-24T23:40:02.000000000Z",)"
      R"("last":"2026-11-24T23:40:02.000000000Z"}],"longest":[)"
      R"({"timestamp":"2026-11-24T23:40:02.000000000Z","host":"db7",)"
      R"("disk":"vda","partition":"vda1","op":"write","sector":4096,)"
      R"("bytes":8192,"inflight_us":2500000,"pid":77,"tid":78,)"
      "\"comm\":\"pg\xef\xbf\xbd\"},"
      R"({"timestamp":"2026-11-24T23:40:01.123456789Z","host":"db7",)"
      R"("disk":"loop3","partition":null,"op":"read","sector":2048,)"
      R"("bytes":4096,"inflight_us":1500123,"pid":4242,"tid":4243,)"
      R"("comm":"dd"}]}})"
      "\n";
  ASSERT_GE(r.out.size(), stuck.size());
  EXPECT_EQ(r.out.substr(r.out.size() - stuck.size()), stuck) << r.out;
}

TEST(BioreportStuckTest, EventFiltersSelectStuckRecordsButMinUs) {
  TempDir dir;
  WriteFile(dir.Path("in.jsonl"), Stream());
  const std::string in = dir.Path("in.jsonl");
  const auto requests = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "json");
    args.push_back(in);
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const size_t at = r.out.find(R"("stuck":{"requests":)");
    if (at == std::string::npos) return std::string("none");
    const size_t from = at + 20;
    return r.out.substr(from, r.out.find(',', from) - from);
  };
  EXPECT_EQ(requests({}), "2");
  EXPECT_EQ(requests({"--disk", "loop3"}), "1");
  EXPECT_EQ(requests({"--disk", "vda1"}), "1");  // the partition
  EXPECT_EQ(requests({"--disk", "vda2"}), "0");
  EXPECT_EQ(requests({"--op", "write"}), "1");
  EXPECT_EQ(requests({"--pid", "4242"}), "1");
  EXPECT_EQ(requests({"--comm", "dd"}), "1");
  EXPECT_EQ(requests({"--since", "2026-11-24T23:40:01.5Z"}), "1");
  EXPECT_EQ(requests({"--until", "2026-11-24T23:40:01.123456789Z"}), "0");
  EXPECT_EQ(requests({"--until", "2026-11-24T23:40:01.12345679Z"}), "1");
  // Not by latency: they have none (their requests have not completed).
  EXPECT_EQ(requests({"--min-us", "999999999"}), "2");
}

// The other text forms say in one line that requests hung, and point to
// the summary; without stuck records they say nothing.
TEST(BioreportStuckTest, OtherTextFormsCarryANotice) {
  TempDir dir;
  WriteFile(dir.Path("in.jsonl"), Stream());
  const std::string notice =
      "STUCK: 2 requests still in flight after 1 s (--stuck-after) on loop3, "
      "vda, the longest for 2.5 s (bioreport summary lists them)\n\n";
  for (const char* form : {"hist", "top", "sizes", "errors"}) {
    const CliResult r = RunCli({form, dir.Path("in.jsonl")});
    ASSERT_EQ(r.code, 0) << form << ": " << r.err;
    EXPECT_EQ(r.out.rfind(notice, 0), 0u) << form << ":\n" << r.out;
  }
  const CliResult errors = RunCli({"errors", dir.Path("in.jsonl")});
  EXPECT_NE(errors.out.find("no I/O errors in 2 events"), std::string::npos)
      << errors.out;
  const CliResult filtered =
      RunCli({"hist", "--disk", "sdz", dir.Path("in.jsonl")});
  EXPECT_EQ(filtered.out.find("STUCK"), std::string::npos) << filtered.out;
}

}  // namespace
}  // namespace biosnoop::report
