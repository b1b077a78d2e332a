#pragma once

// Records with every field set, for the tests that hold an encoding to the
// schema (schema_test.cc) and the ECS sample the ecs_schema test checks
// (ecs_sample_main.cc).

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "event.h"
#include "file_op.h"
#include "histogram.h"
#include "stream_info.h"

namespace biosnoop {

// Every field set: queue time known, partition named, devices stacked on
// it, an error, and a comm that is not UTF-8 so that comm_raw appears.
inline EnrichedEvent EveryFieldEvent() {
  EnrichedEvent e;
  e.event.device_ns = 25000000;
  e.event.queue_ns = 1000000;
  // An NVMe disk's driver times (nvme_setup_cmd, nvme_complete_rq).
  e.event.values.Set(EventValue::kDriverPrepUs, 3000);
  e.event.values.Set(EventValue::kDriverDoneUs, 2000);
  e.event.sector = 2048;
  e.event.major = 8;
  e.event.minor = 0;
  e.event.bytes = 65536;
  e.event.pid = 100;
  e.event.tid = 101;
  e.event.queue_depth = 4;
  e.event.op = Op::kRead;
  e.event.blk_status = 10;
  std::memcpy(e.event.comm.data(), "bad\xff", 4);
  e.disk = "sda";
  e.partition = "sda1";
  // dm-crypt over an LVM volume over md0 (Event.stack's example).
  e.stack = {"md0", "dm-0", "vg0-data", "dm-1", "data_crypt"};
  e.realtime_ns = 1795239841000000000;
  e.seq = 1;
  e.event.cgroup_id = 4711;
  e.event.completion_context = CompletionContext::kSoftirq;
  e.cgroup = {
      true,
      "/kubepods.slice/p/cri-containerd-" + std::string(64, 'a') + ".scope",
      std::string(64, 'a'), "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"};
  Attribution& a = e.event.attribution;
  a.content = Content::kFile;
  a.file_count = 9;
  a.incomplete = true;
  a.files.resize(1);
  a.files[0].ino = 12;
  a.files[0].dev_major = 8;
  a.files[0].dev_minor = 1;
  a.files[0].direct = true;
  a.files[0].reached_root = true;
  a.files[0].names = {"f\"1", "data"};
  Dirtier& d = a.dirtier.emplace();
  d.pid = 200;
  d.tid = 201;
  std::memcpy(d.comm.data(), "dd\xfe", 3);
  d.cgroup_id = 77;
  d.dirtied_ns = 5;
  d.op_id = 12;
  a.dirtier_count = 2;
  a.dirtier_op_ids = {12, 13};
  a.dirtier_op_count = 3;
  e.event.op_id = 31;
  e.attribution.content = "file";
  e.attribution.files = {{"/srv/data/f\"1", PathKind::kAbsolute}};
  e.attribution.dirtier_cgroup = {true, "/user.slice", "", ""};
  e.attribution.dirtied_realtime_ns = 1795239840000000001;
  return e;
}

inline StreamInfo EveryFieldInfo() {
  StreamInfo info;
  info.host = "host-a";
  info.boot_id = "0f4c6d3e-1b2a-4c5d-8e9f-a0b1c2d3e4f5";
  info.start_realtime_ns = 1795239800123456789;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0";
  info.min_us = 10000;
  info.queued = true;
  info.disk_filter = "vda";
  info.pid_filter = 42;
  info.comm_filter = "postgres";
  info.op_filter = "write";
  info.ringbuf_kib = 4096;
  info.stuck_after_us = 2000000;
  info.run_id = "9f86d081884c7d65";
  info.cgroup_filter = "/system.slice";
  info.ops = true;
  info.op_min_us = 5000;
  info.kernel_lacks = {"block_io_start", "verifier:handle_sys_enter"};
  return info;
}

inline StatsSnapshot EveryFieldStats() {
  StatsSnapshot s;
  s.realtime_ns = 1795239900000000001;
  s.elapsed_s = 99.876;
  s.completions = 100;
  s.emitted = 10;
  s.lost = 1;
  s.orphans = 2;
  s.below_threshold = 80;
  s.filtered = 7;
  s.decode_errors = 3;
  s.expired = 4;
  s.written = 9;
  s.dropped = 1;
  s.missed = 5;
  s.unfinished = 6;
  s.final = true;
  s.run_id = "9f86d081884c7d65";
  s.ledger_misses = 11;
  s.ledger_replaced = 12;
  s.ops_lost = 13;
  s.ops_written = 14;
  s.ops_untracked = 15;
  s.ops_unfollowed = 16;
  s.ledger_stale = 17;
  return s;
}

// A call (--ops) with every field set: a failed fdatasync-like write with
// an offset, a comm that is not UTF-8, a cgroup, a partition, every layer
// with requests, the writeback layer's dirty ages known, and culprits of
// each kind: a dirtier and a submitter, one with a comm that is not UTF-8
// and a container, one with an unnamed cgroup, one with no cgroup id.
inline OpCulprit EveryFieldCulprit(uint32_t pid, absl::string_view comm,
                                   uint64_t cgroup_id, CgroupLabel cgroup,
                                   bool dirtier, uint32_t requests,
                                   uint64_t bytes, uint64_t wait_ns) {
  OpCulprit c;
  c.pid = pid;
  std::memcpy(c.comm.data(), comm.data(), comm.size());
  c.cgroup_id = cgroup_id;
  c.cgroup = std::move(cgroup);
  c.dirtier = dirtier;
  c.requests = requests;
  c.bytes = bytes;
  c.wait_ns = wait_ns;
  return c;
}

inline EnrichedOp EveryFieldOp() {
  EnrichedOp o;
  FileOp& op = o.op;
  op.op_id = 31;
  op.call = Call::kPwrite64;
  op.pid = 300;
  op.tid = 301;
  std::memcpy(op.comm.data(), "pg\xff", 3);
  op.cgroup_id = 4711;
  op.start_ns = 1'000'000'000;
  op.end_ns = 1'045'000'999;
  op.result = -5;  // EIO
  op.offset = 65536;
  op.bytes_requested = 8192;
  op.bytes_requested_partial = true;
  op.disk_major = 8;
  op.part_major = 8;
  op.part_minor = 1;
  op.file.ino = 12;
  op.file.dev_major = 8;
  op.file.dev_minor = 1;
  op.file.direct = true;
  op.file.reached_root = true;
  op.file.names = {"f\"1", "data"};
  op.named = true;
  // The upper file under an overlay (values apart from file's, so that a
  // writer or reader that mixes them up is caught).
  FileRef& real = op.real_file.emplace();
  real.ino = 77;
  real.dev_major = 8;
  real.dev_minor = 2;
  real.direct = true;
  real.reached_root = true;
  real.names = {"f\"1", "data", "srv", "upper", "ovl"};
  op.block = {2, 8192, 3000, 2000, 25'000'000, 20'000'000, 21'000'000};
  op.block_devs = {8u << 20};
  op.block_dev_count = 1;
  op.writeback = {1, 4096, 1000, 1000, 3'000'000, 3'000'000, 4'000'000};
  op.dirty_known = 1;
  op.dirty_age_max_ns = 900'000'000;
  op.dirty_age_min_ns = 800'000'000;
  const CgroupLabel root = {true, "/", "", ""};
  op.writeback.culprits = {
      EveryFieldCulprit(7, "kworker/u8:1", 1, root, false, 1, 4096, 4'000'000)};
  op.journal = {3, 12288, 2000, 1000, 6'000'000, 3'000'000, 5'000'999};
  op.journal.culprits = {EveryFieldCulprit(412, "jbd2/sda1-8", 1, root, false,
                                           3, 12288, 5'000'999)};
  // A flush and a FUA write's flush half.
  op.flush = {2, 4096, 2000, 1000, 2'500'000, 2'000'000, 2'000'000};
  op.flush.culprits = {
      EveryFieldCulprit(88, "kworker/0:1H", 0, {}, false, 2, 4096, 2'000'000)};
  op.others_writeback = {5, 69632, 4000, 3000, 9'000'000, 3'000'000, 3'000'000};
  op.others_writeback.culprits = {
      EveryFieldCulprit(
          900, "etl\xfe", 5150,
          {true,
           "/kubepods.slice/q/cri-containerd-" + std::string(64, 'b') +
               ".scope",
           std::string(64, 'b'), "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"},
          true, 4, 65536, 2'500'000),
      EveryFieldCulprit(901, "batch", 5151, {}, false, 1, 4096, 500'000)};
  op.throttle = {3, 12288, 0, 0, 0, 0, 6'000'000};
  op.throttle_qos = kQosWbt | kQosIoCost;
  o.disk = "sda";
  o.partition = "sda1";
  o.cgroup = {
      true,
      "/kubepods.slice/p/cri-containerd-" + std::string(64, 'a') + ".scope",
      std::string(64, 'a'), "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"};
  o.file = {"/srv/data/f\"1", PathKind::kAbsolute};
  o.real_file = {"/var/lib/ovl/upper/srv/data/f\"1", PathKind::kAbsolute};
  o.block_disks = {"sda"};
  o.start_realtime_ns = 1795239840000000001;
  o.realtime_ns = 1795239840045000002;
  return o;
}

// Two groups: one with histograms that end in zero buckets (left out) and
// a disk name to escape, one with no completions at all ([] histograms).
inline SummaryRecord EveryFieldSummary() {
  SummaryRecord s;
  s.realtime_ns = 1795239900000000001;
  s.interval_s = 60.25;
  s.min_us = 10000;
  HistGroup a;
  a.disk = "sda";
  a.op = "read";
  a.data.count = 7;
  a.data.bytes = 28672;
  a.data.slow = 2;
  a.data.errors = 1;
  a.data.latency[0] = 1;
  a.data.latency[3] = 4;
  a.data.latency[14] = 2;
  a.data.size[12] = 7;
  // Fine buckets (k = -266..-262, ~9 to ~10.5 us): leading and trailing
  // empty ones left out, those between kept.
  a.data.fine[-266 - kFineFirst] = 1;
  a.data.fine[-265 - kFineFirst] = 4;
  a.data.fine[-262 - kFineFirst] = 2;
  HistGroup b;
  b.disk = "v\"d\xff";
  b.op = "flush";
  s.groups = {a, b};
  return s;
}

}  // namespace biosnoop
