#include "settings.h"

#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli_numbers.h"
#include "status_macros.h"

namespace biosnoop::slowdisk {
namespace {

// The control file's numbers follow the command line's rules
// (cli_numbers.h): the flags are applied through this same syntax.
absl::StatusOr<uint32_t> ParseDelayMs(absl::string_view key,
                                      absl::string_view value) {
  ASSIGN_OR_RETURN(
      const uint64_t ms,
      cli::ParseNumber(
          key, value,
          {.max = kMaxDelayMs,
           .want = absl::StrCat("milliseconds from 0 to ", kMaxDelayMs)}));
  return static_cast<uint32_t>(ms);
}

absl::StatusOr<uint32_t> ParseDelayUs(absl::string_view key,
                                      absl::string_view value) {
  ASSIGN_OR_RETURN(
      const uint64_t us,
      cli::ParseNumber(
          key, value,
          {.max = kMaxFastDelayUs,
           .want = absl::StrCat("microseconds from 0 to ", kMaxFastDelayUs)}));
  return static_cast<uint32_t>(us);
}

// An empty value clears the region: that is how a shell user says "none".
absl::StatusOr<std::optional<Region>> ParseOptionalRegion(
    absl::string_view key, absl::string_view value) {
  if (value.empty()) return std::optional<Region>();
  ASSIGN_OR_RETURN(
      const Region region, ParseRegion(value),
      absl::InvalidArgumentError(absl::StrCat(key, ": ", _.message())));
  return std::optional<Region>(region);
}

}  // namespace

bool Region::Overlaps(uint64_t off, uint64_t len) const {
  if (len == 0) return false;
  // Both ranges are non-empty: they meet unless one ends before the other
  // starts.  Ends are computed without overflow (ParseRegion forbids wrap).
  return off < offset + length && offset < off + len;
}

absl::StatusOr<uint64_t> ParseByteCount(absl::string_view text) {
  absl::string_view digits = text;
  uint64_t multiplier = 1;
  if (!digits.empty()) {
    switch (absl::ascii_tolower(digits.back())) {
      case 'k':
        multiplier = uint64_t{1} << 10;
        break;
      case 'm':
        multiplier = uint64_t{1} << 20;
        break;
      case 'g':
        multiplier = uint64_t{1} << 30;
        break;
      default:
        break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  // Digits only, as every number on a command line (cli_numbers.h).
  const std::optional<uint64_t> value = cli::ParseDigits(digits);
  if (!value.has_value() ||
      *value > std::numeric_limits<uint64_t>::max() / multiplier) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a byte count like 4096, 64K, 1M or 2G, got \"", text, "\""));
  }
  return *value * multiplier;
}

absl::StatusOr<Region> ParseRegion(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected OFFSET:LENGTH, got \"", text, "\""));
  }
  ASSIGN_OR_RETURN(const uint64_t offset, ParseByteCount(parts[0]));
  ASSIGN_OR_RETURN(const uint64_t length, ParseByteCount(parts[1]));
  if (length == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("region length must be > 0, got \"", text, "\""));
  }
  if (offset > std::numeric_limits<uint64_t>::max() - length) {
    return absl::InvalidArgumentError(
        absl::StrCat("region ends past 2^64: \"", text, "\""));
  }
  return Region{offset, length};
}

std::string FormatRegion(const std::optional<Region>& region) {
  if (!region.has_value()) return "";
  return absl::StrCat(region->offset, ":", region->length);
}

absl::StatusOr<ControlRequest> ApplyControlText(absl::string_view text,
                                                const Settings& current) {
  ControlRequest request{current, false};
  Settings& s = request.settings;
  for (absl::string_view word :
       absl::StrSplit(text, absl::ByAnyChar(" \t\r\n"), absl::SkipEmpty())) {
    if (word == "reset_counters") {
      request.reset_counters = true;
      continue;
    }
    size_t eq = word.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected KEY=VALUE, got \"", word, "\""));
    }
    absl::string_view key = word.substr(0, eq);
    absl::string_view value = word.substr(eq + 1);
    if (key == "read_delay_ms" || key == "write_delay_ms" ||
        key == "flush_delay_ms") {
      ASSIGN_OR_RETURN(const uint32_t ms, ParseDelayMs(key, value));
      (key == "read_delay_ms"    ? s.read_delay_ms
       : key == "write_delay_ms" ? s.write_delay_ms
                                 : s.flush_delay_ms) = ms;
    } else if (key == "fast_delay_us") {
      ASSIGN_OR_RETURN(s.fast_delay_us, ParseDelayUs(key, value));
    } else if (key == "slow_region" || key == "error_region") {
      ASSIGN_OR_RETURN(std::optional<Region> region,
                       ParseOptionalRegion(key, value));
      (key == "slow_region" ? s.slow_region : s.error_region) = region;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown setting \"", key,
          "\" (known: read_delay_ms, write_delay_ms, flush_delay_ms, "
          "slow_region, fast_delay_us, error_region, reset_counters)"));
    }
  }
  return request;
}

std::string FormatSettings(const Settings& settings) {
  return absl::StrCat("read_delay_ms=", settings.read_delay_ms, "\n",
                      "write_delay_ms=", settings.write_delay_ms, "\n",
                      "flush_delay_ms=", settings.flush_delay_ms, "\n",
                      "slow_region=", FormatRegion(settings.slow_region), "\n",
                      "fast_delay_us=", settings.fast_delay_us, "\n",
                      "error_region=", FormatRegion(settings.error_region),
                      "\n");
}

}  // namespace biosnoop::slowdisk
