// ECS documents of calls (--ops): where each Op field goes.  That the
// names and types are ECS's is the ecs_schema test's.

#include <string>

#include "ecs_format.h"
#include "every_field_records.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace biosnoop {
namespace {

using nlohmann::json;

json OpDoc(const EnrichedOp& o) {
  std::string text;
  AppendOpEcs(o, "db7", &text);
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);  // one document, one line
  return json::parse(text);
}

TEST(EcsOpTest, CallWithEveryField) {
  const EnrichedOp o = EveryFieldOp();
  const json d = OpDoc(o);
  EXPECT_EQ(d["@timestamp"], "2026-11-21T05:44:00.045000002Z");
  EXPECT_EQ(d["event"]["kind"], "event");
  EXPECT_EQ(d["event"]["category"], json::parse(R"(["file"])"));
  EXPECT_EQ(d["event"]["type"], json::parse(R"(["change"])"));
  EXPECT_EQ(d["event"]["action"], "call-completed");
  EXPECT_EQ(d["event"]["outcome"], "failure");
  EXPECT_EQ(d["event"]["duration"], 45'000'999);
  EXPECT_EQ(d["event"]["start"], "2026-11-21T05:44:00.000000001Z");
  EXPECT_EQ(d["event"]["end"], "2026-11-21T05:44:00.045000002Z");
  EXPECT_EQ(d["host"]["name"], "db7");
  EXPECT_EQ(d["process"]["pid"], 300);
  EXPECT_EQ(d["process"]["thread"]["id"], 301);
  EXPECT_EQ(d["process"]["name"], "pg\xef\xbf\xbd");
  EXPECT_EQ(d["error"]["code"], "EIO");
  EXPECT_EQ(d["error"]["message"], "Input/output error");
  EXPECT_EQ(d["container"]["id"], std::string(64, 'a'));
  EXPECT_EQ(d["file"]["path"], "/srv/data/f\"1");
  EXPECT_EQ(d["file"]["inode"], "12");

  const json& b = d["biosnoop"];
  EXPECT_EQ(b["op_id"], 31);
  EXPECT_EQ(b["call"], "pwrite64");
  EXPECT_EQ(b["disk"], "sda");
  EXPECT_EQ(b["partition"], "sda1");
  EXPECT_EQ(b["comm_raw"], "7067ff");
  EXPECT_EQ(b["cgroup_id"], 4711);
  EXPECT_EQ(b["file"], json::parse(R"({"path":"/srv/data/f\"1",
      "path_kind":"absolute","dev":"8:1","direct":true})"));
  EXPECT_EQ(b["offset"], 65536);
  EXPECT_EQ(b["bytes_requested"], 8192);
  EXPECT_EQ(b["bytes_requested_partial"], true);
  EXPECT_EQ(b["bytes_done"], 0);
  EXPECT_EQ(b["error_code"], 5);
  // 45 ms - 21 ms block - 4 ms writeback - 5 journal - 2 flush - 3 others
  // - 6 throttle.
  EXPECT_EQ(b["latency"], json::parse(R"({"us":45000,"other_us":4000})"));
  EXPECT_EQ(b["throttle"]["wait_us"], 6000);
  EXPECT_EQ(b["throttle"]["requests"], 3);
  EXPECT_EQ(b["throttle_controllers"], json::parse(R"(["wbt","io.cost"])"));
  EXPECT_EQ(b["block"], json::parse(R"({"requests":2,"bytes":8192,
      "disks":["sda"],"queue_us_sum":3,"queue_us_max":2,
      "device_us_sum":25000,"device_us_max":20000,"wait_us":21000,
      "dirty_known":0})"));
  EXPECT_EQ(b["writeback"], json::parse(R"({"requests":1,"bytes":4096,
      "queue_us_sum":1,"queue_us_max":1,"device_us_sum":3000,
      "device_us_max":3000,"wait_us":4000,"dirty_age_us_max":900000,
      "dirty_age_us_min":800000,"dirty_known":1,
      "culprits":[{"pid":7,"comm":"kworker/u8:1","cgroup":"/",
      "cgroup_id":1,"role":"submitter","requests":1,"bytes":4096,
      "wait_us":4000}]})"));
  EXPECT_EQ(b["journal"], json::parse(R"({"requests":3,"bytes":12288,
      "queue_us_sum":2,"queue_us_max":1,"device_us_sum":6000,
      "device_us_max":3000,"wait_us":5000,"dirty_known":0,
      "culprits":[{"pid":412,"comm":"jbd2/sda1-8","cgroup":"/",
      "cgroup_id":1,"role":"submitter","requests":3,"bytes":12288,
      "wait_us":5000}]})"));
  // No cgroup id: no cgroup keys.
  EXPECT_EQ(b["flush"], json::parse(R"({"requests":2,"bytes":4096,
      "queue_us_sum":2,"queue_us_max":1,"device_us_sum":2500,
      "device_us_max":2000,"wait_us":2000,"dirty_known":0,
      "culprits":[{"pid":88,"comm":"kworker/0:1H","role":"submitter",
      "requests":2,"bytes":4096,"wait_us":2000}]})"));
  const json& others = b["others_writeback"];
  EXPECT_EQ(others["wait_us"], 3000);
  EXPECT_EQ(others["requests"], 5);
  ASSERT_EQ(others["culprits"].size(), 2u);
  EXPECT_EQ(others["culprits"][0],
            json::parse(R"({"pid":900,"comm":"etl\ufffd",
      "comm_raw":"65746cfe","cgroup":"/kubepods.slice/q/cri-containerd-)" +
                        std::string(64, 'b') +
                        R"(.scope","cgroup_id":5150,"container_id":")" +
                        std::string(64, 'b') + R"(",
      "pod_uid":"1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d","role":"dirtier",
      "requests":4,"bytes":65536,"wait_us":2500})"));
  // A cgroup that could not be named: its id only.
  EXPECT_EQ(others["culprits"][1], json::parse(R"({"pid":901,"comm":"batch",
      "cgroup_id":5151,"role":"submitter","requests":1,"bytes":4096,
      "wait_us":500})"));
}

// A read that succeeded, on a file not named at return, of a call
// without an offset: no error, no file.path, no offset, no dirty ages.
TEST(EcsOpTest, ReadWithNothingOptional) {
  EnrichedOp o = EveryFieldOp();
  o.op.call = Call::kRead;
  o.op.result = 4096;
  o.op.offset.reset();
  o.op.dirty_known = 0;
  o.op.cgroup_id = 0;
  o.cgroup = CgroupLabel{};
  o.op.named = false;
  o.file = FileLabel{};
  o.partition.clear();
  const json d = OpDoc(o);
  EXPECT_EQ(d["event"]["type"], json::parse(R"(["access"])"));
  EXPECT_EQ(d["event"]["outcome"], "success");
  EXPECT_FALSE(d.contains("error"));
  EXPECT_FALSE(d.contains("container"));
  EXPECT_FALSE(d["file"].contains("path"));
  EXPECT_EQ(d["file"]["inode"], "12");
  const json& b = d["biosnoop"];
  EXPECT_EQ(b["call"], "read");
  EXPECT_EQ(b["bytes_done"], 4096);
  EXPECT_EQ(b["error_code"], 0);
  EXPECT_FALSE(b.contains("offset"));
  EXPECT_FALSE(b.contains("partition"));
  EXPECT_FALSE(b.contains("cgroup_id"));
  EXPECT_FALSE(b["writeback"].contains("dirty_age_us_max"));
  // Layers with no culprits have no culprits key.
  o.op.writeback.culprits.clear();
  EXPECT_FALSE(OpDoc(o)["biosnoop"]["writeback"].contains("culprits"));
  EXPECT_FALSE(b["block"].contains("culprits"));
  EXPECT_EQ(b["file"]["path_kind"], "");
}

}  // namespace
}  // namespace biosnoop
