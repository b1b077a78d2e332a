// JSON string escaping and the UTF-8 rules (json_escape.h), and the
// pointer writers of strings that the record writers share (json_write.h).

#include "json_escape.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "json_write.h"
#include "short_copy.h"

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

}  // namespace

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

// A string field that is null when empty (cgroup's container and pod).
char* WriteNullableJsonString(absl::string_view s, char* p) {
  bool unused = false;
  return s.empty() ? WriteLiteral("null", p) : WriteJsonString(s, p, &unused);
}

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

}  // namespace biosnoop
