// Records back to bytes with biosnoop's own JSON formatters (json_format.h:
// headers and stats go through biosnoop's StreamInfo and StatsSnapshot),
// so that what bioreport writes cannot drift from what biosnoop writes;
// protobuf as the one-member Record's bytes, framed by hand.

#include "record_writer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/wire_format_lite.h"
#include "json_format.h"
#include "stream_info.h"
#include "wall_clock.h"

namespace biosnoop::report {
namespace {

void Key(const char* key, std::string* out) {
  absl::StrAppend(out, ",\"", key, "\":");
}

void NullableString(const char* key, bool has, const std::string& v,
                    std::string* out) {
  Key(key, out);
  if (has) {
    AppendJsonString(v, out);
  } else {
    out->append("null");
  }
}

using google::protobuf::FieldDescriptor;

// One value of field `f` of `m` (element `index` of a repeated one, else
// -1) as the writers here lay that type out.
void AppendValueJson(const google::protobuf::Message& m,
                     const FieldDescriptor* f, int index, std::string* out) {
  const google::protobuf::Reflection* refl = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& v =
          rep ? refl->GetRepeatedStringReference(m, f, index, &scratch)
              : refl->GetStringReference(m, f, &scratch);
      if (f->type() == FieldDescriptor::TYPE_BYTES) {  // hex, as comm_raw
        out->push_back('"');
        AppendLowerHex(v, out);
        out->push_back('"');
      } else {
        AppendJsonString(v, out);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(out, rep ? refl->GetRepeatedUInt32(m, f, index)
                               : refl->GetUInt32(m, f));
      return;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(out, rep ? refl->GetRepeatedUInt64(m, f, index)
                               : refl->GetUInt64(m, f));
      return;
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(out, rep ? refl->GetRepeatedInt32(m, f, index)
                               : refl->GetInt32(m, f));
      return;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(out, rep ? refl->GetRepeatedInt64(m, f, index)
                               : refl->GetInt64(m, f));
      return;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append(
          (rep ? refl->GetRepeatedBool(m, f, index) : refl->GetBool(m, f))
              ? "true"
              : "false");
      return;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendJsonDouble(
          rep ? refl->GetRepeatedDouble(m, f, index) : refl->GetDouble(m, f),
          out);
      return;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
        const auto& ts = static_cast<const google::protobuf::Timestamp&>(
            rep ? refl->GetRepeatedMessage(m, f, index)
                : refl->GetMessage(m, f));
        out->push_back('"');
        AppendRfc3339Nanos(ToNs(ts), out);
        out->push_back('"');
        return;
      }
      break;
    default:
      break;
  }
  out->append("null");  // a type no record field has had yet
}

// The fields of `m` numbered above `last_written` (the last one the
// writers here name), in schema order, through reflection under the rules
// those writers follow: an unset `optional` field is null (an unset
// `optional bytes`, like comm_raw, is left out), repeated fields are
// arrays, and a field that is neither `optional` nor a message is left
// out at its default (0, false, "", []), as biosnoop leaves out the fields
// it added later when they are 0 (op_id and the rest of --ops), so that
// the streams of runs without them are as before.  So a field added to the
// schema reaches a converted stream with no change here; a writer above
// may take it over for speed.
void AppendLaterFieldsJson(const google::protobuf::Message& m, int last_written,
                           std::string* out) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* refl = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->number() <= last_written) continue;
    if (f->has_optional_keyword() && !refl->HasField(m, f)) {
      if (f->type() == FieldDescriptor::TYPE_BYTES) continue;
      Key(f->name().c_str(), out);
      out->append("null");
      continue;
    }
    if (f->is_repeated()
            ? refl->FieldSize(m, f) == 0
            : !f->has_optional_keyword() &&
                  f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE &&
                  !refl->HasField(m, f)) {
      continue;
    }
    Key(f->name().c_str(), out);
    if (!f->is_repeated()) {
      AppendValueJson(m, f, -1, out);
      continue;
    }
    out->push_back('[');
    for (int j = 0; j < refl->FieldSize(m, f); ++j) {
      if (j > 0) out->push_back(',');
      AppendValueJson(m, f, j, out);
    }
    out->push_back(']');
  }
}

// For a line an other writer ended ("...}\n"): `tail`, then the fields
// above `last_written`, go before its closing brace.
void InsertLaterFieldsJson(const google::protobuf::Message& m, int last_written,
                           size_t line_start, std::string tail,
                           std::string* out) {
  if (out->size() < line_start + 2) return;
  AppendLaterFieldsJson(m, last_written, &tail);
  if (tail.empty()) return;
  out->insert(out->size() - 2, tail);
}

// The fields an event and a stuck record share, laid out as biosnoop
// writes both (Msg is v1::Event or v1::Stuck: the fields are named alike).
// From "type" to "bytes", "stack" after "partition" (where it is declared,
// though numbered last) and only when not empty, as biosnoop writes it:
template <typename Msg>
void AppendRequestHead(absl::string_view type, const Msg& m, std::string* out) {
  absl::StrAppend(out, "{\"type\":\"", type, "\",\"timestamp\":\"");
  AppendRfc3339Nanos(ToNs(m.timestamp()), out);
  out->append("\",\"host\":");
  AppendJsonString(m.host(), out);
  Key("disk", out);
  AppendJsonString(m.disk(), out);
  NullableString("partition", m.has_partition(), m.partition(), out);
  if (m.stack_size() != 0) {
    out->append(",\"stack\":[");
    for (int i = 0; i < m.stack_size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendJsonString(m.stack(i), out);
    }
    out->push_back(']');
  }
  Key("dev", out);
  AppendJsonString(m.dev(), out);
  Key("op", out);
  AppendJsonString(m.op(), out);
  Key("rwbs", out);
  AppendJsonString(m.rwbs(), out);
  absl::StrAppend(out, ",\"sector\":", m.sector(), ",\"bytes\":", m.bytes());
}

// ... and from "queue_us" to "comm_raw" (only when set).
template <typename Msg>
void AppendRequestTail(const Msg& m, std::string* out) {
  out->append(",\"queue_us\":");
  if (m.has_queue_us()) {
    absl::StrAppend(out, m.queue_us());
  } else {
    out->append("null");
  }
  absl::StrAppend(out, ",\"queue_depth\":", m.queue_depth(),
                  ",\"pid\":", m.pid(), ",\"tid\":", m.tid());
  Key("comm", out);
  AppendJsonString(m.comm(), out);
  if (m.has_comm_raw()) {
    out->append(",\"comm_raw\":\"");
    AppendLowerHex(m.comm_raw(), out);
    out->push_back('"');
  }
}

// "cgroup" to "pod_uid", as biosnoop writes them: only for a known
// cgroup id, so that a stream from before them converts back unchanged.
template <typename Msg>
void AppendCgroupFields(const Msg& m, std::string* out) {
  if (m.cgroup_id() == 0 && !m.has_cgroup() && !m.has_container_id() &&
      !m.has_pod_uid()) {
    return;
  }
  NullableString("cgroup", m.has_cgroup(), m.cgroup(), out);
  absl::StrAppend(out, ",\"cgroup_id\":", m.cgroup_id());
  NullableString("container_id", m.has_container_id(), m.container_id(), out);
  NullableString("pod_uid", m.has_pod_uid(), m.pod_uid(), out);
}

absl::Span<const uint64_t> SpanOf(
    const google::protobuf::RepeatedField<uint64_t>& values) {
  return absl::MakeConstSpan(values.data(), values.size());
}

void AppendBool(bool v, std::string* out) { out->append(v ? "true" : "false"); }

// One FileRef object: an element of an event's "files", an op's "file".
void AppendFileRefJson(const v1::FileRef& f, std::string* out) {
  out->append("{\"path\":");
  AppendJsonString(f.path(), out);
  Key("path_kind", out);
  AppendJsonString(f.path_kind(), out);
  absl::StrAppend(out, ",\"inode\":", f.inode());
  Key("dev", out);
  AppendJsonString(f.dev(), out);
  Key("direct", out);
  AppendBool(f.direct(), out);
  AppendLaterFieldsJson(f, v1::FileRef::kDirectFieldNumber, out);
  out->push_back('}');
}

// "op_id" (--ops: the call a request or a dirtying was made under), only
// when there is one: 0 is written as biosnoop writes it, as no key, so
// that a stream from before calls, or without --ops, converts back
// unchanged.
void AppendOpId(uint64_t op_id, std::string* out) {
  if (op_id != 0) absl::StrAppend(out, ",\"op_id\":", op_id);
}

// A nullable integer: null when unset.
void NullableUint(const char* key, bool has, uint64_t v, std::string* out) {
  Key(key, out);
  if (has) {
    absl::StrAppend(out, v);
  } else {
    out->append("null");
  }
}

// "content" to "dirtier_count", as biosnoop writes them: all six, and only
// when the files were looked at (content not empty: attribution on), so
// that a stream from before them, or written with --no-files, converts
// back unchanged.  The readers refuse an event with files or a dirtier
// but no content, which would lose them here.  Msg: v1::Event or
// v1::Stuck (the fields are named alike).
template <typename Msg>
void AppendAttributionFields(const Msg& e, std::string* out) {
  if (e.content().empty()) return;
  Key("content", out);
  AppendJsonString(e.content(), out);
  out->append(",\"files\":[");
  for (int i = 0; i < e.files_size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendFileRefJson(e.files(i), out);
  }
  absl::StrAppend(out, "],\"file_count\":", e.file_count());
  Key("files_incomplete", out);
  AppendBool(e.files_incomplete(), out);
  Key("dirtied_by", out);
  if (e.has_dirtied_by()) {
    const v1::Dirtier& d = e.dirtied_by();
    absl::StrAppend(out, "{\"pid\":", d.pid(), ",\"tid\":", d.tid());
    Key("comm", out);
    AppendJsonString(d.comm(), out);
    if (d.has_comm_raw()) {  // as an event's: only when set
      out->append(",\"comm_raw\":\"");
      AppendLowerHex(d.comm_raw(), out);
      out->push_back('"');
    }
    NullableString("cgroup", d.has_cgroup(), d.cgroup(), out);
    absl::StrAppend(out, ",\"cgroup_id\":", d.cgroup_id(),
                    ",\"dirtied_at\":\"");
    AppendRfc3339Nanos(ToNs(d.dirtied_at()), out);
    out->push_back('"');
    AppendOpId(d.op_id(), out);
    AppendLaterFieldsJson(d, v1::Dirtier::kOpIdFieldNumber, out);
    out->push_back('}');
  } else {
    out->append("null");
  }
  absl::StrAppend(out, ",\"dirtier_count\":", e.dirtier_count());
}

// Same field order and rules as AppendEventJson() (a unit test compares
// the two on the same events).
void AppendEventRecordJson(const v1::Event& e, std::string* out) {
  AppendRequestHead("event", e, out);
  absl::StrAppend(out, ",\"latency_us\":", e.latency_us(),
                  ",\"device_us\":", e.device_us());
  AppendRequestTail(e, out);
  absl::StrAppend(out, ",\"error_code\":", e.error_code());
  NullableString("error", e.has_error(), e.error(), out);
  absl::StrAppend(out, ",\"seq\":", e.seq());
  AppendCgroupFields(e, out);
  // Empty only in streams from before it: left out, as they had it.
  if (!e.completion_context().empty()) {
    Key("completion_context", out);
    AppendJsonString(e.completion_context(), out);
  }
  AppendAttributionFields(e, out);
  AppendOpId(e.op_id(), out);
  // The dirtier calls, each key only when set, as biosnoop writes them (a
  // protobuf record cannot tell an empty list or 0 from an absent one).
  if (e.dirtier_op_ids_size() != 0) {
    out->append(",\"dirtier_op_ids\":");
    AppendJsonUintArray(SpanOf(e.dirtier_op_ids()), out);
  }
  if (e.dirtier_op_count() != 0) {
    absl::StrAppend(out, ",\"dirtier_op_count\":", e.dirtier_op_count());
  }
  // The driver's layer (NVMe), each only when known, last as biosnoop
  // writes them; stack, numbered before them, went after partition.
  if (e.has_driver_prep_us()) {
    absl::StrAppend(out, ",\"driver_prep_us\":", e.driver_prep_us());
  }
  if (e.has_driver_done_us()) {
    absl::StrAppend(out, ",\"driver_done_us\":", e.driver_done_us());
  }
  static_assert(v1::Event::kDriverDoneUsFieldNumber >
                    v1::Event::kDriverPrepUsFieldNumber &&
                v1::Event::kDriverPrepUsFieldNumber >
                    v1::Event::kStackFieldNumber);
  AppendLaterFieldsJson(e, v1::Event::kDriverDoneUsFieldNumber, out);
  out->append("}\n");
}

// Same as AppendStuckJson() (a unit test compares the two).
void AppendStuckRecordJson(const v1::Stuck& k, std::string* out) {
  AppendRequestHead("stuck", k, out);
  absl::StrAppend(out, ",\"inflight_us\":", k.inflight_us());
  AppendRequestTail(k, out);
  AppendCgroupFields(k, out);
  AppendAttributionFields(k, out);
  AppendOpId(k.op_id(), out);
  static_assert(v1::Stuck::kStackFieldNumber > v1::Stuck::kOpIdFieldNumber);
  AppendLaterFieldsJson(k, v1::Stuck::kStackFieldNumber, out);
  out->append("}\n");
}

// An op's "block" or "writeback".
void AppendOpLayerJson(const v1::OpLayer& l, std::string* out) {
  absl::StrAppend(out, "{\"requests\":", l.requests(), ",\"bytes\":", l.bytes(),
                  ",\"disks\":[");
  for (int i = 0; i < l.disks_size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(l.disks(i), out);
  }
  absl::StrAppend(out, "],\"queue_us_sum\":", l.queue_us_sum(),
                  ",\"queue_us_max\":", l.queue_us_max(),
                  ",\"device_us_sum\":", l.device_us_sum(),
                  ",\"device_us_max\":", l.device_us_max(),
                  ",\"wait_us\":", l.wait_us());
  NullableUint("dirty_age_us_max", l.has_dirty_age_us_max(),
               l.dirty_age_us_max(), out);
  NullableUint("dirty_age_us_min", l.has_dirty_age_us_min(),
               l.dirty_age_us_min(), out);
  absl::StrAppend(out, ",\"dirty_known\":", l.dirty_known());
  AppendLaterFieldsJson(l, v1::OpLayer::kDirtyKnownFieldNumber, out);
  out->push_back('}');
}

// An op record (--ops), in schema order, "type" first; nullable fields
// null when unset, comm_raw only when set (as an event's).
void AppendOpRecordJson(const v1::Op& op, std::string* out) {
  out->append("{\"type\":\"op\",\"timestamp\":\"");
  AppendRfc3339Nanos(ToNs(op.timestamp()), out);
  out->append("\",\"host\":");
  AppendJsonString(op.host(), out);
  absl::StrAppend(out, ",\"op_id\":", op.op_id());
  Key("call", out);
  AppendJsonString(op.call(), out);
  absl::StrAppend(out, ",\"pid\":", op.pid(), ",\"tid\":", op.tid());
  Key("comm", out);
  AppendJsonString(op.comm(), out);
  if (op.has_comm_raw()) {
    out->append(",\"comm_raw\":\"");
    AppendLowerHex(op.comm_raw(), out);
    out->push_back('"');
  }
  AppendCgroupFields(op, out);
  Key("file", out);
  AppendFileRefJson(op.file(), out);
  Key("disk", out);
  AppendJsonString(op.disk(), out);
  NullableString("partition", op.has_partition(), op.partition(), out);
  NullableUint("offset", op.has_offset(), op.offset(), out);
  absl::StrAppend(out, ",\"bytes_requested\":", op.bytes_requested());
  Key("bytes_requested_partial", out);
  AppendBool(op.bytes_requested_partial(), out);
  absl::StrAppend(out, ",\"bytes_done\":", op.bytes_done(),
                  ",\"error_code\":", op.error_code());
  NullableString("error", op.has_error(), op.error(), out);
  out->append(",\"start_time\":\"");
  AppendRfc3339Nanos(ToNs(op.start_time()), out);
  absl::StrAppend(out, "\",\"latency_us\":", op.latency_us());
  Key("block", out);
  AppendOpLayerJson(op.block(), out);
  Key("writeback", out);
  AppendOpLayerJson(op.writeback(), out);
  absl::StrAppend(out, ",\"other_us\":", op.other_us());
  AppendLaterFieldsJson(op, v1::Op::kOtherUsFieldNumber, out);
  out->append("}\n");
}

// Same layout as AppendSummaryJson() (a unit test compares the two), but
// the histograms exactly as the record holds them: a record read from
// elsewhere keeps any trailing zero buckets it came with.
void AppendSummaryRecordJson(const v1::Summary& s, std::string* out) {
  out->append("{\"type\":\"summary\",\"timestamp\":\"");
  AppendRfc3339Nanos(ToNs(s.timestamp()), out);
  out->append("\",\"interval_s\":");
  AppendJsonDouble(s.interval_s(), out);
  absl::StrAppend(out, ",\"min_us\":", s.min_us(), ",\"groups\":[");
  for (int i = 0; i < s.groups_size(); ++i) {
    const v1::SummaryGroup& g = s.groups(i);
    if (i > 0) out->push_back(',');
    out->append("{\"disk\":");
    AppendJsonString(g.disk(), out);
    Key("op", out);
    AppendJsonString(g.op(), out);
    absl::StrAppend(out, ",\"count\":", g.count(), ",\"bytes\":", g.bytes(),
                    ",\"slow\":", g.slow(), ",\"latency_us_log2\":");
    AppendJsonUintArray(SpanOf(g.latency_us_log2()), out);
    out->append(",\"size_log2\":");
    AppendJsonUintArray(SpanOf(g.size_log2()), out);
    absl::StrAppend(out, ",\"errors\":", g.errors());
    AppendLaterFieldsJson(g, v1::SummaryGroup::kErrorsFieldNumber, out);
    out->push_back('}');
  }
  out->push_back(']');
  AppendLaterFieldsJson(s, v1::Summary::kGroupsFieldNumber, out);
  out->append("}\n");
}

// The header as biosnoop's own writer lays it out.  A header from before
// stuck_after_us converts with "stuck_after_us":0 (no stuck records), which
// is what its absence meant.
StreamInfo InfoOf(const v1::StreamHeader& h) {
  StreamInfo info;
  info.host = h.host();
  info.boot_id = h.boot_id();
  info.start_realtime_ns = ToNs(h.start_time());
  info.biosnoop_version = h.biosnoop_version();
  info.kernel_release = h.kernel_release();
  info.min_us = h.min_us();
  info.queued = h.queued();
  info.disk_filter = h.disk_filter();
  info.pid_filter = h.pid_filter();
  info.comm_filter = h.comm_filter();
  info.op_filter = h.op_filter();
  info.ringbuf_kib = h.ringbuf_kib();
  info.stuck_after_us = h.stuck_after_us();
  info.run_id = h.run_id();
  info.cgroup_filter = h.cgroup_filter();
  info.ops = h.ops();
  info.op_min_us = h.op_min_us();
  info.kernel_lacks.assign(h.kernel_lacks().begin(), h.kernel_lacks().end());
  return info;
}

StatsSnapshot SnapshotOf(const v1::Stats& s) {
  StatsSnapshot snap;
  snap.realtime_ns = ToNs(s.timestamp());
  snap.elapsed_s = s.elapsed_s();
  snap.completions = s.completions();
  snap.emitted = s.emitted();
  snap.lost = s.lost();
  snap.orphans = s.orphans();
  snap.below_threshold = s.below_threshold();
  snap.filtered = s.filtered();
  snap.decode_errors = s.decode_errors();
  snap.expired = s.expired();
  snap.written = s.written();
  snap.dropped = s.dropped();
  snap.missed = s.missed();
  snap.unfinished = s.unfinished();
  snap.final = s.final();
  snap.run_id = s.run_id();
  snap.ledger_misses = s.ledger_misses();
  snap.ledger_replaced = s.ledger_replaced();
  snap.ops_lost = s.ops_lost();
  snap.ops_written = s.ops_written();
  snap.ops_untracked = s.ops_untracked();
  return snap;
}

}  // namespace

void AppendRecordJson(const ParsedRecord& rec, std::string* out) {
  switch (rec.kind) {
    case RecordKind::kEvent:
      AppendEventRecordJson(rec.event, out);
      return;
    case RecordKind::kHeader: {
      const size_t start = out->size();
      AppendHeaderJson(InfoOf(rec.header), rec.header.format_version(), out);
      InsertLaterFieldsJson(rec.header,
                            v1::StreamHeader::kKernelLacksFieldNumber, start,
                            "", out);
      return;
    }
    case RecordKind::kStats: {
      const size_t start = out->size();
      AppendStatsJson(SnapshotOf(rec.stats), out);
      InsertLaterFieldsJson(rec.stats, v1::Stats::kOpsUntrackedFieldNumber,
                            start, "", out);
      return;
    }
    case RecordKind::kSummary:
      AppendSummaryRecordJson(rec.summary, out);
      return;
    case RecordKind::kStuck:
      AppendStuckRecordJson(rec.stuck, out);
      return;
    case RecordKind::kOp:
      AppendOpRecordJson(rec.op, out);
      return;
  }
}

void AppendRecordProto(const ParsedRecord& rec, std::string* out) {
  using google::protobuf::io::CodedOutputStream;
  // A Record with one member is that member's tag, length and bytes: the
  // same bytes v1::Record would serialize to, without copying the member
  // into a Record.
  const google::protobuf::MessageLite* member = &rec.event;
  int field = v1::Record::kEventFieldNumber;
  switch (rec.kind) {
    case RecordKind::kEvent:
      break;
    case RecordKind::kHeader:
      member = &rec.header;
      field = v1::Record::kHeaderFieldNumber;
      break;
    case RecordKind::kStats:
      member = &rec.stats;
      field = v1::Record::kStatsFieldNumber;
      break;
    case RecordKind::kSummary:
      member = &rec.summary;
      field = v1::Record::kSummaryFieldNumber;
      break;
    case RecordKind::kStuck:
      member = &rec.stuck;
      field = v1::Record::kStuckFieldNumber;
      break;
    case RecordKind::kOp:
      member = &rec.op;
      field = v1::Record::kOpFieldNumber;
      break;
  }
  using google::protobuf::internal::WireFormatLite;
  const uint32_t tag =
      WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const auto size = static_cast<uint32_t>(member->ByteSizeLong());
  const uint32_t record_size = CodedOutputStream::VarintSize32(tag) +
                               CodedOutputStream::VarintSize32(size) + size;
  const size_t old_size = out->size();
  out->resize(old_size + CodedOutputStream::VarintSize32(record_size) +
              record_size);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + old_size);
  p = CodedOutputStream::WriteVarint32ToArray(record_size, p);
  p = CodedOutputStream::WriteVarint32ToArray(tag, p);
  p = CodedOutputStream::WriteVarint32ToArray(size, p);
  member->SerializeWithCachedSizesToArray(p);
}

}  // namespace biosnoop::report
