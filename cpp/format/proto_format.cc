// Records as generated protobuf messages: the reference the wire encoder is
// tested against (proto_format.h).

#include "proto_format.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "json_format.h"
#include "op_layer_json.h"

namespace biosnoop {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

// proto3 `string` fields must hold valid UTF-8 (a reader may refuse the
// whole message otherwise), so bytes from the kernel or sysfs are cleaned
// with the same rule the JSON writer applies.  The common case, text that
// is already valid, is one check and one copy into reused capacity.
void AssignUtf8(absl::string_view bytes, std::string* out) {
  if (IsValidUtf8(bytes)) {
    out->assign(bytes.data(), bytes.size());
  } else {
    out->clear();
    AppendSanitizedUtf8(bytes, out);
  }
}

}  // namespace

void SetTimestamp(int64_t realtime_ns, google::protobuf::Timestamp* ts) {
  int64_t seconds = realtime_ns / kNsPerSecond;
  int64_t nanos = realtime_ns % kNsPerSecond;
  if (nanos < 0) {
    nanos += kNsPerSecond;
    --seconds;
  }
  ts->set_seconds(seconds);
  ts->set_nanos(static_cast<int32_t>(nanos));
}

namespace {

// The fields Event and Stuck share, named and numbered alike in both
// messages (Msg is v1::Event or v1::Stuck).
template <typename Msg>
void FillRequestFields(const Request& ev, int64_t realtime_ns,
                       absl::string_view disk, absl::string_view partition,
                       const std::vector<std::string>& stack,
                       absl::string_view host, Msg* msg) {
  SetTimestamp(realtime_ns, msg->mutable_timestamp());
  AssignUtf8(host, msg->mutable_host());
  AssignUtf8(disk, msg->mutable_disk());
  if (partition.empty()) {
    msg->clear_partition();
  } else {
    AssignUtf8(partition, msg->mutable_partition());
  }
  msg->clear_stack();
  for (const std::string& name : stack) AssignUtf8(name, msg->add_stack());
  std::string* dev = msg->mutable_dev();
  dev->clear();
  absl::StrAppend(dev, ev.major, ":", ev.minor);
  const absl::string_view op = OpName(ev.op);
  msg->mutable_op()->assign(op.data(), op.size());
  *msg->mutable_rwbs() = std::string(Rwbs(ev.op, ev.flags));
  msg->set_sector(ev.sector);
  msg->set_bytes(ev.bytes);
  if (ev.queue_ns.has_value()) {
    msg->set_queue_us(*ev.queue_ns / 1000);
  } else {
    msg->clear_queue_us();
  }
  msg->set_queue_depth(ev.queue_depth);
  msg->set_pid(ev.pid);
  msg->set_tid(ev.tid);
  const absl::string_view comm = ev.Comm();
  std::string* comm_text = msg->mutable_comm();
  comm_text->clear();
  if (AppendSanitizedUtf8(comm, comm_text)) {
    msg->mutable_comm_raw()->assign(comm.data(), comm.size());
  } else {
    msg->clear_comm_raw();
  }
}

// The cgroup fields, alike in Event and Stuck.
template <typename Msg>
void FillCgroupFields(const CgroupLabel& c, uint64_t id, Msg* msg) {
  if (c.known) {
    AssignUtf8(c.path, msg->mutable_cgroup());
  } else {
    msg->clear_cgroup();
  }
  msg->set_cgroup_id(id);
  if (c.container_id.empty()) {
    msg->clear_container_id();
  } else {
    AssignUtf8(c.container_id, msg->mutable_container_id());
  }
  if (c.pod_uid.empty()) {
    msg->clear_pod_uid();
  } else {
    AssignUtf8(c.pod_uid, msg->mutable_pod_uid());
  }
}

// The attribution fields (content .. dirtier_count); cleared when the
// kernel side did not look.  Alike in Event and Stuck.
template <typename Msg>
void FillAttributionFields(const Attribution& a, const AttributionLabel& label,
                           Msg* msg) {
  msg->clear_files();
  msg->clear_dirtied_by();
  if (a.content == Content::kNotLooked) {
    msg->clear_content();
    msg->clear_file_count();
    msg->clear_files_incomplete();
    msg->clear_dirtier_count();
    return;
  }
  msg->mutable_content()->assign(label.content.data(), label.content.size());
  for (size_t i = 0; i < a.files.size() && i < label.files.size(); ++i) {
    v1::FileRef* f = msg->add_files();
    AssignUtf8(label.files[i].path, f->mutable_path());
    const absl::string_view kind = PathKindName(label.files[i].kind);
    f->mutable_path_kind()->assign(kind.data(), kind.size());
    f->set_inode(a.files[i].ino);
    f->set_dev(absl::StrCat(a.files[i].dev_major, ":", a.files[i].dev_minor));
    f->set_direct(a.files[i].direct);
  }
  msg->set_file_count(a.file_count);
  msg->set_files_incomplete(a.incomplete);
  if (a.dirtier.has_value()) {
    const Dirtier& d = *a.dirtier;
    v1::Dirtier* m = msg->mutable_dirtied_by();
    m->set_pid(d.pid);
    m->set_tid(d.tid);
    const absl::string_view comm = d.Comm();
    if (AppendSanitizedUtf8(comm, m->mutable_comm())) {
      m->mutable_comm_raw()->assign(comm.data(), comm.size());
    }
    if (label.dirtier_cgroup.known) {
      AssignUtf8(label.dirtier_cgroup.path, m->mutable_cgroup());
    }
    m->set_cgroup_id(d.cgroup_id);
    SetTimestamp(label.dirtied_realtime_ns, m->mutable_dirtied_at());
    m->set_op_id(d.op_id);
  }
  msg->set_dirtier_count(a.dirtier_count);
}

}  // namespace

void FillEventProto(const EnrichedEvent& e, absl::string_view host,
                    v1::Event* msg) {
  FillRequestFields(e.event, e.realtime_ns, e.disk, e.partition, e.stack, host,
                    msg);
  const Event& ev = e.event;
  msg->set_latency_us(ev.LatencyNs(e.include_queue) / 1000);
  msg->set_device_us(ev.device_ns / 1000);
  const BlkError error = BlkStatusToError(ev.blk_status);
  msg->set_error_code(error.errno_value);
  if (error.name.empty()) {
    msg->clear_error();
  } else {
    msg->mutable_error()->assign(error.name.data(), error.name.size());
  }
  msg->set_seq(e.seq);
  FillCgroupFields(e.cgroup, ev.cgroup_id, msg);
  // kAbsent's name is "", proto3's default: not serialized.
  const absl::string_view context =
      CompletionContextName(ev.completion_context);
  msg->mutable_completion_context()->assign(context.data(), context.size());
  // The generic fields (event_values.h).
#define BIOSNOOP_PROTO_VALUE(e, name, number, divisor, ecs_object, ecs_key) \
  if (const std::optional<uint64_t> v = ev.values.Get(EventValue::e)) {     \
    msg->set_##name(*v / divisor);                                          \
  } else {                                                                  \
    msg->clear_##name();                                                    \
  }
  BIOSNOOP_EVENT_VALUES(BIOSNOOP_PROTO_VALUE)
#undef BIOSNOOP_PROTO_VALUE
  FillAttributionFields(ev.attribution, e.attribution, msg);
  msg->set_op_id(ev.op_id);
  msg->mutable_dirtier_op_ids()->Assign(ev.attribution.dirtier_op_ids.begin(),
                                        ev.attribution.dirtier_op_ids.end());
  msg->set_dirtier_op_count(ev.attribution.dirtier_op_count);
}

void FillStuckProto(const StuckRequest& s, absl::string_view host,
                    v1::Stuck* msg) {
  FillRequestFields(s.request, s.realtime_ns, s.disk, s.partition, s.stack,
                    host, msg);
  msg->set_inflight_us(s.inflight_ns / 1000);
  FillCgroupFields(s.cgroup, s.request.cgroup_id, msg);
  FillAttributionFields(s.attribution, s.attribution_label, msg);
  msg->set_op_id(s.request.op_id);
}

void FillHeaderProto(const StreamInfo& info, v1::StreamHeader* msg) {
  msg->set_format_version(kStreamFormatVersion);
  AssignUtf8(info.host, msg->mutable_host());
  AssignUtf8(info.boot_id, msg->mutable_boot_id());
  SetTimestamp(info.start_realtime_ns, msg->mutable_start_time());
  AssignUtf8(info.biosnoop_version, msg->mutable_biosnoop_version());
  AssignUtf8(info.kernel_release, msg->mutable_kernel_release());
  msg->set_min_us(info.min_us);
  msg->set_queued(info.queued);
  AssignUtf8(info.disk_filter, msg->mutable_disk_filter());
  msg->set_pid_filter(info.pid_filter);
  AssignUtf8(info.comm_filter, msg->mutable_comm_filter());
  AssignUtf8(info.op_filter, msg->mutable_op_filter());
  msg->set_ringbuf_kib(info.ringbuf_kib);
  msg->set_stuck_after_us(info.stuck_after_us);
  AssignUtf8(info.run_id, msg->mutable_run_id());
  AssignUtf8(info.cgroup_filter, msg->mutable_cgroup_filter());
  msg->set_ops(info.ops);
  msg->set_op_min_us(info.ops ? info.op_min_us : 0);
  for (const std::string& lack : info.kernel_lacks) {
    AssignUtf8(lack, msg->add_kernel_lacks());
  }
}

void FillStatsProto(const StatsSnapshot& stats, v1::Stats* msg) {
  SetTimestamp(stats.realtime_ns, msg->mutable_timestamp());
  msg->set_elapsed_s(stats.elapsed_s);
  msg->set_completions(stats.completions);
  msg->set_emitted(stats.emitted);
  msg->set_lost(stats.lost);
  msg->set_orphans(stats.orphans);
  msg->set_below_threshold(stats.below_threshold);
  msg->set_filtered(stats.filtered);
  msg->set_decode_errors(stats.decode_errors);
  msg->set_expired(stats.expired);
  msg->set_written(stats.written);
  msg->set_dropped(stats.dropped);
  msg->set_final(stats.final);
  msg->set_missed(stats.missed);
  msg->set_unfinished(stats.unfinished);
  AssignUtf8(stats.run_id, msg->mutable_run_id());
  msg->set_ledger_misses(stats.ledger_misses);
  msg->set_ledger_replaced(stats.ledger_replaced);
  msg->set_ops_lost(stats.ops_lost);
  msg->set_ops_written(stats.ops_written);
  msg->set_ops_untracked(stats.ops_untracked);
  msg->set_ops_unfollowed(stats.ops_unfollowed);
  msg->set_ledger_stale(stats.ledger_stale);
}

namespace {

void FillOpLayer(const OpLayer& l, absl::Span<const std::string> disks,
                 uint32_t dirty_known, uint64_t dirty_age_max_ns,
                 uint64_t dirty_age_min_ns, v1::OpLayer* msg) {
  msg->set_requests(l.requests);
  msg->set_bytes(l.bytes);
  msg->clear_disks();
  for (const std::string& d : disks) AssignUtf8(d, msg->add_disks());
  msg->set_queue_us_sum(l.queue_ns_sum / 1000);
  msg->set_queue_us_max(l.queue_ns_max / 1000);
  msg->set_device_us_sum(l.device_ns_sum / 1000);
  msg->set_device_us_max(l.device_ns_max / 1000);
  msg->set_wait_us(l.wait_ns / 1000);
  if (dirty_known > 0) {
    msg->set_dirty_age_us_max(dirty_age_max_ns / 1000);
    msg->set_dirty_age_us_min(dirty_age_min_ns / 1000);
  } else {
    msg->clear_dirty_age_us_max();
    msg->clear_dirty_age_us_min();
  }
  msg->set_dirty_known(dirty_known);
  msg->clear_culprits();
  for (const OpCulprit& c : l.culprits) {
    v1::OpCulprit* m = msg->add_culprits();
    m->set_pid(c.pid);
    const absl::string_view comm = c.Comm();
    if (AppendSanitizedUtf8(comm, m->mutable_comm())) {
      m->mutable_comm_raw()->assign(comm.data(), comm.size());
    }
    // As the op's: no names without an id.
    FillCgroupFields(c.cgroup_id != 0 ? c.cgroup : CgroupLabel{}, c.cgroup_id,
                     m);
    const absl::string_view role = CulpritRoleName(c.dirtier);
    m->mutable_role()->assign(role.data(), role.size());
    m->set_requests(c.requests);
    m->set_bytes(c.bytes);
    m->set_wait_us(c.wait_ns / 1000);
  }
}

// An op's file (Op.file, Op.real_file).
void FillOpFile(const FileLabel& label, const FileRef& file, v1::FileRef* f) {
  AssignUtf8(label.path, f->mutable_path());
  const absl::string_view kind = PathKindName(label.kind);
  f->mutable_path_kind()->assign(kind.data(), kind.size());
  f->set_inode(file.ino);
  f->set_dev(absl::StrCat(file.dev_major, ":", file.dev_minor));
  f->set_direct(file.direct);
}

}  // namespace

void FillOpProto(const EnrichedOp& o, absl::string_view host, v1::Op* msg) {
  const FileOp& op = o.op;
  SetTimestamp(o.realtime_ns, msg->mutable_timestamp());
  AssignUtf8(host, msg->mutable_host());
  msg->set_op_id(op.op_id);
  const absl::string_view call = CallName(op.call);
  msg->mutable_call()->assign(call.data(), call.size());
  msg->set_pid(op.pid);
  msg->set_tid(op.tid);
  const absl::string_view comm = op.Comm();
  std::string* comm_text = msg->mutable_comm();
  comm_text->clear();
  if (AppendSanitizedUtf8(comm, comm_text)) {
    msg->mutable_comm_raw()->assign(comm.data(), comm.size());
  } else {
    msg->clear_comm_raw();
  }
  if (op.cgroup_id != 0) {
    FillCgroupFields(o.cgroup, op.cgroup_id, msg);
  } else {
    FillCgroupFields(CgroupLabel{}, 0, msg);
  }
  FillOpFile(o.file, op.file, msg->mutable_file());
  if (op.real_file) {
    FillOpFile(o.real_file, *op.real_file, msg->mutable_real_file());
  } else {
    msg->clear_real_file();
  }
  AssignUtf8(o.disk, msg->mutable_disk());
  if (o.partition.empty()) {
    msg->clear_partition();
  } else {
    AssignUtf8(o.partition, msg->mutable_partition());
  }
  if (op.offset.has_value()) {
    msg->set_offset(*op.offset);
  } else {
    msg->clear_offset();
  }
  msg->set_bytes_requested(op.bytes_requested);
  msg->set_bytes_requested_partial(op.bytes_requested_partial);
  msg->set_bytes_done(op.BytesDone());
  const int error_code = op.ErrorCode();
  msg->set_error_code(error_code);
  if (error_code != 0) {
    msg->set_error(ErrnoName(error_code));
  } else {
    msg->clear_error();
  }
  SetTimestamp(o.start_realtime_ns, msg->mutable_start_time());
  msg->set_latency_us(op.LatencyNs() / 1000);
  FillOpLayer(op.block, o.block_disks, 0, 0, 0, msg->mutable_block());
  FillOpLayer(op.writeback, {}, op.dirty_known, op.dirty_age_max_ns,
              op.dirty_age_min_ns, msg->mutable_writeback());
  msg->set_other_us(op.OtherUs());
  FillOpLayer(op.journal, {}, 0, 0, 0, msg->mutable_journal());
  FillOpLayer(op.flush, {}, 0, 0, 0, msg->mutable_flush());
  FillOpLayer(op.others_writeback, {}, 0, 0, 0,
              msg->mutable_others_writeback());
  FillOpLayer(op.throttle, {}, 0, 0, 0, msg->mutable_throttle());
  msg->clear_throttle_controllers();
  for (std::string& name : QosNames(op.throttle_qos)) {
    msg->add_throttle_controllers(std::move(name));
  }
}

void FillSummaryProto(const SummaryRecord& summary, v1::Summary* msg) {
  SetTimestamp(summary.realtime_ns, msg->mutable_timestamp());
  msg->set_interval_s(summary.interval_s);
  msg->set_min_us(summary.min_us);
  msg->clear_groups();
  for (const HistGroup& g : summary.groups) {
    v1::SummaryGroup* out = msg->add_groups();
    AssignUtf8(g.disk, out->mutable_disk());
    AssignUtf8(g.op, out->mutable_op());
    out->set_count(g.data.count);
    out->set_bytes(g.data.bytes);
    out->set_slow(g.data.slow);
    out->set_errors(g.data.errors);
    const absl::Span<const uint64_t> latency(g.data.latency);
    const absl::Span<const uint64_t> size(g.data.size);
    const size_t latency_n = LengthWithoutTrailingZeros(latency);
    const size_t size_n = LengthWithoutTrailingZeros(size);
    out->mutable_latency_us_log2()->Add(latency.begin(),
                                        latency.begin() + latency_n);
    out->mutable_size_log2()->Add(size.begin(), size.begin() + size_n);
    if (const FineSpan fine = NonEmptyFine(g.data); !fine.counts.empty()) {
      out->set_latency_fine_schema(kFineSchema);
      out->set_latency_fine_first(fine.first);
      out->mutable_latency_fine()->Add(fine.counts.begin(), fine.counts.end());
    }
  }
}

void AppendDelimited(const google::protobuf::MessageLite& msg,
                     std::string* out) {
  using google::protobuf::io::CodedOutputStream;
  // A Record is at most a few KiB (strings are short): its size fits 32 bits.
  const auto size = static_cast<uint32_t>(msg.ByteSizeLong());
  const size_t old_size = out->size();
  out->resize(old_size + CodedOutputStream::VarintSize32(size) + size);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + old_size);
  p = CodedOutputStream::WriteVarint32ToArray(size, p);
  msg.SerializeWithCachedSizesToArray(p);
}

}  // namespace biosnoop
