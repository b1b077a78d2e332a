#pragma once

// Decimal digits two at a time: one division by 100 per pair instead of
// one by 10 per digit, for the per-event number formatting of JSON Lines
// (integers, and the nanoseconds of every timestamp) and of the protobuf
// event's "major:minor".

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
