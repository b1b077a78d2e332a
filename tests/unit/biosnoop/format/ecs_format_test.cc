// The ECS documents (--format ecs) read back with a strict JSON parser:
// where each biosnoop field goes, what is left out, and the UTF-8 rules.
// That the names and types are ECS's is the ecs_schema test's (against the
// @elastic/ecs definitions).

#include "ecs_format.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "biosnoop.pb.h"
#include "every_field_records.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "nlohmann/json.hpp"
#include "stuck_like.h"

namespace biosnoop {
namespace {

using nlohmann::json;

// Parses each line of `text` (which must end in '\n'); nlohmann rejects
// invalid UTF-8, so a parse is also that check.
std::vector<json> Documents(const std::string& text) {
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::vector<json> docs;
  for (absl::string_view line : absl::StrSplit(
           absl::string_view(text).substr(0, text.size() - 1), '\n')) {
    docs.push_back(json::parse(line));
  }
  return docs;
}

json EventDoc(const EnrichedEvent& e) {
  std::string text;
  AppendEventEcs(e, "db7", &text);
  std::vector<json> docs = Documents(text);
  EXPECT_EQ(docs.size(), 1u);
  return docs.at(0);
}

// Fast or slow, failed or not, the fields a user looks for in ECS.
TEST(EcsFormatTest, EventWithEveryField) {
  const EnrichedEvent e = EveryFieldEvent();
  const json d = EventDoc(e);
  EXPECT_EQ(d["@timestamp"], "2026-11-21T05:44:01.000000000Z");
  EXPECT_EQ(d["ecs"]["version"], std::string(kEcsVersion));
  EXPECT_EQ(d["event"]["kind"], "event");
  EXPECT_EQ(d["event"]["category"], json({"host", "file"}));
  EXPECT_EQ(d["event"]["type"], json({"access"}));
  EXPECT_EQ(d["event"]["action"], "io-completed");
  EXPECT_EQ(d["event"]["outcome"], "failure");
  EXPECT_EQ(d["event"]["duration"], 25000000);  // ns, device time (no -Q)
  EXPECT_EQ(d["event"]["sequence"], 1);
  EXPECT_EQ(d["host"]["name"], "db7");
  EXPECT_EQ(d["process"]["pid"], 100);
  EXPECT_EQ(d["process"]["thread"]["id"], 101);
  EXPECT_EQ(d["process"]["name"], "bad\xef\xbf\xbd");
  EXPECT_EQ(d["error"]["code"], "EIO");
  EXPECT_EQ(d["error"]["message"], "Input/output error");
  EXPECT_EQ(d["container"]["id"], std::string(64, 'a'));
  EXPECT_EQ(d["file"]["path"], "/srv/data/f\"1");
  EXPECT_EQ(d["file"]["inode"], "12");  // a keyword in ECS

  const json& b = d["biosnoop"];
  EXPECT_EQ(b["disk"], "sda");
  EXPECT_EQ(b["partition"], "sda1");
  EXPECT_EQ(b["stack"],
            json({"md0", "dm-0", "vg0-data", "dm-1", "data_crypt"}));
  EXPECT_EQ(b["dev"], "8:0");
  EXPECT_EQ(b["op"], "read");
  EXPECT_EQ(b["rwbs"], "R");
  EXPECT_EQ(b["sector"], 2048);
  EXPECT_EQ(b["bytes"], 65536);
  EXPECT_EQ(b["queue_depth"], 4);
  EXPECT_EQ(b["comm_raw"], "626164ff");
  EXPECT_EQ(b["latency"], json({{"us", 25000},
                                {"device_us", 25000},
                                {"queue_us", 1000},
                                {"driver_prep_us", 3},
                                {"driver_done_us", 2}}));
  EXPECT_EQ(b["error_code"], 5);
  EXPECT_EQ(b["cgroup"], e.cgroup.path);
  EXPECT_EQ(b["cgroup_id"], 4711);
  EXPECT_EQ(b["pod_uid"], "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(b["completion_context"], "softirq");
  EXPECT_EQ(b["content"], "file");
  EXPECT_EQ(b["files"], json::parse(R"([{"path":"/srv/data/f\"1",
      "path_kind":"absolute","inode":12,"dev":"8:1","direct":true}])"));
  EXPECT_EQ(b["file_count"], 9);
  EXPECT_EQ(b["files_incomplete"], true);
  EXPECT_EQ(b["dirtied_by"], json::parse(R"({"pid":200,"tid":201,
      "comm":"dd\ufffd","comm_raw":"6464fe","cgroup":"/user.slice",
      "cgroup_id":77,"dirtied_at":"2026-11-21T05:44:00.000000001Z",
      "op_id":12})"));
  EXPECT_EQ(b["dirtier_count"], 2);
  EXPECT_EQ(b["op_id"], 31);
  EXPECT_EQ(b["dirtier_op_ids"], json::parse("[12,13]"));
  EXPECT_EQ(b["dirtier_op_count"], 3);
  // Nothing else at the top: ECS's names, or biosnoop's namespace.
  for (const auto& [key, value] : d.items()) {
    EXPECT_TRUE(key == "@timestamp" || key == "ecs" || key == "event" ||
                key == "host" || key == "process" || key == "error" ||
                key == "container" || key == "file" || key == "biosnoop")
        << key;
  }
}

// Where each field of the schema's Event goes in an ECS document.  Every
// field must be listed (a new field fails here, by name, until its place is
// chosen), and in the every-field event each place must be there: the ECS
// encoder cannot leave a field of the schema out unnoticed.
TEST(EcsFormatTest, EveryFieldOfTheSchemaHasItsPlace) {
  const std::map<std::string, std::vector<std::string>> places = {
      {"timestamp", {"/@timestamp"}},
      {"host", {"/host/name"}},
      {"disk", {"/biosnoop/disk"}},
      {"partition", {"/biosnoop/partition"}},
      {"stack", {"/biosnoop/stack"}},
      {"dev", {"/biosnoop/dev"}},
      {"op", {"/biosnoop/op"}},
      {"rwbs", {"/biosnoop/rwbs"}},
      {"sector", {"/biosnoop/sector"}},
      {"bytes", {"/biosnoop/bytes"}},
      {"latency_us", {"/biosnoop/latency/us", "/event/duration"}},
      {"device_us", {"/biosnoop/latency/device_us"}},
      {"queue_us", {"/biosnoop/latency/queue_us"}},
      {"driver_prep_us", {"/biosnoop/latency/driver_prep_us"}},
      {"driver_done_us", {"/biosnoop/latency/driver_done_us"}},
      {"queue_depth", {"/biosnoop/queue_depth"}},
      {"pid", {"/process/pid"}},
      {"tid", {"/process/thread/id"}},
      {"comm", {"/process/name"}},
      {"comm_raw", {"/biosnoop/comm_raw"}},
      {"error_code", {"/biosnoop/error_code"}},
      {"error", {"/error/code", "/error/message", "/event/outcome"}},
      {"seq", {"/event/sequence"}},
      {"cgroup", {"/biosnoop/cgroup"}},
      {"cgroup_id", {"/biosnoop/cgroup_id"}},
      {"container_id", {"/container/id"}},
      {"pod_uid", {"/biosnoop/pod_uid"}},
      {"completion_context", {"/biosnoop/completion_context"}},
      {"content", {"/biosnoop/content"}},
      {"files", {"/biosnoop/files", "/file/path", "/file/inode"}},
      {"file_count", {"/biosnoop/file_count"}},
      {"files_incomplete", {"/biosnoop/files_incomplete"}},
      {"dirtied_by", {"/biosnoop/dirtied_by"}},
      {"dirtier_count", {"/biosnoop/dirtier_count"}},
      {"op_id", {"/biosnoop/op_id"}},
      {"dirtier_op_ids", {"/biosnoop/dirtier_op_ids"}},
      {"dirtier_op_count", {"/biosnoop/dirtier_op_count"}},
  };
  const json d = EventDoc(EveryFieldEvent());
  const google::protobuf::Descriptor* event = v1::Event::descriptor();
  for (int i = 0; i < event->field_count(); ++i) {
    const std::string name = event->field(i)->name();
    const auto it = places.find(name);
    if (it == places.end()) {
      ADD_FAILURE() << "Event." << name
                    << " has no place in ECS documents listed here";
      continue;
    }
    for (const std::string& place : it->second) {
      EXPECT_TRUE(d.contains(json::json_pointer(place)))
          << "Event." << name << " should be at " << place << " in "
          << d.dump();
    }
  }
  EXPECT_EQ(places.size(), static_cast<size_t>(event->field_count()))
      << "places listed for fields the schema no longer has";
}

// With -Q, event.duration is the latency compared with --min-us:
// device and queue time.
TEST(EcsFormatTest, DurationIsTheReportedLatencyInNanoseconds) {
  EnrichedEvent e = EveryFieldEvent();
  e.include_queue = true;
  e.event.device_ns = 25000999;
  const json d = EventDoc(e);
  EXPECT_EQ(d["event"]["duration"], 26000999);
  EXPECT_EQ(d["biosnoop"]["latency"]["us"], 26000);
  EXPECT_EQ(d["biosnoop"]["latency"]["device_us"], 25000);
}

// What the JSON Lines stream writes as null, or leaves out, is left out;
// success has no error.* and its outcome says so.
TEST(EcsFormatTest, SuccessWithNothingOptional) {
  EnrichedEvent e;
  e.event.device_ns = 12345678;
  e.event.op = Op::kWrite;
  e.event.pid = e.event.tid = 7;
  std::memcpy(e.event.comm.data(), "kworker/u8:2", 12);
  e.disk = "vda";
  e.realtime_ns = 1;
  e.seq = 3;
  const json d = EventDoc(e);
  EXPECT_EQ(d["event"]["outcome"], "success");
  EXPECT_EQ(d["event"]["category"], json({"host"}));
  EXPECT_EQ(d["process"]["name"], "kworker/u8:2");
  for (const char* key : {"error", "container", "file"}) {
    EXPECT_FALSE(d.contains(key)) << key;
  }
  const json& b = d["biosnoop"];
  for (const char* key :
       {"partition", "stack", "comm_raw", "cgroup", "cgroup_id", "pod_uid",
        "content", "files", "dirtied_by"}) {
    EXPECT_FALSE(b.contains(key)) << key;
  }
  EXPECT_FALSE(b["latency"].contains("queue_us"));
  EXPECT_EQ(b["error_code"], 0);
}

// file.path is a full path in ECS: a path from a file system's root that is
// not mounted here, or a bare name, stays in biosnoop.files only.
TEST(EcsFormatTest, OnlyAnAbsolutePathIsFilePath) {
  EnrichedEvent e = EveryFieldEvent();
  e.attribution.files[0] = {"data/f1", PathKind::kFsRelative};
  const json d = EventDoc(e);
  EXPECT_FALSE(d["file"].contains("path"));
  EXPECT_EQ(d["file"]["inode"], "12");
  EXPECT_EQ(d["biosnoop"]["files"][0]["path"], "data/f1");
  EXPECT_EQ(d["biosnoop"]["files"][0]["path_kind"], "fs_relative");
}

// Every comm of one byte, and a hostile one, gives valid UTF-8 JSON with
// the raw bytes kept under biosnoop.comm_raw exactly when they are not
// valid UTF-8.
TEST(EcsFormatTest, AnyCommIsValidJson) {
  for (int c = 1; c < 256; ++c) {
    EnrichedEvent e = EveryFieldEvent();
    e.event.comm.fill(0);
    e.event.comm[0] = static_cast<char>(c);
    e.event.comm[1] = '"';
    e.event.comm[2] = '\\';
    const json d = EventDoc(e);
    std::string name = d["process"]["name"];
    const bool valid = IsValidUtf8(e.event.Comm());
    EXPECT_EQ(d["biosnoop"].contains("comm_raw"), !valid) << c;
    if (valid) EXPECT_EQ(name, e.event.Comm()) << c;
  }
}

TEST(EcsFormatTest, StuckHasNoOutcomeYet) {
  const StuckRequest s = StuckLike(EveryFieldEvent());
  std::string text;
  AppendStuckEcs(s, "db7", &text);
  const std::vector<json> docs = Documents(text);
  ASSERT_EQ(docs.size(), 1u);
  const json& d = docs[0];
  EXPECT_EQ(d["event"]["kind"], "event");
  EXPECT_EQ(d["event"]["action"], "io-stuck");
  EXPECT_EQ(d["event"]["outcome"], "unknown");
  EXPECT_FALSE(d["event"].contains("duration"));
  EXPECT_FALSE(d["event"].contains("sequence"));
  EXPECT_FALSE(d.contains("error"));
  EXPECT_EQ(d["process"]["pid"], 100);
  EXPECT_EQ(d["container"]["id"], std::string(64, 'a'));
  EXPECT_EQ(d["biosnoop"]["inflight_us"], 25000);
  EXPECT_EQ(d["biosnoop"]["latency"], json({{"queue_us", 1000}}));
  EXPECT_EQ(d["biosnoop"]["disk"], "sda");
  EXPECT_EQ(d["biosnoop"]["stack"],
            json({"md0", "dm-0", "vg0-data", "dm-1", "data_crypt"}));
}

// Loss stays visible: every counter of the stats record.
TEST(EcsFormatTest, StatsIsAMetricDocumentWithEveryCounter) {
  std::string text;
  AppendStatsEcs(EveryFieldStats(), "db7", &text);
  const std::vector<json> docs = Documents(text);
  ASSERT_EQ(docs.size(), 1u);
  const json& d = docs[0];
  EXPECT_EQ(d["event"]["kind"], "metric");
  EXPECT_EQ(d["event"]["action"], "stats");
  EXPECT_EQ(d["host"]["name"], "db7");
  EXPECT_EQ(d["biosnoop"]["run_id"], "9f86d081884c7d65");
  EXPECT_EQ(d["biosnoop"]["stats"], json::parse(R"({"elapsed_s":99.876,
      "completions":100,"emitted":10,"lost":1,"orphans":2,
      "below_threshold":80,"filtered":7,"decode_errors":3,"expired":4,
      "written":9,"dropped":1,"final":true,"missed":5,"unfinished":6,
      "ledger_misses":11,"ledger_replaced":12,"ops_lost":13,
      "ops_written":14,"ops_untracked":15,"ops_unfollowed":16,
      "ledger_stale":17})"));
}

TEST(EcsFormatTest, SummaryIsOneDocumentPerGroup) {
  std::string text;
  AppendSummaryEcs(EveryFieldSummary(), "db7", &text);
  const std::vector<json> docs = Documents(text);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0]["event"]["kind"], "metric");
  EXPECT_EQ(docs[0]["event"]["action"], "summary");
  EXPECT_EQ(docs[0]["biosnoop"]["disk"], "sda");
  EXPECT_EQ(docs[0]["biosnoop"]["op"], "read");
  EXPECT_EQ(docs[0]["biosnoop"]["summary"], json::parse(R"({
      "interval_s":60.25,"min_us":10000,"count":7,"bytes":28672,"slow":2,
      "errors":1,"latency_us_log2":[1,0,0,4,0,0,0,0,0,0,0,0,0,0,2],
      "size_log2":[0,0,0,0,0,0,0,0,0,0,0,0,7],"latency_fine_schema":4,
      "latency_fine_first":-266,"latency_fine":[1,4,0,0,2]})"));
  EXPECT_EQ(docs[1]["biosnoop"]["disk"], "v\"d\xef\xbf\xbd");
  EXPECT_EQ(docs[1]["biosnoop"]["summary"]["latency_us_log2"], json::array());

  SummaryRecord empty = EveryFieldSummary();
  empty.groups.clear();
  std::string none;
  AppendSummaryEcs(empty, "db7", &none);
  EXPECT_EQ(none, "");
}

TEST(EcsFormatTest, HeaderIsAStateDocument) {
  std::string text;
  AppendHeaderEcs(EveryFieldInfo(), &text);
  const std::vector<json> docs = Documents(text);
  ASSERT_EQ(docs.size(), 1u);
  const json& d = docs[0];
  EXPECT_EQ(d["@timestamp"], "2026-11-21T05:43:20.123456789Z");
  EXPECT_EQ(d["event"]["kind"], "state");
  EXPECT_EQ(d["event"]["action"], "stream-start");
  EXPECT_EQ(d["host"]["name"], "host-a");
  EXPECT_EQ(d["host"]["boot"]["id"], "0f4c6d3e-1b2a-4c5d-8e9f-a0b1c2d3e4f5");
  EXPECT_EQ(d["host"]["os"]["kernel"], "6.18.0");
  EXPECT_EQ(d["biosnoop"]["run_id"], "9f86d081884c7d65");
  EXPECT_EQ(d["biosnoop"]["header"]["min_us"], 10000);
  EXPECT_EQ(d["biosnoop"]["header"]["queued"], true);
  EXPECT_EQ(d["biosnoop"]["header"]["cgroup_filter"], "/system.slice");
  EXPECT_EQ(d["biosnoop"]["header"]["kernel_lacks"],
            json::array({"block_io_start", "verifier:handle_sys_enter"}));
  // A kernel that lacks nothing: no key, as in the JSON Lines header.
  StreamInfo info = EveryFieldInfo();
  info.kernel_lacks.clear();
  std::string full;
  AppendHeaderEcs(info, &full);
  EXPECT_FALSE(
      Documents(full)[0]["biosnoop"]["header"].contains("kernel_lacks"));
}

}  // namespace
}  // namespace biosnoop
