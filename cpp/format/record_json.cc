// The JSON Lines writers of the rare records (json_format.h): header,
// stats, summary, stuck and op lines.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "json_format.h"
#include "json_write.h"
#include "op_layer_json.h"
#include "wall_clock.h"

namespace biosnoop {

// Header and stats lines are rare (one per file, one per stats period): plain
// appends are fast enough and easier to check than the event writer above.
namespace {

void AppendKey(absl::string_view key, std::string* out) {
  out->append(",\"");
  out->append(key.data(), key.size());
  out->append("\":");
}

void AppendUintField(absl::string_view key, uint64_t v, std::string* out) {
  AppendKey(key, out);
  char buf[20];
  out->append(buf, static_cast<size_t>(WriteUint(v, buf) - buf));
}

void AppendBoolField(absl::string_view key, bool v, std::string* out) {
  AppendKey(key, out);
  out->append(v ? "true" : "false");
}

void AppendStringField(absl::string_view key, absl::string_view v,
                       std::string* out) {
  AppendKey(key, out);
  AppendJsonString(v, out);
}

void AppendTimeField(absl::string_view key, int64_t realtime_ns,
                     std::string* out) {
  AppendKey(key, out);
  out->push_back('"');
  AppendRfc3339Nanos(realtime_ns, out);
  out->push_back('"');
}

}  // namespace

void AppendHeaderJson(const StreamInfo& info, std::string* out) {
  AppendHeaderJson(info, kStreamFormatVersion, out);
}

void AppendStuckJson(const StuckRequest& s, const JsonHost& host,
                     std::string* out) {
  const Request& ev = s.request;
  out->append("{\"type\":\"stuck\"");
  AppendTimeField("timestamp", s.realtime_ns, out);
  AppendKey("host", out);
  out->append(host.text().data(), host.text().size());
  AppendStringField("disk", s.disk, out);
  AppendKey("partition", out);
  if (s.partition.empty()) {
    out->append("null");
  } else {
    AppendJsonString(s.partition, out);
  }
  if (!s.stack.empty()) {
    const size_t at = out->size();
    out->resize(at + StackJsonBound(s.stack));
    char* end = WriteStackJson(s.stack, out->data() + at);
    out->resize(static_cast<size_t>(end - out->data()));
  }
  AppendStringField("dev", absl::StrCat(ev.major, ":", ev.minor), out);
  AppendStringField("op", OpName(ev.op), out);
  AppendStringField("rwbs", Rwbs(ev.op, ev.flags), out);
  AppendUintField("sector", ev.sector, out);
  AppendUintField("bytes", ev.bytes, out);
  AppendUintField("inflight_us", s.inflight_ns / 1000, out);
  if (ev.queue_ns.has_value()) {
    AppendUintField("queue_us", *ev.queue_ns / 1000, out);
  } else {
    AppendKey("queue_us", out);
    out->append("null");
  }
  AppendUintField("queue_depth", ev.queue_depth, out);
  AppendUintField("pid", ev.pid, out);
  AppendUintField("tid", ev.tid, out);
  AppendCommAndCgroupJson(ev.Comm(), s.cgroup, ev.cgroup_id, out);
  // Its files, after the fields stuck records always had, as an event's.
  const size_t files_at = out->size();
  out->resize(files_at +
              AttributionJsonBound(s.attribution, s.attribution_label));
  char* end = WriteAttributionJson(s.attribution, s.attribution_label,
                                   out->data() + files_at);
  out->resize(static_cast<size_t>(end - out->data()));
  if (ev.op_id != 0) AppendUintField("op_id", ev.op_id, out);
  out->append("}\n");
}

void AppendHeaderJson(const StreamInfo& info, uint32_t format_version,
                      std::string* out) {
  out->append("{\"type\":\"header\"");
  AppendUintField("format_version", format_version, out);
  AppendStringField("host", info.host, out);
  AppendStringField("boot_id", info.boot_id, out);
  AppendTimeField("start_time", info.start_realtime_ns, out);
  AppendStringField("biosnoop_version", info.biosnoop_version, out);
  AppendStringField("kernel_release", info.kernel_release, out);
  AppendUintField("min_us", info.min_us, out);
  AppendBoolField("queued", info.queued, out);
  AppendStringField("disk_filter", info.disk_filter, out);
  AppendUintField("pid_filter", info.pid_filter, out);
  AppendStringField("comm_filter", info.comm_filter, out);
  AppendStringField("op_filter", info.op_filter, out);
  AppendUintField("ringbuf_kib", info.ringbuf_kib, out);
  AppendUintField("stuck_after_us", info.stuck_after_us, out);
  // Absent, as in the streams of earlier versions, only when a converted
  // stream had none: biosnoop always has one.
  if (!info.run_id.empty()) AppendStringField("run_id", info.run_id, out);
  // Absent without --cgroup, as in the streams of earlier versions.
  if (!info.cgroup_filter.empty()) {
    AppendStringField("cgroup_filter", info.cgroup_filter, out);
  }
  // Absent without --ops, as in the streams of earlier versions.
  if (info.ops) {
    AppendBoolField("ops", true, out);
    AppendUintField("op_min_us", info.op_min_us, out);
  }
  // Absent on a kernel that lacks nothing, as in the streams of earlier
  // versions.
  if (!info.kernel_lacks.empty()) {
    AppendKey("kernel_lacks", out);
    AppendJsonStringArray(info.kernel_lacks, out);
  }
  out->append("}\n");
}

void AppendStatsJson(const StatsSnapshot& stats, std::string* out) {
  out->append("{\"type\":\"stats\"");
  AppendTimeField("timestamp", stats.realtime_ns, out);
  AppendKey("elapsed_s", out);
  AppendJsonDouble(stats.elapsed_s, out);
  AppendUintField("completions", stats.completions, out);
  AppendUintField("emitted", stats.emitted, out);
  AppendUintField("lost", stats.lost, out);
  AppendUintField("orphans", stats.orphans, out);
  AppendUintField("below_threshold", stats.below_threshold, out);
  AppendUintField("filtered", stats.filtered, out);
  AppendUintField("decode_errors", stats.decode_errors, out);
  AppendUintField("expired", stats.expired, out);
  AppendUintField("written", stats.written, out);
  AppendUintField("dropped", stats.dropped, out);
  AppendBoolField("final", stats.final, out);
  AppendUintField("missed", stats.missed, out);
  AppendUintField("unfinished", stats.unfinished, out);
  if (!stats.run_id.empty()) AppendStringField("run_id", stats.run_id, out);
  // Both, and only when one is not 0: protobuf cannot tell a 0 from an
  // absent field, so this is the rule that converts back byte for byte;
  // and the stats of a run without the ledger are as before it.
  if (stats.ledger_misses != 0 || stats.ledger_replaced != 0) {
    AppendUintField("ledger_misses", stats.ledger_misses, out);
    AppendUintField("ledger_replaced", stats.ledger_replaced, out);
  }
  // All three, and only when one is not 0 (as the ledger's, for the same
  // reasons): the stats of a run without --ops are as before it.
  if (stats.HasOps()) {
    AppendUintField("ops_lost", stats.ops_lost, out);
    AppendUintField("ops_written", stats.ops_written, out);
    AppendUintField("ops_untracked", stats.ops_untracked, out);
  }
  if (stats.ops_unfollowed != 0) {
    AppendUintField("ops_unfollowed", stats.ops_unfollowed, out);
  }
  // Only when not 0: the stats of a run that met no reused inode number
  // are as before it.
  if (stats.ledger_stale != 0) {
    AppendUintField("ledger_stale", stats.ledger_stale, out);
  }
  out->append("}\n");
}

void AppendJsonDouble(double v, std::string* out) {
  if (!std::isfinite(v)) {
    out->append("null");
    return;
  }
  // Shortest round-trip form: a converter reading it back gets the same
  // double, so JSON <-> protobuf conversion stays lossless.
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

void AppendJsonStringArray(absl::Span<const std::string> values,
                           std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(values[i], out);
  }
  out->push_back(']');
}

void AppendJsonUintArray(absl::Span<const uint64_t> values, std::string* out) {
  out->push_back('[');
  char buf[20];
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(buf, static_cast<size_t>(WriteUint(values[i], buf) - buf));
  }
  out->push_back(']');
}

size_t LengthWithoutTrailingZeros(absl::Span<const uint64_t> values) {
  size_t n = values.size();
  while (n > 0 && values[n - 1] == 0) --n;
  return n;
}

void AppendSummaryJson(const SummaryRecord& summary, std::string* out) {
  out->append("{\"type\":\"summary\"");
  AppendTimeField("timestamp", summary.realtime_ns, out);
  AppendKey("interval_s", out);
  AppendJsonDouble(summary.interval_s, out);
  AppendUintField("min_us", summary.min_us, out);
  AppendKey("groups", out);
  out->push_back('[');
  for (size_t i = 0; i < summary.groups.size(); ++i) {
    const HistGroup& g = summary.groups[i];
    if (i > 0) out->push_back(',');
    out->append("{\"disk\":");
    AppendJsonString(g.disk, out);
    AppendStringField("op", g.op, out);
    AppendUintField("count", g.data.count, out);
    AppendUintField("bytes", g.data.bytes, out);
    AppendUintField("slow", g.data.slow, out);
    const absl::Span<const uint64_t> latency(g.data.latency);
    const absl::Span<const uint64_t> size(g.data.size);
    AppendKey("latency_us_log2", out);
    AppendJsonUintArray(latency.first(LengthWithoutTrailingZeros(latency)),
                        out);
    AppendKey("size_log2", out);
    AppendJsonUintArray(size.first(LengthWithoutTrailingZeros(size)), out);
    AppendUintField("errors", g.data.errors, out);
    // Added later: absent without fine counts, so that a summary of an
    // older stream converts back byte for byte.
    if (const FineSpan fine = NonEmptyFine(g.data); !fine.counts.empty()) {
      AppendUintField("latency_fine_schema", kFineSchema, out);
      AppendKey("latency_fine_first", out);
      absl::StrAppend(out, fine.first);
      AppendKey("latency_fine", out);
      AppendJsonUintArray(fine.counts, out);
    }
    out->push_back('}');
  }
  out->append("]}\n");
}

namespace {

// An op record's file object, {"path":...,"direct":...}, under `key`.
void AppendOpFileJson(absl::string_view key, const FileLabel& label,
                      const FileRef& file, std::string* out) {
  AppendKey(key, out);
  out->append("{\"path\":");
  AppendJsonString(label.path, out);
  AppendStringField("path_kind", PathKindName(label.kind), out);
  AppendUintField("inode", file.ino, out);
  AppendStringField("dev", absl::StrCat(file.dev_major, ":", file.dev_minor),
                    out);
  AppendBoolField("direct", file.direct, out);
  out->push_back('}');
}

}  // namespace

void AppendOpJson(const EnrichedOp& o, const JsonHost& host, std::string* out) {
  const FileOp& op = o.op;
  out->append("{\"type\":\"op\"");
  AppendTimeField("timestamp", o.realtime_ns, out);
  AppendKey("host", out);
  out->append(host.text().data(), host.text().size());
  AppendUintField("op_id", op.op_id, out);
  AppendStringField("call", CallName(op.call), out);
  AppendUintField("pid", op.pid, out);
  AppendUintField("tid", op.tid, out);
  AppendCommAndCgroupJson(op.Comm(), o.cgroup, op.cgroup_id, out);
  AppendOpFileJson("file", o.file, op.file, out);
  if (op.real_file) {
    AppendOpFileJson("real_file", o.real_file, *op.real_file, out);
  }
  AppendStringField("disk", o.disk, out);
  AppendKey("partition", out);
  if (o.partition.empty()) {
    out->append("null");
  } else {
    AppendJsonString(o.partition, out);
  }
  if (op.offset.has_value()) {
    AppendUintField("offset", *op.offset, out);
  } else {
    out->append(",\"offset\":null");
  }
  AppendUintField("bytes_requested", op.bytes_requested, out);
  AppendBoolField("bytes_requested_partial", op.bytes_requested_partial, out);
  AppendUintField("bytes_done", op.BytesDone(), out);
  const int error_code = op.ErrorCode();
  AppendUintField("error_code", static_cast<uint64_t>(error_code), out);
  if (error_code != 0) {
    AppendStringField("error", ErrnoName(error_code), out);
  } else {
    out->append(",\"error\":null");
  }
  AppendTimeField("start_time", o.start_realtime_ns, out);
  AppendUintField("latency_us", op.LatencyNs() / 1000, out);
  AppendKey("block", out);
  AppendOpLayerJson(op.block, o.block_disks, 0, 0, 0, out);
  AppendKey("writeback", out);
  AppendOpLayerJson(op.writeback, {}, op.dirty_known, op.dirty_age_max_ns,
                    op.dirty_age_min_ns, out);
  AppendUintField("other_us", op.OtherUs(), out);
  AppendKey("journal", out);
  AppendOpLayerJson(op.journal, {}, 0, 0, 0, out);
  AppendKey("flush", out);
  AppendOpLayerJson(op.flush, {}, 0, 0, 0, out);
  AppendKey("others_writeback", out);
  AppendOpLayerJson(op.others_writeback, {}, 0, 0, 0, out);
  AppendKey("throttle", out);
  AppendOpLayerJson(op.throttle, {}, 0, 0, 0, out);
  AppendKey("throttle_controllers", out);
  AppendJsonStringArray(QosNames(op.throttle_qos), out);
  out->append("}\n");
}

}  // namespace biosnoop
