// Times as int64 nanoseconds: RFC 3339 parsed by hand, with the seconds of
// the previous value cached for the reader's hot path (a timestamp on
// every line); printed in full through biosnoop's own formatter
// (wall_clock.h), so that bioreport and biosnoop spell a time alike.

#include "time_format.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "status_macros.h"
#include "wall_clock.h"

namespace biosnoop::report {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
// Whole seconds whose every nanosecond fits an int64 ns count.
constexpr int64_t kMinSeconds =
    std::numeric_limits<int64_t>::min() / kNsPerSecond;
constexpr int64_t kMaxSeconds =
    std::numeric_limits<int64_t>::max() / kNsPerSecond - 1;

absl::Status Invalid(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid RFC 3339 time \"", text, "\": ", why));
}

bool Digits(absl::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS" (the first 19 bytes).
absl::StatusOr<int64_t> ParseDateTime(absl::string_view text) {
  int year, month, day, hour, minute, second;
  if (!Digits(text, 0, 4, &year) || text.size() < 19 || text[4] != '-' ||
      !Digits(text, 5, 2, &month) || text[7] != '-' ||
      !Digits(text, 8, 2, &day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') ||
      !Digits(text, 11, 2, &hour) || text[13] != ':' ||
      !Digits(text, 14, 2, &minute) || text[16] != ':' ||
      !Digits(text, 17, 2, &second)) {
    return Invalid(text, "expected YYYY-MM-DDTHH:MM:SS");
  }
  const absl::CivilDay civil_day(year, month, day);
  if (month < 1 || month > 12 || civil_day.day() != day ||
      civil_day.month() != month) {
    return Invalid(text, "no such date");
  }
  // 60 is a leap second (RFC 3339 allows it): it reads as the next second.
  if (hour > 23 || minute > 59 || second > 60) {
    return Invalid(text, "no such time of day");
  }
  const absl::CivilSecond cs(year, month, day, hour, minute, second);
  return absl::ToUnixSeconds(absl::FromCivil(cs, absl::UTCTimeZone()));
}

// Parses what follows the seconds: ".fraction" then "Z" or "+HH:MM".
absl::StatusOr<int64_t> ParseSuffix(absl::string_view text, int64_t seconds) {
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 9) return Invalid(text, "more than 9 fraction digits");
      nanos = nanos * 10 + (text[pos] - '0');
      ++pos;
    }
    if (digits == 0) return Invalid(text, "no digits after '.'");
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  if (pos >= text.size()) return Invalid(text, "missing 'Z' or UTC offset");
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    int oh, om;
    if (!Digits(text, pos + 1, 2, &oh) || pos + 3 >= text.size() ||
        text[pos + 3] != ':' || !Digits(text, pos + 4, 2, &om) || oh > 23 ||
        om > 59) {
      return Invalid(text, "bad UTC offset (expected +HH:MM)");
    }
    const int64_t offset = (oh * 3600 + om * 60) * (text[pos] == '+' ? 1 : -1);
    seconds -= offset;  // local = UTC + offset
    pos += 6;
  } else {
    return Invalid(text, "expected 'Z' or a UTC offset after the seconds");
  }
  if (pos != text.size()) return Invalid(text, "trailing characters");
  if (seconds < kMinSeconds || seconds > kMaxSeconds) {
    return Invalid(text, "outside the years 1678..2261");
  }
  return seconds * kNsPerSecond + nanos;
}

}  // namespace

absl::StatusOr<int64_t> ParseRfc3339(absl::string_view text) {
  ASSIGN_OR_RETURN(const int64_t seconds, ParseDateTime(text));
  return ParseSuffix(text, seconds);
}

absl::StatusOr<int64_t> Rfc3339Parser::Parse(absl::string_view text) {
  if (text.size() >= 19 && !cached_prefix_.empty() &&
      text.substr(0, 19) == cached_prefix_ &&
      (text[10] == 'T' || text[10] == 't' || text[10] == ' ')) {
    return ParseSuffix(text, cached_seconds_);
  }
  ASSIGN_OR_RETURN(const int64_t seconds, ParseDateTime(text));
  cached_prefix_.assign(text.data(), 19);
  cached_seconds_ = seconds;
  return ParseSuffix(text, seconds);
}

absl::StatusOr<int64_t> TimestampToNs(const google::protobuf::Timestamp& ts) {
  if (ts.nanos() < 0 || ts.nanos() >= kNsPerSecond) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp nanos out of range: ", ts.nanos()));
  }
  if (ts.seconds() < kMinSeconds || ts.seconds() > kMaxSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timestamp outside the years 1678..2261: seconds=", ts.seconds()));
  }
  return ts.seconds() * kNsPerSecond + ts.nanos();
}

double SecondsBetween(int64_t from_ns, int64_t to_ns) {
  // 128 bits hold any difference of two int64 values exactly.
  const __int128 ns = static_cast<__int128>(to_ns) - from_ns;
  return static_cast<double>(ns) / 1e9;
}

std::string FormatRfc3339(int64_t ns) {
  std::string out;
  Rfc3339Formatter formatter;
  formatter.Append(ns, &out);
  return out;
}

std::string FormatShortTime(int64_t ns) {
  const absl::Time t = absl::FromUnixNanos(ns);
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", t, absl::UTCTimeZone());
}

std::string FormatShortTimeMs(int64_t ns) {
  const absl::Time t = absl::FromUnixNanos(ns);
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S", t, absl::UTCTimeZone());
}

}  // namespace biosnoop::report
