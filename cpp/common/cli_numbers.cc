// The number and duration rules of every command line (cli_numbers.h).
// Digits are checked here rather than left to absl::SimpleAtoi, which
// also takes a sign and surrounding blanks: "+5" and " 5" are typos
// (a shell quoting slip) more often than numbers.

#include "cli_numbers.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace biosnoop::cli {
namespace {

enum class Digits { kOk, kNotANumber, kTooLarge };

// Spelled right but past 2^64 - 1 is kTooLarge, told apart from a typo.
Digits ReadDigits(absl::string_view value, bool hex, uint64_t* out) {
  const bool is_hex = hex && (absl::ConsumePrefix(&value, "0x") ||
                              absl::ConsumePrefix(&value, "0X"));
  if (value.empty()) return Digits::kNotANumber;
  const uint64_t base = is_hex ? 16 : 10;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  bool overflow = false;
  for (char c : value) {
    uint64_t digit;
    if (absl::ascii_isdigit(c)) {
      digit = static_cast<uint64_t>(c - '0');
    } else if (is_hex && absl::ascii_isxdigit(c)) {
      digit = static_cast<uint64_t>(absl::ascii_tolower(c) - 'a' + 10);
    } else {
      return Digits::kNotANumber;
    }
    // Keep reading after an overflow: "9999999999999999999999x" is a typo.
    if (v > (kMax - digit) / base) overflow = true;
    v = v * base + digit;
  }
  if (overflow) return Digits::kTooLarge;
  *out = v;
  return Digits::kOk;
}

// What the user typed, for a message: C-escaped (UTF-8 kept), so that a
// value holding a newline or a quote still gives one line on stderr.
std::string Echo(absl::string_view typed) {
  return absl::Utf8SafeCEscape(typed);
}

absl::Status Expected(absl::string_view option, absl::string_view want,
                      absl::string_view value) {
  return absl::InvalidArgumentError(
      absl::StrCat(option, ": expected ", want, ", got \"", Echo(value), "\""));
}

// Consumes "12" or "1.25" from the front of *v ("1." and ".5" are not).
bool ConsumeDecimal(absl::string_view* v) {
  size_t i = 0;
  while (i < v->size() && absl::ascii_isdigit((*v)[i])) ++i;
  if (i == 0) return false;
  if (i < v->size() && (*v)[i] == '.') {
    const size_t dot = i++;
    while (i < v->size() && absl::ascii_isdigit((*v)[i])) ++i;
    if (i == dot + 1) return false;
  }
  v->remove_prefix(i);
  return true;
}

// Whether `value` is spelled as a duration: a plain number, or numbers each
// with a unit.  absl::ParseDuration alone would also take signs, "inf" and
// ".5", and refuses a well-spelled value whose number does not fit in 64
// bits: spelled right, that is "too large", not a typo.
bool SpelledAsDuration(absl::string_view value, bool plain) {
  if (plain) return ConsumeDecimal(&value) && value.empty();
  if (value.empty()) return false;
  while (!value.empty()) {
    if (!ConsumeDecimal(&value)) return false;
    bool unit = false;
    // "ms" before "m", "ns" and "us" before "s" would not matter (a unit
    // is followed by a digit or the end), but longest first reads plainly.
    for (const char* u : {"ns", "us", "ms", "h", "m", "s"}) {
      if (absl::ConsumePrefix(&value, u)) {
        unit = true;
        break;
      }
    }
    if (!unit) return false;
  }
  return true;
}

// "1 second", "5 seconds", or absl's own spelling below a second ("1us").
std::string DurationInWords(absl::Duration d) {
  const int64_t whole = absl::ToInt64Seconds(d);
  if (d != absl::Seconds(whole)) return absl::FormatDuration(d);
  return absl::StrCat(whole, whole == 1 ? " second" : " seconds");
}

}  // namespace

std::optional<uint64_t> ParseDigits(absl::string_view value, bool hex) {
  uint64_t v = 0;
  if (ReadDigits(value, hex, &v) != Digits::kOk) return std::nullopt;
  return v;
}

absl::StatusOr<uint64_t> ParseNumber(absl::string_view option,
                                     absl::string_view value,
                                     const NumberRule& rule) {
  const auto expected = [&] {
    return Expected(option,
                    rule.want.empty() ? absl::StrCat("a whole number from ",
                                                     rule.min, " to ", rule.max)
                                      : std::string(rule.want),
                    value);
  };
  uint64_t v = 0;
  const Digits read = ReadDigits(value, rule.hex, &v);
  if (read == Digits::kNotANumber) return expected();
  if (read == Digits::kTooLarge || v > rule.max) {
    return absl::InvalidArgumentError(absl::StrCat(
        option, ": ", Echo(value), " is too large: at most ", rule.max));
  }
  if (v < rule.min) return expected();
  return v;
}

absl::StatusOr<absl::Duration> ParseDuration(absl::string_view option,
                                             absl::string_view value,
                                             const DurationRule& rule) {
  const bool plain = !value.empty() && value.find_first_not_of("0123456789.") ==
                                           absl::string_view::npos;
  const char* want = rule.zero_is_off
                         ? "a duration such as 30, 90s, 5m or 1h, or 0 for none"
                     : plain ? "a positive number of seconds"
                             : "a positive duration such as 30, 90s, 5m or 1h";
  if (!SpelledAsDuration(value, plain)) return Expected(option, want, value);
  absl::Duration d;
  if (!absl::ParseDuration(
          plain ? absl::StrCat(value, "s") : std::string(value), &d) ||
      d > kMaxDuration) {
    return absl::InvalidArgumentError(absl::StrCat(
        option, ": ", Echo(value), " is too large: at most 10 years (87600h)"));
  }
  if (d == absl::ZeroDuration()) {
    if (rule.zero_is_off) return d;
    return Expected(option, want, value);
  }
  if (d < rule.min) {
    return Expected(option,
                    absl::StrCat(rule.zero_is_off ? "0 (off) or " : "",
                                 "at least ", DurationInWords(rule.min)),
                    value);
  }
  return d;
}

}  // namespace biosnoop::cli
