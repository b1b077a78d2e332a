// ECS documents (ecs_format.h).  Field names are ECS's where ECS has one
// (checked against the @elastic/ecs definitions by the ecs_schema test),
// else the schema's own (proto/biosnoop.proto) under "biosnoop".

#include "ecs_format.h"

#include <string.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "json_format.h"
#include "op_layer_json.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

// Appends one JSON object member by member, opening and closing nested
// objects, with the commas between members.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string* out) : out_(out) {
    out_->push_back('{');
    first_.push_back(true);
  }

  void Open(absl::string_view key) {
    Key(key);
    out_->push_back('{');
    first_.push_back(true);
  }
  void Close() {
    out_->push_back('}');
    first_.pop_back();
  }
  // Closes the document and ends its line.
  void End() {
    Close();
    out_->push_back('\n');
  }

  void String(absl::string_view key, absl::string_view v) {
    Key(key);
    AppendJsonString(v, out_);
  }
  void Uint(absl::string_view key, uint64_t v) {
    Key(key);
    absl::StrAppend(out_, v);
  }
  void Int(absl::string_view key, int64_t v) {
    Key(key);
    absl::StrAppend(out_, v);
  }
  void Bool(absl::string_view key, bool v) {
    Key(key);
    out_->append(v ? "true" : "false");
  }
  void Double(absl::string_view key, double v) {
    Key(key);
    AppendJsonDouble(v, out_);
  }
  void Time(absl::string_view key, int64_t realtime_ns) {
    Key(key);
    out_->push_back('"');
    AppendRfc3339Nanos(realtime_ns, out_);
    out_->push_back('"');
  }
  void Hex(absl::string_view key, absl::string_view bytes) {
    Key(key);
    out_->push_back('"');
    AppendLowerHex(bytes, out_);
    out_->push_back('"');
  }
  // ["a","b"]: event.category and event.type are arrays in ECS.
  void Strings(absl::string_view key,
               std::initializer_list<absl::string_view> values) {
    Key(key);
    out_->push_back('[');
    bool first = true;
    for (absl::string_view v : values) {
      if (!first) out_->push_back(',');
      first = false;
      AppendJsonString(v, out_);
    }
    out_->push_back(']');
  }
  void Strings(absl::string_view key, absl::Span<const std::string> values) {
    Key(key);
    AppendJsonStringArray(values, out_);
  }
  void Uints(absl::string_view key, absl::Span<const uint64_t> values) {
    Key(key);
    AppendJsonUintArray(values, out_);
  }

  // Opens an object as the next element of an array the caller writes.
  void OpenElement() {
    out_->push_back('{');
    first_.push_back(true);
  }
  // Writes `key` for an array the caller writes itself.
  void ArrayKey(absl::string_view key) { Key(key); }
  std::string* out() { return out_; }

 private:
  void Key(absl::string_view key) {
    if (!first_.back()) out_->push_back(',');
    first_.back() = false;
    out_->push_back('"');
    out_->append(key.data(), key.size());
    out_->append("\":");
  }

  std::string* out_;
  std::vector<bool> first_;
};

// The members every document starts with: @timestamp, ecs, event (left
// open for the caller's further event.* members).
void Begin(ObjectWriter& w, int64_t realtime_ns, absl::string_view kind,
           absl::string_view action,
           std::initializer_list<absl::string_view> categories,
           std::initializer_list<absl::string_view> types) {
  w.Time("@timestamp", realtime_ns);
  w.Open("ecs");
  w.String("version", kEcsVersion);
  w.Close();
  w.Open("event");
  w.String("kind", kind);
  w.Strings("category", categories);
  w.Strings("type", types);
  w.String("action", action);
}

void Host(ObjectWriter& w, absl::string_view host) {
  w.Open("host");
  w.String("name", host);
  w.Close();
}

// process.*: the submitting task.  comm is a thread's name, but it is what
// ps shows as the process's name for a single-threaded one, and what ECS
// users look for in process.name.
void Process(ObjectWriter& w, const Request& r) {
  w.Open("process");
  w.Uint("pid", r.pid);
  w.String("name", r.Comm());
  w.Open("thread");
  w.Uint("id", r.tid);
  w.Close();
  w.Close();
}

void ContainerOf(ObjectWriter& w, const CgroupLabel& c) {
  if (c.container_id.empty()) return;
  w.Open("container");
  w.String("id", c.container_id);
  w.Close();
}

// The request's own members under biosnoop, as the schema names them;
// stack, as partition, only when there is one.
void RequestFields(ObjectWriter& w, const Request& r, absl::string_view disk,
                   absl::string_view partition,
                   absl::Span<const std::string> stack) {
  w.String("disk", disk);
  if (!partition.empty()) w.String("partition", partition);
  if (!stack.empty()) w.Strings("stack", stack);
  w.String("dev", absl::StrCat(r.major, ":", r.minor));
  w.String("op", OpName(r.op));
  w.String("rwbs", Rwbs(r.op, r.flags));
  w.Uint("sector", r.sector);
  w.Uint("bytes", r.bytes);
  w.Uint("queue_depth", r.queue_depth);
  if (!IsValidUtf8(r.Comm())) w.Hex("comm_raw", r.Comm());
}

// biosnoop.cgroup, cgroup_id, pod_uid (container.id is ECS's); none when
// the id is unknown, as in the JSON Lines stream.
void CgroupFields(ObjectWriter& w, const CgroupLabel& c, uint64_t id) {
  if (id == 0) return;
  if (c.known) w.String("cgroup", c.path);
  w.Uint("cgroup_id", id);
  if (!c.pod_uid.empty()) w.String("pod_uid", c.pod_uid);
}

// The first file, when the kernel side named one: ECS's file.* holds one
// file, so the rest are in biosnoop.files only.  file.path is a full path
// in ECS: only an absolute one goes there.
const FileRef* FirstFile(const Attribution& a, const AttributionLabel& l) {
  if (a.content == Content::kNotLooked || a.files.empty() || l.files.empty()) {
    return nullptr;
  }
  return &a.files[0];
}

// An event's or a stuck record's.
void FileOf(ObjectWriter& w, const Attribution& a, const AttributionLabel& l) {
  const FileRef* f = FirstFile(a, l);
  if (f == nullptr) return;
  w.Open("file");
  const FileLabel& label = l.files[0];
  if (label.kind == PathKind::kAbsolute) w.String("path", label.path);
  w.String("inode", absl::StrCat(f->ino));  // a keyword in ECS
  w.Close();
}

// biosnoop.content ... dirtier_count, as the JSON Lines stream has them
// (only when the kernel side looked at the request's pages).
void AttributionFields(ObjectWriter& w, const Attribution& a,
                       const AttributionLabel& label) {
  if (a.content == Content::kNotLooked) return;
  w.String("content", label.content);
  w.ArrayKey("files");
  std::string* out = w.out();
  out->push_back('[');
  for (size_t i = 0; i < a.files.size() && i < label.files.size(); ++i) {
    if (i > 0) out->push_back(',');
    w.OpenElement();
    w.String("path", label.files[i].path);
    w.String("path_kind", PathKindName(label.files[i].kind));
    w.Uint("inode", a.files[i].ino);
    w.String("dev",
             absl::StrCat(a.files[i].dev_major, ":", a.files[i].dev_minor));
    w.Bool("direct", a.files[i].direct);
    w.Close();
  }
  out->push_back(']');
  w.Uint("file_count", a.file_count);
  w.Bool("files_incomplete", a.incomplete);
  if (a.dirtier.has_value()) {
    const Dirtier& d = *a.dirtier;
    w.Open("dirtied_by");
    w.Uint("pid", d.pid);
    w.Uint("tid", d.tid);
    w.String("comm", d.Comm());
    if (!IsValidUtf8(d.Comm())) w.Hex("comm_raw", d.Comm());
    if (label.dirtier_cgroup.known)
      w.String("cgroup", label.dirtier_cgroup.path);
    w.Uint("cgroup_id", d.cgroup_id);
    w.Time("dirtied_at", label.dirtied_realtime_ns);
    if (d.op_id != 0) w.Uint("op_id", d.op_id);
    w.Close();
  }
  w.Uint("dirtier_count", a.dirtier_count);
}

// --ops: the call a request was submitted under and the calls that
// dirtied its pages, each only when known (as in the JSON Lines stream).
void OpIdFields(ObjectWriter& w, uint64_t op_id, const Attribution& a) {
  if (op_id != 0) w.Uint("op_id", op_id);
  if (!a.dirtier_op_ids.empty()) {
    w.Uints("dirtier_op_ids", a.dirtier_op_ids);
  }
  if (a.dirtier_op_count != 0) w.Uint("dirtier_op_count", a.dirtier_op_count);
}

// The generic fields (event_values.h) that ECS places in `object`
// ("latency": biosnoop.latency, "": biosnoop itself), each only when known.
void GenericValues(ObjectWriter& w, const EventValues& values,
                   absl::string_view object) {
  if (!values.AnyKnown()) return;
#define BIOSNOOP_ECS_VALUE(e, name, number, divisor, ecs_object, ecs_key) \
  if (object == ecs_object) {                                             \
    if (const std::optional<uint64_t> v = values.Get(EventValue::e)) {    \
      w.Uint(ecs_key, *v / divisor);                                      \
    }                                                                     \
  }
  BIOSNOOP_EVENT_VALUES(BIOSNOOP_ECS_VALUE)
#undef BIOSNOOP_ECS_VALUE
}

// The C library's description of an errno ("Input/output error"), the
// same whatever the locale.
absl::string_view ErrnoDescription(int errno_value) {
  const char* d = strerrordesc_np(errno_value);
  return d != nullptr ? absl::string_view(d) : absl::string_view();
}

}  // namespace

void AppendEventEcs(const EnrichedEvent& e, absl::string_view host,
                    std::string* out) {
  const Event& ev = e.event;
  const BlkError error = BlkStatusToError(ev.blk_status);
  const bool failed = error.errno_value != 0;
  const bool has_file =
      FirstFile(e.event.attribution, e.attribution) != nullptr;
  ObjectWriter w(out);
  if (has_file) {
    Begin(w, e.realtime_ns, "event", "io-completed", {"host", "file"},
          {"access"});
  } else {
    Begin(w, e.realtime_ns, "event", "io-completed", {"host"}, {"access"});
  }
  w.String("outcome", failed ? "failure" : "success");
  w.Uint("duration", ev.LatencyNs(e.include_queue));
  w.Uint("sequence", e.seq);
  w.Close();
  Host(w, host);
  Process(w, ev);
  if (failed) {
    w.Open("error");
    w.String("code", error.name);
    const absl::string_view message = ErrnoDescription(error.errno_value);
    w.String("message", message.empty() ? error.name : message);
    w.Close();
  }
  ContainerOf(w, e.cgroup);
  FileOf(w, e.event.attribution, e.attribution);
  w.Open("biosnoop");
  RequestFields(w, ev, e.disk, e.partition, e.stack);
  w.Open("latency");
  w.Uint("us", ev.LatencyNs(e.include_queue) / 1000);
  w.Uint("device_us", ev.device_ns / 1000);
  if (ev.queue_ns.has_value()) w.Uint("queue_us", *ev.queue_ns / 1000);
  GenericValues(w, ev.values, "latency");
  w.Close();
  w.Int("error_code", error.errno_value);
  CgroupFields(w, e.cgroup, ev.cgroup_id);
  if (ev.completion_context != CompletionContext::kAbsent) {
    w.String("completion_context",
             CompletionContextName(ev.completion_context));
  }
  AttributionFields(w, e.event.attribution, e.attribution);
  OpIdFields(w, ev.op_id, ev.attribution);
  GenericValues(w, ev.values, "");
  w.Close();
  w.End();
}

void AppendStuckEcs(const StuckRequest& s, absl::string_view host,
                    std::string* out) {
  const Request& r = s.request;
  ObjectWriter w(out);
  Begin(w, s.realtime_ns, "event", "io-stuck", {"host"}, {"access"});
  w.String("outcome", "unknown");
  w.Close();
  Host(w, host);
  Process(w, r);
  ContainerOf(w, s.cgroup);
  FileOf(w, s.attribution, s.attribution_label);
  w.Open("biosnoop");
  RequestFields(w, r, s.disk, s.partition, s.stack);
  w.Uint("inflight_us", s.inflight_ns / 1000);
  if (r.queue_ns.has_value()) {
    w.Open("latency");
    w.Uint("queue_us", *r.queue_ns / 1000);
    w.Close();
  }
  CgroupFields(w, s.cgroup, r.cgroup_id);
  AttributionFields(w, s.attribution, s.attribution_label);
  if (r.op_id != 0) w.Uint("op_id", r.op_id);
  w.Close();
  w.End();
}

namespace {

// A layer's culprits, as an array of objects (none when empty): the
// OpCulprit fields, the comm's raw bytes only when not valid UTF-8.
void CulpritFields(ObjectWriter& w, absl::Span<const OpCulprit> culprits) {
  if (culprits.empty()) return;
  w.ArrayKey("culprits");
  w.out()->push_back('[');
  for (size_t i = 0; i < culprits.size(); ++i) {
    const OpCulprit& c = culprits[i];
    if (i > 0) w.out()->push_back(',');
    w.OpenElement();
    w.Uint("pid", c.pid);
    w.String("comm", c.Comm());
    if (!IsValidUtf8(c.Comm())) w.Hex("comm_raw", c.Comm());
    CgroupFields(w, c.cgroup, c.cgroup_id);
    if (c.cgroup_id != 0 && !c.cgroup.container_id.empty()) {
      w.String("container_id", c.cgroup.container_id);
    }
    w.String("role", CulpritRoleName(c.dirtier));
    w.Uint("requests", c.requests);
    w.Uint("bytes", c.bytes);
    w.Uint("wait_us", c.wait_ns / 1000);
    w.Close();
  }
  w.out()->push_back(']');
}

// One layer of a call under biosnoop.block, .writeback, .journal, .flush
// or .others_writeback.
void OpLayerFields(ObjectWriter& w, absl::string_view key, const OpLayer& l,
                   absl::Span<const std::string> disks, uint32_t dirty_known,
                   uint64_t dirty_age_max_ns, uint64_t dirty_age_min_ns) {
  w.Open(key);
  w.Uint("requests", l.requests);
  w.Uint("bytes", l.bytes);
  if (!disks.empty()) w.Strings("disks", disks);
  w.Uint("queue_us_sum", l.queue_ns_sum / 1000);
  w.Uint("queue_us_max", l.queue_ns_max / 1000);
  w.Uint("device_us_sum", l.device_ns_sum / 1000);
  w.Uint("device_us_max", l.device_ns_max / 1000);
  w.Uint("wait_us", l.wait_ns / 1000);
  if (dirty_known > 0) {
    w.Uint("dirty_age_us_max", dirty_age_max_ns / 1000);
    w.Uint("dirty_age_us_min", dirty_age_min_ns / 1000);
  }
  w.Uint("dirty_known", dirty_known);
  CulpritFields(w, l.culprits);
  w.Close();
}

// Reads only take data out of the file; writes and syncs change it.
bool ChangesFile(Call c) {
  switch (c) {
    case Call::kRead:
    case Call::kPread64:
    case Call::kReadv:
    case Call::kPreadv:
    case Call::kUringRead:
      return false;
    default:
      return true;
  }
}

}  // namespace

void AppendOpEcs(const EnrichedOp& o, absl::string_view host,
                 std::string* out) {
  const FileOp& op = o.op;
  const int error_code = op.ErrorCode();
  const bool failed = error_code != 0;
  ObjectWriter w(out);
  Begin(w, o.realtime_ns, "event", "call-completed", {"file"},
        {ChangesFile(op.call) ? "change" : "access"});
  w.String("outcome", failed ? "failure" : "success");
  w.Uint("duration", op.LatencyNs());
  w.Time("start", o.start_realtime_ns);
  w.Time("end", o.realtime_ns);
  w.Close();
  Host(w, host);
  w.Open("process");
  w.Uint("pid", op.pid);
  w.String("name", op.Comm());
  w.Open("thread");
  w.Uint("id", op.tid);
  w.Close();
  w.Close();
  if (failed) {
    const std::string name = ErrnoName(error_code);
    w.Open("error");
    w.String("code", name);
    const absl::string_view message = ErrnoDescription(error_code);
    w.String("message", message.empty() ? absl::string_view(name) : message);
    w.Close();
  }
  ContainerOf(w, o.cgroup);
  w.Open("file");
  if (o.file.kind == PathKind::kAbsolute) w.String("path", o.file.path);
  w.String("inode", absl::StrCat(op.file.ino));  // a keyword in ECS
  w.Close();
  w.Open("biosnoop");
  w.Uint("op_id", op.op_id);
  w.String("call", CallName(op.call));
  w.String("disk", o.disk);
  if (!o.partition.empty()) w.String("partition", o.partition);
  if (!IsValidUtf8(op.Comm())) w.Hex("comm_raw", op.Comm());
  CgroupFields(w, o.cgroup, op.cgroup_id);
  // The file as the JSON Lines stream names it (file.path holds absolute
  // paths only).
  w.Open("file");
  w.String("path", o.file.path);
  w.String("path_kind", PathKindName(o.file.kind));
  w.String("dev", absl::StrCat(op.file.dev_major, ":", op.file.dev_minor));
  w.Bool("direct", op.file.direct);
  w.Close();
  if (op.real_file) {
    // overlayfs: the real file behind the merged one, as events name it.
    w.Open("real_file");
    w.String("path", o.real_file.path);
    w.String("path_kind", PathKindName(o.real_file.kind));
    w.String("inode", absl::StrCat(op.real_file->ino));
    w.String("dev", absl::StrCat(op.real_file->dev_major, ":",
                                 op.real_file->dev_minor));
    w.Bool("direct", op.real_file->direct);
    w.Close();
  }
  if (op.offset.has_value()) w.Uint("offset", *op.offset);
  w.Uint("bytes_requested", op.bytes_requested);
  w.Bool("bytes_requested_partial", op.bytes_requested_partial);
  w.Uint("bytes_done", op.BytesDone());
  w.Int("error_code", error_code);
  w.Open("latency");
  w.Uint("us", op.LatencyNs() / 1000);
  w.Uint("other_us", op.OtherUs());
  w.Close();
  OpLayerFields(w, "block", op.block, o.block_disks, 0, 0, 0);
  OpLayerFields(w, "writeback", op.writeback, {}, op.dirty_known,
                op.dirty_age_max_ns, op.dirty_age_min_ns);
  OpLayerFields(w, "journal", op.journal, {}, 0, 0, 0);
  OpLayerFields(w, "flush", op.flush, {}, 0, 0, 0);
  OpLayerFields(w, "others_writeback", op.others_writeback, {}, 0, 0, 0);
  OpLayerFields(w, "throttle", op.throttle, {}, 0, 0, 0);
  const std::vector<std::string> qos = QosNames(op.throttle_qos);
  if (!qos.empty()) w.Strings("throttle_controllers", qos);
  w.Close();
  w.End();
}

void AppendHeaderEcs(const StreamInfo& info, std::string* out) {
  ObjectWriter w(out);
  Begin(w, info.start_realtime_ns, "state", "stream-start", {"host"}, {"info"});
  w.Close();
  w.Open("host");
  w.String("name", info.host);
  if (!info.boot_id.empty()) {
    w.Open("boot");
    w.String("id", info.boot_id);
    w.Close();
  }
  w.Open("os");
  w.String("kernel", info.kernel_release);
  w.Close();
  w.Close();
  w.Open("biosnoop");
  if (!info.run_id.empty()) w.String("run_id", info.run_id);
  w.Open("header");
  w.Uint("format_version", kStreamFormatVersion);
  w.String("biosnoop_version", info.biosnoop_version);
  w.Uint("min_us", info.min_us);
  w.Bool("queued", info.queued);
  w.String("disk_filter", info.disk_filter);
  w.Uint("pid_filter", info.pid_filter);
  w.String("comm_filter", info.comm_filter);
  w.String("op_filter", info.op_filter);
  w.Uint("ringbuf_kib", info.ringbuf_kib);
  w.Uint("stuck_after_us", info.stuck_after_us);
  w.String("cgroup_filter", info.cgroup_filter);
  if (info.ops) {
    w.Bool("ops", true);
    w.Uint("op_min_us", info.op_min_us);
  }
  // Absent on a kernel that lacks nothing, as in the JSON Lines header.
  if (!info.kernel_lacks.empty()) w.Strings("kernel_lacks", info.kernel_lacks);
  w.Close();
  w.Close();
  w.End();
}

void AppendStatsEcs(const StatsSnapshot& stats, absl::string_view host,
                    std::string* out) {
  ObjectWriter w(out);
  Begin(w, stats.realtime_ns, "metric", "stats", {"host"}, {"info"});
  w.Close();
  Host(w, host);
  w.Open("biosnoop");
  if (!stats.run_id.empty()) w.String("run_id", stats.run_id);
  w.Open("stats");
  w.Double("elapsed_s", stats.elapsed_s);
  w.Uint("completions", stats.completions);
  w.Uint("emitted", stats.emitted);
  w.Uint("lost", stats.lost);
  w.Uint("orphans", stats.orphans);
  w.Uint("below_threshold", stats.below_threshold);
  w.Uint("filtered", stats.filtered);
  w.Uint("decode_errors", stats.decode_errors);
  w.Uint("expired", stats.expired);
  w.Uint("written", stats.written);
  w.Uint("dropped", stats.dropped);
  w.Bool("final", stats.final);
  w.Uint("missed", stats.missed);
  w.Uint("unfinished", stats.unfinished);
  w.Uint("ledger_misses", stats.ledger_misses);
  w.Uint("ledger_replaced", stats.ledger_replaced);
  if (stats.HasOps()) {
    w.Uint("ops_lost", stats.ops_lost);
    w.Uint("ops_written", stats.ops_written);
    w.Uint("ops_untracked", stats.ops_untracked);
  }
  if (stats.ops_unfollowed != 0) w.Uint("ops_unfollowed", stats.ops_unfollowed);
  if (stats.ledger_stale != 0) w.Uint("ledger_stale", stats.ledger_stale);
  w.Close();
  w.Close();
  w.End();
}

void AppendSummaryEcs(const SummaryRecord& summary, absl::string_view host,
                      std::string* out) {
  for (const HistGroup& g : summary.groups) {
    ObjectWriter w(out);
    Begin(w, summary.realtime_ns, "metric", "summary", {"host"}, {"info"});
    w.Close();
    Host(w, host);
    w.Open("biosnoop");
    w.String("disk", g.disk);
    w.String("op", g.op);
    w.Open("summary");
    w.Double("interval_s", summary.interval_s);
    w.Uint("min_us", summary.min_us);
    w.Uint("count", g.data.count);
    w.Uint("bytes", g.data.bytes);
    w.Uint("slow", g.data.slow);
    w.Uint("errors", g.data.errors);
    const absl::Span<const uint64_t> latency(g.data.latency);
    const absl::Span<const uint64_t> size(g.data.size);
    w.Uints("latency_us_log2",
            latency.first(LengthWithoutTrailingZeros(latency)));
    w.Uints("size_log2", size.first(LengthWithoutTrailingZeros(size)));
    if (const FineSpan fine = NonEmptyFine(g.data); !fine.counts.empty()) {
      w.Uint("latency_fine_schema", kFineSchema);
      w.Int("latency_fine_first", fine.first);
      w.Uints("latency_fine", fine.counts);
    }
    w.Close();
    w.Close();
    w.End();
  }
}

}  // namespace biosnoop
