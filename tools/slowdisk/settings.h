#pragma once

// What slowdisk does to each request (delays, slow and error regions), and
// the text syntax that sets it: the `control` file and the command-line
// flags both go through ParseByteCount / ParseRegion / ApplyControlText.
// Pure: no I/O, no clocks.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace biosnoop::slowdisk {

// Delays above this (one hour) are rejected as typos.
inline constexpr uint32_t kMaxDelayMs = 3'600'000;
// The fast delay is for sub-millisecond latencies: at most one second.
inline constexpr uint32_t kMaxFastDelayUs = 1'000'000;

// A byte range [offset, offset + length) of the disk image; length > 0.
struct Region {
  uint64_t offset = 0;
  uint64_t length = 0;

  // True when [off, off + len) shares at least one byte with the region.
  bool Overlaps(uint64_t off, uint64_t len) const;
  bool operator==(const Region&) const = default;
};

struct Settings {
  uint32_t read_delay_ms = 0;
  uint32_t write_delay_ms = 0;
  uint32_t flush_delay_ms = 0;
  // When set, read and write delays apply only to requests overlapping it;
  // unset, they apply to every request.  Flushes have no offset: the flush
  // delay always applies.
  std::optional<Region> slow_region;
  // With a slow region, reads and writes outside it are held this many
  // microseconds instead of none: a disk with two latency modes (e.g.
  // 0.1 ms and, in the region, 20 ms).  Without a region it does nothing.
  uint32_t fast_delay_us = 0;
  // Reads and writes overlapping it fail with EIO (after their delay).
  std::optional<Region> error_region;

  bool operator==(const Settings&) const = default;
};

// "4096", "64K", "1M", "2G" (binary multiples, either case) -> bytes.
// Digits only, as every number on a command line (cli_numbers.h).
absl::StatusOr<uint64_t> ParseByteCount(absl::string_view text);

// "OFFSET:LENGTH", each a byte count as above; LENGTH must be > 0 and the
// region must not wrap around 2^64.
absl::StatusOr<Region> ParseRegion(absl::string_view text);

// "OFFSET:LENGTH" in plain bytes, or "" for no region.
std::string FormatRegion(const std::optional<Region>& region);

// What one write to the control file asks for.
struct ControlRequest {
  Settings settings;            // the settings after the write
  bool reset_counters = false;  // "reset_counters" was among the words
};

// Applies a control text to `current`.  The text is words separated by
// spaces or newlines, each one of:
//   read_delay_ms=N  write_delay_ms=N  flush_delay_ms=N
//   slow_region=OFFSET:LENGTH   slow_region=    (empty value clears it)
//   fast_delay_us=N
//   error_region=OFFSET:LENGTH  error_region=
//   reset_counters
// All or nothing: any bad word is an InvalidArgument naming it, and then
// nothing is applied.
absl::StatusOr<ControlRequest> ApplyControlText(absl::string_view text,
                                                const Settings& current);

// The settings as control-file lines ("read_delay_ms=20\n..."), in the
// syntax ApplyControlText accepts.
std::string FormatSettings(const Settings& settings);

}  // namespace biosnoop::slowdisk
