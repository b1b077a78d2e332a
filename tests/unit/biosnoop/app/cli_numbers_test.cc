// The number and duration rules every command line shares
// (cpp/common/cli_numbers.h): what is a number, and the one-line errors.

#include "cli_numbers.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace biosnoop::cli {
namespace {

std::string NumberError(absl::string_view value, const NumberRule& rule = {}) {
  absl::StatusOr<uint64_t> v = ParseNumber("--n", value, rule);
  EXPECT_FALSE(v.ok()) << value << " gave " << (v.ok() ? *v : 0);
  if (v.ok()) return "";
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message().find('\n'), absl::string_view::npos);
  return std::string(v.status().message());
}

std::string DurationError(absl::string_view value,
                          const DurationRule& rule = {}) {
  absl::StatusOr<absl::Duration> d = ParseDuration("--t", value, rule);
  EXPECT_FALSE(d.ok()) << value;
  if (d.ok()) return "";
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message().find('\n'), absl::string_view::npos);
  return std::string(d.status().message());
}

TEST(CliNumbersTest, DigitsOnly) {
  EXPECT_EQ(*ParseNumber("--n", "0", {}), 0u);
  EXPECT_EQ(*ParseNumber("--n", "5", {}), 5u);
  EXPECT_EQ(*ParseNumber("--n", "010", {}), 10u) << "decimal, not octal";
  EXPECT_EQ(*ParseNumber("--n", "18446744073709551615", {}),
            18446744073709551615u);
  for (const char* bad :
       {"", "+5", "-1", "-0", " 5", "5 ", "5\n", "\t5", "0x10", "1e3", "1.0",
        "1_000", "1,000", "five", "5ms", "10ms", "\xd9\xa5"}) {
    EXPECT_EQ(NumberError(bad),
              absl::StrCat("--n: expected a whole number from 0 to "
                           "18446744073709551615, got \"",
                           absl::Utf8SafeCEscape(bad), "\""))
        << bad;
  }
}

// Spelled right but too large is not a typo: it says so, and the largest.
TEST(CliNumbersTest, TooLargeSaysTheLargest) {
  EXPECT_EQ(NumberError("18446744073709551616"),
            "--n: 18446744073709551616 is too large: at most "
            "18446744073709551615");
  EXPECT_EQ(NumberError("99999999999999999999999999"),
            "--n: 99999999999999999999999999 is too large: at most "
            "18446744073709551615");
  const NumberRule pid{.min = 1, .max = 4194304, .want = "a process id"};
  EXPECT_EQ(NumberError("4194305", pid),
            "--n: 4194305 is too large: at most 4194304");
  EXPECT_EQ(NumberError("18446744073709551616", pid),
            "--n: 18446744073709551616 is too large: at most 4194304");
  EXPECT_EQ(*ParseNumber("--n", "4194304", pid), 4194304u);
  // A typo after many digits is still a typo.
  EXPECT_EQ(NumberError("99999999999999999999999x", pid),
            "--n: expected a process id, got \"99999999999999999999999x\"");
}

TEST(CliNumbersTest, BelowTheMinimumIsExpected) {
  const NumberRule top{.min = 1, .max = 1000000};
  EXPECT_EQ(NumberError("0", top),
            "--n: expected a whole number from 1 to 1000000, got \"0\"");
  EXPECT_EQ(NumberError("-1", top),
            "--n: expected a whole number from 1 to 1000000, got \"-1\"");
  EXPECT_EQ(*ParseNumber("--n", "1", top), 1u);
}

TEST(CliNumbersTest, HexOnlyWhenTheRuleSaysSo) {
  const NumberRule hex{.hex = true};
  EXPECT_EQ(*ParseNumber("--n", "0x10", hex), 16u);
  EXPECT_EQ(*ParseNumber("--n", "0XfF", hex), 255u);
  EXPECT_EQ(*ParseNumber("--n", "10", hex), 10u) << "decimal still";
  EXPECT_EQ(*ParseNumber("--n", "0xffffffffffffffff", hex),
            18446744073709551615u);
  EXPECT_NE(NumberError("0x10000000000000000", hex).find("is too large"),
            std::string::npos);
  for (const char* bad :
       {"0x", "0xg", "x10", "ff", "-0x1", "+0x1", " 0x1", "0x 1", "0x1 "}) {
    EXPECT_NE(NumberError(bad, hex).find("expected"), std::string::npos) << bad;
  }
  EXPECT_NE(NumberError("0x10").find("expected"), std::string::npos);
}

TEST(CliNumbersTest, ValuesAreEchoedOnOneLine) {
  EXPECT_EQ(NumberError("1\n2"),
            "--n: expected a whole number from 0 to 18446744073709551615, got "
            "\"1\\n2\"");
  EXPECT_EQ(NumberError("\"5\""),
            "--n: expected a whole number from 0 to 18446744073709551615, got "
            "\"\\\"5\\\"\"");
}

TEST(CliNumbersTest, ParseDigitsForCallersWithTheirOwnSyntax) {
  EXPECT_EQ(ParseDigits("4096"), 4096u);
  EXPECT_EQ(ParseDigits("0x1f", /*hex=*/true), 31u);
  EXPECT_EQ(ParseDigits("18446744073709551615"), 18446744073709551615u);
  for (const char* bad :
       {"", "+5", " 5", "5 ", "-1", "0x10", "18446744073709551616"}) {
    EXPECT_EQ(ParseDigits(bad), std::nullopt) << bad;
  }
}

TEST(CliDurationTest, PlainNumbersAreSecondsAndUnitsAreGoStyle) {
  struct Case {
    const char* text;
    absl::Duration want;
  };
  for (const Case& c :
       {Case{"30", absl::Seconds(30)}, Case{"0.5", absl::Milliseconds(500)},
        Case{"2.25", absl::Milliseconds(2250)},
        Case{"10ms", absl::Milliseconds(10)}, Case{"90s", absl::Seconds(90)},
        Case{"5m", absl::Minutes(5)}, Case{"1h30m", absl::Minutes(90)},
        Case{"1.5h", absl::Minutes(90)}, Case{"250us", absl::Microseconds(250)},
        Case{"100ns", absl::Nanoseconds(100)}, Case{"87600h", kMaxDuration},
        Case{"315360000", kMaxDuration}}) {
    absl::StatusOr<absl::Duration> d = ParseDuration("--t", c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status();
    EXPECT_EQ(*d, c.want) << c.text;
  }
}

TEST(CliDurationTest, SignsBlanksAndOtherSpellingsAreRefused) {
  for (const char* bad :
       {"",       "+5",    "-1",    "-1s",  " 5", "5 ",    "5 s",
        "1h 30m", "0x10",  "1e3",   "5.",   ".5", "1.2.3", "inf",
        "soon",   "10 ms", "1h-5m", "5sec", "1d", "5msx"}) {
    EXPECT_NE(DurationError(bad).find("--t: expected a positive"),
              std::string::npos)
        << bad;
  }
  EXPECT_EQ(DurationError("0.0"),
            "--t: expected a positive number of seconds, got \"0.0\"");
  EXPECT_EQ(DurationError("soon"),
            "--t: expected a positive duration such as 30, 90s, 5m or 1h, got "
            "\"soon\"");
}

TEST(CliDurationTest, TooLargeInEverySpelling) {
  for (const char* big :
       {"999999999999", "18446744073709551616", "99999999999999999999h",
        "87601h", "315360001", "5256001m", "18446744073709551616ms"}) {
    EXPECT_EQ(
        DurationError(big),
        absl::StrCat("--t: ", big, " is too large: at most 10 years (87600h)"))
        << big;
  }
}

TEST(CliDurationTest, ZeroIsOffOnlyWhereTheRuleSaysSo) {
  const DurationRule off{.zero_is_off = true};
  for (const char* zero : {"0", "0s", "0.0", "0m", "0h0m", "0.000"}) {
    absl::StatusOr<absl::Duration> d = ParseDuration("--t", zero, off);
    ASSERT_TRUE(d.ok()) << zero << ": " << d.status();
    EXPECT_EQ(*d, absl::ZeroDuration());
    EXPECT_NE(DurationError(zero).find("expected a positive"),
              std::string::npos)
        << zero;
  }
  EXPECT_EQ(DurationError("x", off),
            "--t: expected a duration such as 30, 90s, 5m or 1h, or 0 for "
            "none, got \"x\"");
}

TEST(CliDurationTest, AMinimumAboveZero) {
  const DurationRule second{.zero_is_off = true, .min = absl::Seconds(1)};
  EXPECT_EQ(DurationError("0.5", second),
            "--t: expected 0 (off) or at least 1 second, got \"0.5\"");
  EXPECT_EQ(*ParseDuration("--t", "1", second), absl::Seconds(1));
  const DurationRule micro{.min = absl::Microseconds(1)};
  EXPECT_EQ(DurationError("100ns", micro),
            "--t: expected at least 1us, got \"100ns\"");
  EXPECT_EQ(*ParseDuration("--t", "1us", micro), absl::Microseconds(1));
  const DurationRule minutes{.min = absl::Seconds(120)};
  EXPECT_EQ(DurationError("1m", minutes),
            "--t: expected at least 120 seconds, got \"1m\"");
}

}  // namespace
}  // namespace biosnoop::cli
