// The baseline report (summary records): percentile estimates from log2
// histograms, which intervals and groups the filters select, how they
// merge, and what the CLI says for streams without summaries, with
// several thresholds, and for options that do not apply.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "baseline.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"
#include "record_writer.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::GoldenPath;
using test_util::RunCli;

TEST(BioreportBaselineTest, PercentileIsTheUpperBoundOfTheRanksBucket) {
  Log2Hist h{};
  EXPECT_FALSE(EstimatePercentileUs(h, 500).has_value());
  h[0] = 1;  // 0 or 1 us
  EXPECT_EQ(EstimatePercentileUs(h, 500), 1u);
  h = {};
  h[3] = 98;  // 8..15 us
  h[10] = 2;  // 1024..2047 us
  EXPECT_EQ(EstimatePercentileUs(h, 500), 15u);
  EXPECT_EQ(EstimatePercentileUs(h, 980), 15u);    // rank 98
  EXPECT_EQ(EstimatePercentileUs(h, 990), 2047u);  // rank 99
  EXPECT_EQ(EstimatePercentileUs(h, 1000), 2047u);
  // Counts near 2^64 in several buckets: no overflow.
  h = {};
  h[5] = std::numeric_limits<uint64_t>::max();
  h[63] = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(EstimatePercentileUs(h, 500), 63u);
  EXPECT_EQ(EstimatePercentileUs(h, 990), std::numeric_limits<uint64_t>::max());
}

// A summary group of `us` latencies, as biosnoop writes it: log2
// microsecond buckets, and fine buckets at `schema` unless it is negative.
v1::SummaryGroup GroupOf(const std::vector<double>& us, int schema) {
  v1::SummaryGroup g;
  g.set_disk("vdb");
  g.set_op("read");
  g.set_count(us.size());
  std::vector<uint64_t> log2(32), fine;
  std::map<int, uint64_t> buckets;
  for (double v : us) {
    const auto whole = static_cast<uint64_t>(v);
    ++log2[whole < 2 ? 0 : 63 - __builtin_clzll(whole)];
    if (schema >= 0) {
      ++buckets[static_cast<int>(
          std::ceil(std::log2(v / 1e6) * (1 << schema)))];
    }
  }
  while (!log2.empty() && log2.back() == 0) log2.pop_back();
  for (uint64_t n : log2) g.add_latency_us_log2(n);
  if (schema >= 0) {
    g.set_latency_fine_schema(schema);
    g.set_latency_fine_first(buckets.begin()->first);
    for (int k = buckets.begin()->first; k <= buckets.rbegin()->first; ++k) {
      g.add_latency_fine(buckets.count(k) ? buckets.at(k) : 0);
    }
  }
  return g;
}

// The two modes: 3 of 4 reads ~0.1 ms, 1 in 4 ~20 ms, the second
// mode narrow (20.05-20.4 ms) with a tail to 23 ms.  From the fine
// buckets every percentile is within 4.43% of the true one (the value of
// its rank); from the log2 buckets p99 reads 32767 us (+61%).
TEST(BioreportBaselineTest, FineBucketsGivePercentilesWithinFivePercent) {
  std::vector<double> us;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  auto unit = [&x] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return static_cast<double>(x >> 11) / static_cast<double>(1ull << 53);
  };
  for (int i = 0; i < 20000; ++i) {
    const double u = unit();
    us.push_back(i % 4 != 0    ? 80 + 60 * u
                 : i % 40 == 0 ? 20400 + 2600 * u
                               : 20050 + 350 * u);
  }
  BaselineCollector c(Filter{});
  v1::StreamHeader h;
  h.set_host("db7");
  c.AddHeader(h);
  v1::Summary s;
  s.mutable_timestamp()->set_seconds(1795239900);
  s.set_interval_s(60);
  *s.add_groups() = GroupOf(us, 4);
  c.Add(s);
  const std::vector<BaselineGroup> merged = c.Merged();
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_TRUE(HasFineBuckets(merged[0]));
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  for (int permille : {500, 900, 990, 999}) {
    const double truth = sorted[(sorted.size() * permille + 999) / 1000 - 1];
    const std::optional<uint64_t> est =
        EstimatePercentileUs(merged[0], permille);
    ASSERT_TRUE(est.has_value());
    EXPECT_NEAR(*est / truth, 1.0, 0.0443)
        << "p" << permille / 10.0 << ": true " << truth << " us";
  }
  EXPECT_EQ(EstimatePercentileUs(merged[0].latency, 990), 32767u);
}

// A group whose summaries do not all have fine buckets (an older
// biosnoop's interval beside a newer one's) falls back on the log2 ones;
// fine buckets at two schemas add up at the coarser.
TEST(BioreportBaselineTest, FineBucketsOnlyWhenEveryIntervalHasThem) {
  const std::vector<double> us = {100, 110, 120, 20100, 20200};
  BaselineGroup fine4, fine3, old;
  {
    BaselineCollector c(Filter{});
    v1::StreamHeader h;
    c.AddHeader(h);
    v1::Summary s;
    s.set_interval_s(60);
    for (int schema : {4, 3, -1}) {
      s.mutable_timestamp()->set_seconds(1795239900 + 60 * (schema + 2));
      s.clear_groups();
      *s.add_groups() = GroupOf(us, schema);
      c.Add(s);
    }
    ASSERT_EQ(c.intervals().size(), 3u);
    fine4 = c.intervals()[0].groups[0];
    fine3 = c.intervals()[1].groups[0];
    old = c.intervals()[2].groups[0];
  }
  EXPECT_TRUE(HasFineBuckets(fine4));
  EXPECT_FALSE(HasFineBuckets(old));
  BaselineGroup both = fine4;
  both.Add(fine3);
  ASSERT_TRUE(HasFineBuckets(both));
  EXPECT_EQ(both.fine_schema, 3);
  EXPECT_EQ(both.fine_total, 10u);
  // 20.1 and 20.2 ms at schema 3 are bucket -45 (18.58-20.26 ms).
  EXPECT_EQ(both.fine.at(-45), 4u);
  BaselineGroup mixed = fine4;
  mixed.Add(old);
  EXPECT_FALSE(HasFineBuckets(mixed));
  EXPECT_EQ(EstimatePercentileUs(mixed, 990),
            EstimatePercentileUs(mixed.latency, 990));
}

v1::Summary MakeSummary(int64_t end_s, double interval_s, uint64_t min_us) {
  v1::Summary s;
  s.mutable_timestamp()->set_seconds(end_s);
  s.set_interval_s(interval_s);
  s.set_min_us(min_us);
  for (const char* disk : {"sda", "vda"}) {
    for (const char* op : {"read", "write"}) {
      v1::SummaryGroup* g = s.add_groups();
      g->set_disk(disk);
      g->set_op(op);
      g->set_count(100);
      g->set_bytes(409600);
      g->set_slow(1);
      for (int b = 0; b < 10; ++b) g->add_latency_us_log2(b == 6 ? 99 : 0);
      g->add_latency_us_log2(1);  // bucket 10
    }
  }
  return s;
}

TEST(BioreportBaselineTest, FiltersSelectIntervalsByEndAndGroupsByDiskAndOp) {
  Filter filter;
  filter.since_ns = int64_t{1060} * 1'000'000'000;  // inclusive
  filter.until_ns = int64_t{1180} * 1'000'000'000;  // exclusive
  filter.disk = "vda";
  BaselineCollector b(filter);
  for (int64_t end = 1000; end <= 1240; end += 60)
    b.Add(MakeSummary(end, 60, 10000));
  EXPECT_EQ(b.records_seen(), 5u);
  ASSERT_EQ(b.intervals().size(), 2u);  // ends 1060 and 1120
  EXPECT_EQ(b.window_start_ns(), int64_t{1000} * 1'000'000'000);
  EXPECT_EQ(b.window_end_ns(), int64_t{1120} * 1'000'000'000);
  EXPECT_DOUBLE_EQ(b.covered_s(), 120);
  EXPECT_EQ(b.intervals()[0].groups.size(), 2u);  // vda read, vda write
  const std::vector<BaselineGroup> merged = b.Merged();
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].disk, "vda");
  EXPECT_EQ(merged[0].op, "read");
  EXPECT_EQ(merged[0].count, 200u);
  EXPECT_EQ(merged[0].slow, 2u);
  EXPECT_EQ(merged[0].latency[6], 198u);
  EXPECT_EQ(merged[0].latency[10], 2u);
  EXPECT_EQ(EstimatePercentileUs(merged[0].latency, 990), 127u);
  EXPECT_TRUE(b.OneThreshold());

  // A partition name matches no group (summaries name whole disks), and
  // --op selects groups too.
  filter = Filter{};
  filter.disk = "vda1";
  BaselineCollector partition(filter);
  partition.Add(MakeSummary(1000, 60, 10000));
  EXPECT_EQ(partition.intervals().size(), 1u);
  EXPECT_TRUE(partition.intervals()[0].groups.empty());
  filter = Filter{};
  filter.op = "write";
  BaselineCollector writes(filter);
  writes.Add(MakeSummary(1000, 60, 10000));
  EXPECT_EQ(writes.Merged().size(), 2u);
  EXPECT_EQ(writes.Merged()[1].disk, "vda");
}

TEST(BioreportBaselineTest, DifferentThresholdsAreNotMerged) {
  BaselineCollector b{Filter{}};
  b.Add(MakeSummary(1000, 60, 10000));
  b.Add(MakeSummary(1060, 60, 5000));
  EXPECT_FALSE(b.OneThreshold());
  const std::vector<BaselineGroup> merged = b.Merged();
  ASSERT_EQ(merged.size(), 8u);
  EXPECT_EQ(merged[0].min_us, 5000u);
  EXPECT_EQ(merged[1].min_us, 10000u);
  EXPECT_EQ(merged[0].count, 100u);
}

TEST(BioreportBaselineTest, HugeOrNegativeIntervalsDoNotOverflow) {
  BaselineCollector b{Filter{}};
  b.Add(MakeSummary(1000, 1e300, 0));
  b.Add(MakeSummary(2000, -5, 0));
  ASSERT_EQ(b.intervals().size(), 2u);
  EXPECT_EQ(b.intervals()[0].start_ns, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(b.intervals()[1].start_ns, b.intervals()[1].end_ns);
}

// Summaries at both ends of the time range a reader accepts (1678 and
// 2262): the window is 584 years, more than int64 nanoseconds can hold
// as a difference, and almost all of it uncovered.
TEST(BioreportBaselineTest, WindowWiderThanInt64NanosecondsIsMeasuredRight) {
  test_util::TempDir dir;
  std::string data;
  for (int64_t end_s : {int64_t{-9'223'371'000}, int64_t{9'223'372'000}}) {
    ParsedRecord rec;
    rec.kind = RecordKind::kSummary;
    rec.summary = MakeSummary(end_s, 60, 10000);
    EXPECT_TRUE(AppendRecordJson(rec, &data).ok());
  }
  test_util::WriteFile(dir.Path("s.jsonl"), data);
  CliResult r = RunCli({"baseline", dir.Path("s.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.out.find("(120.0 s in 2 intervals)\nnot covered: 18446742940.0 s "),
      std::string::npos)
      << r.out;
  r = RunCli({"baseline", "--json", dir.Path("s.jsonl")});
  EXPECT_NE(r.out.find("\"covered_s\":120.000,"), std::string::npos) << r.out;
}

// A summary whose interval_s is absurd is a corrupt record: the report
// never sums it (it made "covered_s":inf, which is not JSON).
TEST(BioreportBaselineTest, AbsurdIntervalIsACorruptRecord) {
  test_util::TempDir dir;
  std::string data;
  for (double interval_s : {1e308, 1e308, 60.0}) {
    ParsedRecord rec;
    rec.kind = RecordKind::kSummary;
    rec.summary = MakeSummary(1795239900, interval_s, 10000);
    EXPECT_TRUE(AppendRecordJson(rec, &data).ok());
  }
  test_util::WriteFile(dir.Path("s.jsonl"), data);
  const CliResult r = RunCli({"baseline", "--json", dir.Path("s.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"summary_records\":1,\"intervals\":1,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"covered_s\":60.000,"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("WARNING:   2 corrupt records skipped"),
            std::string::npos)
      << r.err;
}

// Summary counters near 2^64 (absurd, but the reader accepts any uint64):
// summed over intervals, exactly, not capped at 2^64 - 1.
TEST(BioreportBaselineTest, SumsBeyond64BitsAreExact) {
  test_util::TempDir dir;
  std::string data;
  for (int64_t end_s : {1795239900, 1795239960}) {
    ParsedRecord rec;
    rec.kind = RecordKind::kSummary;
    rec.summary = MakeSummary(end_s, 60, 10000);
    rec.summary.mutable_groups()->DeleteSubrange(1, 3);  // sda read only
    v1::SummaryGroup* g = rec.summary.mutable_groups(0);
    g->set_count(std::numeric_limits<uint64_t>::max());
    g->set_bytes(std::numeric_limits<uint64_t>::max());
    g->set_slow(std::numeric_limits<uint64_t>::max() - 1);
    g->set_latency_us_log2(6, std::numeric_limits<uint64_t>::max() - 1);
    EXPECT_TRUE(AppendRecordJson(rec, &data).ok());
  }
  test_util::WriteFile(dir.Path("s.jsonl"), data);
  CliResult r = RunCli({"baseline", "--csv", dir.Path("s.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(",sda,read,10000,36893488147419103230,"
                       "36893488147419103230,36893488147419103228,100.0000,"),
            std::string::npos)
      << r.out;
  r = RunCli({"baseline", "--json", dir.Path("s.jsonl")});
  EXPECT_NE(r.out.find("\"count\":36893488147419103230,\"bytes\":"
                       "36893488147419103230,\"slow\":36893488147419103228,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"latency_us_log2\":[0,0,0,0,0,0,36893488147419103228,"
                       "0,0,0,2]"),
            std::string::npos)
      << r.out;
  r = RunCli({"baseline", dir.Path("s.jsonl")});
  EXPECT_NE(r.out.find("(36893488147419103228 of 36893488147419103230)"),
            std::string::npos)
      << r.out;
}

// The text form's rows, "all" included, are the scripts' rows too.
TEST(BioreportBaselineTest, CsvAndJsonHaveTheAllRowOfTheText) {
  const std::string golden = GoldenPath("events.jsonl");
  const std::string text = RunCli({"baseline", golden}).out;
  ASSERT_NE(text.find("\nall      all       4003   403  10.07%"),
            std::string::npos)
      << text;
  CliResult r = RunCli({"baseline", "--csv", golden});
  EXPECT_NE(r.out.find("\n2026-11-21T05:00:00.000000000Z,"
                       "2026-11-21T05:00:01.373849367Z,all,all,10000,4003,"),
            std::string::npos)
      << r.out;
  r = RunCli({"baseline", "--json", golden});
  EXPECT_NE(r.out.find("\"disk\":\"all\",\"op\":\"all\",\"min_us\":10000,"
                       "\"count\":4003,"),
            std::string::npos)
      << r.out;
  // No "all" row where the text has none: per interval.
  r = RunCli({"baseline", "--csv", "--per-interval", golden});
  EXPECT_EQ(r.out.find(",all,all,"), std::string::npos) << r.out;
}

// The same log twice, or overlapping files: each summary record once (the
// same run's interval ending at the same time), and said.
TEST(BioreportBaselineTest, SummaryRecordsGivenTwiceCountOnceWithAWarning) {
  const std::string golden = GoldenPath("events.jsonl");
  const std::string once = RunCli({"baseline", "--csv", golden}).out;
  test_util::TempDir dir;
  const std::string data = test_util::ReadFile(golden);
  // The second file overlaps the first: its last three summaries.
  const size_t cut =
      data.find("\"type\":\"summary\",\"timestamp\":\"2026-11-21T05:00:01.17");
  ASSERT_NE(cut, std::string::npos);
  test_util::WriteFile(dir.Path("tail.jsonl"),
                       data.substr(0, data.find('\n') + 1) +
                           data.substr(data.rfind('\n', cut) + 1));
  for (const std::vector<std::string>& inputs :
       std::vector<std::vector<std::string>>{
           {golden, golden}, {golden, dir.Path("tail.jsonl")}}) {
    std::vector<std::string> args = {"baseline", "--csv"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, once);
    const std::string n = inputs[1] == golden ? "4" : "3";
    EXPECT_NE(r.err.find(absl::StrCat("WARNING:   ", n,
                                      " summary records are in the input more "
                                      "than once (the same log given twice?): "
                                      "each counted once")),
              std::string::npos)
        << r.err;
    args[1] = "--json";
    r = RunCli(args);
    EXPECT_NE(r.out.find(absl::StrCat(
                  "{\"summary_records\":", inputs[1] == golden ? 8 : 7,
                  ",\"intervals\":4,")),
              std::string::npos)
        << r.out;
    EXPECT_NE(
        r.out.find(absl::StrCat(",\"duplicate_records\":", n, ",\"rows\":[")),
        std::string::npos)
        << r.out;
    args.erase(args.begin() + 1);
    r = RunCli(args);
    EXPECT_NE(r.out.find(absl::StrCat(
                  n, " summary records are in the input more than once")),
              std::string::npos)
        << r.out;
  }
}

// The lines of the golden stream that are not summaries.
std::string WithoutSummaries() {
  const std::string data = test_util::ReadFile(GoldenPath("events.jsonl"));
  std::string out;
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t nl = data.find('\n', pos);
    const std::string line = data.substr(pos, nl + 1 - pos);
    if (line.find("\"type\":\"summary\"") == std::string::npos) out += line;
    pos = nl + 1;
  }
  return out;
}

TEST(BioreportBaselineTest, EventsOnlyStreamSaysSo) {
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("old.jsonl"), WithoutSummaries());
  CliResult r = RunCli({"baseline", dir.Path("old.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "inputs: 1 (jsonl), summary records: 0, in the window: 0\n\n"
            "no summary records in this stream (biosnoop writes them with "
            "--summary-interval)\n");
  // Scripts get an empty table, the reason on stderr.
  r = RunCli({"baseline", "--csv", dir.Path("old.jsonl")});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            "start,end,disk,op,min_us,count,bytes,slow,slow_pct,p50_us_est,"
            "p99_us_est,errors,p90_us_est,p99_9_us_est\n");
  EXPECT_NE(r.err.find("bioreport: no summary records in this stream"),
            std::string::npos)
      << r.err;
  // The other reports do not mention summaries then.
  r = RunCli({"summary", dir.Path("old.jsonl")});
  EXPECT_EQ(r.out.find("summaries"), std::string::npos) << r.out;
}

TEST(BioreportBaselineTest, SeveralThresholdsGetAColumnAndNoTotal) {
  test_util::TempDir dir;
  std::string data;
  for (const auto& [end, min_us] :
       {std::pair{1795239900, 10000}, {1795239960, 5000}}) {
    ParsedRecord rec;
    rec.kind = RecordKind::kSummary;
    rec.summary = MakeSummary(end, 60, min_us);
    rec.summary.mutable_groups()->DeleteSubrange(1, 3);  // sda read only
    EXPECT_TRUE(AppendRecordJson(rec, &data).ok());
  }
  test_util::WriteFile(dir.Path("s.jsonl"), data);
  const CliResult r = RunCli({"baseline", dir.Path("s.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("slow: at least min_us, the threshold of each run\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("disk  op    min_us  count  slow  slow_%  errors      "
                       "bytes  p50_us  p90_us  p99_us  p99.9_us\n"
                       "sda   read    5000    100     1   1.00%       0  "
                       "400.0 KiB     127     127     127      2047\n"
                       "sda   read   10000    100     1   1.00%       0  "
                       "400.0 KiB     127     127     127      2047\n\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("  1.00% of reads on sda took 5 ms or more (1 of 100)\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("all  "), std::string::npos) << r.out;
  // The stream has no stats: loss warnings are about events, not here.
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
}

TEST(BioreportBaselineTest, OptionsThatDoNotApplyAreUsageErrors) {
  const std::vector<std::vector<std::string>> cases = {
      {"baseline", "--pid", "1"},
      {"baseline", "--comm", "fio"},
      {"baseline", "--min-us", "5"},
      {"baseline", "--csv", "--json"},
      {"summary", "--per-interval"},
      {"hist", "--csv"},
      {"--json"},
  };
  for (const auto& args : cases) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, kExitUsage) << absl::StrCat(args[0], " ", args[1]);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  EXPECT_NE(RunCli({"baseline", "--pid", "1"})
                .err.find("--pid does not apply to baseline"),
            std::string::npos);
}

}  // namespace
}  // namespace biosnoop::report
