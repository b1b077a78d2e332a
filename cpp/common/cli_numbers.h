#pragma once

// Numbers and durations typed on a command line (biosnoop, bioreport,
// slowdisk) or into slowdisk's control file: one set of rules for every
// program, and one line naming the option and the value for every error.
//
// Whole numbers: ASCII decimal digits and nothing else.  No sign, no
// blanks, no "0x" unless the rule allows hex, no digit separators;
// leading zeros are decimal ("010" is 10).  Past 2^64 - 1 is too large,
// never wrapped.  An option whose name says a unit (--min-us,
// --ringbuf-kib, --read-delay-ms) takes a whole number in that unit.
//
// Durations, for options whose name says no unit (--duration, --interval,
// --bucket): a plain number is seconds, whole or decimal ("30", "0.5"); or
// one or more numbers each with a unit, ns us ms s m h ("90s", "500ms",
// "1h30m").  No sign, no blanks, no "inf"; at most kMaxDuration.

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace biosnoop::cli {

// What a whole-number option takes.
struct NumberRule {
  uint64_t min = 0;
  uint64_t max = std::numeric_limits<uint64_t>::max();
  // What the option takes, for "expected ...": "a whole number of
  // microseconds".  Empty: "a whole number from MIN to MAX".
  absl::string_view want;
  // "0x" or "0X" then hex digits (either case) is taken too.
  bool hex = false;
};

// `value` as a whole number by the rules above, or std::nullopt when it is
// not spelled as one or is past 2^64 - 1: for a syntax built around
// numbers (a byte count with a K suffix, the port of an address) whose
// caller words the error itself.
std::optional<uint64_t> ParseDigits(absl::string_view value, bool hex = false);

// `value`, typed for `option` (the name the message gives: "--min-us",
// or a control-file key), as a whole number within `rule`.  Errors are
// InvalidArgument, one line:
//   not a number, or below min   --top: expected a number from 1 to 9, got "x"
//   spelled right, above max     --pid: 4194305 is too large: at most 4194304
// (past 2^64 - 1 too: a number too large is not a typo).  The value is
// quoted C-escaped, so a newline in it cannot make a second line.
absl::StatusOr<uint64_t> ParseNumber(absl::string_view option,
                                     absl::string_view value,
                                     const NumberRule& rule);

// The longest duration any option takes: 10 years (87600h).
inline constexpr absl::Duration kMaxDuration = absl::Hours(87600);

// What a duration option takes.
struct DurationRule {
  // Zero, however written ("0", "0s", "0.0"), means "off"; else refused.
  bool zero_is_off = false;
  // The shortest duration above zero that the option takes.
  absl::Duration min = absl::Nanoseconds(1);
};

// `value`, typed for `option`, as a duration by the rules above.  Errors
// are InvalidArgument, one line:
//   not a duration, or zero   --duration: expected a positive duration
//                             such as 30, 90s, 5m or 1h, got "soon"
//   above zero, below min     --stuck-after: expected 0 (off) or at least
//                             1 second, got "0.5"
//   above kMaxDuration        --duration: 87601h is too large: at most 10
//                             years (87600h)
absl::StatusOr<absl::Duration> ParseDuration(absl::string_view option,
                                             absl::string_view value,
                                             const DurationRule& rule = {});

}  // namespace biosnoop::cli
