// Unit tests for slowdisk's control syntax and flags: pure, no privilege.

#include <string>
#include <vector>

#include "cli.h"
#include "gtest/gtest.h"
#include "settings.h"

namespace biosnoop::slowdisk {
namespace {

TEST(SlowDiskSettingsTest, ByteCountsTakeBinarySuffixes) {
  EXPECT_EQ(*ParseByteCount("4096"), 4096u);
  EXPECT_EQ(*ParseByteCount("64K"), 64u << 10);
  EXPECT_EQ(*ParseByteCount("1m"), 1u << 20);
  EXPECT_EQ(*ParseByteCount("2G"), uint64_t{2} << 30);
  for (const char* bad : {"", "K", "-1", "+1", " 1", "1.5M", "1T", "1KB",
                          "99999999999999999999", "17179869184G"}) {
    EXPECT_FALSE(ParseByteCount(bad).ok()) << bad;
  }
}

TEST(SlowDiskSettingsTest, RegionsNeedOffsetAndNonZeroLength) {
  EXPECT_EQ(*ParseRegion("1M:64K"), (Region{1 << 20, 64 << 10}));
  EXPECT_EQ(*ParseRegion("0:1"), (Region{0, 1}));
  for (const char* bad :
       {"1M", "1M:", ":1", "1M:0", "1:2:3", "18446744073709551615:2"}) {
    EXPECT_FALSE(ParseRegion(bad).ok()) << bad;
  }
}

TEST(SlowDiskSettingsTest, OverlapIsByteExact) {
  Region r{100, 10};  // bytes 100..109
  EXPECT_TRUE(r.Overlaps(100, 1));
  EXPECT_TRUE(r.Overlaps(109, 1));
  EXPECT_TRUE(r.Overlaps(90, 11));
  EXPECT_TRUE(r.Overlaps(0, 1000));
  EXPECT_FALSE(r.Overlaps(90, 10));   // ends where it starts
  EXPECT_FALSE(r.Overlaps(110, 10));  // starts where it ends
  EXPECT_FALSE(r.Overlaps(105, 0));   // empty
}

TEST(SlowDiskSettingsTest, ControlWordsApplyAndRegionsClear) {
  Settings s;
  absl::StatusOr<ControlRequest> r = ApplyControlText(
      "read_delay_ms=20 write_delay_ms=5\nflush_delay_ms=50\n"
      "slow_region=1M:4K error_region=2M:8K\n",
      s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->settings.read_delay_ms, 20u);
  EXPECT_EQ(r->settings.write_delay_ms, 5u);
  EXPECT_EQ(r->settings.flush_delay_ms, 50u);
  EXPECT_EQ(r->settings.slow_region, (Region{1 << 20, 4 << 10}));
  EXPECT_EQ(r->settings.error_region, (Region{2 << 20, 8 << 10}));
  EXPECT_FALSE(r->reset_counters);

  r = ApplyControlText("slow_region= reset_counters", r->settings);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->settings.slow_region.has_value());
  EXPECT_TRUE(r->settings.error_region.has_value());
  EXPECT_EQ(r->settings.read_delay_ms, 20u);
  EXPECT_TRUE(r->reset_counters);
}

// Two latency modes: the fast delay, in microseconds, holds what the slow
// region does not.
TEST(SlowDiskSettingsTest, FastDelayIsInMicrosecondsUpToOneSecond) {
  absl::StatusOr<ControlRequest> r = ApplyControlText(
      "read_delay_ms=20 slow_region=48M:16M fast_delay_us=60", Settings{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->settings.fast_delay_us, 60u);
  EXPECT_EQ(r->settings.read_delay_ms, 20u);
  r = ApplyControlText("fast_delay_us=1000000", r->settings);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->settings.fast_delay_us, 1000000u);
  EXPECT_EQ(r->settings.read_delay_ms, 20u);
  for (const char* bad : {"fast_delay_us=1000001", "fast_delay_us=",
                          "fast_delay_us=5us", "fast_delay_us=-1"}) {
    r = ApplyControlText(bad, Settings{});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("fast_delay_us: ", 0), 0u)
        << r.status();
  }
  r = ApplyControlText("fast_delay_us=1000001", Settings{});
  EXPECT_EQ(r.status().message(),
            "fast_delay_us: 1000001 is too large: at most 1000000");
}

TEST(SlowDiskSettingsTest, BadWordsAreRejectedWithTheirName) {
  for (const char* bad : {"read_delay_ms", "read_delay_ms=", "read_delay_ms=x",
                          "read_delay_ms=-1", "read_delay_ms=3600001", "nope=1",
                          "slow_region=1M", "=5"}) {
    absl::StatusOr<ControlRequest> r = ApplyControlText(bad, Settings{});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  absl::StatusOr<ControlRequest> r = ApplyControlText("nope=1", Settings{});
  EXPECT_NE(r.status().message().find("nope"), absl::string_view::npos);
}

TEST(SlowDiskSettingsTest, FormatRoundTripsThroughApply) {
  Settings s;
  s.read_delay_ms = 7;
  s.flush_delay_ms = 9;
  s.error_region = Region{4096, 512};
  s.fast_delay_us = 150;
  std::string text = FormatSettings(s);
  EXPECT_EQ(text,
            "read_delay_ms=7\nwrite_delay_ms=0\nflush_delay_ms=9\n"
            "slow_region=\nfast_delay_us=150\nerror_region=4096:512\n");
  Settings other;
  other.slow_region = Region{1, 1};
  absl::StatusOr<ControlRequest> r = ApplyControlText(text, other);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->settings, s);
}

absl::StatusOr<CliOptions> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "slowdisk");
  return ParseCli(static_cast<int>(args.size()),
                  const_cast<char* const*>(args.data()));
}

TEST(SlowDiskCliParseTest, FlagsSetSizeAndInitialSettings) {
  absl::StatusOr<CliOptions> o = Parse(
      {"-s", "16", "--read-delay-ms=20", "--flush-delay-ms", "3",
       "--slow-region=1M:1M", "--fast-delay-us=80", "--threads=4", "/mnt"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mountpoint, "/mnt");
  EXPECT_EQ(o->size_mib, 16u);
  EXPECT_EQ(o->settings.read_delay_ms, 20u);
  EXPECT_EQ(o->settings.flush_delay_ms, 3u);
  EXPECT_EQ(o->settings.slow_region, (Region{1 << 20, 1 << 20}));
  EXPECT_EQ(o->settings.fast_delay_us, 80u);
  EXPECT_EQ(o->threads, 4u);
}

TEST(SlowDiskCliParseTest, BadUsageNamesTheFlag) {
  absl::StatusOr<CliOptions> o = Parse({"--write-delay-ms=abc", "/mnt"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("--write-delay-ms"),
            absl::string_view::npos)
      << o.status();
  EXPECT_EQ(o.status().message().find("write_delay_ms"),
            absl::string_view::npos)
      << o.status();
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {},
           {"/a", "/b"},
           {"--bogus", "/a"},
           {"-s"},
           {"-s", "0", "/a"},
           {"--threads=0", "/a"},
           {"--slow-region=", "/a"},
           {"--error-region=1M:1M x", "/a"}}) {
    EXPECT_FALSE(Parse(bad).ok()) << (bad.empty() ? "(none)" : bad[0]);
  }
}

// Numbers follow every command line's rules (cpp/common/cli_numbers.h):
// digits only, too large said with the largest, the flag named.
TEST(SlowDiskCliParseTest, NumbersAreDigitsOnly) {
  for (const char* flag :
       {"--size-mib", "--threads", "--read-delay-ms", "--write-delay-ms",
        "--flush-delay-ms", "--fast-delay-us"}) {
    for (const char* bad : {"+5", " 5", "5 ", "0x10", "-1", "", "5ms"}) {
      const std::string arg = std::string(flag) + "=" + bad;
      absl::StatusOr<CliOptions> o = Parse({arg.c_str(), "/mnt"});
      ASSERT_FALSE(o.ok()) << arg;
      EXPECT_EQ(o.status().message().rfind(std::string(flag) + ": ", 0), 0u)
          << o.status();
      EXPECT_NE(o.status().message().find("expected"), absl::string_view::npos)
          << o.status();
    }
    const std::string big = std::string(flag) + "=18446744073709551616";
    absl::StatusOr<CliOptions> o = Parse({big.c_str(), "/mnt"});
    ASSERT_FALSE(o.ok()) << big;
    EXPECT_NE(o.status().message().find("18446744073709551616 is too large: "
                                        "at most "),
              absl::string_view::npos)
        << o.status();
  }
  absl::StatusOr<CliOptions> o = Parse({"--threads=1025", "/mnt"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--threads: 1025 is too large: at most 1024");
  o = Parse({"-s", "0", "/mnt"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "--size-mib: expected a whole number from 1 to 1048576, got \"0\"");
  o = Parse({"--read-delay-ms=3600001", "/mnt"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "--read-delay-ms: 3600001 is too large: at most 3600000");
  o = Parse({"--read-delay-ms=007", "--threads=010", "/mnt"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->settings.read_delay_ms, 7u);
  EXPECT_EQ(o->threads, 10u);
}

TEST(SlowDiskSettingsTest, ControlNumbersAreDigitsOnly) {
  for (const char* bad :
       {"read_delay_ms=+5", "read_delay_ms=0x10", "write_delay_ms=5ms",
        "flush_delay_ms=18446744073709551616", "slow_region=+1:1",
        "slow_region=0x10:1", "error_region=1:-1"}) {
    EXPECT_FALSE(ApplyControlText(bad, Settings{}).ok()) << bad;
  }
  absl::StatusOr<ControlRequest> r =
      ApplyControlText("read_delay_ms=4294967296", Settings{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "read_delay_ms: 4294967296 is too large: at most 3600000");
}

}  // namespace
}  // namespace biosnoop::slowdisk
