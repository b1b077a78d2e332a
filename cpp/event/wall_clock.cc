// CLOCK_MONOTONIC -> wall-clock time, and RFC 3339 formatting (wall_clock.h).

#include "wall_clock.h"

#include <limits.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "decimal_digits.h"

namespace biosnoop {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int kCalibrationSamples = 7;

int64_t NowNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

}  // namespace

WallClock::WallClock() { Calibrate(); }

void WallClock::Calibrate() {
  // Being preempted between the reads inflates the bracket; the tightest
  // bracket is the sample least disturbed, and its midpoint is the best
  // estimate of when REALTIME was read.
  int64_t best_interval = std::numeric_limits<int64_t>::max();
  int64_t best_offset = 0;
  for (int i = 0; i < kCalibrationSamples; ++i) {
    int64_t before = NowNs(CLOCK_MONOTONIC);
    int64_t real = NowNs(CLOCK_REALTIME);
    int64_t after = NowNs(CLOCK_MONOTONIC);
    int64_t interval = after - before;
    if (interval < best_interval) {
      best_interval = interval;
      best_offset = real - (before + interval / 2);
    }
  }
  int64_t current = offset_ns_.load(std::memory_order_relaxed);
  int64_t change = best_offset - current;
  if (change < 0) change = -change;
  if (change > best_interval) {
    offset_ns_.store(best_offset, std::memory_order_relaxed);
  }
}

char* Rfc3339Formatter::Write(int64_t realtime_ns, char* out) {
  // Floor division, written so that it cannot overflow at INT64_MIN.
  int64_t second = realtime_ns / kNsPerSecond;
  int64_t nanos = realtime_ns % kNsPerSecond;
  if (nanos < 0) {
    nanos += kNsPerSecond;
    --second;
  }
  if (!cached_ || second != cached_second_) {
    // absl computes UTC civil time arithmetically: no tzdata, no locks.
    absl::CivilSecond cs =
        absl::ToCivilSecond(absl::FromUnixSeconds(second), absl::UTCTimeZone());
    PutFixedDigits(static_cast<uint64_t>(cs.year()), 4, prefix_);
    prefix_[4] = '-';
    PutFixedDigits(static_cast<uint64_t>(cs.month()), 2, prefix_ + 5);
    prefix_[7] = '-';
    PutFixedDigits(static_cast<uint64_t>(cs.day()), 2, prefix_ + 8);
    prefix_[10] = 'T';
    PutFixedDigits(static_cast<uint64_t>(cs.hour()), 2, prefix_ + 11);
    prefix_[13] = ':';
    PutFixedDigits(static_cast<uint64_t>(cs.minute()), 2, prefix_ + 14);
    prefix_[16] = ':';
    PutFixedDigits(static_cast<uint64_t>(cs.second()), 2, prefix_ + 17);
    cached_second_ = second;
    cached_ = true;
  }
  std::memcpy(out, prefix_, sizeof(prefix_));
  out[19] = '.';
  const auto first = static_cast<uint32_t>(nanos / 100000000);
  out[20] = static_cast<char>('0' + first);
  PutEightDigits(EightDigits(static_cast<uint32_t>(nanos) - first * 100000000),
                 out + 21);
  out[29] = 'Z';
  return out + kLength;
}

void Rfc3339Formatter::Append(int64_t realtime_ns, std::string* out) {
  char buf[kLength];
  Write(realtime_ns, buf);
  out->append(buf, sizeof(buf));
}

namespace {
thread_local Rfc3339Formatter thread_formatter;
}  // namespace

void AppendRfc3339Nanos(int64_t realtime_ns, std::string* out) {
  thread_formatter.Append(realtime_ns, out);
}

char* WriteRfc3339Nanos(int64_t realtime_ns, char* out) {
  return thread_formatter.Write(realtime_ns, out);
}

absl::StatusOr<std::string> HostName() {
  char name[HOST_NAME_MAX + 1];
  if (gethostname(name, sizeof(name)) != 0) {
    return absl::ErrnoToStatus(errno, "gethostname");
  }
  // POSIX leaves termination unspecified when the name was truncated.
  name[sizeof(name) - 1] = '\0';
  return std::string(name);
}

uint64_t MonotonicNs() { return static_cast<uint64_t>(NowNs(CLOCK_MONOTONIC)); }

}  // namespace biosnoop
