#pragma once

// Times in bioreport: int64 nanoseconds since the Unix epoch (UTC), the
// range biosnoop writes (years 1677..2262).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/timestamp.pb.h"

namespace biosnoop::report {

// Parses an RFC 3339 date-time: "2026-11-21T05:44:01Z",
// "2026-11-21T05:44:01.123456789Z", "2026-11-21t07:44:01.5+02:00".
// 'T'/'t' (or one space) between date and time; 'Z'/'z' or a numeric offset;
// up to 9 fraction digits (more are an error).  InvalidArgumentError naming
// what is wrong otherwise, or when the instant is outside the int64 ns range.
absl::StatusOr<int64_t> ParseRfc3339(absl::string_view text);

// Caches the date-time prefix of the last value parsed: consecutive event
// timestamps within one second cost one comparison and the fraction.
class Rfc3339Parser {
 public:
  absl::StatusOr<int64_t> Parse(absl::string_view text);

 private:
  std::string cached_prefix_;  // "YYYY-MM-DDTHH:MM:SS" of cached_seconds_
  int64_t cached_seconds_ = 0;
};

// The Timestamp as ns since the epoch; InvalidArgumentError when nanos is
// outside [0, 1e9) or the instant is outside the int64 ns range.
absl::StatusOr<int64_t> TimestampToNs(const google::protobuf::Timestamp& ts);

// The seconds from `from_ns` to `to_ns` (negative when `to_ns` is
// earlier), without overflow: two instants of the range can be further
// apart than int64 nanoseconds hold (1678 to 2261 is 584 years).
double SecondsBetween(int64_t from_ns, int64_t to_ns);

// "2026-11-21T05:44:01.123456789Z".
std::string FormatRfc3339(int64_t ns);

// "2026-11-21 05:44:01" (UTC, seconds): for report headings.
std::string FormatShortTime(int64_t ns);

// "2026-11-21 05:44:01.123" (UTC, milliseconds, truncated).
std::string FormatShortTimeMs(int64_t ns);

}  // namespace biosnoop::report
