#include "histogram.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "biosnoop_abi.h"  // the kernel's bucket function, compared below
#include "gtest/gtest.h"
#include "hist_format.h"
#include "nlohmann/json.hpp"

namespace biosnoop {
namespace {

uint64_t Key(uint32_t major, uint32_t minor, Op op, uint8_t flags) {
  return biosnoop_hist_key((major << 20) | minor, static_cast<uint8_t>(op),
                           flags);
}

HistData Data(uint64_t count, int latency_bucket, int size_bucket,
              uint64_t bytes_each) {
  HistData d;
  d.count = count;
  d.bytes = count * bytes_each;
  d.latency[latency_bucket] = count;
  d.size[size_bucket] = count;
  return d;
}

std::string Name(uint32_t major, uint32_t minor) {
  return major == 254 ? "vda" : "loop" + std::to_string(minor);
}

TEST(HistogramTest, KeyRoundTrip) {
  HistKey k =
      DecodeHistKey(Key(259, 0xfffff, Op::kWrite, kFlagSync | kFlagFua));
  EXPECT_EQ(k.major, 259u);
  EXPECT_EQ(k.minor, 0xfffffu);
  EXPECT_EQ(k.op, Op::kWrite);
  EXPECT_EQ(k.flags, kFlagSync | kFlagFua);
}

TEST(HistogramTest, BucketBoundsAreLog2) {
  EXPECT_EQ(BucketLow(0), 0u);
  EXPECT_EQ(BucketHigh(0), 1u);
  EXPECT_EQ(BucketLow(1), 2u);
  EXPECT_EQ(BucketHigh(1), 3u);
  EXPECT_EQ(BucketLow(14), 16384u);
  EXPECT_EQ(BucketHigh(14), 32767u);
}

// The kernel's bucket function (biosnoop_abi.h, branch-free for the
// verifier) against the plain definition, at every power of two and its
// neighbours and at values spread over the whole 64-bit range.
TEST(HistogramTest, KernelBucketIsFloorLog2CappedAtTheLastBucket) {
  auto reference = [](uint64_t v) -> uint32_t {
    uint32_t r = 0;
    while (v > 1) {
      v >>= 1;
      ++r;
    }
    return r < BIOSNOOP_HIST_BUCKETS ? r : BIOSNOOP_HIST_BUCKETS - 1;
  };
  std::vector<uint64_t> values = {0, 1, 2, 3, ~0ull, ~0ull >> 1};
  for (int i = 0; i < 64; ++i) {
    uint64_t p = 1ull << i;
    values.insert(values.end(), {p - 1, p, p + 1, p | (p >> 1)});
  }
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    values.push_back(x >> (i % 64));
  }
  for (uint64_t v : values) {
    ASSERT_EQ(biosnoop_log2_bucket(v), reference(v)) << v;
  }
  // And it agrees with the bounds the reports print.
  for (uint32_t b = 0; b + 1 < BIOSNOOP_HIST_BUCKETS; ++b) {
    EXPECT_EQ(biosnoop_log2_bucket(BucketLow(b)), b);
    EXPECT_EQ(biosnoop_log2_bucket(BucketHigh(b)), b);
  }
}

// The kernel's fine bucket (biosnoop_abi.h) against ceil(16 log2(ns / 1e9))
// in long double, over ns from 1 to 2^44 (values closer to a boundary than
// long double can tell are left out), and exactly at the boundaries that
// are whole ns: 1e9 * 2^j, which belongs to the bucket it bounds.
TEST(HistogramTest, KernelFineBucketIsPrometheusSchema4InSeconds) {
  auto reference = [](uint64_t v, bool* near) -> int {
    const long double c = 478.357645663780178093326L;  // 16 log2(1e9)
    const long double x = 16 * std::log2(static_cast<long double>(v)) - c;
    *near = std::fabs(x - std::round(x)) < 1e-12L;
    const long double k = std::ceil(x);
    return static_cast<int>(
        std::clamp<long double>(k - kFineFirst, 0, kFineBuckets - 1));
  };
  uint64_t x = 0x9E3779B97F4A7C15ull;
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    const uint64_t v = (x >> (20 + i % 44)) + 1;
    bool near = false;
    const int want = reference(v, &near);
    if (near) continue;
    ASSERT_EQ(static_cast<int>(biosnoop_fine_bucket(v)), want) << v;
    ++compared;
  }
  EXPECT_GT(compared, 199000);
  // 1953125 << j ns is exactly 2^(j-9) s: the top of bucket k = 16(j-9).
  for (int j = 0; j <= 20; ++j) {
    const uint64_t v = uint64_t{1953125} << j;
    const int n = 16 * (j - 9) - kFineFirst;
    EXPECT_EQ(static_cast<int>(biosnoop_fine_bucket(v)), n) << v;
    EXPECT_EQ(static_cast<int>(biosnoop_fine_bucket(v + 1)), n + 1) << v;
    EXPECT_EQ(biosnoop_fine_bucket(v), biosnoop_fine_bucket(v - 1)) << v;
    EXPECT_DOUBLE_EQ(FineUpperSeconds(n), std::exp2(j - 9));
    // What user space bins with (bioreport's heat map): the same.
    EXPECT_EQ(FineElementOfNs(v), n) << v;
    EXPECT_EQ(FineElementOfNs(v + 1), n + 1) << v;
  }
  // The zero bucket: everything up to 2^-20 s (953.67 ns).
  EXPECT_EQ(biosnoop_fine_bucket(0), 0u);
  EXPECT_EQ(biosnoop_fine_bucket(953), 0u);
  EXPECT_EQ(biosnoop_fine_bucket(954), 1u);
  EXPECT_DOUBLE_EQ(FineUpperSeconds(0), std::exp2(-20));
  // Everything from bucket 191 (~65 min) up, in the last element.
  EXPECT_EQ(biosnoop_fine_bucket(~0ull), kFineBuckets - 1u);
  EXPECT_EQ(biosnoop_fine_bucket(uint64_t{1} << 50), kFineBuckets - 1u);
}

// The kernel's fine bucket finds its count of thresholds through 32 cells
// of the octave (biosnoop_abi.h): against the plain count over the sixteen
// thresholds, 2^61 2^((j + c) / 16) rounded down, on both sides of every
// threshold in every octave a latency can have, where a cell's table
// would be wrong first.
TEST(HistogramTest, KernelFineBucketCellsCountLikeSixteenCompares) {
  static constexpr uint64_t kThresholds[16] = {
      2341847523916196280ULL, 2445529971668239784ULL, 2553802833553598966ULL,
      2666869344568863968ULL, 2784941737692645604ULL, 2908241642260273621ULL,
      3037000499976049692ULL, 3171459999343936368ULL, 3311872529332135848ULL,
      3458501653123115592ULL, 3611622602838339504ULL, 3771522796166334215ULL,
      3938502375863833974ULL, 4112874773142681847ULL, 4294967296000000000ULL,
      4485121743595961938ULL};
  auto sixteen = [](uint64_t ns) -> int {
    int e = 63 - __builtin_clzll(ns);
    const uint64_t m = ns << (61 - e);
    int s = 16 * e;
    for (uint64_t t : kThresholds) s += m > t ? 1 : 0;
    return std::clamp(s - 158, 0, kFineBuckets - 1);
  };
  int compared = 0;
  for (int e = 0; e <= 61; ++e) {
    for (uint64_t t : kThresholds) {
      // The ns whose m is at or just below t, and its neighbours.
      const uint64_t at = t >> (61 - e);
      for (uint64_t ns = at > 2 ? at - 2 : 1; ns <= at + 2; ++ns) {
        if (ns >> 62) continue;
        ASSERT_EQ(static_cast<int>(biosnoop_fine_bucket(ns)), sixteen(ns))
            << ns;
        ++compared;
      }
    }
    // Each cell's edges too.
    for (uint64_t q = 0; q <= 32; ++q) {
      const uint64_t edge = ((uint64_t{1} << 61) + (q << 56)) >> (61 - e);
      for (uint64_t ns = edge > 1 ? edge - 1 : 1; ns <= edge + 1; ++ns) {
        if (ns >> 62) continue;
        ASSERT_EQ(static_cast<int>(biosnoop_fine_bucket(ns)), sixteen(ns))
            << ns;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 7000);
}

TEST(HistogramTest, DeltaSubtractsPerKeyAndDropsEmpty) {
  HistSet prev = {{Key(254, 0, Op::kRead, 0), Data(10, 3, 12, 4096)},
                  {Key(7, 1, Op::kWrite, 0), Data(5, 4, 12, 4096)}};
  prev[Key(254, 0, Op::kRead, 0)].errors = 1;
  prev[Key(254, 0, Op::kRead, 0)].latency_ns = 100000;
  HistSet cur = prev;
  HistData more = Data(7, 5, 13, 8192);
  more.errors = 2;
  more.latency_ns = 7 * 40000;
  cur[Key(254, 0, Op::kRead, 0)].Add(more);
  cur[Key(7, 2, Op::kRead, 0)] = Data(2, 1, 9, 512);
  HistSet d = HistDelta(cur, prev);
  ASSERT_EQ(d.size(), 2u);  // loop1's writes did not change
  const HistData& vda = d[Key(254, 0, Op::kRead, 0)];
  EXPECT_EQ(vda.count, 7u);
  EXPECT_EQ(vda.bytes, 7u * 8192);
  EXPECT_EQ(vda.latency[5], 7u);
  EXPECT_EQ(vda.latency[3], 0u);
  EXPECT_EQ(vda.errors, 2u);
  EXPECT_EQ(vda.latency_ns, 7u * 40000);  // the Prometheus histogram's sum
  EXPECT_EQ(d[Key(7, 2, Op::kRead, 0)].count, 2u);
}

TEST(HistogramTest, GroupingSeparatesDisksOpsAndFlags) {
  HistSet set = {{Key(254, 0, Op::kRead, 0), Data(10, 3, 12, 4096)},
                 {Key(254, 0, Op::kRead, kFlagSync), Data(1, 3, 12, 4096)},
                 {Key(254, 0, Op::kWrite, kFlagSync), Data(4, 6, 12, 4096)},
                 {Key(7, 3, Op::kRead, 0), Data(2, 9, 12, 4096)}};
  auto all = GroupHistograms(set, HistGrouping::kAll, Name);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].data.count, 17u);

  auto disks = GroupHistograms(set, HistGrouping::kPerDisk, Name);
  ASSERT_EQ(disks.size(), 2u);
  EXPECT_EQ(disks[0].disk, "loop3");
  EXPECT_EQ(disks[0].data.count, 2u);
  EXPECT_EQ(disks[1].disk, "vda");
  EXPECT_EQ(disks[1].data.count, 15u);

  auto flags = GroupHistograms(set, HistGrouping::kPerFlags, Name);
  ASSERT_EQ(flags.size(), 3u);  // R, RS, WS
  EXPECT_EQ(flags[0].op, "R");
  EXPECT_EQ(flags[0].data.count, 12u);
  EXPECT_EQ(flags[1].op, "RS");
  EXPECT_EQ(flags[2].op, "WS");

  auto ops = GroupHistograms(set, HistGrouping::kPerDiskAndOp, Name);
  ASSERT_EQ(ops.size(), 3u);  // loop3 read, vda read, vda write
  EXPECT_EQ(ops[1].disk, "vda");
  EXPECT_EQ(ops[1].op, "read");
  EXPECT_EQ(ops[1].data.count, 11u);
}

TEST(HistFormatTest, TextShowsBucketsUpToTheHighestWithBars) {
  HistGroup g{"vda", "", Data(8, 3, 12, 4096)};
  g.data.latency[1] = 4;
  g.data.count = 12;
  std::string text = FormatHistText({g}, HistUnit::kMicroseconds, "title");
  EXPECT_NE(text.find("disk = vda: 12 I/Os"), std::string::npos) << text;
  EXPECT_NE(text.find("usecs"), std::string::npos);
  // Bucket 3 (8..15) has the maximum: a full 40-star bar.
  EXPECT_NE(text.find("8 -> 15           : 8        "
                      "|****************************************|"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 -> 3            : 4        |********************"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("16 -> 31"), std::string::npos)
      << "past the highest bucket";
  EXPECT_NE(text.find("size (KiB)"), std::string::npos);
  EXPECT_NE(text.find("4 -> 7            : 8"), std::string::npos) << text;
}

TEST(HistFormatTest, CsvColumnsAndMillisecondBounds) {
  HistGroup g{"", "", Data(3, 2, 12, 4096)};
  std::string us =
      FormatHistCsv({g}, HistGrouping::kAll, HistUnit::kMicroseconds, true);
  EXPECT_EQ(us,
            "bucket,lo_us,hi_us,count\n"
            "0,0,1,0\n1,2,3,0\n2,4,7,3\n");
  std::string ms =
      FormatHistCsv({g}, HistGrouping::kAll, HistUnit::kMilliseconds, false);
  EXPECT_EQ(ms, "0,0,1999,0\n1,2000,3999,0\n2,4000,7999,3\n");
  HistGroup keyed{"vda", "read", Data(1, 0, 12, 4096)};
  EXPECT_EQ(FormatHistCsv({keyed}, HistGrouping::kPerDiskAndOp,
                          HistUnit::kMicroseconds, true),
            "disk,op,bucket,lo_us,hi_us,count\nvda,read,0,0,1,1\n");
}

// --fine: 20 ms is bucket k = -90, (19404.0, 20263.1] us; 100 us is
// k = -212, (98.30, 102.6] us.  Rows from the first non-empty bucket to
// the last, bounds as decimals, in every format.
TEST(HistFormatTest, FineRowsAreSchema3BucketsInTheUnit) {
  HistGroup g{"vda", "", Data(4, 6, 12, 4096)};
  g.data.fine[-212 - kFineFirst] = 3;
  g.data.fine[-90 - kFineFirst] = 1;
  const std::string text =
      FormatHistText({g}, HistUnit::kMicroseconds, "title", HistRows::kFine);
  EXPECT_NE(text.find("usecs (lo, hi]"), std::string::npos) << text;
  EXPECT_NE(text.find("98.3 -> 102.6        : 3        |*****"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("              usecs (lo, hi] : count    distribution"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("19404 -> 20263        : 1        |*************  "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("102.6 -> 107.2        : 0"), std::string::npos)
      << "empty rows between non-empty ones are shown: " << text;
  EXPECT_EQ(text.find("94.13 -> 98.3 "), std::string::npos)
      << "no row before the first non-empty one: " << text;
  EXPECT_EQ(text.find("20263 -> 21160"), std::string::npos)
      << "no row past the last non-empty one: " << text;
  const std::string ms =
      FormatHistText({g}, HistUnit::kMilliseconds, "title", HistRows::kFine);
  EXPECT_NE(ms.find("19.4 -> 20.26        : 1"), std::string::npos) << ms;

  const std::string csv =
      FormatHistCsv({g}, HistGrouping::kPerDisk, HistUnit::kMilliseconds, true,
                    HistRows::kFine);
  EXPECT_EQ(csv.substr(0, csv.find('\n', csv.find('\n') + 1) + 1),
            "disk,bucket,lo_us,hi_us,count\nvda,-212,98.297,102.648,3\n");
  EXPECT_NE(csv.find("vda,-90,19404.028,20263.118,1\n"), std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + (-90 + 212 + 1));

  const nlohmann::json j = nlohmann::json::parse(
      FormatHistJson({g}, HistUnit::kMicroseconds, "2026-11-28T00:00:00Z", 1.0,
                     HistRows::kFine));
  EXPECT_EQ(j["buckets"], "fine");
  const auto& lat = j["histograms"][0]["latency"];
  ASSERT_EQ(lat.size(), 2u) << j.dump();
  EXPECT_EQ(lat[0]["k"], -212);
  EXPECT_NEAR(lat[0]["lo"].get<double>(), 98.297, 0.001);
  EXPECT_NEAR(lat[0]["hi"].get<double>(), 102.648, 0.001);
  EXPECT_EQ(lat[0]["count"], 3);
  EXPECT_EQ(lat[1]["k"], -90);
  EXPECT_EQ(lat[1]["count"], 1);
}

// --hist --csv -D --interval: the first interval may have no I/O, and its
// header is the file's only one, so it must name the columns of the rows
// that come later.
TEST(HistFormatTest, CsvHeaderFollowsTheGroupingEvenWithoutRows) {
  EXPECT_EQ(
      FormatHistCsv({}, HistGrouping::kPerDisk, HistUnit::kMicroseconds, true),
      "disk,bucket,lo_us,hi_us,count\n");
  EXPECT_EQ(
      FormatHistCsv({}, HistGrouping::kPerFlags, HistUnit::kMicroseconds, true),
      "op,bucket,lo_us,hi_us,count\n");
  EXPECT_EQ(FormatHistCsv({}, HistGrouping::kPerDiskAndFlags,
                          HistUnit::kMicroseconds, true),
            "disk,op,bucket,lo_us,hi_us,count\n");
  HistGroup later{"loop3", "", Data(2, 1, 12, 4096)};
  EXPECT_EQ(FormatHistCsv({later}, HistGrouping::kPerDisk,
                          HistUnit::kMicroseconds, false),
            "loop3,0,0,1,0\nloop3,1,2,3,2\n");
}

TEST(HistFormatTest, JsonIsOneValidObjectPerReport) {
  HistGroup g{"vda", "WS", Data(5, 14, 13, 8192)};
  g.data.slow = 5;
  g.data.errors = 2;
  std::string line = FormatHistJson({g}, HistUnit::kMicroseconds,
                                    "2026-11-21T06:00:00.000000000Z", 1.5);
  ASSERT_EQ(line.back(), '\n');
  nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["type"], "histogram");
  EXPECT_EQ(j["unit"], "us");
  ASSERT_EQ(j["histograms"].size(), 1u);
  const auto& h = j["histograms"][0];
  EXPECT_EQ(h["disk"], "vda");
  EXPECT_EQ(h["op"], "WS");
  EXPECT_EQ(h["count"], 5);
  EXPECT_EQ(h["bytes"], 40960);
  EXPECT_EQ(h["slow"], 5);
  EXPECT_EQ(h["errors"], 2);
  ASSERT_EQ(h["latency"].size(), 1u);
  EXPECT_EQ(h["latency"][0]["lo"], 16384);
  EXPECT_EQ(h["latency"][0]["hi"], 32767);
  EXPECT_EQ(h["latency"][0]["count"], 5);
  EXPECT_EQ(h["size_bytes"][0]["lo"], 8192);
}

}  // namespace
}  // namespace biosnoop
