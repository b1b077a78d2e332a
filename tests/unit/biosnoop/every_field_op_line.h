#pragma once

// The op record with every field set (every_field_records.h's
// EveryFieldOp()) as biosnoop writes it, for the tests that hold its JSON
// line to the schema (schema_test.cc) and read it back in bioreport
// (bioreport_ops_test.cc): one copy of the line, so that the writer and
// the reader are held to the same text.

#include <string>

namespace biosnoop {

// The line without its '\n'.
inline std::string EveryFieldOpLine() {
  return R"({"type":"op","timestamp":"2026-11-21T05:44:00.045000002Z",)"
         R"("host":"host-a","op_id":31,"call":"pwrite64","pid":300,)"
         R"("tid":301,"comm":"pg)"
         "\xef\xbf\xbd"
         R"(","comm_raw":"7067ff",)"
         R"("cgroup":"/kubepods.slice/p/cri-containerd-)" +
         std::string(64, 'a') + R"(.scope","cgroup_id":4711,"container_id":")" +
         std::string(64, 'a') +
         R"(","pod_uid":"0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",)"
         R"("file":{"path":"/srv/data/f\"1","path_kind":"absolute",)"
         R"("inode":12,"dev":"8:1","direct":true},)"
         R"("real_file":{"path":"/var/lib/ovl/upper/srv/data/f\"1",)"
         R"("path_kind":"absolute","inode":77,"dev":"8:2","direct":true},)"
         R"("disk":"sda",)"
         R"("partition":"sda1","offset":65536,"bytes_requested":8192,)"
         R"("bytes_requested_partial":true,"bytes_done":0,)"
         R"("error_code":5,"error":"EIO",)"
         R"("start_time":"2026-11-21T05:44:00.000000001Z",)"
         R"("latency_us":45000,"block":{"requests":2,"bytes":8192,)"
         R"("disks":["sda"],"queue_us_sum":3,"queue_us_max":2,)"
         R"("device_us_sum":25000,"device_us_max":20000,)"
         R"("wait_us":21000,"dirty_age_us_max":null,)"
         R"("dirty_age_us_min":null,"dirty_known":0,"culprits":[]},)"
         R"("writeback":{"requests":1,"bytes":4096,"disks":[],)"
         R"("queue_us_sum":1,"queue_us_max":1,"device_us_sum":3000,)"
         R"("device_us_max":3000,"wait_us":4000,)"
         R"("dirty_age_us_max":900000,"dirty_age_us_min":800000,)"
         R"("dirty_known":1,"culprits":[{"pid":7,)"
         R"("comm":"kworker/u8:1","cgroup":"/","cgroup_id":1,)"
         R"("container_id":null,"pod_uid":null,"role":"submitter",)"
         R"("requests":1,"bytes":4096,"wait_us":4000}]},)"
         R"("other_us":4000,)"
         R"("journal":{"requests":3,"bytes":12288,"disks":[],)"
         R"("queue_us_sum":2,"queue_us_max":1,"device_us_sum":6000,)"
         R"("device_us_max":3000,"wait_us":5000,)"
         R"("dirty_age_us_max":null,"dirty_age_us_min":null,)"
         R"("dirty_known":0,"culprits":[{"pid":412,)"
         R"("comm":"jbd2/sda1-8","cgroup":"/","cgroup_id":1,)"
         R"("container_id":null,"pod_uid":null,"role":"submitter",)"
         R"("requests":3,"bytes":12288,"wait_us":5000}]},)"
         R"("flush":{"requests":2,"bytes":4096,"disks":[],)"
         R"("queue_us_sum":2,"queue_us_max":1,"device_us_sum":2500,)"
         R"("device_us_max":2000,"wait_us":2000,)"
         R"("dirty_age_us_max":null,"dirty_age_us_min":null,)"
         R"("dirty_known":0,"culprits":[{"pid":88,)"
         R"("comm":"kworker/0:1H","role":"submitter","requests":2,)"
         R"("bytes":4096,"wait_us":2000}]},)"
         R"("others_writeback":{"requests":5,"bytes":69632,)"
         R"("disks":[],"queue_us_sum":4,"queue_us_max":3,)"
         R"("device_us_sum":9000,"device_us_max":3000,)"
         R"("wait_us":3000,"dirty_age_us_max":null,)"
         R"("dirty_age_us_min":null,"dirty_known":0,)"
         R"("culprits":[{"pid":900,"comm":"etl)"
         "\xef\xbf\xbd"
         R"(","comm_raw":"65746cfe",)"
         R"("cgroup":"/kubepods.slice/q/cri-containerd-)" +
         std::string(64, 'b') + R"(.scope","cgroup_id":5150,"container_id":")" +
         std::string(64, 'b') +
         R"(","pod_uid":"1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",)"
         R"("role":"dirtier","requests":4,"bytes":65536,)"
         R"("wait_us":2500},{"pid":901,"comm":"batch",)"
         R"("cgroup":null,"cgroup_id":5151,"container_id":null,)"
         R"("pod_uid":null,"role":"submitter","requests":1,)"
         R"("bytes":4096,"wait_us":500}]},)"
         R"("throttle":{"requests":3,"bytes":12288,"disks":[],)"
         R"("queue_us_sum":0,"queue_us_max":0,"device_us_sum":0,)"
         R"("device_us_max":0,"wait_us":6000,"dirty_age_us_max":null,)"
         R"("dirty_age_us_min":null,"dirty_known":0,"culprits":[]},)"
         R"("throttle_controllers":["wbt","io.cost"]})";
}

}  // namespace biosnoop
