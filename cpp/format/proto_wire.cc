// Records encoded straight into the protobuf wire format, length-delimited
// (proto_wire.h).

#include "proto_wire.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
// Only the generated field-number constants (compile-time enumerators):
// nothing here calls into libprotobuf, which biosnoop does not link.
#include "biosnoop.pb.h"
#include "decimal_digits.h"
#include "histogram.h"
#include "json_format.h"
#include "op_layer_json.h"
#include "short_copy.h"

namespace biosnoop {
namespace {

// Field numbers come from the schema (proto/biosnoop.proto) through the
// generated constants; these short names only keep the lines readable.
using Ts = google::protobuf::Timestamp;
using Rec = v1::Record;
using Hdr = v1::StreamHeader;
using Sts = v1::Stats;
using Sum = v1::Summary;
using Grp = v1::SummaryGroup;
using Ev = v1::Event;
using Stk = v1::Stuck;
using OpMsg = v1::Op;
using Layer = v1::OpLayer;
using Culprit = v1::OpCulprit;

constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLen = 2;
constexpr int64_t kNsPerSecond = 1'000'000'000;
// A varint of a 64-bit value.
constexpr size_t kMaxVarintBytes = 10;

// Encoding into a buffer sized up front: every write is a plain store.
class Writer {
 public:
  explicit Writer(char* p) : p_(p) {}
  char* pos() const { return p_; }

  void Varint(uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<char>(v);
  }
  void Tag(int field, int type) {
    Varint(static_cast<uint64_t>(field) << 3 | type);
  }
  void Bytes(absl::string_view s) {
    Varint(s.size());
    Raw(s);
  }
  // proto3 scalars: zero is the default and is not written.
  void U64(int field, uint64_t v) {
    if (v == 0) return;
    Tag(field, kVarint);
    Varint(v);
  }
  void I32(int field, int32_t v) {
    if (v == 0) return;
    Tag(field, kVarint);
    Varint(static_cast<uint64_t>(static_cast<int64_t>(v)));  // sign-extended
  }
  void Str(int field, absl::string_view s) {
    if (s.empty()) return;
    Tag(field, kLen);
    Bytes(s);
  }
  // `optional` fields: written when present, even if empty or zero.
  void OptStr(int field, absl::string_view s) {
    Tag(field, kLen);
    Bytes(s);
  }
  void OptU64(int field, uint64_t v) {
    Tag(field, kVarint);
    Varint(v);
  }
  // Bytes as they are: a string's, or a field already encoded.
  void Raw(absl::string_view s) {
    CopyBytes(s.data(), s.size(), p_);
    p_ += s.size();
  }

 private:
  char* p_;
};

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Text that is already valid UTF-8 goes as is; anything else through the
// JSON writer's U+FFFD rule (proto3 strings must be UTF-8).
absl::string_view Utf8(absl::string_view s, std::string* fixed) {
  if (IsValidUtf8(s)) return s;
  fixed->clear();
  AppendSanitizedUtf8(s, fixed);
  return *fixed;
}

// Growing encoder for the rare records (header, stats, summary): clarity
// over speed.  Field by field in field-number order, as protobuf writes.
class Encoder {
 public:
  const std::string& bytes() const { return out_; }

  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Tag(int field, int type) {
    Varint(static_cast<uint64_t>(field) << 3 | type);
  }
  // proto3 scalars: the default (0, false, "") is not written.
  void U64(int field, uint64_t v) {
    if (v == 0) return;
    Tag(field, kVarint);
    Varint(v);
  }
  void Bool(int field, bool v) { U64(field, v ? 1 : 0); }
  void Double(int field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (bits == 0) return;  // +0.0 only: protobuf writes -0.0
    Tag(field, kFixed64);
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  void Str(int field, absl::string_view s) {
    if (s.empty()) return;
    Len(field, s);
  }
  // A field already encoded.
  void Raw(absl::string_view s) { out_.append(s.data(), s.size()); }
  // `optional` fields: written when present, even if empty or zero.
  void OptStr(int field, absl::string_view s) { Len(field, s); }
  void OptU64(int field, uint64_t v) {
    Tag(field, kVarint);
    Varint(v);
  }
  // A message field: written whenever the message is present, even empty.
  void Message(int field, const Encoder& body) { Len(field, body.bytes()); }
  // A repeated scalar, packed (the proto3 default); nothing when empty.
  void PackedU64(int field, absl::Span<const uint64_t> values) {
    if (values.empty()) return;
    Encoder body;
    for (uint64_t v : values) body.Varint(v);
    Len(field, body.bytes());
  }

 private:
  void Len(int field, absl::string_view s) {
    Tag(field, kLen);
    Varint(s.size());
    out_.append(s.data(), s.size());
  }

  std::string out_;
};

// A google.protobuf.Timestamp: seconds and nanos >= 0 (floor division).
Encoder TimestampMessage(int64_t realtime_ns) {
  int64_t seconds = realtime_ns / kNsPerSecond;
  int64_t nanos = realtime_ns % kNsPerSecond;
  if (nanos < 0) {
    nanos += kNsPerSecond;
    --seconds;
  }
  Encoder ts;
  // int64: two's complement
  ts.U64(Ts::kSecondsFieldNumber, static_cast<uint64_t>(seconds));
  ts.U64(Ts::kNanosFieldNumber, static_cast<uint64_t>(nanos));
  return ts;
}

// Record { `kind` = body }, length-delimited, appended to out.
void AppendRecord(int kind, const Encoder& body, std::string* out) {
  Encoder record;
  record.Message(kind, body);
  Encoder framed;
  framed.Varint(record.bytes().size());
  out->append(framed.bytes());
  out->append(record.bytes());
}

}  // namespace

void AppendHeaderRecordDelimited(const StreamInfo& info, std::string* out) {
  std::string fixed;
  Encoder h;
  h.U64(Hdr::kFormatVersionFieldNumber, kStreamFormatVersion);
  h.Str(Hdr::kHostFieldNumber, Utf8(info.host, &fixed));
  h.Str(Hdr::kBootIdFieldNumber, Utf8(info.boot_id, &fixed));
  h.Message(Hdr::kStartTimeFieldNumber,
            TimestampMessage(info.start_realtime_ns));
  h.Str(Hdr::kBiosnoopVersionFieldNumber, Utf8(info.biosnoop_version, &fixed));
  h.Str(Hdr::kKernelReleaseFieldNumber, Utf8(info.kernel_release, &fixed));
  h.U64(Hdr::kMinUsFieldNumber, info.min_us);
  h.Bool(Hdr::kQueuedFieldNumber, info.queued);
  h.Str(Hdr::kDiskFilterFieldNumber, Utf8(info.disk_filter, &fixed));
  h.U64(Hdr::kPidFilterFieldNumber, info.pid_filter);
  h.Str(Hdr::kCommFilterFieldNumber, Utf8(info.comm_filter, &fixed));
  h.Str(Hdr::kOpFilterFieldNumber, Utf8(info.op_filter, &fixed));
  h.U64(Hdr::kRingbufKibFieldNumber, info.ringbuf_kib);
  h.U64(Hdr::kStuckAfterUsFieldNumber, info.stuck_after_us);
  h.Str(Hdr::kRunIdFieldNumber, Utf8(info.run_id, &fixed));
  h.Str(Hdr::kCgroupFilterFieldNumber, Utf8(info.cgroup_filter, &fixed));
  if (info.ops) {
    h.Bool(Hdr::kOpsFieldNumber, true);
    h.U64(Hdr::kOpMinUsFieldNumber, info.op_min_us);
  }
  // A repeated string: each element its own field, written even if empty.
  for (const std::string& lack : info.kernel_lacks) {
    h.OptStr(Hdr::kKernelLacksFieldNumber, Utf8(lack, &fixed));
  }
  AppendRecord(Rec::kHeaderFieldNumber, h, out);
}

void AppendStatsRecordDelimited(const StatsSnapshot& stats, std::string* out) {
  Encoder s;
  s.Message(Sts::kTimestampFieldNumber, TimestampMessage(stats.realtime_ns));
  s.Double(Sts::kElapsedSFieldNumber, stats.elapsed_s);
  s.U64(Sts::kCompletionsFieldNumber, stats.completions);
  s.U64(Sts::kEmittedFieldNumber, stats.emitted);
  s.U64(Sts::kLostFieldNumber, stats.lost);
  s.U64(Sts::kOrphansFieldNumber, stats.orphans);
  s.U64(Sts::kBelowThresholdFieldNumber, stats.below_threshold);
  s.U64(Sts::kFilteredFieldNumber, stats.filtered);
  s.U64(Sts::kDecodeErrorsFieldNumber, stats.decode_errors);
  s.U64(Sts::kExpiredFieldNumber, stats.expired);
  s.U64(Sts::kWrittenFieldNumber, stats.written);
  s.U64(Sts::kDroppedFieldNumber, stats.dropped);
  s.Bool(Sts::kFinalFieldNumber, stats.final);
  s.U64(Sts::kMissedFieldNumber, stats.missed);
  s.U64(Sts::kUnfinishedFieldNumber, stats.unfinished);
  std::string fixed;
  s.Str(Sts::kRunIdFieldNumber, Utf8(stats.run_id, &fixed));
  s.U64(Sts::kLedgerMissesFieldNumber, stats.ledger_misses);
  s.U64(Sts::kLedgerReplacedFieldNumber, stats.ledger_replaced);
  if (stats.HasOps()) {
    s.U64(Sts::kOpsLostFieldNumber, stats.ops_lost);
    s.U64(Sts::kOpsWrittenFieldNumber, stats.ops_written);
    s.U64(Sts::kOpsUntrackedFieldNumber, stats.ops_untracked);
  }
  s.U64(Sts::kOpsUnfollowedFieldNumber, stats.ops_unfollowed);
  s.U64(Sts::kLedgerStaleFieldNumber, stats.ledger_stale);
  AppendRecord(Rec::kStatsFieldNumber, s, out);
}

void AppendSummaryRecordDelimited(const SummaryRecord& summary,
                                  std::string* out) {
  std::string fixed;
  Encoder s;
  s.Message(Sum::kTimestampFieldNumber, TimestampMessage(summary.realtime_ns));
  s.Double(Sum::kIntervalSFieldNumber, summary.interval_s);
  s.U64(Sum::kMinUsFieldNumber, summary.min_us);
  for (const HistGroup& g : summary.groups) {
    Encoder group;
    group.Str(Grp::kDiskFieldNumber, Utf8(g.disk, &fixed));
    group.Str(Grp::kOpFieldNumber, Utf8(g.op, &fixed));
    group.U64(Grp::kCountFieldNumber, g.data.count);
    group.U64(Grp::kBytesFieldNumber, g.data.bytes);
    group.U64(Grp::kSlowFieldNumber, g.data.slow);
    const absl::Span<const uint64_t> latency(g.data.latency);
    const absl::Span<const uint64_t> size(g.data.size);
    group.PackedU64(Grp::kLatencyUsLog2FieldNumber,
                    latency.first(LengthWithoutTrailingZeros(latency)));
    group.PackedU64(Grp::kSizeLog2FieldNumber,
                    size.first(LengthWithoutTrailingZeros(size)));
    group.U64(Grp::kErrorsFieldNumber, g.data.errors);
    if (const FineSpan fine = NonEmptyFine(g.data); !fine.counts.empty()) {
      group.OptU64(Grp::kLatencyFineSchemaFieldNumber, kFineSchema);
      // sint32: zigzag, as protobuf writes it.
      group.OptU64(Grp::kLatencyFineFirstFieldNumber,
                   (static_cast<uint32_t>(fine.first) << 1) ^
                       static_cast<uint32_t>(fine.first >> 31));
      group.PackedU64(Grp::kLatencyFineFieldNumber, fine.counts);
    }
    s.Message(Sum::kGroupsFieldNumber, group);
  }
  AppendRecord(Rec::kSummaryFieldNumber, s, out);
}

namespace {
template <typename Msg>
Encoder AttributionFields(const Attribution& a, const AttributionLabel& label);
}  // namespace

void AppendStuckRecordDelimited(const StuckRequest& s, const ProtoHost& host,
                                std::string* out) {
  const Request& ev = s.request;
  // The host is the event's field, already encoded (ProtoHost).
  static_assert(int{Stk::kHostFieldNumber} == int{Ev::kHostFieldNumber});
  std::string fixed;
  Encoder m;
  m.Message(Stk::kTimestampFieldNumber, TimestampMessage(s.realtime_ns));
  m.Raw(host.field());  // host, as in an event (same field number)
  m.Str(Stk::kDiskFieldNumber, Utf8(s.disk, &fixed));
  if (!s.partition.empty())
    m.OptStr(Stk::kPartitionFieldNumber, Utf8(s.partition, &fixed));
  m.Str(Stk::kDevFieldNumber, absl::StrCat(ev.major, ":", ev.minor));
  m.Str(Stk::kOpFieldNumber, OpName(ev.op));
  m.Str(Stk::kRwbsFieldNumber, Rwbs(ev.op, ev.flags));
  m.U64(Stk::kSectorFieldNumber, ev.sector);
  m.U64(Stk::kBytesFieldNumber, ev.bytes);
  m.U64(Stk::kInflightUsFieldNumber, s.inflight_ns / 1000);
  if (ev.queue_ns.has_value())
    m.OptU64(Stk::kQueueUsFieldNumber, *ev.queue_ns / 1000);
  m.U64(Stk::kQueueDepthFieldNumber, ev.queue_depth);
  m.U64(Stk::kPidFieldNumber, ev.pid);
  m.U64(Stk::kTidFieldNumber, ev.tid);
  const absl::string_view comm = ev.Comm();
  const bool comm_valid = IsValidUtf8(comm);
  m.Str(Stk::kCommFieldNumber, Utf8(comm, &fixed));
  if (!comm_valid) m.OptStr(Stk::kCommRawFieldNumber, comm);
  const CgroupLabel& c = s.cgroup;
  if (c.known) m.OptStr(Stk::kCgroupFieldNumber, Utf8(c.path, &fixed));
  m.U64(Stk::kCgroupIdFieldNumber, ev.cgroup_id);
  if (!c.container_id.empty()) {
    m.OptStr(Stk::kContainerIdFieldNumber, Utf8(c.container_id, &fixed));
  }
  if (!c.pod_uid.empty())
    m.OptStr(Stk::kPodUidFieldNumber, Utf8(c.pod_uid, &fixed));
  m.Raw(AttributionFields<Stk>(s.attribution, s.attribution_label).bytes());
  m.U64(Stk::kOpIdFieldNumber, ev.op_id);
  // A repeated string: each element its own field (field-number order:
  // after op_id, though JSON writes it after partition).
  for (const std::string& name : s.stack) {
    m.OptStr(Stk::kStackFieldNumber, Utf8(name, &fixed));
  }
  AppendRecord(Rec::kStuckFieldNumber, m, out);
}

namespace {

// Room kept before an event's body for its length prefix: the Record's
// length, the event field's tag and the event's length, as varints.
constexpr size_t kPrefixRoom = 2 * kMaxVarintBytes + 1;

// Bytes a sanitized string may take per raw byte (an invalid byte becomes
// U+FFFD, three bytes).
constexpr size_t kMaxUtf8BytesPerByte = 3;

}  // namespace

ProtoHost::ProtoHost(absl::string_view host) {
  std::string fixed;
  const absl::string_view valid = Utf8(host, &fixed);
  field_.resize(1 + kMaxVarintBytes + valid.size());
  Writer w(field_.data());
  w.Str(v1::Event::kHostFieldNumber, valid);
  field_.resize(static_cast<size_t>(w.pos() - field_.data()));
}

namespace {

using File = v1::FileRef;
using Dirt = v1::Dirtier;

// The attribution fields (content .. dirtier_count), encoded on their own:
// nested messages need their lengths first, and they are rare enough
// (reported events with files on) for the growing encoder.
// Msg: v1::Event or v1::Stuck (their field numbers differ).
template <typename Msg>
Encoder AttributionFields(const Attribution& a, const AttributionLabel& label) {
  Encoder out;
  if (a.content == Content::kNotLooked) return out;
  out.Str(Msg::kContentFieldNumber, label.content);
  std::string fixed;
  for (size_t i = 0; i < a.files.size() && i < label.files.size(); ++i) {
    Encoder f;
    f.Str(File::kPathFieldNumber, Utf8(label.files[i].path, &fixed));
    f.Str(File::kPathKindFieldNumber, PathKindName(label.files[i].kind));
    f.U64(File::kInodeFieldNumber, a.files[i].ino);
    char dev[24];
    char* d = WriteUint(a.files[i].dev_major, dev);
    *d++ = ':';
    d = WriteUint(a.files[i].dev_minor, d);
    f.Str(File::kDevFieldNumber, absl::string_view(dev, d - dev));
    f.Bool(File::kDirectFieldNumber, a.files[i].direct);
    out.Message(Msg::kFilesFieldNumber, f);
  }
  out.U64(Msg::kFileCountFieldNumber, a.file_count);
  out.Bool(Msg::kFilesIncompleteFieldNumber, a.incomplete);
  if (a.dirtier.has_value()) {
    const Dirtier& d = *a.dirtier;
    Encoder m;
    m.U64(Dirt::kPidFieldNumber, d.pid);
    m.U64(Dirt::kTidFieldNumber, d.tid);
    const absl::string_view comm = d.Comm();
    m.Str(Dirt::kCommFieldNumber, Utf8(comm, &fixed));
    if (!IsValidUtf8(comm)) m.OptStr(Dirt::kCommRawFieldNumber, comm);
    if (label.dirtier_cgroup.known) {
      m.OptStr(Dirt::kCgroupFieldNumber,
               Utf8(label.dirtier_cgroup.path, &fixed));
    }
    m.U64(Dirt::kCgroupIdFieldNumber, d.cgroup_id);
    m.Message(Dirt::kDirtiedAtFieldNumber,
              TimestampMessage(label.dirtied_realtime_ns));
    m.U64(Dirt::kOpIdFieldNumber, d.op_id);
    out.Message(Msg::kDirtiedByFieldNumber, m);
  }
  out.U64(Msg::kDirtierCountFieldNumber, a.dirtier_count);
  return out;
}

// Upper bound of AttributionFields(e).
size_t AttributionBound(const EnrichedEvent& e) {
  if (e.event.attribution.content == Content::kNotLooked) return 0;
  size_t n =
      256 + 16 +
      kMaxUtf8BytesPerByte * (16 + e.attribution.dirtier_cgroup.path.size());
  for (const FileLabel& f : e.attribution.files) {
    n += 96 + kMaxUtf8BytesPerByte * f.path.size();
  }
  return n;
}

}  // namespace

size_t EventRecordBound(const EnrichedEvent& e, const ProtoHost& host) {
  // Whole-field maxima where that is cheaper than looking: this is per event.
  const size_t comm = e.event.comm.size();
  // Tags, varints and lengths: 27 fields and the timestamp's two, at most
  // 11 bytes each and 11 more for a string's length; "major:minor"; the
  // completion context's name (at most 7).
  constexpr size_t kFixed = 64 + 29 * 2 * (kMaxVarintBytes + 1) + 24 + 8;
  const CgroupLabel& c = e.cgroup;
  // stack: a two-byte tag and a length per name.
  size_t stack = 0;
  for (const std::string& name : e.stack) {
    stack += 2 + kMaxVarintBytes + kMaxUtf8BytesPerByte * name.size();
  }
  return kPrefixRoom + kFixed + host.field().size() + stack +
         kMaxUtf8BytesPerByte *
             (e.disk.size() + e.partition.size() + comm + c.path.size() +
              c.container_id.size() + c.pod_uid.size()) +
         comm + kMaxOpNameLength + kMaxRwbsLength + kMaxErrorNameLength +
         AttributionBound(e) +
         // op_id, dirtier_op_ids (packed), dirtier_op_count: tags of two
         // bytes, a length and a varint each.
         3 * (2 + kMaxVarintBytes) + kMaxVarintBytes +
         kMaxVarintBytes * e.event.attribution.dirtier_op_ids.size();
}

void AppendEventRecordDelimited(const EnrichedEvent& e, absl::string_view host,
                                std::string* scratch, std::string* out) {
  const ProtoHost proto_host(host);
  const size_t bound = EventRecordBound(e, proto_host);
  if (scratch->size() < bound) scratch->resize(bound);
  char* start = nullptr;
  const char* end =
      WriteEventRecordDelimited(e, proto_host, scratch->data(), &start);
  out->append(start, static_cast<size_t>(end - start));
}

char* WriteEventRecordDelimited(const EnrichedEvent& e, const ProtoHost& host,
                                char* buf, char** start) {
  const Event& ev = e.event;
  // Strings that may need cleaning; kept alive until encoded.
  std::string disk_fixed, part_fixed;
  const absl::string_view disk_s = Utf8(e.disk, &disk_fixed);
  const absl::string_view part_s = Utf8(e.partition, &part_fixed);
  const absl::string_view comm = ev.Comm();
  const bool comm_valid = IsValidUtf8(comm);
  std::string comm_fixed;
  if (!comm_valid) AppendSanitizedUtf8(comm, &comm_fixed);
  const absl::string_view comm_s =
      comm_valid ? comm : absl::string_view(comm_fixed);
  char dev[24];
  char* d = WriteUint(ev.major, dev);
  *d++ = ':';
  d = WriteUint(ev.minor, d);
  const absl::string_view dev_s(dev, d - dev);
  const absl::string_view rwbs = Rwbs(ev.op, ev.flags);
  const BlkError error = BlkStatusToError(ev.blk_status);

  // The Event body first, after room for the prefix that needs its length.
  char* const body = buf + kPrefixRoom;
  Writer w(body);

  int64_t seconds = e.realtime_ns / kNsPerSecond;
  int64_t nanos = e.realtime_ns % kNsPerSecond;
  if (nanos < 0) {
    nanos += kNsPerSecond;
    --seconds;
  }
  // timestamp: a Timestamp message, present even when zero, as
  // mutable_timestamp() makes it; its two tags are one byte each.
  static_assert(Ts::kNanosFieldNumber < 16 && Ts::kSecondsFieldNumber < 16);
  const size_t ts_len =
      (seconds != 0 ? 1 + VarintSize(static_cast<uint64_t>(seconds)) : 0) +
      (nanos != 0 ? 1 + VarintSize(static_cast<uint64_t>(nanos)) : 0);
  w.Tag(Ev::kTimestampFieldNumber, kLen);
  w.Varint(ts_len);
  w.U64(Ts::kSecondsFieldNumber, static_cast<uint64_t>(seconds));
  w.U64(Ts::kNanosFieldNumber, static_cast<uint64_t>(nanos));
  w.Raw(host.field());  // host
  w.Str(Ev::kDiskFieldNumber, disk_s);
  if (!e.partition.empty()) w.OptStr(Ev::kPartitionFieldNumber, part_s);
  w.Str(Ev::kDevFieldNumber, dev_s);
  w.Str(Ev::kOpFieldNumber, OpName(ev.op));
  w.Str(Ev::kRwbsFieldNumber, rwbs);
  w.U64(Ev::kSectorFieldNumber, ev.sector);
  w.U64(Ev::kBytesFieldNumber, ev.bytes);
  w.U64(Ev::kLatencyUsFieldNumber, ev.LatencyNs(e.include_queue) / 1000);
  w.U64(Ev::kDeviceUsFieldNumber, ev.device_ns / 1000);
  if (ev.queue_ns.has_value())
    w.OptU64(Ev::kQueueUsFieldNumber, *ev.queue_ns / 1000);
  w.U64(Ev::kQueueDepthFieldNumber, ev.queue_depth);
  w.U64(Ev::kPidFieldNumber, ev.pid);
  w.U64(Ev::kTidFieldNumber, ev.tid);
  w.Str(Ev::kCommFieldNumber, comm_s);
  if (!comm_valid) w.OptStr(Ev::kCommRawFieldNumber, comm);
  w.I32(Ev::kErrorCodeFieldNumber, error.errno_value);
  if (!error.name.empty()) w.OptStr(Ev::kErrorFieldNumber, error.name);
  w.U64(Ev::kSeqFieldNumber, e.seq);
  const CgroupLabel& c = e.cgroup;
  if (c.known) {
    std::string path_fixed;
    w.OptStr(Ev::kCgroupFieldNumber, Utf8(c.path, &path_fixed));
  }
  w.U64(Ev::kCgroupIdFieldNumber, ev.cgroup_id);
  // Parsed from hex digits: ASCII, valid as they are.
  if (!c.container_id.empty())
    w.OptStr(Ev::kContainerIdFieldNumber, c.container_id);
  if (!c.pod_uid.empty()) w.OptStr(Ev::kPodUidFieldNumber, c.pod_uid);
  // kAbsent's name is "": left out, as proto3 leaves out its default.
  w.Str(Ev::kCompletionContextFieldNumber,
        CompletionContextName(ev.completion_context));
  if (ev.attribution.content != Content::kNotLooked) {
    w.Raw(AttributionFields<Ev>(e.event.attribution, e.attribution).bytes());
  }
  // --ops; none of them when 0 or empty (proto3 defaults).
  w.U64(Ev::kOpIdFieldNumber, ev.op_id);
  const std::vector<uint64_t>& op_ids = ev.attribution.dirtier_op_ids;
  if (!op_ids.empty()) {
    size_t packed = 0;
    for (uint64_t id : op_ids) packed += VarintSize(id);
    w.Tag(Ev::kDirtierOpIdsFieldNumber, kLen);
    w.Varint(packed);
    for (uint64_t id : op_ids) w.Varint(id);
  }
  w.U64(Ev::kDirtierOpCountFieldNumber, ev.attribution.dirtier_op_count);
  // The stacked devices (last by number, though JSON writes them after
  // partition): each name its own field.  Kernel and mapper names are
  // ASCII in practice, so Utf8() only checks them.
  if (!e.stack.empty()) {
    std::string fixed;
    for (const std::string& name : e.stack) {
      w.OptStr(Ev::kStackFieldNumber, Utf8(name, &fixed));
    }
  }
  // The generic fields (event_values.h), each only when known.
#define BIOSNOOP_WIRE_VALUE(e, name, number, divisor, ecs_object, ecs_key) \
  if (const std::optional<uint64_t> v = ev.values.Get(EventValue::e)) {    \
    static_assert(Ev::e##FieldNumber == number);                           \
    w.OptU64(number, *v / divisor);                                        \
  }
  BIOSNOOP_EVENT_VALUES(BIOSNOOP_WIRE_VALUE)
#undef BIOSNOOP_WIRE_VALUE
  char* const end = w.pos();
  const size_t event_len = static_cast<size_t>(end - body);

  // Record { event }, its length first: right before the body, so the
  // body never moves.  Its tag is one byte (field number below 16).
  static_assert(Rec::kEventFieldNumber < 16);
  const size_t record_len = 1 + VarintSize(event_len) + event_len;
  const size_t prefix_len = VarintSize(record_len) + 1 + VarintSize(event_len);
  *start = body - prefix_len;
  Writer r(*start);
  r.Varint(record_len);
  r.Tag(Rec::kEventFieldNumber, kLen);
  r.Varint(event_len);
  return end;
}

namespace {

// One OpCulprit message: its comm and cgroup fields as an op's own.
Encoder OpCulpritMessage(const OpCulprit& c) {
  std::string fixed;
  Encoder m;
  m.U64(Culprit::kPidFieldNumber, c.pid);
  const absl::string_view comm = c.Comm();
  m.Str(Culprit::kCommFieldNumber, Utf8(comm, &fixed));
  if (!IsValidUtf8(comm)) m.OptStr(Culprit::kCommRawFieldNumber, comm);
  if (c.cgroup_id != 0) {
    const CgroupLabel& g = c.cgroup;
    if (g.known) m.OptStr(Culprit::kCgroupFieldNumber, Utf8(g.path, &fixed));
    m.U64(Culprit::kCgroupIdFieldNumber, c.cgroup_id);
    if (!g.container_id.empty()) {
      m.OptStr(Culprit::kContainerIdFieldNumber, Utf8(g.container_id, &fixed));
    }
    if (!g.pod_uid.empty()) {
      m.OptStr(Culprit::kPodUidFieldNumber, Utf8(g.pod_uid, &fixed));
    }
  }
  m.Str(Culprit::kRoleFieldNumber, CulpritRoleName(c.dirtier));
  m.U64(Culprit::kRequestsFieldNumber, c.requests);
  m.U64(Culprit::kBytesFieldNumber, c.bytes);
  m.U64(Culprit::kWaitUsFieldNumber, c.wait_ns / 1000);
  return m;
}

// An op's file (Op.file, Op.real_file).
Encoder OpFileMessage(const FileLabel& label, const FileRef& file,
                      std::string* fixed) {
  Encoder f;
  f.Str(File::kPathFieldNumber, Utf8(label.path, fixed));
  f.Str(File::kPathKindFieldNumber, PathKindName(label.kind));
  f.U64(File::kInodeFieldNumber, file.ino);
  f.Str(File::kDevFieldNumber,
        absl::StrCat(file.dev_major, ":", file.dev_minor));
  f.Bool(File::kDirectFieldNumber, file.direct);
  return f;
}

// One OpLayer message; the dirty ages present when the ledger knew some
// of its requests' first pages (dirty_known > 0).
Encoder OpLayerMessage(const OpLayer& l, absl::Span<const std::string> disks,
                       uint32_t dirty_known, uint64_t dirty_age_max_ns,
                       uint64_t dirty_age_min_ns) {
  std::string fixed;
  Encoder m;
  m.U64(Layer::kRequestsFieldNumber, l.requests);
  m.U64(Layer::kBytesFieldNumber, l.bytes);
  // A repeated string: each element, even empty, is written.
  for (const std::string& d : disks) {
    m.OptStr(Layer::kDisksFieldNumber, Utf8(d, &fixed));
  }
  m.U64(Layer::kQueueUsSumFieldNumber, l.queue_ns_sum / 1000);
  m.U64(Layer::kQueueUsMaxFieldNumber, l.queue_ns_max / 1000);
  m.U64(Layer::kDeviceUsSumFieldNumber, l.device_ns_sum / 1000);
  m.U64(Layer::kDeviceUsMaxFieldNumber, l.device_ns_max / 1000);
  m.U64(Layer::kWaitUsFieldNumber, l.wait_ns / 1000);
  if (dirty_known > 0) {
    m.OptU64(Layer::kDirtyAgeUsMaxFieldNumber, dirty_age_max_ns / 1000);
    m.OptU64(Layer::kDirtyAgeUsMinFieldNumber, dirty_age_min_ns / 1000);
  }
  m.U64(Layer::kDirtyKnownFieldNumber, dirty_known);
  for (const OpCulprit& c : l.culprits) {
    m.Message(Layer::kCulpritsFieldNumber, OpCulpritMessage(c));
  }
  return m;
}

}  // namespace

void AppendOpRecordDelimited(const EnrichedOp& o, const ProtoHost& host,
                             std::string* out) {
  const FileOp& op = o.op;
  static_assert(int{OpMsg::kHostFieldNumber} == int{Ev::kHostFieldNumber});
  std::string fixed;
  Encoder m;
  m.Message(OpMsg::kTimestampFieldNumber, TimestampMessage(o.realtime_ns));
  m.Raw(host.field());  // host, as in an event (same field number)
  m.U64(OpMsg::kOpIdFieldNumber, op.op_id);
  m.Str(OpMsg::kCallFieldNumber, CallName(op.call));
  m.U64(OpMsg::kPidFieldNumber, op.pid);
  m.U64(OpMsg::kTidFieldNumber, op.tid);
  const absl::string_view comm = op.Comm();
  m.Str(OpMsg::kCommFieldNumber, Utf8(comm, &fixed));
  if (!IsValidUtf8(comm)) m.OptStr(OpMsg::kCommRawFieldNumber, comm);
  // As an event's cgroup fields (the JSON Lines line has none when the id
  // is 0, and then neither has the label a name).
  const CgroupLabel& c = o.cgroup;
  if (op.cgroup_id != 0) {
    if (c.known) m.OptStr(OpMsg::kCgroupFieldNumber, Utf8(c.path, &fixed));
    m.U64(OpMsg::kCgroupIdFieldNumber, op.cgroup_id);
    if (!c.container_id.empty()) {
      m.OptStr(OpMsg::kContainerIdFieldNumber, Utf8(c.container_id, &fixed));
    }
    if (!c.pod_uid.empty()) {
      m.OptStr(OpMsg::kPodUidFieldNumber, Utf8(c.pod_uid, &fixed));
    }
  }
  m.Message(OpMsg::kFileFieldNumber, OpFileMessage(o.file, op.file, &fixed));
  m.Str(OpMsg::kDiskFieldNumber, Utf8(o.disk, &fixed));
  if (!o.partition.empty()) {
    m.OptStr(OpMsg::kPartitionFieldNumber, Utf8(o.partition, &fixed));
  }
  if (op.offset.has_value()) m.OptU64(OpMsg::kOffsetFieldNumber, *op.offset);
  m.U64(OpMsg::kBytesRequestedFieldNumber, op.bytes_requested);
  m.Bool(OpMsg::kBytesRequestedPartialFieldNumber, op.bytes_requested_partial);
  m.U64(OpMsg::kBytesDoneFieldNumber, op.BytesDone());
  const int error_code = op.ErrorCode();
  m.U64(OpMsg::kErrorCodeFieldNumber, static_cast<uint64_t>(error_code));
  if (error_code != 0) {
    m.OptStr(OpMsg::kErrorFieldNumber, ErrnoName(error_code));
  }
  m.Message(OpMsg::kStartTimeFieldNumber,
            TimestampMessage(o.start_realtime_ns));
  m.U64(OpMsg::kLatencyUsFieldNumber, op.LatencyNs() / 1000);
  m.Message(OpMsg::kBlockFieldNumber,
            OpLayerMessage(op.block, o.block_disks, 0, 0, 0));
  m.Message(OpMsg::kWritebackFieldNumber,
            OpLayerMessage(op.writeback, {}, op.dirty_known,
                           op.dirty_age_max_ns, op.dirty_age_min_ns));
  m.U64(OpMsg::kOtherUsFieldNumber, op.OtherUs());
  m.Message(OpMsg::kJournalFieldNumber,
            OpLayerMessage(op.journal, {}, 0, 0, 0));
  m.Message(OpMsg::kFlushFieldNumber, OpLayerMessage(op.flush, {}, 0, 0, 0));
  m.Message(OpMsg::kOthersWritebackFieldNumber,
            OpLayerMessage(op.others_writeback, {}, 0, 0, 0));
  m.Message(OpMsg::kThrottleFieldNumber,
            OpLayerMessage(op.throttle, {}, 0, 0, 0));
  for (const std::string& name : QosNames(op.throttle_qos)) {
    m.OptStr(OpMsg::kThrottleControllersFieldNumber, name);
  }
  if (op.real_file) {
    m.Message(OpMsg::kRealFileFieldNumber,
              OpFileMessage(o.real_file, *op.real_file, &fixed));
  }
  AppendRecord(Rec::kOpFieldNumber, m, out);
}

}  // namespace biosnoop
