// Records back to bytes with biosnoop's own JSON formatters (json_format.h:
// headers and stats go through biosnoop's StreamInfo and StatsSnapshot),
// so that what bioreport writes cannot drift from what biosnoop writes;
// protobuf as the one-member Record's bytes, framed by hand.

#include "record_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "google/protobuf/io/coded_stream.h"
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

// The fields an event and a stuck record share, laid out as biosnoop
// writes both (Msg is v1::Event or v1::Stuck: the fields are named alike).
// From "type" to "bytes":
template <typename Msg>
void AppendRequestHead(absl::string_view type, const Msg& m, std::string* out) {
  absl::StrAppend(out, "{\"type\":\"", type, "\",\"timestamp\":\"");
  AppendRfc3339Nanos(ToNs(m.timestamp()), out);
  out->append("\",\"host\":");
  AppendJsonString(m.host(), out);
  Key("disk", out);
  AppendJsonString(m.disk(), out);
  NullableString("partition", m.has_partition(), m.partition(), out);
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

// Same field order and rules as AppendEventJson() (a unit test compares
// the two on the same events).
void AppendEventRecordJson(const v1::Event& e, std::string* out) {
  AppendRequestHead("event", e, out);
  absl::StrAppend(out, ",\"latency_us\":", e.latency_us(),
                  ",\"device_us\":", e.device_us());
  AppendRequestTail(e, out);
  absl::StrAppend(out, ",\"error_code\":", e.error_code());
  NullableString("error", e.has_error(), e.error(), out);
  absl::StrAppend(out, ",\"seq\":", e.seq(), "}\n");
}

// Same as AppendStuckJson() (a unit test compares the two).
void AppendStuckRecordJson(const v1::Stuck& k, std::string* out) {
  AppendRequestHead("stuck", k, out);
  absl::StrAppend(out, ",\"inflight_us\":", k.inflight_us());
  AppendRequestTail(k, out);
  out->append("}\n");
}

absl::Span<const uint64_t> SpanOf(
    const google::protobuf::RepeatedField<uint64_t>& values) {
  return absl::MakeConstSpan(values.data(), values.size());
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
    out->push_back('}');
  }
  out->append("]}\n");
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
  return snap;
}

}  // namespace

void AppendRecordJson(const ParsedRecord& rec, std::string* out) {
  switch (rec.kind) {
    case RecordKind::kEvent:
      AppendEventRecordJson(rec.event, out);
      return;
    case RecordKind::kHeader:
      AppendHeaderJson(InfoOf(rec.header), rec.header.format_version(), out);
      return;
    case RecordKind::kStats:
      AppendStatsJson(SnapshotOf(rec.stats), out);
      return;
    case RecordKind::kSummary:
      AppendSummaryRecordJson(rec.summary, out);
      return;
    case RecordKind::kStuck:
      AppendStuckRecordJson(rec.stuck, out);
      return;
  }
}

void AppendRecordProto(const ParsedRecord& rec, std::string* out) {
  using google::protobuf::io::CodedOutputStream;
  // A Record with one member is that member's tag, length and bytes: the
  // same bytes v1::Record would serialize to, without copying the member
  // into a Record.
  const google::protobuf::MessageLite* member = &rec.event;
  uint8_t tag = 0x12;
  if (rec.kind == RecordKind::kHeader) {
    member = &rec.header;
    tag = 0x0a;
  } else if (rec.kind == RecordKind::kStats) {
    member = &rec.stats;
    tag = 0x1a;
  } else if (rec.kind == RecordKind::kSummary) {
    member = &rec.summary;
    tag = 0x22;
  } else if (rec.kind == RecordKind::kStuck) {
    member = &rec.stuck;
    tag = 0x2a;
  }
  const auto size = static_cast<uint32_t>(member->ByteSizeLong());
  const uint32_t record_size = 1 + CodedOutputStream::VarintSize32(size) + size;
  const size_t old_size = out->size();
  out->resize(old_size + CodedOutputStream::VarintSize32(record_size) +
              record_size);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + old_size);
  p = CodedOutputStream::WriteVarint32ToArray(record_size, p);
  *p++ = tag;
  p = CodedOutputStream::WriteVarint32ToArray(size, p);
  member->SerializeWithCachedSizesToArray(p);
}

}  // namespace biosnoop::report
