// The JSON Lines output against the schema in proto/biosnoop.proto (the
// source of truth for field names), through the generated descriptor: each
// line is a Record with "type" naming the member of its oneof `kind`, and
// every other key a field of that member's message.

#include <cstring>
#include <string>
#include <vector>

#include "biosnoop.pb.h"
#include "event.h"
#include "every_field_op_line.h"
#include "every_field_records.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "nlohmann/json.hpp"
#include "proto_format.h"
#include "stream_info.h"
#include "stuck_like.h"

namespace biosnoop {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using nlohmann::ordered_json;

std::string SummaryLine(const SummaryRecord& summary) {
  std::string line;
  AppendSummaryJson(summary, &line);
  return line;
}

std::string EventLine(const EnrichedEvent& e) {
  std::string line;
  AppendEventJson(e, "host-a", &line);
  return line;
}

std::string StuckLine(const StuckRequest& s) {
  std::string line;
  AppendStuckJson(s, JsonHost("host-a"), &line);
  return line;
}

std::string OpLine(const EnrichedOp& o) {
  std::string line;
  AppendOpJson(o, JsonHost("host-a"), &line);
  return line;
}

std::string HeaderLine(const StreamInfo& info) {
  std::string line;
  AppendHeaderJson(info, &line);
  return line;
}

std::string StatsLine(const StatsSnapshot& stats) {
  std::string line;
  AppendStatsJson(stats, &line);
  return line;
}

std::vector<std::string> Keys(const ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

std::vector<std::string> FieldNames(const Descriptor* d) {
  std::vector<std::string> names;
  for (int i = 0; i < d->field_count(); ++i) {
    names.push_back(d->field(i)->name());
  }
  return names;
}

// The message a line's "type" names: a member of Record's oneof `kind`.
const Descriptor* MessageOfType(const std::string& type) {
  const FieldDescriptor* member =
      biosnoop::v1::Record::descriptor()->FindFieldByName(type);
  if (member == nullptr || member->containing_oneof() == nullptr ||
      member->containing_oneof()->name() != "kind") {
    return nullptr;
  }
  return member->message_type();
}

std::vector<std::string> ExpectObjectMatches(const ordered_json& j,
                                             const Descriptor* d);

// One value (an element, for a repeated field) against its field's type.
void ExpectValueMatches(const ordered_json& v, const FieldDescriptor* f) {
  const std::string& key = f->name();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:  // string, and bytes as hex
      EXPECT_TRUE(v.is_string()) << key;
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
        EXPECT_TRUE(v.is_string()) << key;  // RFC 3339 text
      } else {
        EXPECT_TRUE(v.is_object()) << key;
        if (v.is_object()) ExpectObjectMatches(v, f->message_type());
      }
      break;
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
      EXPECT_TRUE(v.is_number_integer()) << key;
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      EXPECT_TRUE(v.is_number_unsigned()) << key;
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      EXPECT_TRUE(v.is_boolean()) << key;
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      EXPECT_TRUE(v.is_number()) << key;
      break;
    default:
      ADD_FAILURE() << "no JSON rule for field type of " << key;
  }
}

// The keys of `j` are fields of `d`, in declaration order, each value of
// the JSON type its field type calls for (an array of those for a
// repeated field, an object checked the same way for a message other than
// Timestamp); null only for `optional` fields.  Returns the keys.
std::vector<std::string> ExpectObjectMatches(const ordered_json& j,
                                             const Descriptor* d) {
  std::vector<std::string> keys = Keys(j);
  int last_index = -1;
  for (const std::string& key : keys) {
    const FieldDescriptor* f = d->FindFieldByName(key);
    EXPECT_NE(f, nullptr) << key << " is not a field of " << d->full_name();
    if (f == nullptr) continue;
    EXPECT_GT(f->index(), last_index) << key << " out of schema order";
    last_index = f->index();
    const ordered_json& v = j[key];
    if (v.is_null()) {
      EXPECT_TRUE(f->has_optional_keyword() ||
                  f->type() == FieldDescriptor::TYPE_DOUBLE)
          << key;
      continue;
    }
    if (f->is_repeated()) {
      EXPECT_TRUE(v.is_array()) << key;
      if (!v.is_array()) continue;
      for (const ordered_json& element : v) ExpectValueMatches(element, f);
      continue;
    }
    ExpectValueMatches(v, f);
  }
  return keys;
}

// Checks one line against the schema: "type" first, naming a Record member;
// then fields of that member's message (ExpectObjectMatches).  Returns the
// keys after "type".
std::vector<std::string> ExpectMatchesSchema(const std::string& line,
                                             const std::string& want_type) {
  EXPECT_EQ(line.back(), '\n');
  ordered_json j = ordered_json::parse(line);
  const std::vector<std::string> keys = Keys(j);
  EXPECT_FALSE(keys.empty());
  if (keys.empty()) return {};
  EXPECT_EQ(keys.front(), "type") << line;
  EXPECT_EQ(j["type"], want_type) << line;
  const Descriptor* d = MessageOfType(j["type"].get<std::string>());
  EXPECT_NE(d, nullptr) << line;
  if (d == nullptr) return {};
  j.erase("type");
  return ExpectObjectMatches(j, d);
}

TEST(SchemaTest, TypeNamesAreTheRecordOneofMembers) {
  EXPECT_EQ(MessageOfType("event"), biosnoop::v1::Event::descriptor());
  EXPECT_EQ(MessageOfType("header"), biosnoop::v1::StreamHeader::descriptor());
  EXPECT_EQ(MessageOfType("stats"), biosnoop::v1::Stats::descriptor());
  EXPECT_EQ(MessageOfType("summary"), biosnoop::v1::Summary::descriptor());
  EXPECT_EQ(MessageOfType("stuck"), biosnoop::v1::Stuck::descriptor());
  EXPECT_EQ(MessageOfType("op"), biosnoop::v1::Op::descriptor());
  EXPECT_EQ(MessageOfType("timestamp"), nullptr);
}

// bioreport's JSON reader keeps the keys it has read, and those a line
// must carry, as one bit per field number (tools/bioreport/jsonl_parser.cc).
TEST(SchemaTest, RecordFieldNumbersFitTheJsonReadersKeySets) {
  for (const Descriptor* d :
       {biosnoop::v1::Event::descriptor(),
        biosnoop::v1::StreamHeader::descriptor(),
        biosnoop::v1::Stats::descriptor(), biosnoop::v1::Summary::descriptor(),
        biosnoop::v1::SummaryGroup::descriptor(),
        biosnoop::v1::Stuck::descriptor(), biosnoop::v1::Op::descriptor(),
        biosnoop::v1::OpLayer::descriptor()}) {
    for (int i = 0; i < d->field_count(); ++i) {
      EXPECT_LT(d->field(i)->number(), 64) << d->field(i)->full_name();
    }
  }
}

TEST(SchemaTest, FullyPopulatedEventLineHasEveryFieldInSchemaOrder) {
  EXPECT_EQ(ExpectMatchesSchema(EventLine(EveryFieldEvent()), "event"),
            FieldNames(biosnoop::v1::Event::descriptor()));
}

TEST(SchemaTest, EventLineWithNullsAndValidComm) {
  EnrichedEvent e = EveryFieldEvent();
  std::memcpy(e.event.comm.data(), "fine", 5);  // valid: no comm_raw
  e.event.queue_ns.reset();
  e.partition.clear();
  e.event.blk_status = 0;
  std::vector<std::string> expected =
      FieldNames(biosnoop::v1::Event::descriptor());
  std::erase(expected, "comm_raw");
  EXPECT_EQ(ExpectMatchesSchema(EventLine(e), "event"), expected);
  // Nothing stacked on the disk: no "stack" key.
  e.stack.clear();
  std::erase(expected, "stack");
  EXPECT_EQ(ExpectMatchesSchema(EventLine(e), "event"), expected);
}

// The devices stacked on the request's partition, right after it, each a
// JSON string (escaped, made valid UTF-8 as any name); no key at all when
// none, so that the lines of a machine without stacking are as before.
TEST(SchemaTest, StackValuesExactly) {
  EnrichedEvent e = EveryFieldEvent();
  const std::string line = EventLine(e);
  EXPECT_NE(
      line.find(R"("disk":"sda","partition":"sda1",)"
                R"("stack":["md0","dm-0","vg0-data","dm-1","data_crypt"],)"
                R"("dev":"8:0",)"),
      std::string::npos)
      << line;
  e.stack = {"dm-0", "we\"ird\xff"};
  const std::string odd = EventLine(e);
  EXPECT_NE(odd.find(R"("partition":"sda1","stack":["dm-0","we\"ird)"
                     "\xef\xbf\xbd"
                     R"("],"dev":"8:0",)"),
            std::string::npos)
      << odd;
  e.stack.clear();
  const std::string none = EventLine(e);
  EXPECT_NE(none.find(R"("partition":"sda1","dev":"8:0",)"), std::string::npos)
      << none;
  EXPECT_EQ(none.find("stack"), std::string::npos) << none;
  StuckRequest s = StuckLike(e);
  const std::string stuck = StuckLine(s);
  EXPECT_NE(stuck.find(R"("partition":"sda1","dev":"8:0",)"), std::string::npos)
      << stuck;
  EXPECT_EQ(stuck.find("stack"), std::string::npos) << stuck;
}

// A stuck request is an event's fields at issue (EveryFieldEvent), found
// 25 ms after it.
TEST(SchemaTest, StuckLineHasEveryFieldInSchemaOrder) {
  EXPECT_EQ(
      ExpectMatchesSchema(StuckLine(StuckLike(EveryFieldEvent())), "stuck"),
      FieldNames(biosnoop::v1::Stuck::descriptor()));
  StuckRequest s = StuckLike(EveryFieldEvent());
  std::memcpy(s.request.comm.data(), "fine", 5);  // valid: no comm_raw
  s.request.queue_ns.reset();
  s.partition.clear();
  std::vector<std::string> expected =
      FieldNames(biosnoop::v1::Stuck::descriptor());
  std::erase(expected, "comm_raw");
  EXPECT_EQ(ExpectMatchesSchema(StuckLine(s), "stuck"), expected);
  // Nothing stacked on the disk: no "stack" key.
  s.stack.clear();
  std::erase(expected, "stack");
  EXPECT_EQ(ExpectMatchesSchema(StuckLine(s), "stuck"), expected);
  // Files not looked at (--no-files, or the request completed while they
  // were read): none of their six keys.
  s.attribution = Attribution();
  for (const char* key : {"content", "files", "file_count", "files_incomplete",
                          "dirtied_by", "dirtier_count"}) {
    std::erase(expected, key);
  }
  EXPECT_EQ(ExpectMatchesSchema(StuckLine(s), "stuck"), expected);
}

TEST(SchemaTest, StuckValuesExactly) {
  EXPECT_EQ(StuckLine(StuckLike(EveryFieldEvent())),
            R"({"type":"stuck","timestamp":"2026-11-21T05:44:01.000000000Z",)"
            R"("host":"host-a","disk":"sda","partition":"sda1",)"
            R"("stack":["md0","dm-0","vg0-data","dm-1","data_crypt"],)"
            R"("dev":"8:0","op":"read","rwbs":"R","sector":2048,"bytes":65536,)"
            R"("inflight_us":25000,"queue_us":1000,"queue_depth":4,)"
            R"("pid":100,"tid":101,"comm":"bad)"
            "\xef\xbf\xbd"
            R"(","comm_raw":"626164ff",)"
            R"("cgroup":"/kubepods.slice/p/cri-containerd-)" +
                std::string(64, 'a') +
                R"(.scope","cgroup_id":4711,"container_id":")" +
                std::string(64, 'a') +
                R"(","pod_uid":"0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",)"
                R"("content":"file","files":[{"path":"/srv/data/f\"1",)"
                R"("path_kind":"absolute","inode":12,"dev":"8:1",)"
                R"("direct":true}],"file_count":9,"files_incomplete":true,)"
                R"("dirtied_by":{"pid":200,"tid":201,"comm":"dd)"
                "\xef\xbf\xbd"
                R"(","comm_raw":"6464fe","cgroup":"/user.slice",)"
                R"("cgroup_id":77,"dirtied_at":)"
                R"("2026-11-21T05:44:00.000000001Z","op_id":12},)"
                R"("dirtier_count":2,"op_id":31})"
                "\n");
}

TEST(SchemaTest, HeaderLineHasEveryFieldInSchemaOrder) {
  EXPECT_EQ(ExpectMatchesSchema(HeaderLine(EveryFieldInfo()), "header"),
            FieldNames(biosnoop::v1::StreamHeader::descriptor()));
  // Without a run id (a converted stream of an earlier version), without
  // --cgroup, without --ops and on a kernel that lacks nothing: every
  // field but run_id, cgroup_filter, ops, op_min_us and kernel_lacks.
  std::vector<std::string> but_run_id =
      FieldNames(biosnoop::v1::StreamHeader::descriptor());
  ASSERT_EQ(but_run_id.back(), "kernel_lacks");
  but_run_id.pop_back();
  ASSERT_EQ(but_run_id.back(), "op_min_us");
  but_run_id.pop_back();
  ASSERT_EQ(but_run_id.back(), "ops");
  but_run_id.pop_back();
  ASSERT_EQ(but_run_id.back(), "cgroup_filter");
  but_run_id.pop_back();
  ASSERT_EQ(but_run_id.back(), "run_id");
  but_run_id.pop_back();
  EXPECT_EQ(ExpectMatchesSchema(HeaderLine(StreamInfo{}), "header"),
            but_run_id);
}

TEST(SchemaTest, StatsLineHasEveryFieldInSchemaOrder) {
  EXPECT_EQ(ExpectMatchesSchema(StatsLine(EveryFieldStats()), "stats"),
            FieldNames(biosnoop::v1::Stats::descriptor()));
  std::vector<std::string> but_run_id =
      FieldNames(biosnoop::v1::Stats::descriptor());
  ASSERT_EQ(std::erase(but_run_id, "run_id"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ledger_misses"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ledger_replaced"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ops_lost"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ops_written"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ops_untracked"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ops_unfollowed"), 1u);
  ASSERT_EQ(std::erase(but_run_id, "ledger_stale"), 1u);
  EXPECT_EQ(ExpectMatchesSchema(StatsLine(StatsSnapshot{}), "stats"),
            but_run_id);
}

// The attribution fields exactly, after completion_context: the file's
// path escaped, the dirtier's comm replaced and kept raw, its time in
// RFC 3339; and none of them when the kernel side did not look.  The
// driver's times (NVMe) close the line, absent elsewhere.
TEST(SchemaTest, AttributionValuesExactly) {
  const std::string line = EventLine(EveryFieldEvent());
  const size_t at = line.find(",\"content\"");
  ASSERT_NE(at, std::string::npos) << line;
  EXPECT_EQ(line.substr(at),
            R"(,"content":"file","files":[{"path":"/srv/data/f\"1",)"
            R"("path_kind":"absolute","inode":12,"dev":"8:1","direct":true}],)"
            R"("file_count":9,"files_incomplete":true,"dirtied_by":{"pid":200,)"
            R"("tid":201,"comm":"dd)"
            "\xef\xbf\xbd"
            R"(","comm_raw":"6464fe","cgroup":"/user.slice","cgroup_id":77,)"
            R"("dirtied_at":"2026-11-21T05:44:00.000000001Z","op_id":12},)"
            R"("dirtier_count":2,"op_id":31,"dirtier_op_ids":[12,13],)"
            R"("dirtier_op_count":3,"driver_prep_us":3,"driver_done_us":2})"
            "\n");
  EnrichedEvent off = EveryFieldEvent();
  off.event.attribution = Attribution{};
  off.event.op_id = 0;
  // Not NVMe: no driver times either.
  off.event.values.ClearAll();
  const std::string plain = EventLine(off);
  EXPECT_EQ(plain.find("content"), std::string::npos) << plain;
  EXPECT_NE(plain.find(R"("completion_context":"softirq"})"), std::string::npos)
      << plain;
  // Without --ops: no op_id, no dirtier_op_*, nor the dirtier's op_id.
  EnrichedEvent no_ops = EveryFieldEvent();
  no_ops.event.op_id = 0;
  no_ops.event.attribution.dirtier->op_id = 0;
  no_ops.event.attribution.dirtier_op_ids.clear();
  no_ops.event.attribution.dirtier_op_count = 0;
  no_ops.event.values.ClearAll();
  const std::string before_ops = EventLine(no_ops);
  EXPECT_EQ(before_ops.find("op_id"), std::string::npos) << before_ops;
  EXPECT_EQ(before_ops.find("dirtier_op"), std::string::npos) << before_ops;
  EXPECT_NE(before_ops.find(R"("dirtier_count":2})"), std::string::npos)
      << before_ops;
}

TEST(SchemaTest, SummaryLineHasEveryFieldInSchemaOrder) {
  const std::string line = SummaryLine(EveryFieldSummary());
  EXPECT_EQ(ExpectMatchesSchema(line, "summary"),
            FieldNames(biosnoop::v1::Summary::descriptor()));
  const ordered_json j = ordered_json::parse(line);
  ASSERT_EQ(j["groups"].size(), 2u);
  const std::vector<std::string> all =
      FieldNames(biosnoop::v1::SummaryGroup::descriptor());
  EXPECT_EQ(Keys(j["groups"][0]), all);
  // A group without fine counts leaves out the three latency_fine fields
  // (added later: an older stream's summary converts back byte for byte).
  std::vector<std::string> without_fine = all;
  ASSERT_EQ(without_fine.back(), "latency_fine");
  without_fine.resize(without_fine.size() - 3);
  EXPECT_EQ(Keys(j["groups"][1]), without_fine);
  // No groups at all: still every field, "groups":[].
  EXPECT_EQ(ExpectMatchesSchema(SummaryLine(SummaryRecord{}), "summary"),
            FieldNames(biosnoop::v1::Summary::descriptor()));
}

TEST(SchemaTest, SummaryValuesExactly) {
  // Histograms without their trailing zero buckets; disk as valid UTF-8.
  EXPECT_EQ(SummaryLine(EveryFieldSummary()),
            R"({"type":"summary","timestamp":"2026-11-21T05:45:00.000000001Z",)"
            R"("interval_s":60.25,"min_us":10000,"groups":[)"
            R"({"disk":"sda","op":"read","count":7,"bytes":28672,"slow":2,)"
            R"("latency_us_log2":[1,0,0,4,0,0,0,0,0,0,0,0,0,0,2],)"
            R"("size_log2":[0,0,0,0,0,0,0,0,0,0,0,0,7],"errors":1,)"
            R"("latency_fine_schema":4,"latency_fine_first":-266,)"
            R"("latency_fine":[1,4,0,0,2]},)"
            R"({"disk":"v\"d)"
            "\xef\xbf\xbd"
            R"(","op":"flush","count":0,"bytes":0,)"
            R"("slow":0,"latency_us_log2":[],"size_log2":[],"errors":0}]})"
            "\n");
  // The last bucket is written when it is not zero.
  SummaryRecord s;
  s.groups.resize(1);
  s.groups[0].data.latency.back() = 1;
  const ordered_json j = ordered_json::parse(SummaryLine(s));
  EXPECT_EQ(j["groups"][0]["latency_us_log2"].size(),
            s.groups[0].data.latency.size());
  EXPECT_EQ(j["interval_s"], 0);
}

TEST(SchemaTest, HeaderAndStatsValuesExactly) {
  EXPECT_EQ(HeaderLine(EveryFieldInfo()),
            R"({"type":"header","format_version":1,"host":"host-a",)"
            R"("boot_id":"0f4c6d3e-1b2a-4c5d-8e9f-a0b1c2d3e4f5",)"
            R"("start_time":"2026-11-21T05:43:20.123456789Z",)"
            R"("biosnoop_version":"0.1.0","kernel_release":"6.18.0",)"
            R"("min_us":10000,"queued":true,"disk_filter":"vda",)"
            R"("pid_filter":42,"comm_filter":"postgres","op_filter":"write",)"
            R"("ringbuf_kib":4096,"stuck_after_us":2000000,)"
            R"("run_id":"9f86d081884c7d65","cgroup_filter":"/system.slice",)"
            R"("ops":true,"op_min_us":5000,)"
            R"("kernel_lacks":["block_io_start","verifier:handle_sys_enter"]})"
            "\n");
  EXPECT_EQ(StatsLine(EveryFieldStats()),
            R"({"type":"stats","timestamp":"2026-11-21T05:45:00.000000001Z",)"
            R"("elapsed_s":99.876,"completions":100,"emitted":10,"lost":1,)"
            R"("orphans":2,"below_threshold":80,"filtered":7,)"
            R"("decode_errors":3,"expired":4,"written":9,"dropped":1,)"
            R"("final":true,"missed":5,"unfinished":6,)"
            R"("run_id":"9f86d081884c7d65","ledger_misses":11,)"
            R"("ledger_replaced":12,"ops_lost":13,"ops_written":14,)"
            R"("ops_untracked":15,"ops_unfollowed":16,"ledger_stale":17})"
            "\n");
}

// Protobuf's own JSON parser (strict: no unknown fields) accepts the line
// once "type" (the Record's oneof case, not a field) is taken out.
void ExpectProtobufParses(const std::string& line, Message* msg) {
  ordered_json j = ordered_json::parse(line);
  j.erase("type");
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status =
      google::protobuf::util::JsonStringToMessage(j.dump(), msg, options);
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << line;
}

TEST(SchemaTest, ProtobufJsonParserReadsAnEventLine) {
  // A line with a valid comm (comm_raw is hex here, base64 in protobuf's
  // JSON mapping).
  EnrichedEvent e = EveryFieldEvent();
  std::memcpy(e.event.comm.data(), "fio", 4);
  std::memcpy(e.event.attribution.dirtier->comm.data(), "dd", 3);
  biosnoop::v1::Event msg;
  ExpectProtobufParses(EventLine(e), &msg);
  EXPECT_EQ(msg.timestamp().seconds(), 1795239841);
  EXPECT_EQ(msg.host(), "host-a");
  EXPECT_EQ(msg.disk(), "sda");
  EXPECT_EQ(msg.partition(), "sda1");
  EXPECT_THAT(msg.stack(), ::testing::ElementsAre("md0", "dm-0", "vg0-data",
                                                  "dm-1", "data_crypt"));
  EXPECT_EQ(msg.dev(), "8:0");
  EXPECT_EQ(msg.sector(), 2048u);
  EXPECT_EQ(msg.latency_us(), 25000u);
  EXPECT_TRUE(msg.has_queue_us());
  EXPECT_EQ(msg.queue_us(), 1000u);
  EXPECT_EQ(msg.comm(), "fio");
  EXPECT_FALSE(msg.has_comm_raw());
  EXPECT_EQ(msg.error_code(), 5);
  EXPECT_EQ(msg.error(), "EIO");
  EXPECT_EQ(msg.seq(), 1u);
}

TEST(SchemaTest, ProtobufJsonParserReadsHeaderAndStatsLines) {
  biosnoop::v1::StreamHeader header;
  ExpectProtobufParses(HeaderLine(EveryFieldInfo()), &header);
  EXPECT_EQ(header.format_version(), kStreamFormatVersion);
  EXPECT_EQ(header.start_time().seconds(), 1795239800);
  EXPECT_EQ(header.start_time().nanos(), 123456789);
  EXPECT_EQ(header.min_us(), 10000u);
  EXPECT_TRUE(header.queued());
  EXPECT_EQ(header.op_filter(), "write");
  EXPECT_EQ(header.ringbuf_kib(), 4096u);
  EXPECT_EQ(header.run_id(), "9f86d081884c7d65");
  ASSERT_EQ(header.kernel_lacks_size(), 2);
  EXPECT_EQ(header.kernel_lacks(0), "block_io_start");
  EXPECT_EQ(header.kernel_lacks(1), "verifier:handle_sys_enter");

  biosnoop::v1::Stats stats;
  ExpectProtobufParses(StatsLine(EveryFieldStats()), &stats);
  EXPECT_EQ(stats.timestamp().nanos(), 1);
  EXPECT_EQ(stats.elapsed_s(), 99.876);
  EXPECT_EQ(stats.lost(), 1u);
  EXPECT_EQ(stats.dropped(), 1u);
  EXPECT_EQ(stats.missed(), 5u);
  EXPECT_EQ(stats.unfinished(), 6u);
  EXPECT_TRUE(stats.final());
  EXPECT_EQ(stats.run_id(), "9f86d081884c7d65");
}

// The JSON line and the protobuf message of a summary say the same: what
// protobuf's JSON parser makes of the line equals FillSummaryProto's.
TEST(SchemaTest, ProtobufJsonParserReadsASummaryLineAsFillSummaryProto) {
  biosnoop::v1::Summary from_json;
  ExpectProtobufParses(SummaryLine(EveryFieldSummary()), &from_json);
  biosnoop::v1::Summary filled;
  FillSummaryProto(EveryFieldSummary(), &filled);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(from_json, filled))
      << from_json.DebugString() << "\nvs\n"
      << filled.DebugString();
  EXPECT_EQ(filled.groups(0).latency_us_log2_size(), 15);
  EXPECT_EQ(filled.groups(0).size_log2_size(), 13);
  EXPECT_EQ(filled.groups(1).disk(), "v\"d\xef\xbf\xbd");
  EXPECT_EQ(filled.groups(1).latency_us_log2_size(), 0);
  EXPECT_EQ(filled.interval_s(), 60.25);
}

// The JSON line and the protobuf message of a stuck request say the same.
TEST(SchemaTest, ProtobufJsonParserReadsAStuckLineAsFillStuckProto) {
  StuckRequest s = StuckLike(EveryFieldEvent());
  // comm_raw is base64 in protobuf's JSON
  std::memcpy(s.request.comm.data(), "dd", 3);
  std::memcpy(s.attribution.dirtier->comm.data(), "dd", 3);
  biosnoop::v1::Stuck from_json;
  ExpectProtobufParses(StuckLine(s), &from_json);
  biosnoop::v1::Stuck filled;
  FillStuckProto(s, "host-a", &filled);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(from_json, filled))
      << from_json.DebugString() << "\nvs\n"
      << filled.DebugString();
  EXPECT_EQ(filled.inflight_us(), 25000u);
  EXPECT_FALSE(filled.has_comm_raw());
}

// --ops: an op line is a Record's `op`, every field in schema order, each
// layer an OpLayer with every field.
TEST(SchemaTest, OpLineHasEveryFieldInSchemaOrder) {
  const std::string line = OpLine(EveryFieldOp());
  EXPECT_EQ(ExpectMatchesSchema(line, "op"),
            FieldNames(biosnoop::v1::Op::descriptor()));
  const ordered_json j = ordered_json::parse(line);
  for (const char* layer :
       {"block", "writeback", "journal", "flush", "others_writeback"}) {
    EXPECT_EQ(Keys(j[layer]), FieldNames(biosnoop::v1::OpLayer::descriptor()))
        << layer;
  }
  // The first of others_writeback's culprits has every field.
  EXPECT_EQ(Keys(j["others_writeback"]["culprits"][0]),
            FieldNames(biosnoop::v1::OpCulprit::descriptor()));
  EXPECT_EQ(Keys(j["file"]), FieldNames(biosnoop::v1::FileRef::descriptor()));
  // Nulls where the schema has `optional`, comm_raw and the cgroup's
  // fields gone when there is nothing to say.
  EnrichedOp o = EveryFieldOp();
  std::memcpy(o.op.comm.data(), "pg", 3);
  o.op.offset.reset();
  o.op.result = 0;
  o.op.dirty_known = 0;
  o.op.cgroup_id = 0;
  o.partition.clear();
  std::vector<std::string> expected =
      FieldNames(biosnoop::v1::Op::descriptor());
  for (const char* key :
       {"comm_raw", "cgroup", "cgroup_id", "container_id", "pod_uid"}) {
    std::erase(expected, key);
  }
  const std::string plain = OpLine(o);
  EXPECT_EQ(ExpectMatchesSchema(plain, "op"), expected);
  const ordered_json p = ordered_json::parse(plain);
  EXPECT_TRUE(p["offset"].is_null());
  EXPECT_TRUE(p["partition"].is_null());
  EXPECT_TRUE(p["error"].is_null());
  EXPECT_TRUE(p["writeback"]["dirty_age_us_max"].is_null());
  EXPECT_TRUE(p["writeback"]["dirty_age_us_min"].is_null());
}

TEST(SchemaTest, OpValuesExactly) {
  EXPECT_EQ(OpLine(EveryFieldOp()), EveryFieldOpLine() + "\n");
}

// The JSON line and the protobuf message of a call say the same.
TEST(SchemaTest, ProtobufJsonParserReadsAnOpLineAsFillOpProto) {
  EnrichedOp o = EveryFieldOp();
  std::memcpy(o.op.comm.data(), "pg", 3);  // comm_raw is base64 there
  o.op.others_writeback.culprits[0].comm = {'e', 't', 'l'};
  biosnoop::v1::Op from_json;
  ExpectProtobufParses(OpLine(o), &from_json);
  biosnoop::v1::Op filled;
  FillOpProto(o, "host-a", &filled);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(from_json, filled))
      << from_json.DebugString() << "\nvs\n"
      << filled.DebugString();
  EXPECT_EQ(filled.other_us(), 4000u);
  EXPECT_EQ(filled.throttle().wait_us(), 6000u);
  EXPECT_EQ(filled.others_writeback().culprits(1).cgroup_id(), 5151u);
  EXPECT_EQ(filled.error(), "EIO");
  EXPECT_TRUE(filled.writeback().has_dirty_age_us_max());
  EXPECT_FALSE(filled.block().has_dirty_age_us_max());
  // The same with the optional fields unset.
  o.op.offset.reset();
  o.op.result = 4096;
  o.op.dirty_known = 0;
  o.partition.clear();
  biosnoop::v1::Op plain_json;
  ExpectProtobufParses(OpLine(o), &plain_json);
  FillOpProto(o, "host-a", &filled);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(plain_json, filled))
      << plain_json.DebugString() << "\nvs\n"
      << filled.DebugString();
  EXPECT_FALSE(filled.has_offset());
  EXPECT_EQ(filled.bytes_done(), 4096u);
}

// An event of an --ops run says the same in JSON and protobuf.
TEST(SchemaTest, ProtobufJsonParserReadsAnEventsOpIds) {
  EnrichedEvent e = EveryFieldEvent();
  std::memcpy(e.event.comm.data(), "fio", 4);
  std::memcpy(e.event.attribution.dirtier->comm.data(), "dd", 3);
  biosnoop::v1::Event from_json;
  ExpectProtobufParses(EventLine(e), &from_json);
  biosnoop::v1::Event filled;
  FillEventProto(e, "host-a", &filled);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(from_json, filled))
      << from_json.DebugString() << "\nvs\n"
      << filled.DebugString();
  EXPECT_EQ(filled.op_id(), 31u);
  EXPECT_EQ(filled.dirtier_op_ids_size(), 2);
  EXPECT_EQ(filled.dirtier_op_count(), 3u);
  EXPECT_EQ(filled.dirtied_by().op_id(), 12u);
}

}  // namespace
}  // namespace biosnoop
