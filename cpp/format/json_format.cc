// JSON Lines encoding of every record, and the UTF-8 rules strings follow
// (json_format.h).

#include "json_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decimal_digits.h"
#include "short_copy.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

// The writers below work on a raw pointer into a region the caller has
// already sized with an upper bound, then shrink the string once: this keeps
// the per-event cost to plain stores, with no capacity checks per piece and
// no temporary strings.

constexpr char kHexDigits[] = "0123456789abcdef";

// What the string writer does with each byte value.
enum ByteClass : uint8_t {
  kCopy = 0,     // printable ASCII: copied as is
  kShortEscape,  // " \ \n \r \t \b \f
  kHexEscape,    // other C0 controls and DEL: \u00XX
  kNonAscii,     // 0x80..0xFF: start of a UTF-8 sequence, or invalid
};

constexpr std::array<uint8_t, 256> MakeByteClasses() {
  std::array<uint8_t, 256> t{};
  for (size_t c = 0; c < t.size(); ++c) {
    if (c < 0x20 || c == 0x7f) {
      t[c] = kHexEscape;
    } else if (c >= 0x80) {
      t[c] = kNonAscii;
    } else {
      t[c] = kCopy;
    }
  }
  for (char c : {'"', '\\', '\n', '\r', '\t', '\b', '\f'}) {
    t[static_cast<unsigned char>(c)] = kShortEscape;
  }
  return t;
}
constexpr std::array<uint8_t, 256> kByteClass = MakeByteClasses();

char ShortEscapeLetter(unsigned char c) {
  switch (c) {
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    default:
      return static_cast<char>(c);  // '"' and '\\' escape as themselves
  }
}

inline bool InRange(unsigned char c, unsigned char lo, unsigned char hi) {
  return c >= lo && c <= hi;
}

// Length of the well-formed UTF-8 sequence starting at p[0] (a byte >= 0x80)
// within the n bytes available, or 0 when p[0] does not start one.  The
// second-byte ranges are Unicode's table 3-7: they exclude overlong forms
// (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points
// above U+10FFFF (F4 90.., F5..FF).
inline size_t Utf8SequenceLength(const unsigned char* p, size_t n) {
  const unsigned char c = p[0];
  if (c < 0xc2) return 0;  // stray continuation byte, or overlong C0/C1
  if (c < 0xe0) return (n >= 2 && InRange(p[1], 0x80, 0xbf)) ? 2 : 0;
  if (c < 0xf0) {
    if (n < 3) return 0;
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
    const unsigned char hi = c == 0xed ? 0x9f : 0xbf;
    return (InRange(p[1], lo, hi) && InRange(p[2], 0x80, 0xbf)) ? 3 : 0;
  }
  if (c < 0xf5) {
    if (n < 4) return 0;
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xf4 ? 0x8f : 0xbf;
    return (InRange(p[1], lo, hi) && InRange(p[2], 0x80, 0xbf) &&
            InRange(p[3], 0x80, 0xbf))
               ? 4
               : 0;
  }
  return 0;
}

// Worst-case output bytes per input byte: a control byte becomes \u00XX.
constexpr size_t kMaxJsonBytesPerByte = 6;

constexpr uint64_t kEachByte = 0x0101010101010101u;
constexpr uint64_t kHighBits = 0x8080808080808080u;

// Nonzero when some byte of x is zero (as a whole exact: the borrow only
// marks bytes above a byte that really is zero).
constexpr uint64_t AnyZeroByte(uint64_t x) {
  return (x - kEachByte) & ~x & kHighBits;
}

// Whether all eight bytes of x are kCopy: 0x20..0x7e but '"' and '\\'.
constexpr bool AllCopied(uint64_t x) {
  return ((x & kHighBits) | ((x - 0x20 * kEachByte) & ~x & kHighBits) |
          AnyZeroByte(x ^ ('"' * kEachByte)) |
          AnyZeroByte(x ^ ('\\' * kEachByte)) |
          AnyZeroByte(x ^ (0x7f * kEachByte))) == 0;
}
static_assert(AllCopied(0x2021237e5b5d6141u));   // " !#~[]aA"
static_assert(!AllCopied(0x2021237e5b5d615cu));  // a backslash
static_assert(!AllCopied(0x2021227e5b5d6141u));  // a quote
static_assert(!AllCopied(0x1f21237e5b5d6141u));  // a control byte
static_assert(!AllCopied(0x2021237f5b5d6141u));  // DEL
static_assert(!AllCopied(0x20c3a97e5b5d6141u));  // UTF-8

// Whether JSON copies the n <= 16 bytes at `in` as they are, in two
// overlapping loads (the usual host, disk or comm: no byte loop).
inline bool ShortIsCopied(const unsigned char* in, size_t n) {
  if (n >= 8) {
    uint64_t a, b;
    std::memcpy(&a, in, 8);
    std::memcpy(&b, in + n - 8, 8);
    return AllCopied(a) && AllCopied(b);
  }
  if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, in, 4);
    std::memcpy(&b, in + n - 4, 4);
    return AllCopied(uint64_t{b} << 32 | a);
  }
  for (size_t i = 0; i < n; ++i) {
    if (kByteClass[in[i]] != kCopy) return false;
  }
  return true;
}

// Writes `s` quoted; sets *replaced when some byte became U+FFFD.
char* WriteJsonString(absl::string_view s, char* p, bool* replaced) {
  const auto* in = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  *p++ = '"';
  if (n <= 16 && ShortIsCopied(in, n)) {
    CopyShort(s.data(), n, p);
    p += n;
    *p++ = '"';
    return p;
  }
  size_t i = 0;
  while (i < n) {
    const unsigned char c = in[i];
    switch (kByteClass[c]) {
      case kCopy:
        *p++ = static_cast<char>(c);
        ++i;
        break;
      case kShortEscape:
        *p++ = '\\';
        *p++ = ShortEscapeLetter(c);
        ++i;
        break;
      case kHexEscape:
        std::memcpy(p, "\\u00", 4);
        p[4] = kHexDigits[c >> 4];
        p[5] = kHexDigits[c & 0xf];
        p += 6;
        ++i;
        break;
      case kNonAscii: {
        const size_t len = Utf8SequenceLength(in + i, n - i);
        if (len == 0) {
          std::memcpy(p, "\xef\xbf\xbd", 3);  // U+FFFD for this one byte
          p += 3;
          *replaced = true;
          ++i;
        } else {
          std::memcpy(p, in + i, len);
          p += len;
          i += len;
        }
        break;
      }
    }
  }
  *p++ = '"';
  return p;
}

char* WriteHex(absl::string_view s, char* p) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    *p++ = kHexDigits[c >> 4];
    *p++ = kHexDigits[c & 0xf];
  }
  return p;
}

inline char* WriteRaw(absl::string_view s, char* p) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// Copies a string literal without its terminating NUL.
template <size_t N>
inline char* WriteLiteral(const char (&s)[N], char* p) {
  std::memcpy(p, s, N - 1);
  return p + (N - 1);
}

inline char* WriteInt(int64_t v, char* p) {
  if (v < 0) {
    *p++ = '-';
    return WriteUint(0 - static_cast<uint64_t>(v), p);
  }
  return WriteUint(static_cast<uint64_t>(v), p);
}

// A string field that is null when empty (cgroup's container and pod).
char* WriteNullableJsonString(absl::string_view s, char* p) {
  bool unused = false;
  return s.empty() ? WriteLiteral("null", p) : WriteJsonString(s, p, &unused);
}

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

// Whether the n bytes at `in` are all ASCII, in at most three loads for
// the usual name of up to 16 bytes: overlapping words rather than a loop
// over the bytes of the tail.
inline bool ShortIsAscii(const unsigned char* in, size_t n) {
  uint64_t a, b;
  if (n >= 8) {
    std::memcpy(&a, in, 8);
    std::memcpy(&b, in + n - 8, 8);
    return ((a | b) & kHighBits) == 0;
  }
  if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, in, 4);
    std::memcpy(&y, in + n - 4, 4);
    return ((x | y) & 0x80808080u) == 0;
  }
  unsigned char any = 0;
  for (size_t i = 0; i < n; ++i) any |= in[i];
  return any < 0x80;
}

bool IsValidUtf8(absl::string_view bytes) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  if (n <= 16 && ShortIsAscii(in, n)) return true;
  size_t i = 0;
  // Names are almost always ASCII: eight bytes per step while they are.
  while (i + 8 <= n) {
    uint64_t word;
    std::memcpy(&word, in + i, sizeof(word));
    if (word & kHighBits) break;
    i += 8;
  }
  while (i < n) {
    if (in[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = Utf8SequenceLength(in + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void AppendJsonString(absl::string_view bytes, std::string* out) {
  const size_t old_size = out->size();
  out->resize(old_size + bytes.size() * kMaxJsonBytesPerByte + 2);
  bool replaced = false;
  char* end = WriteJsonString(bytes, out->data() + old_size, &replaced);
  out->resize(static_cast<size_t>(end - out->data()));
}

void AppendLowerHex(absl::string_view bytes, std::string* out) {
  const size_t old_size = out->size();
  out->resize(old_size + bytes.size() * 2);
  WriteHex(bytes, out->data() + old_size);
}

bool AppendSanitizedUtf8(absl::string_view bytes, std::string* out) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  bool replaced = false;
  size_t i = 0;
  while (i < n) {
    // Copy the longest run of well-formed text at once.
    size_t j = i;
    while (j < n) {
      if (in[j] < 0x80) {
        ++j;
        continue;
      }
      const size_t len = Utf8SequenceLength(in + j, n - j);
      if (len == 0) break;
      j += len;
    }
    out->append(bytes.data() + i, j - i);
    if (j < n) {
      out->append("\xef\xbf\xbd");
      replaced = true;
      ++j;
    }
    i = j;
  }
  return replaced;
}

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
  p = WriteLiteral(",\"completion_context\":\"", p);
  p = WriteRaw(CompletionContextName(ev.completion_context), p);
  *p++ = '"';
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

// "comm" (and "comm_raw" when the bytes are not valid UTF-8), then the
// cgroup's keys (WriteCgroupJson): a stuck record's and a call's.
void AppendCommAndCgroupJson(absl::string_view comm, const CgroupLabel& c,
                             uint64_t cgroup_id, std::string* out) {
  AppendStringField("comm", comm, out);
  if (!IsValidUtf8(comm)) {
    AppendKey("comm_raw", out);
    out->push_back('"');
    AppendLowerHex(comm, out);
    out->push_back('"');
  }
  const size_t at = out->size();
  out->resize(at + 128 +
              kMaxJsonBytesPerByte *
                  (c.path.size() + c.container_id.size() + c.pod_uid.size()));
  char* end = WriteCgroupJson(c, cgroup_id, out->data() + at);
  out->resize(static_cast<size_t>(end - out->data()));
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
    out->push_back('[');
    for (size_t i = 0; i < info.kernel_lacks.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendJsonString(info.kernel_lacks[i], out);
    }
    out->push_back(']');
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
    out->push_back('}');
  }
  out->append("]}\n");
}

namespace {

// One OpLayer object: its requests, the disks they went to, their times,
// and how long the call waited for them; the dirty ages null when the
// ledger knew none of its requests' pages.
void AppendOpLayerJson(const OpLayer& l, absl::Span<const std::string> disks,
                       uint32_t dirty_known, uint64_t dirty_age_max_ns,
                       uint64_t dirty_age_min_ns, std::string* out) {
  out->append("{\"requests\":");
  char buf[20];
  out->append(buf, static_cast<size_t>(WriteUint(l.requests, buf) - buf));
  AppendUintField("bytes", l.bytes, out);
  AppendKey("disks", out);
  out->push_back('[');
  for (size_t i = 0; i < disks.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(disks[i], out);
  }
  out->push_back(']');
  AppendUintField("queue_us_sum", l.queue_ns_sum / 1000, out);
  AppendUintField("queue_us_max", l.queue_ns_max / 1000, out);
  AppendUintField("device_us_sum", l.device_ns_sum / 1000, out);
  AppendUintField("device_us_max", l.device_ns_max / 1000, out);
  AppendUintField("wait_us", l.wait_ns / 1000, out);
  if (dirty_known > 0) {
    AppendUintField("dirty_age_us_max", dirty_age_max_ns / 1000, out);
    AppendUintField("dirty_age_us_min", dirty_age_min_ns / 1000, out);
  } else {
    out->append(",\"dirty_age_us_max\":null,\"dirty_age_us_min\":null");
  }
  AppendUintField("dirty_known", dirty_known, out);
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
  AppendKey("file", out);
  out->append("{\"path\":");
  AppendJsonString(o.file.path, out);
  AppendStringField("path_kind", PathKindName(o.file.kind), out);
  AppendUintField("inode", op.file.ino, out);
  AppendStringField(
      "dev", absl::StrCat(op.file.dev_major, ":", op.file.dev_minor), out);
  AppendBoolField("direct", op.file.direct, out);
  out->push_back('}');
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
  out->append("}\n");
}

}  // namespace biosnoop
