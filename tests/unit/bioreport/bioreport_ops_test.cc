// bioreport and calls (biosnoop --ops, issue #29): op records and the op
// fields of events, stuck records, dirtiers, headers and stats, read from
// JSON Lines with the parser's usual strictness and from protobuf (written
// here with the generated classes), converted losslessly both ways; the
// `ops` report, `--op-id` and the op records' loss figures.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "bioreport_test_util.h"
#include "biosnoop.pb.h"
#include "every_field_op_line.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "record_parsers.h"
#include "record_writer.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::ReadFile;
using test_util::RunCli;
using test_util::TempDir;
using test_util::WriteFile;

std::string Header(const std::string& run_id, const std::string& ops) {
  return absl::StrCat(
      R"({"type":"header","format_version":1,"host":"db7","boot_id":"b","start_time":"2026-11-25T16:00:00.000000000Z","biosnoop_version":"0.1.0","kernel_release":"6.18.0","min_us":10000,"queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"","op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000,"run_id":")",
      run_id, R"(")", ops, "}");
}
const char kOpsOn[] = R"(,"ops":true,"op_min_us":10000)";

struct Layer {
  uint64_t wait_us = 0;
  uint32_t requests = 0;
  std::string ages = R"("dirty_age_us_max":null,"dirty_age_us_min":null)";
  uint32_t known = 0;
  std::string culprits = "[]";
};

// biosnoop names the disks of the block layer only (`block`).
std::string LayerJson(const Layer& l, bool block) {
  return absl::StrCat(
      R"({"requests":)", l.requests, R"(,"bytes":)", l.requests * 4096,
      R"(,"disks":)", block && l.requests > 0 ? R"(["loop0"])" : "[]",
      R"(,"queue_us_sum":)", l.requests * 10, R"(,"queue_us_max":)",
      l.requests > 0 ? 10 : 0, R"(,"device_us_sum":)", l.wait_us,
      R"(,"device_us_max":)", l.wait_us, R"(,"wait_us":)", l.wait_us, ",",
      l.ages, R"(,"dirty_known":)", l.known, R"(,"culprits":)", l.culprits,
      "}");
}

constexpr char kNoError[] = R"("error_code":0,"error":null)";

struct Call {
  uint64_t id = 1;
  std::string call = "write";
  uint32_t pid = 812;
  std::string comm = "dd";
  std::string path = "/mnt/data/f";
  std::string returned;  // seconds and fraction after 16:01:
  std::string started;
  uint64_t latency_us = 0;
  Layer block, writeback, journal, flush, others;
  uint64_t throttle_us = 0;  // one bio's wait, when not 0
  std::string error = kNoError;
  std::string offset = "0";
};

// An op record as biosnoop writes it (schema order, "type" first).
std::string OpLine(const Call& c) {
  return absl::StrCat(
      R"({"type":"op","timestamp":"2026-11-25T16:01:)", c.returned,
      R"(Z","host":"db7","op_id":)", c.id, R"(,"call":")", c.call,
      R"(","pid":)", c.pid, R"(,"tid":)", c.pid, R"(,"comm":")", c.comm,
      R"(","cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null,)"
      R"("file":{"path":")",
      c.path,
      R"(","path_kind":"absolute","inode":12,"dev":"7:0","direct":false},)"
      R"("disk":"loop0","partition":null,"offset":)",
      c.offset, R"(,"bytes_requested":4096,"bytes_requested_partial":false,)",
      // A call's result: the bytes done, or an error.
      R"("bytes_done":)", c.error == kNoError ? 4096 : 0, ",", c.error,
      R"(,"start_time":"2026-11-25T16:01:)", c.started, R"(Z","latency_us":)",
      c.latency_us, R"(,"block":)", LayerJson(c.block, true),
      R"(,"writeback":)", LayerJson(c.writeback, false), R"(,"other_us":)",
      c.latency_us - c.block.wait_us - c.writeback.wait_us - c.journal.wait_us -
          c.flush.wait_us - c.others.wait_us - c.throttle_us,
      R"(,"journal":)", LayerJson(c.journal, false), R"(,"flush":)",
      LayerJson(c.flush, false), R"(,"others_writeback":)",
      LayerJson(c.others, false),
      // Throttle: bios, with no device or queue time.
      R"(,"throttle":{"requests":)", c.throttle_us > 0 ? 1 : 0, R"(,"bytes":)",
      c.throttle_us > 0 ? 4096 : 0,
      R"(,"disks":[],"queue_us_sum":0,"queue_us_max":0,"device_us_sum":0,)"
      R"("device_us_max":0,"wait_us":)",
      c.throttle_us,
      R"(,"dirty_age_us_max":null,"dirty_age_us_min":null,"dirty_known":0,)"
      R"("culprits":[]},"throttle_controllers":[]})");
}

// An event line; `tail` after completion_context (attribution, op keys).
std::string EventLine(
    int seq, const std::string& time, const std::string& op,
    uint64_t latency_us, const std::string& tail,
    const std::string& error = R"("error_code":0,"error":null)") {
  return absl::StrCat(
      R"({"type":"event","timestamp":"2026-11-25T16:01:)", time,
      R"(Z","host":"db7","disk":"loop0","partition":null,"dev":"7:0","op":")",
      op, R"(","rwbs":")",
      op == "read"    ? "R"
      : op == "flush" ? "F"
                      : "W",
      R"(","sector":)", seq * 8, R"(,"bytes":4096,"latency_us":)", latency_us,
      R"(,"device_us":)", latency_us,
      R"(,"queue_us":1,"queue_depth":1,"pid":77,"tid":78,)",
      R"("comm":"kworker/u8:2",)", error, R"(,"seq":)", seq,
      R"(,"cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null,)"
      R"("completion_context":"softirq")",
      tail, "}");
}

// A page-cache write's attribution, dirtied by dd under call `op_id`.
std::string Dirtied(uint64_t op_id) {
  return absl::StrCat(
      R"(,"content":"file","files":[{"path":"/mnt/data/f","path_kind":"absolute","inode":12,"dev":"7:0","direct":false}],"file_count":1,"files_incomplete":false,"dirtied_by":{"pid":812,"tid":812,"comm":"dd","cgroup":"/","cgroup_id":1,"dirtied_at":"2026-11-25T16:01:00.470000000Z","op_id":)",
      op_id, R"(},"dirtier_count":1)");
}

std::string Stats(const std::string& ops) {
  return absl::StrCat(
      R"({"type":"stats","timestamp":"2026-11-25T16:01:12.000000000Z","elapsed_s":72,"completions":60,"emitted":6,"lost":0,"orphans":0,"below_threshold":54,"filtered":0,"decode_errors":0,"expired":0,"written":6,"dropped":0,"final":true,"missed":0,"unfinished":0,"run_id":"aaaa000000000001")",
      ops, "}");
}

// The calls of the fixture:
//   7   write    dd 812        /mnt/data/f      40 ms: 30 ms writeback
//   9   fsync    dd 812        /mnt/data/f      90 ms: 70 ms block, 8 ms
//                                                  journal and 4 ms flush
//                                                  (jbd2's), 5 ms others'
//                                                  writeback (batch's pages)
//   12  pread64  postgres 900  /var/lib/pg/1    25 ms: 24 ms block, EIO
//   13  read     postgres 900  /var/lib/pg/1    15 ms: 14 ms block
// and the events: 1 writes back call 7's pages (and call 3's, fast), 2
// and 3 are call 9's, 4 call 12's, 5 a fast call's (5, no record), 6
// writes back call 5's pages; a stuck request of call 9.
std::vector<Call> Calls() {
  Call w;
  w.id = 7;
  w.returned = "00.500000000";
  w.started = "00.460000000";
  w.latency_us = 40000;
  w.writeback = {30000, 2,
                 R"("dirty_age_us_max":1500000,"dirty_age_us_min":900000)", 2};
  Call f;
  f.id = 9;
  f.call = "fsync";
  f.returned = "06.030000000";
  f.started = "05.940000000";
  f.latency_us = 90000;
  f.block = {70000, 3};
  f.offset = "null";
  const std::string kNoAges = Layer().ages;
  f.journal = {8000, 1, kNoAges, 0,
               R"([{"pid":412,"comm":"jbd2/loop0-8","cgroup":"/",)"
               R"("cgroup_id":1,"container_id":null,"pod_uid":null,)"
               R"("role":"submitter","requests":1,"bytes":4096,)"
               R"("wait_us":8000}])"};
  f.flush = {4000, 1, kNoAges, 0,
             R"([{"pid":412,"comm":"jbd2/loop0-8","cgroup":"/",)"
             R"("cgroup_id":1,"container_id":null,"pod_uid":null,)"
             R"("role":"submitter","requests":1,"bytes":4096,)"
             R"("wait_us":4000}])"};
  f.others = {5000, 2, kNoAges, 0,
              R"([{"pid":1500,"comm":"batch","cgroup":"/batch.slice",)"
              R"("cgroup_id":77,"container_id":null,"pod_uid":null,)"
              R"("role":"dirtier","requests":1,"bytes":4096,)"
              R"("wait_us":5000},{"pid":31,"comm":"kworker/u8:0",)"
              R"("role":"submitter","requests":1,"bytes":4096,)"
              R"("wait_us":1000}])"};
  Call p;
  p.id = 12;
  p.call = "pread64";
  p.pid = 900;
  p.comm = "postgres";
  p.path = "/var/lib/pg/1";
  p.returned = "07.001000000";
  p.started = "06.976000000";
  p.latency_us = 25000;
  p.block = {24000, 1};
  p.error = R"("error_code":5,"error":"EIO")";
  Call r = p;
  r.id = 13;
  r.call = "read";
  r.returned = "08.000000000";
  r.started = "07.985000000";
  r.latency_us = 15000;
  r.block = {14000, 1};
  r.error = R"("error_code":0,"error":null)";
  return {w, f, p, r};
}

std::string Stream() {
  const std::vector<Call> c = Calls();
  return absl::StrJoin(
             std::vector<std::string>{
                 Header("aaaa000000000001", kOpsOn), OpLine(c[0]),
                 EventLine(
                     1, "05.000000000", "write", 30000,
                     Dirtied(7) +
                         R"(,"dirtier_op_ids":[7,3],"dirtier_op_count":2)"),
                 EventLine(2, "06.000000000", "write", 50000, R"(,"op_id":9)"),
                 EventLine(3, "06.020000000", "flush", 20000, R"(,"op_id":9)"),
                 OpLine(c[1]),
                 EventLine(4, "07.000000000", "read", 24000, R"(,"op_id":12)",
                           R"("error_code":5,"error":"EIO")"),
                 OpLine(c[2]), OpLine(c[3]),
                 EventLine(5, "09.000000000", "read", 12000, R"(,"op_id":5)"),
                 EventLine(6, "10.000000000", "write", 11000,
                           Dirtied(5) +
                               R"(,"dirtier_op_ids":[5],"dirtier_op_count":1)"),
                 R"({"type":"stuck","timestamp":"2026-11-25T16:01:11.000000000Z","host":"db7","disk":"loop0","partition":null,"dev":"7:0","op":"write","rwbs":"WS","sector":800,"bytes":4096,"inflight_us":1500000,"queue_us":3,"queue_depth":1,"pid":812,"tid":812,"comm":"dd","cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null,"op_id":9})",
                 Stats(R"(,"ops_lost":2,"ops_written":4,"ops_untracked":1)")},
             "\n") +
         "\n";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

absl::Status Parse(const std::string& line, ParsedRecord* rec) {
  JsonRecordParser parser;
  return parser.Parse(line, rec);
}

TEST(BioreportOpsReaderTest, ParsesOpRecordsAndTheOpFieldsOfOtherRecords) {
  const std::vector<std::string> lines = Lines(Stream());
  ParsedRecord rec;
  ASSERT_TRUE(Parse(lines[1], &rec).ok()) << Parse(lines[1], &rec);
  ASSERT_EQ(rec.kind, RecordKind::kOp);
  const v1::Op& op = rec.op;
  EXPECT_EQ(op.op_id(), 7u);
  EXPECT_EQ(op.call(), "write");
  EXPECT_EQ(op.pid(), 812u);
  EXPECT_EQ(op.comm(), "dd");
  EXPECT_EQ(op.cgroup(), "/");
  EXPECT_FALSE(op.has_container_id());
  EXPECT_EQ(op.file().path(), "/mnt/data/f");
  EXPECT_EQ(op.file().inode(), 12u);
  EXPECT_EQ(op.disk(), "loop0");
  EXPECT_FALSE(op.has_partition());
  ASSERT_TRUE(op.has_offset());
  EXPECT_EQ(op.offset(), 0u);
  EXPECT_EQ(op.latency_us(), 40000u);
  EXPECT_EQ(ToNs(op.start_time()) + 40'000'000, ToNs(op.timestamp()));
  EXPECT_EQ(op.writeback().wait_us(), 30000u);
  EXPECT_EQ(op.writeback().requests(), 2u);
  EXPECT_EQ(op.writeback().disks_size(), 0);  // biosnoop names none
  EXPECT_EQ(op.writeback().dirty_age_us_max(), 1500000u);
  EXPECT_EQ(op.writeback().dirty_age_us_min(), 900000u);
  EXPECT_EQ(op.writeback().dirty_known(), 2u);
  EXPECT_FALSE(op.block().has_dirty_age_us_max());
  EXPECT_EQ(op.other_us(), 10000u);

  // fsync: no offset (null); the journal, flush and others' writeback it
  // waited for, and whose requests they were.
  ASSERT_TRUE(Parse(lines[5], &rec).ok()) << Parse(lines[5], &rec);
  EXPECT_EQ(rec.op.call(), "fsync");
  EXPECT_FALSE(rec.op.has_offset());
  EXPECT_EQ(rec.op.journal().wait_us(), 8000u);
  EXPECT_EQ(rec.op.flush().requests(), 1u);
  EXPECT_EQ(rec.op.others_writeback().wait_us(), 5000u);
  EXPECT_EQ(rec.op.other_us(), 3000u);
  EXPECT_EQ(rec.op.block().culprits_size(), 0);
  ASSERT_EQ(rec.op.journal().culprits_size(), 1);
  EXPECT_EQ(rec.op.journal().culprits(0).comm(), "jbd2/loop0-8");
  EXPECT_EQ(rec.op.journal().culprits(0).role(), "submitter");
  ASSERT_EQ(rec.op.others_writeback().culprits_size(), 2);
  const v1::OpCulprit& batch = rec.op.others_writeback().culprits(0);
  EXPECT_EQ(batch.pid(), 1500u);
  EXPECT_EQ(batch.cgroup(), "/batch.slice");
  EXPECT_EQ(batch.cgroup_id(), 77u);
  EXPECT_FALSE(batch.has_container_id());
  EXPECT_EQ(batch.role(), "dirtier");
  EXPECT_EQ(batch.wait_us(), 5000u);
  // No cgroup id: none of its keys, read as unset.
  const v1::OpCulprit& kworker = rec.op.others_writeback().culprits(1);
  EXPECT_FALSE(kworker.has_cgroup());
  EXPECT_EQ(kworker.cgroup_id(), 0u);

  // The events' calls, a dirtier's call.
  ASSERT_TRUE(Parse(lines[2], &rec).ok());
  EXPECT_EQ(rec.event.op_id(), 0u);
  EXPECT_EQ(std::vector<uint64_t>(rec.event.dirtier_op_ids().begin(),
                                  rec.event.dirtier_op_ids().end()),
            (std::vector<uint64_t>{7, 3}));
  EXPECT_EQ(rec.event.dirtier_op_count(), 2u);
  EXPECT_EQ(rec.event.dirtied_by().op_id(), 7u);
  ASSERT_TRUE(Parse(lines[3], &rec).ok());
  EXPECT_EQ(rec.event.op_id(), 9u);
  EXPECT_EQ(rec.event.dirtier_op_ids_size(), 0);

  // Header, stuck record and stats.
  ASSERT_TRUE(Parse(lines[0], &rec).ok());
  EXPECT_TRUE(rec.header.ops());
  EXPECT_EQ(rec.header.op_min_us(), 10000u);
  ASSERT_TRUE(Parse(lines[11], &rec).ok());
  EXPECT_EQ(rec.stuck.op_id(), 9u);
  ASSERT_TRUE(Parse(lines[12], &rec).ok());
  EXPECT_EQ(rec.stats.ops_lost(), 2u);
  EXPECT_EQ(rec.stats.ops_written(), 4u);
  EXPECT_EQ(rec.stats.ops_untracked(), 1u);

  // Streams from before them: absent reads as off and 0.
  ASSERT_TRUE(Parse(Header("r", ""), &rec).ok());
  EXPECT_FALSE(rec.header.ops());
  ASSERT_TRUE(Parse(Stats(""), &rec).ok());
  EXPECT_EQ(rec.stats.ops_lost(), 0u);

  // "type" need not be first; unknown keys are skipped.
  std::string moved = lines[1];
  moved = absl::StrReplaceAll(moved, {{R"({"type":"op",)", "{"}});
  moved.insert(moved.size() - 1, R"(,"type":"op","new_key":[1,{"a":2}])");
  ASSERT_TRUE(Parse(moved, &rec).ok()) << Parse(moved, &rec);
  EXPECT_EQ(rec.kind, RecordKind::kOp);
  EXPECT_EQ(rec.op.op_id(), 7u);
}

// A line of biosnoop's own op writer (cpp/format's AppendOpJson, as its
// schema test on the opsout branch expects it), every field set: read,
// and written back byte for byte, through protobuf too.
// biosnoop leaves the four cgroup keys out when a call's cgroup id is 0
// (not known), as for events: the reader takes the line, id 0, no path.
TEST(BioreportOpsReaderTest, AnOpWithoutItsCgroupKeysIsRead) {
  Call c;
  c.returned = "00.040000000";
  c.started = "00.000000000";
  c.latency_us = 40000;
  std::string line = OpLine(c);
  const std::string keys =
      R"("cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null,)";
  const size_t at = line.find(keys);
  ASSERT_NE(at, std::string::npos);
  line.erase(at, keys.size());
  ParsedRecord rec;
  const absl::Status s = Parse(line, &rec);
  ASSERT_TRUE(s.ok()) << s << "\n" << line;
  ASSERT_EQ(rec.kind, RecordKind::kOp);
  EXPECT_EQ(rec.op.cgroup_id(), 0u);
  EXPECT_FALSE(rec.op.has_cgroup());
  EXPECT_EQ(rec.op.latency_us(), 40000u);
}

TEST(BioreportOpsReaderTest, RewritesBiosnoopsOwnLineExactly) {
  const std::string line = EveryFieldOpLine();
  ParsedRecord rec;
  ASSERT_TRUE(Parse(line, &rec).ok()) << Parse(line, &rec);
  EXPECT_EQ(rec.op.comm_raw(), "pg\xff");
  EXPECT_EQ(rec.op.file().path(), "/srv/data/f\"1");
  EXPECT_EQ(rec.op.writeback().dirty_age_us_min(), 800000u);
  EXPECT_EQ(rec.op.journal().culprits(0).comm(), "jbd2/sda1-8");
  EXPECT_EQ(rec.op.others_writeback().culprits(0).comm_raw(), "etl\xfe");
  EXPECT_FALSE(rec.op.others_writeback().culprits(1).has_cgroup());
  EXPECT_EQ(rec.op.flush().culprits(0).cgroup_id(), 0u);
  std::string json;
  EXPECT_TRUE(AppendRecordJson(rec, &json).ok());
  EXPECT_EQ(json, line + "\n");
  std::string framed;
  AppendRecordProto(rec, &framed);
  size_t i = 0;  // past the length's varint
  while (static_cast<unsigned char>(framed[i]) & 0x80) ++i;
  ProtoRecordParser parser;
  ParsedRecord back;
  ASSERT_TRUE(
      parser.Parse(absl::string_view(framed).substr(i + 1), &back).ok());
  json.clear();
  EXPECT_TRUE(AppendRecordJson(back, &json).ok());
  EXPECT_EQ(json, line + "\n");
}

TEST(BioreportOpsReaderTest, CorruptOpRecordsAreRefusedWithAClearMessage) {
  const std::string op = Lines(Stream())[1];
  const struct {
    std::vector<std::pair<std::string, std::string>> edit;
    std::string message;
  } cases[] = {
      {{{R"("latency_us":40000,)", ""}}, R"(op record without "latency_us")"},
      {{{R"("op_id":7,)", ""}}, R"(op record without "op_id")"},
      {{{R"("other_us":10000)", R"("other_us":-1)"}}, R"("other_us": )"},
      {{{R"("op_id":7)", R"("op_id":7,"op_id":8)"}},
       R"(op record with "op_id" twice)"},
      {{{R"("op_id":7)", R"("op_id":0)"}}, "op record with op_id 0"},
      {{{R"("call":"write")", R"("call":"")"}}, R"(op record with no "call")"},
      {{{R"({"path":"/mnt/data/f",)", "{"}}, R"("file": file without "path")"},
      {{{R"("file":{)", R"("file":[{)"}}, R"("file": )"},
      {{{R"("disks":[],"queue_us_sum":20)",
         R"("disks":["a","b","c","d","e"],"queue_us_sum":20)"}},
       R"("writeback": "disks": )"},
      {{{R"("dirty_known":2)", R"("dirty_known":2,"wait_us":1)"}},
       R"("writeback": layer with "wait_us" twice)"},
      {{{R"("wait_us":30000,)", ""}},
       R"("writeback": layer without "wait_us")"},
      {{{R"("start_time":"2026-11-25T16:01:00.460000000Z")",
         R"("start_time":"soon")"}},
       R"("start_time": )"},
      {{{R"("start_time":"2026-11-25T16:01:00.460000000Z",)", ""}},
       R"(op record without "start_time")"},
  };
  for (const auto& c : cases) {
    const std::string line = absl::StrReplaceAll(op, c.edit);
    ASSERT_NE(line, op) << c.message;
    ParsedRecord rec;
    const absl::Status s = Parse(line, &rec);
    EXPECT_FALSE(s.ok()) << line;
    EXPECT_NE(std::string(s.message()).find(c.message), std::string::npos)
        << s << "\nwanted: " << c.message;
  }
  // A layer's culprits: at most 4, each an object with its required keys.
  const std::string fsync = Lines(Stream())[5];
  const std::string jbd2 =
      R"({"pid":412,"comm":"jbd2/loop0-8","cgroup":"/",)"
      R"("cgroup_id":1,"container_id":null,"pod_uid":null,)"
      R"("role":"submitter","requests":1,"bytes":4096,"wait_us":8000})";
  const struct {
    std::pair<std::string, std::string> edit;
    std::string message;
  } culprit_cases[] = {
      {{jbd2, absl::StrJoin(std::vector<std::string>(5, jbd2), ",")},
       R"("journal": "culprits": )"},
      {{R"("role":"submitter","requests":1,"bytes":4096,"wait_us":8000)",
        R"("requests":1,"bytes":4096,"wait_us":8000)"},
       R"("journal": "culprits": culprit without "role")"},
      {{R"("culprits":[{"pid":412)", R"("culprits":{"pid":412)"},
       "expected an array of objects"},
  };
  for (const auto& c : culprit_cases) {
    const std::string line = absl::StrReplaceAll(fsync, {c.edit});
    ASSERT_NE(line, fsync) << c.message;
    ParsedRecord rec;
    const absl::Status s = Parse(line, &rec);
    EXPECT_FALSE(s.ok()) << line;
    EXPECT_NE(std::string(s.message()).find(c.message), std::string::npos)
        << s << "\nwanted: " << c.message;
  }
  // An event naming more dirtier calls than its count, or than 8.
  ParsedRecord rec;
  absl::Status s = Parse(EventLine(1, "05.000000000", "write", 1,
                                   Dirtied(7) + R"(,"dirtier_op_ids":[7,3],)"
                                                R"("dirtier_op_count":1)"),
                         &rec);
  EXPECT_EQ(s.message(),
            "dirtier_op_count 1 is below the 2 dirtier_op_ids listed");
  s = Parse(EventLine(1, "05.000000000", "write", 1,
                      Dirtied(7) + R"(,"dirtier_op_ids":[1,2,3,4,5,6,7,8,9],)"
                                   R"("dirtier_op_count":9)"),
            &rec);
  EXPECT_NE(std::string(s.message()).find("more than 8 op ids"),
            std::string::npos)
      << s;
}

// Frames `r` as biosnoop's protobuf sink does: varint size, then bytes.
void AppendDelimited(const v1::Record& r, std::string* out) {
  google::protobuf::io::StringOutputStream stream(out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteVarint32(static_cast<uint32_t>(r.ByteSizeLong()));
  r.SerializeToCodedStream(&coded);
}

TEST(BioreportOpsReaderTest, ProtobufOpRecordsAreReadAndChecked) {
  // A protobuf stream made with the generated classes alone: a header,
  // then the op record first after it (its tag 0x32).
  v1::Record header;
  v1::StreamHeader* h = header.mutable_header();
  h->set_format_version(1);
  h->set_host("db7");
  h->set_boot_id("b");
  h->mutable_start_time()->set_seconds(1795622400);
  h->set_ops(true);
  h->set_op_min_us(5000);
  v1::Record op;
  v1::Op* o = op.mutable_op();
  o->mutable_timestamp()->set_seconds(1795622461);
  o->mutable_start_time()->set_seconds(1795622460);
  o->set_host("db7");
  o->set_op_id(42);
  o->set_call("fdatasync");
  o->set_pid(5);
  o->set_comm("pg");
  o->mutable_file()->set_path("/pg/wal");
  o->mutable_file()->set_path_kind("absolute");
  o->mutable_file()->set_dev("253:1");
  o->set_disk("vda");
  o->set_latency_us(1000000);
  o->mutable_block()->set_wait_us(600000);
  o->mutable_block()->set_requests(4);
  o->mutable_writeback()->set_wait_us(300000);
  // biosnoop writes every layer, empty or not.
  o->mutable_journal()->set_wait_us(50000);
  o->mutable_journal()->set_requests(1);
  v1::OpCulprit* jbd2 = o->mutable_journal()->add_culprits();
  jbd2->set_pid(300);
  jbd2->set_comm("jbd2/vda1-8");
  jbd2->set_cgroup("/");
  jbd2->set_cgroup_id(1);
  jbd2->set_role("submitter");
  jbd2->set_requests(1);
  jbd2->set_bytes(4096);
  jbd2->set_wait_us(50000);
  o->mutable_flush()->set_wait_us(20000);
  o->mutable_others_writeback();
  o->mutable_throttle();
  o->set_other_us(30000);
  std::string pb;
  AppendDelimited(header, &pb);
  AppendDelimited(op, &pb);
  TempDir dir;
  WriteFile(dir.Path("s.pb"), pb);
  const CliResult r = RunCli({"ops", dir.Path("s.pb")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("op records: 1 (calls of at least 5000 us"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("42  fdatasync    5  pg    /pg/wal"), std::string::npos)
      << r.out;
  // JSON Lines and back, the same bytes.
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "-o", dir.Path("s.jsonl"),
                    dir.Path("s.pb")})
                .code,
            0);
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", dir.Path("back.pb"),
                    dir.Path("s.jsonl")})
                .code,
            0);
  EXPECT_EQ(ReadFile(dir.Path("back.pb")), pb);

  // Checked as JSON Lines are: an op_id of 0, too many disks, too many
  // culprits.
  for (auto edit : {+[](v1::Op* x) { x->set_op_id(0); },
                    +[](v1::Op* x) {
                      for (int i = 0; i < 5; ++i)
                        x->mutable_block()->add_disks("d");
                    },
                    +[](v1::Op* x) {
                      for (int i = 0; i < 5; ++i)
                        x->mutable_others_writeback()->add_culprits();
                    }}) {
    v1::Record bad = op;
    edit(bad.mutable_op());
    std::string bytes;
    ASSERT_TRUE(bad.SerializeToString(&bytes));
    ProtoRecordParser parser;
    ParsedRecord rec;
    EXPECT_FALSE(parser.Parse(bytes, &rec).ok());
  }
}

class BioreportOpsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = dir_.Path("in.jsonl");
    WriteFile(input_, Stream());
  }
  CliResult Run(std::vector<std::string> args) {
    args.push_back(input_);
    return RunCli(args);
  }
  TempDir dir_;
  std::string input_;
};

TEST_F(BioreportOpsCliTest, ConvertsLosslesslyBothWays) {
  const std::string pb = dir_.Path("out.pb");
  const std::string back = dir_.Path("back.jsonl");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb, input_}).code, 0);
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "-o", back, pb}).code, 0);
  EXPECT_EQ(ReadFile(back), Stream());
  const std::string pb2 = dir_.Path("again.pb");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb2, back}).code, 0);
  EXPECT_EQ(ReadFile(pb2), ReadFile(pb));
  // Filters select op records too: --comm postgres keeps calls 12 and 13
  // (and no event: theirs are kworker's).
  const std::string some = dir_.Path("some.jsonl");
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "--comm", "postgres", "-o",
                    some, input_})
                .code,
            0);
  const std::vector<std::string> kept = Lines(ReadFile(some));
  ASSERT_EQ(kept.size(), 4u) << ReadFile(some);  // header, 2 ops, stats
  EXPECT_NE(kept[1].find(R"("op_id":12,)"), std::string::npos);
  EXPECT_NE(kept[2].find(R"("op_id":13,)"), std::string::npos);
}

TEST_F(BioreportOpsCliTest, ReportShowsTheSlowestCallsAndPerProcessAndFile) {
  const CliResult r = Run({"ops"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, R"(WARNING: calls may be missing from this report:
WARNING:   2 op records lost in the kernel (ring buffer full)
WARNING:   1 calls not followed (biosnoop's table of calls in progress was full)

inputs: 1 (jsonl), records: 13, op records: 4 (calls of at least 10000 us: --op-min-us)
span: 2026-11-25 16:00:00 .. 2026-11-25 16:01:12 UTC (72.0 s)

calls: 4

slowest calls (times in us; others: other files' writeback; throttle: bios waiting to become requests; other = total - block - writeback - journal - flush - others - throttle):
returned (UTC)           op_id  call     pid  comm      file             bytes  total  block  writeback  journal  flush  others  throttle  other  blk_req  wb_req  dirty_age_max  error
2026-11-25 16:01:06.030      9  fsync    812  dd        /mnt/data/f    4.0 KiB  90000  70000          0     8000   4000    5000         0   3000        3       0              -  -
2026-11-25 16:01:00.500      7  write    812  dd        /mnt/data/f    4.0 KiB  40000      0      30000        0      0       0         0  10000        0       2        1500000  -
2026-11-25 16:01:07.001     12  pread64  900  postgres  /var/lib/pg/1      0 B  25000  24000          0        0      0       0         0   1000        1       0              -  EIO
2026-11-25 16:01:08.000     13  read     900  postgres  /var/lib/pg/1  4.0 KiB  15000  14000          0        0      0       0         0   1000        1       0              -  -

calls per process (p50 and p99, us):
pid  comm      calls  errors    bytes  total_p50  total_p99  block_p50  block_p99  wb_p50  wb_p99  journal_p50  journal_p99  flush_p50  flush_p99  others_p50  others_p99  throttle_p50  throttle_p99  other_p50  other_p99
812  dd            2       0  8.0 KiB      40000      90000          0      70000       0   30000            0         8000          0       4000           0        5000             0             0       3000      10000
900  postgres      2       1  4.0 KiB      15000      25000      14000      24000       0       0            0            0          0          0           0           0             0             0       1000       1000

calls per file (p50 and p99, us):
file           calls  errors    bytes  total_p50  total_p99  block_p50  block_p99  wb_p50  wb_p99  journal_p50  journal_p99  flush_p50  flush_p99  others_p50  others_p99  throttle_p50  throttle_p99  other_p50  other_p99
/mnt/data/f        2       0  8.0 KiB      40000      90000          0      70000       0   30000            0         8000          0       4000           0        5000             0             0       3000      10000
/var/lib/pg/1      2       1  4.0 KiB      15000      25000      14000      24000       0       0            0            0          0          0           0           0             0             0       1000       1000
)");
}

TEST_F(BioreportOpsCliTest, FiltersTopAndJson) {
  // --top 1: the slowest call only, one row per table and what was left.
  CliResult r = Run({"ops", "--top", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("      9  fsync"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("      7  write"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 more: --top N)"), std::string::npos) << r.out;

  // Filters read calls: --op by the call's kind, --file by its path,
  // --min-us by its latency.
  const struct {
    std::vector<std::string> args;
    std::vector<uint64_t> ids;
  } cases[] = {
      {{"--op", "read"}, {12, 13}},
      {{"--op", "write"}, {7}},
      {{"--op", "flush"}, {9}},
      {{"--op", "discard"}, {}},
      {{"--file", "/var/"}, {12, 13}},
      {{"--min-us", "30000"}, {9, 7}},
      {{"--comm", "dd", "--since", "2026-11-25T16:01:01Z"}, {9}},
      {{"--pid", "900", "--until", "2026-11-25T16:01:07.5Z"}, {12}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"ops", "--json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    r = Run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::vector<uint64_t> ids;
    for (const auto& call : j["slowest"]) ids.push_back(call["op_id"]);
    EXPECT_EQ(ids, c.ids) << absl::StrJoin(c.args, " ") << "\n" << r.out;
    EXPECT_EQ(j["calls"], c.ids.size());
    EXPECT_EQ(j["op_records"], 4);
  }
  // The JSON form's figures, and its warnings on stderr.
  r = Run({"ops", "--json"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ops_lost"], 2);
  EXPECT_EQ(j["ops_untracked"], 1);
  EXPECT_EQ(j["op_min_us"], nlohmann::json::array({10000}));
  const nlohmann::json& first = j["slowest"][0];
  EXPECT_EQ(first["call"], "fsync");
  EXPECT_EQ(first["offset"], nullptr);
  EXPECT_EQ(first["block"]["wait_us"], 70000);
  EXPECT_EQ(first["block"]["requests"], 3);
  EXPECT_EQ(first["other_us"], 3000);
  EXPECT_EQ(first["journal"]["wait_us"], 8000);
  EXPECT_EQ(first["flush"]["culprits"][0]["comm"], "jbd2/loop0-8");
  EXPECT_EQ(first["others_writeback"]["culprits"],
            nlohmann::json::parse(
                R"([{"pid":1500,"comm":"batch","cgroup":"/batch.slice",)"
                R"("cgroup_id":77,"container_id":null,"pod_uid":null,)"
                R"("role":"dirtier","requests":1,"bytes":4096,)"
                R"("wait_us":5000},{"pid":31,"comm":"kworker/u8:0",)"
                R"("role":"submitter","requests":1,"bytes":4096,)"
                R"("wait_us":1000}])"));
  EXPECT_EQ(first["block"]["culprits"], nlohmann::json::array());
  EXPECT_EQ(j["slowest"][1]["writeback"]["dirty_age_us_max"], 1500000);
  EXPECT_EQ(j["processes"][0]["comm"], "dd");
  EXPECT_EQ(j["processes"][0]["total_us"]["p99"], 90000);
  EXPECT_EQ(j["processes"][0]["writeback_wait_us"]["max"], 30000);
  EXPECT_EQ(j["processes"][0]["journal_wait_us"]["max"], 8000);
  EXPECT_EQ(j["processes"][0]["flush_wait_us"]["p99"], 4000);
  EXPECT_EQ(j["processes"][0]["others_writeback_wait_us"]["p50"], 0);
  EXPECT_EQ(j["processes"][0]["others_writeback_wait_us"]["max"], 5000);
  EXPECT_EQ(j["files"][1]["file"], "/var/lib/pg/1");
  EXPECT_EQ(j["files"][1]["errors"], 1);
  EXPECT_NE(r.err.find("2 op records lost in the kernel"), std::string::npos)
      << r.err;
}

// A call on overlayfs: the merged path it opened, then the real file.
TEST(BioreportOpsCli, OpIdNamesAnOverlayCallsRealFile) {
  TempDir dir;
  WriteFile(dir.Path("in.jsonl"), Header("aaaa000000000001", kOpsOn) + "\n" +
                                      EveryFieldOpLine() + "\n");
  const CliResult r = RunCli({"ops", "--op-id", "31", dir.Path("in.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  file: /srv/data/f\"1 (inode 12 on 8:1), disk sda\n"
                       "  real file (overlayfs): "
                       "/var/lib/ovl/upper/srv/data/f\"1 (inode 77 on 8:2)\n"
                       "  offset 65536,"),
            std::string::npos)
      << r.out;
}

TEST_F(BioreportOpsCliTest, OpIdShowsTheCallWithItsRequests) {
  const CliResult r = Run({"ops", "--op-id", "9"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("call 9 (run aaaa000000000001):");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(at), R"(call 9 (run aaaa000000000001):
  fsync by pid 812 tid 812 (dd) on db7
  file: /mnt/data/f (inode 12 on 7:0), disk loop0
  offset -, bytes requested 4096, done 4096, error -
  started 2026-11-25 16:01:05.940, returned 2026-11-25 16:01:06.030 UTC: 90000 us

  layer             wait_us  requests     bytes  disks  queue_us sum / max  device_us sum / max  dirty_age_us max / min
  block               70000         3  12.0 KiB  loop0             30 / 10        70000 / 70000  -
  writeback               0         0       0 B                      0 / 0                0 / 0  -
  journal              8000         1   4.0 KiB                    10 / 10          8000 / 8000  -
  flush                4000         1   4.0 KiB                    10 / 10          4000 / 4000  -
  others_writeback     5000         2   8.0 KiB                    20 / 10          5000 / 5000  -
  throttle                0         0       0 B                      0 / 0                0 / 0  -
  other                3000
  total               90000

  waited for the requests of (culprits):
  layer             culprit     pid  comm          cgroup        requests    bytes  wait_us
  journal           submitter   412  jbd2/loop0-8  /                    1  4.0 KiB     8000
  flush             submitter   412  jbd2/loop0-8  /                    1  4.0 KiB     4000
  others_writeback  dirtier    1500  batch         /batch.slice         1  4.0 KiB     5000
  others_writeback  submitter    31  kworker/u8:0  -                    1  4.0 KiB     1000

requests submitted under it (event op_id 9): 2
submitted (UTC)          completed (UTC)          disk   op     sector    bytes  latency_us  queue_us  device_us  pid  comm          seq  error
2026-11-25 16:01:05.950  2026-11-25 16:01:06.000  loop0  write      16  4.0 KiB       50000         1      50000   77  kworker/u8:2    2  -
2026-11-25 16:01:06.000  2026-11-25 16:01:06.020  loop0  flush      24  4.0 KiB       20000         1      20000   77  kworker/u8:2    3  -

writeback of the pages it dirtied (event dirtier_op_ids holding 9): 0

still in flight when found (stuck records): 1
found (UTC)              disk   op     sector    bytes  inflight_us  pid  comm
2026-11-25 16:01:11.000  loop0  write     800  4.0 KiB      1500000  812  dd
)");
  // The events' warnings too: the call's requests are events.
  EXPECT_NE(r.out.find("WARNING:   2 op records lost"), std::string::npos);

  // Call 7 wrote the pages event 1 wrote back.
  const CliResult w = Run({"ops", "--op-id", "7"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.out.find("writeback of the pages it dirtied (event "
                       "dirtier_op_ids holding 7): 1\n"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("2026-11-25 16:01:04.970  2026-11-25 16:01:05.000  "
                       "loop0  write"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("  writeback           30000         2  8.0 KiB       "
                       "             20 / 10"),
            std::string::npos)
      << w.out;
  EXPECT_NE(w.out.find("1500000 / 900000 (2 known)"), std::string::npos)
      << w.out;
  // A call that waited for no one's requests: no culprits table.
  EXPECT_EQ(w.out.find("culprits"), std::string::npos) << w.out;
}

TEST_F(BioreportOpsCliTest, OpIdOfACallWithoutARecordShowsItsEvents) {
  // Call 5 was fast: events name it (a read it submitted, a writeback of
  // its pages), it has no op record.
  CliResult r = Run({"ops", "--op-id", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("call 5 (run aaaa000000000001):\n  no op record: the "
                       "call took less than --op-min-us"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("requests submitted under it (event op_id 5): 1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("holding 5): 1\n"), std::string::npos) << r.out;
  // Call 3: named by a writeback only.
  r = Run({"ops", "--op-id", "3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["op_id"], 3);
  EXPECT_TRUE(j["calls"].empty());
  EXPECT_TRUE(j["submitted"].empty());
  ASSERT_EQ(j["writeback"].size(), 1u);
  EXPECT_EQ(j["writeback"][0]["seq"], 1);
  EXPECT_EQ(j["writeback"][0]["run"], "aaaa000000000001");
  // Names from the input are escaped, as in every text form: a crafted
  // disk or call name cannot send terminal escapes.
  WriteFile(
      dir_.Path("esc.jsonl"),
      absl::StrReplaceAll(
          Stream(), {{R"("disks":["loop0"])", R"("disks":["lo\u001b[2Jop"])"},
                     {R"("call":"fsync")", R"("call":"fs\nync")"}}));
  r = RunCli({"ops", "--op-id", "9", dir_.Path("esc.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lo\\x1b[2Jop"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  fs\\nync by pid 812"), std::string::npos) << r.out;
  r = RunCli({"ops", dir_.Path("esc.jsonl")});
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fs\\nync"), std::string::npos) << r.out;
  // Nothing names call 99.
  r = Run({"ops", "--op-id", "99"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("call 99: nothing in the input names it"),
            std::string::npos)
      << r.out;
}

TEST_F(BioreportOpsCliTest, OpIdKeepsRunsApart) {
  // A second run (another run_id) whose call 9 is a read: two sections,
  // never one call.
  const std::string second =
      absl::StrJoin(
          std::vector<std::string>{
              Header("bbbb000000000002", kOpsOn),
              absl::StrReplaceAll(
                  OpLine(Calls()[3]),
                  {{R"("op_id":13)", R"("op_id":9)"},
                   {"16:01:08.000000000Z", "16:02:08.000000000Z"},
                   {"16:01:07.985000000Z", "16:02:07.985000000Z"}})},
          "\n") +
      "\n";
  WriteFile(dir_.Path("second.jsonl"),
            absl::StrReplaceAll(
                second, {{"16:00:00.000000000Z", "16:02:00.000000000Z"}}));
  const CliResult r =
      RunCli({"ops", "--op-id", "9", input_, dir_.Path("second.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("call 9 is named in 2 runs"), std::string::npos)
      << r.out;
  const size_t a = r.out.find("call 9 (run aaaa000000000001):\n  fsync");
  const size_t b = r.out.find("call 9 (run bbbb000000000002):\n  read");
  EXPECT_NE(a, std::string::npos) << r.out;
  EXPECT_NE(b, std::string::npos) << r.out;
  EXPECT_LT(a, b);
}

TEST_F(BioreportOpsCliTest, OpRecordLossAndDuplicatesAreWarned) {
  // The same file twice: each op record is there twice.
  CliResult r = RunCli({"ops", input_, input_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING:   4 op records are in the input more than "
                       "once"),
            std::string::npos)
      << r.out;
  // Two of the four op records the run wrote are not in the input.
  const std::vector<std::string> lines = Lines(Stream());
  std::string cut;
  for (const std::string& line : lines) {
    if (line.find(R"("op_id":12,"call")") != std::string::npos ||
        line.find(R"("op_id":13,"call")") != std::string::npos) {
      continue;
    }
    absl::StrAppend(&cut, line, "\n");
  }
  WriteFile(dir_.Path("cut.jsonl"), cut);
  r = RunCli({"ops", dir_.Path("cut.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("WARNING:   2 op records biosnoop wrote are not in "
                       "the input"),
            std::string::npos)
      << r.out;
  // Damage is said once, with --op-id too (whose block is the calls' and
  // the events').
  WriteFile(dir_.Path("bad.jsonl"), Stream() + "{\"type\":\"op\"}\n");
  r = RunCli({"ops", "--op-id", "9", dir_.Path("bad.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t damage = r.out.find("1 corrupt records skipped");
  ASSERT_NE(damage, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("1 corrupt records skipped", damage + 1),
            std::string::npos)
      << r.out;
  // The event reports say the op records are there, and where to see
  // them.
  r = Run({"summary"});
  EXPECT_NE(r.out.find(", op records: 4 (bioreport ops)"), std::string::npos)
      << r.out;
  // A run without --ops: said so, no warning about op records.
  WriteFile(dir_.Path("off.jsonl"),
            absl::StrCat(Header("c", ""), "\n", Stats(""), "\n"));
  r = RunCli({"ops", dir_.Path("off.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(r.out.rfind("\n\n") + 2),
            "no op records: biosnoop ran without --ops (the headers say so)\n");
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
}

TEST_F(BioreportOpsCliTest, SeveralHostsAreKeptApart) {
  WriteFile(dir_.Path("web3.jsonl"),
            absl::StrReplaceAll(Stream(),
                                {{R"("host":"db7")", R"("host":"web3")"},
                                 {R"("boot_id":"b")", R"("boot_id":"w")"},
                                 {"aaaa000000000001", "cccc000000000003"}}));
  const CliResult r = RunCli({"ops", input_, dir_.Path("web3.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  // Loss per host, a host column, each host's dd apart.
  EXPECT_NE(r.out.find("WARNING:   db7: 2 op records lost"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("WARNING:   web3: 2 op records lost"),
            std::string::npos);
  EXPECT_NE(r.out.find("host  pid  comm      calls"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("db7   812  dd            2"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("web3  812  dd            2"), std::string::npos)
      << r.out;
  // Call 9 of each host's run, apart.
  const CliResult one =
      RunCli({"ops", "--op-id", "9", input_, dir_.Path("web3.jsonl")});
  EXPECT_NE(one.out.find("call 9 is named in 2 runs"), std::string::npos)
      << one.out;
  const CliResult web3 = RunCli({"ops", "--op-id", "9", "--host", "web3",
                                 input_, dir_.Path("web3.jsonl")});
  EXPECT_EQ(web3.out.find("named in 2 runs"), std::string::npos) << web3.out;
  EXPECT_NE(web3.out.find("call 9 (run cccc000000000003):"), std::string::npos)
      << web3.out;
}

TEST_F(BioreportOpsCliTest, HeatmapOfCalls) {
  const CliResult r = Run({"heatmap", "--of", "ops", "--by", "op"});
  ASSERT_EQ(r.code, 0) << r.err;
  // The four calls, not the six events; a panel per call; the calls'
  // warnings in the picture.
  EXPECT_NE(r.out.find("Slow call latency heat map"), std::string::npos);
  EXPECT_NE(r.out.find(">4 calls"), std::string::npos) << r.out;
  for (const char* panel : {"call fsync (1 calls)", "call pread64 (1 calls)",
                            "call read (1 calls)", "call write (1 calls)"}) {
    EXPECT_NE(r.out.find(panel), std::string::npos) << panel;
  }
  EXPECT_NE(r.out.find("calls per cell (log scale):"), std::string::npos);
  EXPECT_NE(r.out.find("of the calls drawn"), std::string::npos);
  EXPECT_NE(r.out.find("WARNING: 2 op records lost in the kernel"),
            std::string::npos);
  EXPECT_EQ(r.out.find("events"), std::string::npos);
  // Filters select the calls drawn.
  const CliResult reads = Run({"heatmap", "--of", "ops", "--op", "read"});
  ASSERT_EQ(reads.code, 0) << reads.err;
  EXPECT_NE(reads.out.find(">2 calls"), std::string::npos) << reads.out;
  // The default is the events.
  const CliResult events = Run({"heatmap"});
  ASSERT_EQ(events.code, 0) << events.err;
  EXPECT_NE(events.out.find(">6 events"), std::string::npos) << events.out;
}

TEST_F(BioreportOpsCliTest, BadUsage) {
  for (const auto& [args, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"summary", "--op-id", "3"}, "--op-id is only for ops"},
           {{"ops", "--op-id", "0"}, "--op-id: expected a number from 1"},
           {{"ops", "--op-id", "3", "--op-id", "4"},
            "--op-id given more than once"},
           {{"ops", "--op-id", "3", "--disk", "vda"},
            "--disk does not apply to --op-id"},
           {{"ops", "--csv"}, "--per-interval and --csv are only for baseline"},
           {{"top", "--json"}, "--json\n"},
           {{"summary", "--of", "ops"}, "--of are only for heatmap"},
           {{"heatmap", "--of", "stuck"}, "--of: expected events or ops"},
       }) {
    const CliResult r = Run(args);
    EXPECT_EQ(r.code, 64) << absl::StrJoin(args, " ");
    EXPECT_NE(r.err.find(message == "--json\n" ? "also for ops" : message),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
}  // namespace biosnoop::report
