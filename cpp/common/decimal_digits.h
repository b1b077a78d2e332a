#pragma once

// Decimal digits for the per-event number formatting of JSON Lines and of
// the protobuf event's "major:minor": integers two digits per division
// (WriteUint), and the nine fixed digits of every timestamp's nanoseconds
// eight at a time with a few multiplies (EightDigits).

#include <bit>
#include <cstdint>
#include <cstring>

namespace biosnoop {

inline constexpr char kDigitPairs[] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

// Writes the low `width` decimal digits of `value`, zero-padded, at
// out[0..width).
inline void PutFixedDigits(uint64_t value, int width, char* out) {
  int i = width;
  while (i >= 2) {
    i -= 2;
    std::memcpy(out + i, kDigitPairs + (value % 100) * 2, 2);
    value /= 100;
  }
  if (i == 1) out[0] = static_cast<char>('0' + value % 10);
}

// The eight decimal digits of v (< 10^8), zero-padded, one digit value
// (0-9) per byte, most significant digit in the lowest byte: the order of
// memory on a little-endian machine, so that adding '0' to every byte
// gives the text.  No division chain: v splits into two 4-digit halves in
// 32-bit lanes, each of those into two 2-digit halves in 16-bit lanes,
// each of those into tens and ones in bytes, every split of all lanes at
// once by a multiply with a reciprocal that is exact over the lane's range
// (x / 100 == x * 10486 >> 20 for x < 10^4, x / 10 == x * 103 >> 10 for
// x < 100; decimal_digits_test checks every lane value).  No lane's
// product reaches the next lane.
inline uint64_t EightDigits(uint32_t v) {
  static_assert(std::endian::native == std::endian::little,
                "EightDigits orders digits for a little-endian store");
  const uint64_t upper = v / 10000;
  const uint64_t x = upper | ((v - upper * 10000) << 32);
  const uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007Fu;
  const uint64_t y = hundreds | ((x - hundreds * 100) << 16);
  const uint64_t tens = ((y * 103) >> 10) & 0x000F000F000F000Fu;
  return tens | ((y - tens * 10) << 8);
}

inline constexpr uint64_t kAsciiZeros = 0x3030303030303030u;

// Writes the eight digits of EightDigits() at out[0..8).
inline void PutEightDigits(uint64_t digits, char* out) {
  const uint64_t text = digits + kAsciiZeros;
  std::memcpy(out, &text, 8);
}

// How many decimal digits v has (1 for 0).
inline int DecimalDigits(uint64_t v) {
  int n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000;
    n += 4;
  }
}

// Decimal, two digits per division, written backwards from the known end.
inline char* WriteUint(uint64_t v, char* p) {
  char* const end = p + DecimalDigits(v);
  char* q = end;
  while (v >= 100) {
    const size_t pair = static_cast<size_t>(v % 100) * 2;
    v /= 100;
    q -= 2;
    std::memcpy(q, kDigitPairs + pair, 2);
  }
  if (v >= 10) {
    std::memcpy(q - 2, kDigitPairs + static_cast<size_t>(v) * 2, 2);
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return end;
}

}  // namespace biosnoop
