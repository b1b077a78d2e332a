#include "decimal_digits.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

// The reference: the standard library's shortest decimal form.
std::string Reference(uint64_t v) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, result.ptr);
}

// WriteUint's text, checking that it writes nothing past its return value.
std::string Written(uint64_t v) {
  char buf[32];
  std::memset(buf, '#', sizeof(buf));
  char* end = WriteUint(v, buf + 4);
  for (char* q = end; q < buf + sizeof(buf); ++q) {
    EXPECT_EQ(*q, '#') << "WriteUint(" << v << ") wrote past its end";
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(buf[i], '#') << "WriteUint(" << v << ") wrote before its start";
  }
  return std::string(buf + 4, end);
}

std::string Eight(uint32_t v) {
  char buf[8];
  PutEightDigits(EightDigits(v), buf);
  return std::string(buf, 8);
}

std::string PaddedReference(uint32_t v) {
  std::string s = Reference(v);
  return std::string(8 - s.size(), '0') + s;
}

// EightDigits works on its two 4-digit halves independently (no lane's
// product reaches the next), so every value of each half against a few
// values of the other covers every reciprocal the split relies on:
// x * 10486 >> 20 for x < 10^4 and x * 103 >> 10 for x < 100.
TEST(DecimalDigitsTest, EightDigitsEveryValueOfEachHalf) {
  for (uint32_t half = 0; half < 10000; ++half) {
    for (uint32_t other : {0u, 1u, 99u, 100u, 5005u, 9999u}) {
      const uint32_t low = other * 10000 + half;
      const uint32_t high = half * 10000 + other;
      ASSERT_EQ(Eight(low), PaddedReference(low));
      ASSERT_EQ(Eight(high), PaddedReference(high));
    }
  }
}

TEST(DecimalDigitsTest, EveryValueBelowAMillion) {
  for (uint64_t v = 0; v < 1000000; ++v) {
    char buf[24];
    char* end = WriteUint(v, buf);
    ASSERT_EQ(std::string(buf, end), Reference(v));
  }
}

TEST(DecimalDigitsTest, EveryLengthAndItsEdges) {
  uint64_t power = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (uint64_t v : {power - 1, power, power + 1, power * 2 - 1, power * 5}) {
      EXPECT_EQ(Written(v), Reference(v));
    }
    if (digits < 20) power *= 10;
  }
  for (uint64_t v :
       {uint64_t{99999999}, uint64_t{100000000}, uint64_t{9999999999999999},
        uint64_t{10000000000000000}, uint64_t{10000000000000001},
        uint64_t{12345678901234567890u},
        std::numeric_limits<uint64_t>::max() - 1,
        std::numeric_limits<uint64_t>::max()}) {
    EXPECT_EQ(Written(v), Reference(v));
  }
}

// Random values spread over every length: a uniform 64-bit value almost
// always has 19 or 20 digits, so the length is drawn first.
TEST(DecimalDigitsTest, RandomValuesOfEveryLength) {
  std::mt19937_64 rng(20261121);
  for (int i = 0; i < 200000; ++i) {
    const int bits = static_cast<int>(rng() % 64) + 1;
    const uint64_t v = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
    ASSERT_EQ(Written(v), Reference(v));
  }
}

TEST(DecimalDigitsTest, PutFixedDigitsPadsToItsWidth) {
  char buf[9];
  PutFixedDigits(7, 4, buf);
  EXPECT_EQ(std::string(buf, 4), "0007");
  PutFixedDigits(2026, 4, buf);
  EXPECT_EQ(std::string(buf, 4), "2026");
  PutFixedDigits(5, 1, buf);
  EXPECT_EQ(std::string(buf, 1), "5");
}

}  // namespace
}  // namespace biosnoop
