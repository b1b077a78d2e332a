#include "wall_clock.h"

#include <sys/utsname.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

std::string Format(int64_t ns) {
  std::string out;
  Rfc3339Formatter().Append(ns, &out);
  return out;
}

// An independent reference: libc's gmtime_r and printf.
std::string Reference(int64_t ns) {
  int64_t sec = ns / kSecond;
  int64_t frac = ns % kSecond;
  if (frac < 0) {
    frac += kSecond;
    --sec;
  }
  time_t t = static_cast<time_t>(sec);
  struct tm tm;
  if (gmtime_r(&t, &tm) == nullptr) return "gmtime_r failed";
  char buf[64];
  snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ",
           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
           tm.tm_sec, static_cast<long long>(frac));
  return buf;
}

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * kSecond + ts.tv_nsec;
}
int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * kSecond + ts.tv_nsec;
}

TEST(WallClockFormat, KnownInstants) {
  EXPECT_EQ(Format(0), "1970-01-01T00:00:00.000000000Z");
  EXPECT_EQ(Format(1709251199 * kSecond + 999999999),
            "2024-02-29T23:59:59.999999999Z");
  EXPECT_EQ(Format(1709251200 * kSecond), "2024-03-01T00:00:00.000000000Z");
  EXPECT_EQ(Format(2147483648 * kSecond), "2038-01-19T03:14:08.000000000Z");
  // 2100 is no leap year.
  EXPECT_EQ(Format(4107542399 * kSecond + 5), "2100-02-28T23:59:59.000000005Z");
  EXPECT_EQ(Format(4107542400 * kSecond), "2100-03-01T00:00:00.000000000Z");
  EXPECT_EQ(Format(1795239841 * kSecond + 123456789),
            "2026-11-21T05:44:01.123456789Z");
}

TEST(WallClockFormat, PadsNanoseconds) {
  EXPECT_EQ(Format(1), "1970-01-01T00:00:00.000000001Z");
  EXPECT_EQ(Format(1000), "1970-01-01T00:00:00.000001000Z");
  EXPECT_EQ(Format(kSecond + 10), "1970-01-01T00:00:01.000000010Z");
  EXPECT_EQ(Format(0).size(), Rfc3339Formatter::kLength);
}

TEST(WallClockFormat, BeforeEpoch) {
  EXPECT_EQ(Format(-1), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(Format(-kSecond), "1969-12-31T23:59:59.000000000Z");
  EXPECT_EQ(Format(-kSecond - 1), "1969-12-31T23:59:58.999999999Z");
  EXPECT_EQ(Format(-2203891200 * kSecond), "1900-03-01T00:00:00.000000000Z");
}

TEST(WallClockFormat, WholeInt64Range) {
  EXPECT_EQ(Format(std::numeric_limits<int64_t>::max()),
            "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(Format(std::numeric_limits<int64_t>::min()),
            "1677-09-21T00:12:43.145224192Z");
}

TEST(WallClockFormat, AppendsWithoutClearing) {
  std::string out = "ts=";
  AppendRfc3339Nanos(0, &out);
  out += ' ';
  AppendRfc3339Nanos(1, &out);
  EXPECT_EQ(out,
            "ts=1970-01-01T00:00:00.000000000Z 1970-01-01T00:00:00.000000001Z");
}

TEST(WallClockFormat, WriteMatchesAppend) {
  for (int64_t ns :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1795276975123456789},
        std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min()}) {
    std::string appended;
    AppendRfc3339Nanos(ns, &appended);
    char written[Rfc3339Formatter::kLength];
    EXPECT_EQ(WriteRfc3339Nanos(ns, written), written + sizeof(written));
    EXPECT_EQ(std::string(written, sizeof(written)), appended) << ns;
  }
}

// One formatter fed a sequence that moves within a second, to the next
// second, across day/month/year boundaries and backwards: its cached prefix
// must never leak into another second.
TEST(WallClockFormat, CacheFollowsSecondsForwardAndBackward) {
  const int64_t new_year = 1735689600 * kSecond;  // 2025-01-01T00:00:00Z
  const int64_t sequence[] = {
      new_year - 1,                // 2024-12-31T23:59:59.999999999
      new_year - kSecond,          // same second
      new_year,                    // next second, next year
      new_year + 999999999,        // same second
      new_year + kSecond,          // next second
      new_year - 86400 * kSecond,  // a day back
      new_year - 1,                // forward again
      new_year - 1,                // repeat
      -1,                          // before the epoch
      0,
      new_year + 5 * kSecond,
      new_year + 4 * kSecond,  // one second back
  };
  Rfc3339Formatter formatter;
  for (int64_t ns : sequence) {
    std::string out;
    formatter.Append(ns, &out);
    EXPECT_EQ(out, Reference(ns)) << ns;
  }
  std::string out;
  formatter.Append(new_year - 1, &out);
  EXPECT_EQ(out, "2024-12-31T23:59:59.999999999Z");
}

TEST(WallClockFormat, AgreesWithGmtimeOnRandomSequences) {
  std::mt19937_64 rng(20261121);
  // Years 1900..2200, and small steps so that the cache is hit and missed.
  std::uniform_int_distribution<int64_t> anywhere(-2208988800 * kSecond,
                                                  7258118400 * kSecond);
  std::uniform_int_distribution<int64_t> step(-3 * kSecond, 3 * kSecond);
  Rfc3339Formatter formatter;
  int64_t ns = anywhere(rng);
  for (int i = 0; i < 20000; ++i) {
    ns = (i % 50 == 0) ? anywhere(rng) : ns + step(rng);
    std::string out;
    formatter.Append(ns, &out);
    ASSERT_EQ(out, Reference(ns)) << ns;
  }
}

TEST(WallClock, CalibrationAgreesWithRealtime) {
  WallClock clock;
  int64_t mono = MonotonicNs();
  int64_t real = RealtimeNs();
  int64_t diff = clock.ToRealtimeNs(static_cast<uint64_t>(mono)) - real;
  EXPECT_LT(std::llabs(diff), 5'000'000) << "ns off";
}

TEST(WallClock, SetOffsetForTestThenRecalibrate) {
  WallClock clock;
  clock.SetOffsetForTest(1'000'000'000'000'000'000);
  EXPECT_EQ(clock.offset_ns(), 1'000'000'000'000'000'000);
  EXPECT_EQ(clock.ToRealtimeNs(5), 1'000'000'000'000'000'005);
  clock.SetOffsetForTest(-10);
  EXPECT_EQ(clock.ToRealtimeNs(5), -5);

  clock.Calibrate();
  int64_t diff =
      clock.ToRealtimeNs(static_cast<uint64_t>(MonotonicNs())) - RealtimeNs();
  EXPECT_LT(std::llabs(diff), 5'000'000) << "ns off";
}

TEST(WallClock, RecalibrationIsStable) {
  WallClock clock;
  int64_t first = clock.offset_ns();
  for (int i = 0; i < 10; ++i) clock.Calibrate();
  // No step of the wall clock happened: the offset moves by at most the
  // measurement noise.
  EXPECT_LT(std::llabs(clock.offset_ns() - first), 1'000'000);
}

TEST(WallClock, HostNameMatchesUname) {
  absl::StatusOr<std::string> name = HostName();
  ASSERT_TRUE(name.ok()) << name.status();
  struct utsname uts;
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_EQ(*name, uts.nodename);
}

}  // namespace
}  // namespace biosnoop
