// The JSON Lines event writer (json_format.h), the hot one, and the
// pieces of it a stuck record shares (json_write.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json_format.h"
#include "json_write.h"
#include "wall_clock.h"

namespace biosnoop {

// "cgroup", "cgroup_id", "container_id", "pod_uid": an event's and a
// stuck record's, the same; none when the id is unknown (0), as in the
// streams of earlier versions, which then convert back byte for byte.
char* WriteCgroupJson(const CgroupLabel& c, uint64_t id, char* p) {
  if (id == 0) return p;
  bool unused = false;
  p = WriteLiteral(",\"cgroup\":", p);
  p = c.known ? WriteJsonString(c.path, p, &unused) : WriteLiteral("null", p);
  p = WriteLiteral(",\"cgroup_id\":", p);
  p = WriteUint(id, p);
  p = WriteLiteral(",\"container_id\":", p);
  p = WriteNullableJsonString(c.container_id, p);
  p = WriteLiteral(",\"pod_uid\":", p);
  return WriteNullableJsonString(c.pod_uid, p);
}

// The attribution fields ("content" to "dirtier_count"), written only when
// the kernel side looked at the request's pages: a stream of an earlier
// version, or of a run with --no-files, has none of them.
// An event's, or a stuck record's.
char* WriteAttributionJson(const Attribution& a, const AttributionLabel& label,
                           char* p) {
  if (a.content == Content::kNotLooked) return p;
  bool unused = false;
  p = WriteLiteral(",\"content\":\"", p);
  p = WriteRaw(label.content, p);
  p = WriteLiteral("\",\"files\":[", p);
  for (size_t i = 0; i < a.files.size() && i < label.files.size(); ++i) {
    if (i > 0) *p++ = ',';
    p = WriteLiteral("{\"path\":", p);
    p = WriteJsonString(label.files[i].path, p, &unused);
    p = WriteLiteral(",\"path_kind\":\"", p);
    p = WriteRaw(PathKindName(label.files[i].kind), p);
    p = WriteLiteral("\",\"inode\":", p);
    p = WriteUint(a.files[i].ino, p);
    p = WriteLiteral(",\"dev\":\"", p);
    p = WriteUint(a.files[i].dev_major, p);
    *p++ = ':';
    p = WriteUint(a.files[i].dev_minor, p);
    p = a.files[i].direct ? WriteLiteral("\",\"direct\":true}", p)
                          : WriteLiteral("\",\"direct\":false}", p);
  }
  p = WriteLiteral("],\"file_count\":", p);
  p = WriteUint(a.file_count, p);
  p = a.incomplete ? WriteLiteral(",\"files_incomplete\":true", p)
                   : WriteLiteral(",\"files_incomplete\":false", p);
  p = WriteLiteral(",\"dirtied_by\":", p);
  if (!a.dirtier.has_value()) {
    p = WriteLiteral("null", p);
  } else {
    const Dirtier& d = *a.dirtier;
    p = WriteLiteral("{\"pid\":", p);
    p = WriteUint(d.pid, p);
    p = WriteLiteral(",\"tid\":", p);
    p = WriteUint(d.tid, p);
    p = WriteLiteral(",\"comm\":", p);
    bool replaced = false;
    p = WriteJsonString(d.Comm(), p, &replaced);
    if (replaced) {
      p = WriteLiteral(",\"comm_raw\":\"", p);
      p = WriteHex(d.Comm(), p);
      *p++ = '"';
    }
    const CgroupLabel& c = label.dirtier_cgroup;
    p = WriteLiteral(",\"cgroup\":", p);
    p = c.known ? WriteJsonString(c.path, p, &unused) : WriteLiteral("null", p);
    p = WriteLiteral(",\"cgroup_id\":", p);
    p = WriteUint(d.cgroup_id, p);
    p = WriteLiteral(",\"dirtied_at\":\"", p);
    p = WriteRfc3339Nanos(label.dirtied_realtime_ns, p);
    *p++ = '"';
    // --ops: absent when none, as in the streams of runs without it.
    if (d.op_id != 0) {
      p = WriteLiteral(",\"op_id\":", p);
      p = WriteUint(d.op_id, p);
    }
    *p++ = '}';
  }
  p = WriteLiteral(",\"dirtier_count\":", p);
  return WriteUint(a.dirtier_count, p);
}

// Upper bound of what WriteAttributionJson writes.
size_t AttributionJsonBound(const Attribution& a,
                            const AttributionLabel& label) {
  if (a.content == Content::kNotLooked) return 0;
  size_t n = 512 + 32 + Rfc3339Formatter::kLength +
             kMaxJsonBytesPerByte * label.dirtier_cgroup.path.size() +
             (kMaxJsonBytesPerByte + 2) * 16;
  for (const FileLabel& f : label.files) {
    n += 128 + kMaxJsonBytesPerByte * f.path.size();
  }
  return n;
}

// "stack" (Event field 35, a Stuck's 28): the devices stacked on the
// request's partition or disk, absent when none, so that the streams of a
// machine without device-mapper or md are as before it.
char* WriteStackJson(const std::vector<std::string>& stack, char* p) {
  if (stack.empty()) return p;
  bool unused = false;
  p = WriteLiteral(",\"stack\":[", p);
  for (size_t i = 0; i < stack.size(); ++i) {
    if (i > 0) *p++ = ',';
    p = WriteJsonString(stack[i], p, &unused);
  }
  *p++ = ']';
  return p;
}

// Upper bound of what WriteStackJson writes for `stack`.
size_t StackJsonBound(const std::vector<std::string>& stack) {
  size_t n = 16;
  for (const std::string& name : stack) {
    n += 3 + kMaxJsonBytesPerByte * name.size();
  }
  return n;
}

// --ops: the call a request was submitted under, and the calls that
// dirtied its pages (Event fields 32-34, a Stuck's op_id), each absent when
// none: the streams of runs without --ops are as before it.
char* WriteRequestOpIdJson(uint64_t op_id, char* p) {
  if (op_id == 0) return p;
  p = WriteLiteral(",\"op_id\":", p);
  return WriteUint(op_id, p);
}

char* WriteDirtierOpIdsJson(const Attribution& a, char* p) {
  if (!a.dirtier_op_ids.empty()) {
    p = WriteLiteral(",\"dirtier_op_ids\":[", p);
    for (size_t i = 0; i < a.dirtier_op_ids.size(); ++i) {
      if (i > 0) *p++ = ',';
      p = WriteUint(a.dirtier_op_ids[i], p);
    }
    *p++ = ']';
  }
  if (a.dirtier_op_count != 0) {
    p = WriteLiteral(",\"dirtier_op_count\":", p);
    p = WriteUint(a.dirtier_op_count, p);
  }
  return p;
}

// Upper bound of what the two above write for `a`.
size_t OpIdsJsonBound(const Attribution& a) {
  return 96 + 21 * a.dirtier_op_ids.size();
}

namespace {

// Upper bound of everything AppendEventJson writes after the timestamp,
// apart from the variable-length strings: about 240 bytes of keys and
// punctuation, 16 integers of at most 20 digits, "null"s, op/rwbs/error
// names (under 16 bytes each).  Generous on purpose.
constexpr size_t kEventFixedBound = 1024;

// The generic fields' share: `,"name":` and up to 20 digits each.
#define BIOSNOOP_JSON_VALUE_BOUND(e, name, number, divisor, ecs_object, \
                                  ecs_key)                              \
  +sizeof(#name) + 4 + 20
constexpr size_t kEventValuesBound =
    0 BIOSNOOP_EVENT_VALUES(BIOSNOOP_JSON_VALUE_BOUND);
#undef BIOSNOOP_JSON_VALUE_BOUND

}  // namespace

JsonHost::JsonHost(absl::string_view host) { AppendJsonString(host, &text_); }

size_t EventJsonBound(const EnrichedEvent& e, const JsonHost& host) {
  // Whole-field maxima where that is cheaper than looking: this is per event.
  const size_t comm = e.event.comm.size();
  return kEventFixedBound + kEventValuesBound + Rfc3339Formatter::kLength +
         host.text().size() +
         kMaxJsonBytesPerByte *
             (e.disk.size() + e.partition.size() + comm + e.cgroup.path.size() +
              e.cgroup.container_id.size() + e.cgroup.pod_uid.size()) +
         2 * comm + kMaxOpNameLength + kMaxRwbsLength + kMaxErrorNameLength +
         StackJsonBound(e.stack) +
         AttributionJsonBound(e.event.attribution, e.attribution) +
         OpIdsJsonBound(e.event.attribution);
}

void AppendEventJson(const EnrichedEvent& e, absl::string_view host,
                     std::string* out) {
  const JsonHost json_host(host);
  const size_t old_size = out->size();
  out->resize(old_size + EventJsonBound(e, json_host));
  char* end = WriteEventJson(e, json_host, out->data() + old_size);
  out->resize(static_cast<size_t>(end - out->data()));
}

char* WriteEventJson(const EnrichedEvent& e, const JsonHost& host, char* p) {
  const Event& ev = e.event;
  p = WriteLiteral("{\"type\":\"event\",\"timestamp\":\"", p);
  p = WriteRfc3339Nanos(e.realtime_ns, p);

  const absl::string_view comm = ev.Comm();
  const absl::string_view op = OpName(ev.op);
  const absl::string_view rwbs = Rwbs(ev.op, ev.flags);
  const BlkError error = BlkStatusToError(ev.blk_status);
  bool unused = false;

  p = WriteLiteral("\",\"host\":", p);
  p = WriteRaw(host.text(), p);
  p = WriteLiteral(",\"disk\":", p);
  p = WriteJsonString(e.disk, p, &unused);
  p = WriteLiteral(",\"partition\":", p);
  p = e.partition.empty() ? WriteLiteral("null", p)
                          : WriteJsonString(e.partition, p, &unused);
  p = WriteStackJson(e.stack, p);
  p = WriteLiteral(",\"dev\":\"", p);
  p = WriteUint(ev.major, p);
  *p++ = ':';
  p = WriteUint(ev.minor, p);
  // op and rwbs are fixed ASCII words: nothing to escape.
  p = WriteLiteral("\",\"op\":\"", p);
  p = WriteRaw(op, p);
  p = WriteLiteral("\",\"rwbs\":\"", p);
  p = WriteRaw(rwbs, p);
  p = WriteLiteral("\",\"sector\":", p);
  p = WriteUint(ev.sector, p);
  p = WriteLiteral(",\"bytes\":", p);
  p = WriteUint(ev.bytes, p);
  p = WriteLiteral(",\"latency_us\":", p);
  p = WriteUint(ev.LatencyNs(e.include_queue) / 1000, p);
  p = WriteLiteral(",\"device_us\":", p);
  p = WriteUint(ev.device_ns / 1000, p);
  p = WriteLiteral(",\"queue_us\":", p);
  p = ev.queue_ns.has_value() ? WriteUint(*ev.queue_ns / 1000, p)
                              : WriteLiteral("null", p);
  p = WriteLiteral(",\"queue_depth\":", p);
  p = WriteUint(ev.queue_depth, p);
  p = WriteLiteral(",\"pid\":", p);
  p = WriteUint(ev.pid, p);
  p = WriteLiteral(",\"tid\":", p);
  p = WriteUint(ev.tid, p);
  p = WriteLiteral(",\"comm\":", p);
  bool comm_replaced = false;
  p = WriteJsonString(comm, p, &comm_replaced);
  // comm_raw exactly when comm no longer equals the raw bytes, which is
  // exactly when some byte was replaced (escapes decode back losslessly).
  if (comm_replaced) {
    p = WriteLiteral(",\"comm_raw\":\"", p);
    p = WriteHex(comm, p);
    *p++ = '"';
  }
  p = WriteLiteral(",\"error_code\":", p);
  p = WriteInt(error.errno_value, p);
  p = WriteLiteral(",\"error\":", p);
  if (error.name.empty()) {
    p = WriteLiteral("null", p);
  } else {
    *p++ = '"';
    p = WriteRaw(error.name, p);
    *p++ = '"';
  }
  p = WriteLiteral(",\"seq\":", p);
  p = WriteUint(e.seq, p);
  p = WriteCgroupJson(e.cgroup, ev.cgroup_id, p);
  if (ev.completion_context != CompletionContext::kAbsent) {
    p = WriteLiteral(",\"completion_context\":\"", p);
    p = WriteRaw(CompletionContextName(ev.completion_context), p);
    *p++ = '"';
  }
  p = WriteAttributionJson(ev.attribution, e.attribution, p);
  p = WriteRequestOpIdJson(ev.op_id, p);
  p = WriteDirtierOpIdsJson(ev.attribution, p);
  // The generic fields (event_values.h), each only when known.
  if (ev.values.AnyKnown()) {
#define BIOSNOOP_JSON_VALUE(e, name, number, divisor, ecs_object, ecs_key) \
  if (const std::optional<uint64_t> v = ev.values.Get(EventValue::e)) {    \
    p = WriteLiteral(",\"" #name "\":", p);                                \
    p = WriteUint(*v / divisor, p);                                        \
  }
    BIOSNOOP_EVENT_VALUES(BIOSNOOP_JSON_VALUE)
#undef BIOSNOOP_JSON_VALUE
  }
  p = WriteLiteral("}\n", p);
  return p;
}

}  // namespace biosnoop
