#pragma once

// Wall-clock time for events: the kernel stamps events with CLOCK_MONOTONIC
// (bpf_ktime_get_ns); output wants UTC wall-clock time as RFC 3339.

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace biosnoop {

// CLOCK_MONOTONIC now, in ns: the kernel's event clock (bpf_ktime_get_ns).
uint64_t MonotonicNs();

// Converts CLOCK_MONOTONIC ns to CLOCK_REALTIME ns since the Unix epoch with
// a measured offset. NTP slewing moves both clocks alike, so the offset only
// changes when the wall clock is stepped (settimeofday, NTP step, leap
// second); calling Calibrate() about once a second picks that up.
//
// ToRealtimeNs() may run concurrently with Calibrate() on another thread.
class WallClock {
 public:
  // Calibrates.
  WallClock();

  WallClock(const WallClock&) = delete;
  WallClock& operator=(const WallClock&) = delete;

  // Measures REALTIME - MONOTONIC: of several MONOTONIC, REALTIME, MONOTONIC
  // samples, keeps the one with the tightest MONOTONIC bracket. A new
  // offset that differs from the current one by no more than the
  // measurement's own uncertainty is ignored, so timestamps do not jitter
  // by a few tens of ns from one calibration to the next.
  void Calibrate();

  // Wall-clock ns since the epoch of a CLOCK_MONOTONIC instant.
  int64_t ToRealtimeNs(uint64_t monotonic_ns) const {
    // Unsigned arithmetic wraps instead of overflowing; realistic inputs
    // (uptime < 292 years) never wrap.
    return static_cast<int64_t>(
        monotonic_ns +
        static_cast<uint64_t>(offset_ns_.load(std::memory_order_relaxed)));
  }

  // REALTIME - MONOTONIC in ns.
  int64_t offset_ns() const {
    return offset_ns_.load(std::memory_order_relaxed);
  }

  // Replaces the measured offset (tests, replay). A later Calibrate()
  // measures it again.
  void SetOffsetForTest(int64_t offset_ns) {
    offset_ns_.store(offset_ns, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> offset_ns_{0};
};

// Formats ns since the epoch as RFC 3339 UTC with exactly 9 fraction digits:
// "2026-11-21T05:44:01.123456789Z". Every int64_t is formatted correctly,
// including instants before 1970 (the fraction counts forward from the
// second: -1 ns is "1969-12-31T23:59:59.999999999Z"); the int64_t range
// spans years 1677 to 2262, so the year always has 4 digits.
//
// Per event, so the civil date is computed once per second: the formatter
// caches the "YYYY-MM-DDTHH:MM:SS" text of the last second it saw.
// Not thread-safe; use one per thread.
class Rfc3339Formatter {
 public:
  static constexpr size_t kLength = 30;  // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"

  // Appends the formatted `realtime_ns` to `out`.
  void Append(int64_t realtime_ns, std::string* out);

  // Writes the kLength formatted bytes at `out`; returns out + kLength.
  char* Write(int64_t realtime_ns, char* out);

 private:
  bool cached_ = false;
  int64_t cached_second_ = 0;
  char prefix_[19] = {};  // "YYYY-MM-DDTHH:MM:SS" of cached_second_
};

// Rfc3339Formatter::Append and ::Write with a formatter private to the
// calling thread.
void AppendRfc3339Nanos(int64_t realtime_ns, std::string* out);
char* WriteRfc3339Nanos(int64_t realtime_ns, char* out);

// This machine's host name (gethostname). An error status when it fails.
absl::StatusOr<std::string> HostName();

}  // namespace biosnoop
