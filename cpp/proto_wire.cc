#include "proto_wire.h"

#include <cstdint>
#include <cstring>

#include "json_format.h"

namespace biosnoop {
namespace {

constexpr int kVarint = 0;
constexpr int kLen = 2;
constexpr int64_t kNsPerSecond = 1'000'000'000;

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
  void Tag(int field, int type) { Varint(static_cast<uint64_t>(field) << 3 | type); }
  void Bytes(absl::string_view s) {
    Varint(s.size());
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
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

 private:
  char* p_;
};

// Writes v in decimal at p; returns the end.
char* AppendDecimal(uint32_t v, char* p) {
  char tmp[10];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) *p++ = tmp[--n];
  return p;
}

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

}  // namespace

void AppendEventRecordDelimited(const EnrichedEvent& e, absl::string_view host,
                                std::string* scratch, std::string* out) {
  const Event& ev = e.event;
  // Strings that may need cleaning; kept alive until encoded.
  std::string host_fixed, disk_fixed, part_fixed;
  const absl::string_view host_s = Utf8(host, &host_fixed);
  const absl::string_view disk_s = Utf8(e.disk, &disk_fixed);
  const absl::string_view part_s = Utf8(e.partition, &part_fixed);
  const absl::string_view comm = ev.Comm();
  const bool comm_valid = IsValidUtf8(comm);
  std::string comm_fixed;
  if (!comm_valid) AppendSanitizedUtf8(comm, &comm_fixed);
  const absl::string_view comm_s = comm_valid ? comm : absl::string_view(comm_fixed);
  char dev[24];
  char* d = AppendDecimal(ev.major, dev);
  *d++ = ':';
  d = AppendDecimal(ev.minor, d);
  const absl::string_view dev_s(dev, d - dev);
  const std::string rwbs = Rwbs(ev.op, ev.flags);  // short: no allocation
  const BlkError error = BlkStatusToError(ev.blk_status);

  // The Event body, into scratch; an upper bound on its size first.
  const size_t bound = 64 + 11 * 16 + host_s.size() + disk_s.size() +
                       part_s.size() + dev_s.size() + rwbs.size() +
                       comm_s.size() + comm.size() + error.name.size() + 16;
  scratch->resize(bound);
  Writer w(scratch->data());

  int64_t seconds = e.realtime_ns / kNsPerSecond;
  int64_t nanos = e.realtime_ns % kNsPerSecond;
  if (nanos < 0) {
    nanos += kNsPerSecond;
    --seconds;
  }
  // timestamp (1): a Timestamp message, present even when zero, as
  // mutable_timestamp() makes it.
  const size_t ts_len =
      (seconds != 0 ? 1 + VarintSize(static_cast<uint64_t>(seconds)) : 0) +
      (nanos != 0 ? 1 + VarintSize(static_cast<uint64_t>(nanos)) : 0);
  w.Tag(1, kLen);
  w.Varint(ts_len);
  w.U64(1, static_cast<uint64_t>(seconds));
  w.U64(2, static_cast<uint64_t>(nanos));
  w.Str(2, host_s);
  w.Str(3, disk_s);
  if (!e.partition.empty()) w.OptStr(4, part_s);
  w.Str(5, dev_s);
  w.Str(6, OpName(ev.op));
  w.Str(7, rwbs);
  w.U64(8, ev.sector);
  w.U64(9, ev.bytes);
  w.U64(10, ev.LatencyNs(e.include_queue) / 1000);
  w.U64(11, ev.device_ns / 1000);
  if (ev.queue_ns.has_value()) w.OptU64(12, *ev.queue_ns / 1000);
  w.U64(13, ev.queue_depth);
  w.U64(14, ev.pid);
  w.U64(15, ev.tid);
  w.Str(16, comm_s);
  if (!comm_valid) w.OptStr(17, comm);
  w.I32(18, error.errno_value);
  if (!error.name.empty()) w.OptStr(19, error.name);
  w.U64(20, e.seq);
  const size_t event_len = w.pos() - scratch->data();

  // Record { event = 2 }, then the length prefix of the whole Record.
  const size_t record_len = 1 + VarintSize(event_len) + event_len;
  const size_t old = out->size();
  out->resize(old + VarintSize(record_len) + record_len);
  Writer r(out->data() + old);
  r.Varint(record_len);
  r.Tag(2, kLen);
  r.Varint(event_len);
  std::memcpy(r.pos(), scratch->data(), event_len);
}

}  // namespace biosnoop
