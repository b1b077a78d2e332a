#include "metrics_text.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

// One sample line: name, the labels as written between the braces, value.
struct Sample {
  std::string name, labels, value;
};

// The samples of `text` by "name{labels}", checking the format on the way:
// every family has HELP then TYPE before its samples, and its samples are
// together (the Prometheus parser refuses a family split in two).
std::map<std::string, std::string> Samples(
    const std::string& text,
    std::map<std::string, std::string>* types = nullptr) {
  std::map<std::string, std::string> out;
  std::set<std::string> done;
  std::string family, help_of;
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words[0] == "#") {
      EXPECT_GE(words.size(), 4u) << line;
      if (words[1] == "HELP") {
        EXPECT_FALSE(done.count(words[2])) << "family split: " << line;
        if (!family.empty()) done.insert(family);
        help_of = words[2];
      } else {
        EXPECT_EQ(words[1], "TYPE") << line;
        EXPECT_EQ(words[2], help_of) << "TYPE without HELP first: " << line;
        family = words[2];
        if (types != nullptr) (*types)[family] = words[3];
      }
      continue;
    }
    const size_t brace = line.find('{');
    const size_t space = line.rfind(' ');
    const std::string name(
        line.substr(0, brace == absl::string_view::npos ? space : brace));
    EXPECT_EQ(name.rfind(family, 0), 0u)
        << "sample outside its family: " << line;
    out[std::string(line.substr(0, space))] =
        std::string(line.substr(space + 1));
  }
  return out;
}

HistGroup Group(const std::string& disk, const std::string& op) {
  HistGroup g;
  g.disk = disk;
  g.op = op;
  return g;
}

TEST(MetricsTextTest, BucketBoundsAreTheLog2MicrosecondBoundsInSeconds) {
  EXPECT_EQ(LatencyBucketLe(0), "0.000002");  // 0 and 1 us
  EXPECT_EQ(LatencyBucketLe(1), "0.000004");
  EXPECT_EQ(LatencyBucketLe(9), "0.001024");
  EXPECT_EQ(LatencyBucketLe(13), "0.016384");
  EXPECT_EQ(LatencyBucketLe(14), "0.032768");  // 20 ms lands here
  EXPECT_EQ(LatencyBucketLe(19), "1.048576");
  EXPECT_EQ(LatencyBucketLe(30), "2147.483648");
}

TEST(MetricsTextTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsSnapshot m;
  HistGroup g = Group("vda", "read");
  g.data.latency[0] = 1;   // <= 2 us
  g.data.latency[3] = 2;   // 8..15 us
  g.data.latency[14] = 5;  // 16.384..32.767 ms
  g.data.latency[31] = 1;  // open-ended: +Inf only
  g.data.count = 9;
  g.data.latency_ns = 123456789012;
  m.groups.push_back(g);
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(types["biosnoop_io_latency_seconds"], "histogram");
  const std::string b =
      "biosnoop_io_latency_seconds_bucket{disk=\"vda\","
      "op=\"read\",le=";
  EXPECT_EQ(s[b + "\"0.000002\"}"], "1");
  EXPECT_EQ(s[b + "\"0.000008\"}"], "1");
  EXPECT_EQ(s[b + "\"0.000016\"}"], "3");
  EXPECT_EQ(s[b + "\"0.016384\"}"], "3");
  EXPECT_EQ(s[b + "\"0.032768\"}"], "8");
  EXPECT_EQ(s[b + "\"2147.483648\"}"], "8");
  EXPECT_EQ(s[b + "\"+Inf\"}"], "9");
  EXPECT_EQ(s["biosnoop_io_latency_seconds_sum{disk=\"vda\",op=\"read\"}"],
            "123.456789012");
  EXPECT_EQ(s["biosnoop_io_latency_seconds_count{disk=\"vda\",op=\"read\"}"],
            "9");
  // 31 bounded buckets and +Inf, each bound once, rising.
  int buckets = 0;
  uint64_t last = 0;
  for (int i = 0; i + 1 < kHistBuckets; ++i) {
    const std::string key = b + "\"" + LatencyBucketLe(i) + "\"}";
    ASSERT_TRUE(s.count(key)) << key;
    const uint64_t v = std::stoull(s[key]);
    EXPECT_GE(v, last) << key;
    last = v;
    ++buckets;
  }
  EXPECT_EQ(buckets, 31);
}

TEST(MetricsTextTest, CountsComeFromTheBucketsWhenTheReadMetAHalfCountedIo) {
  MetricsSnapshot m;
  HistGroup g = Group("vda", "write");
  g.data.count = 4;  // one more than the buckets: read mid-update
  g.data.latency[5] = 3;
  m.groups.push_back(g);
  std::map<std::string, std::string> s = Samples(FormatMetrics(m));
  EXPECT_EQ(s["biosnoop_io_latency_seconds_bucket{disk=\"vda\",op=\"write\","
              "le=\"+Inf\"}"],
            "3");
  EXPECT_EQ(s["biosnoop_io_latency_seconds_count{disk=\"vda\",op=\"write\"}"],
            "3");
  EXPECT_EQ(s["biosnoop_io_total{disk=\"vda\",op=\"write\"}"], "4");
}

TEST(MetricsTextTest, IoCountersPerDiskAndOp) {
  MetricsSnapshot m;
  HistGroup r = Group("vda", "read");
  r.data.count = 10;
  r.data.bytes = 40960;
  r.data.slow = 3;
  r.data.errors = 1;
  HistGroup w = Group("nvme0n1", "write");
  w.data.count = 2;
  w.data.bytes = 8192;
  m.groups = {w, r};
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["biosnoop_io_total{disk=\"vda\",op=\"read\"}"], "10");
  EXPECT_EQ(s["biosnoop_io_bytes_total{disk=\"vda\",op=\"read\"}"], "40960");
  EXPECT_EQ(s["biosnoop_io_slow_total{disk=\"vda\",op=\"read\"}"], "3");
  EXPECT_EQ(s["biosnoop_io_errors_total{disk=\"vda\",op=\"read\"}"], "1");
  EXPECT_EQ(s["biosnoop_io_bytes_total{disk=\"nvme0n1\",op=\"write\"}"],
            "8192");
  EXPECT_EQ(s["biosnoop_io_errors_total{disk=\"nvme0n1\",op=\"write\"}"], "0");
  for (const char* c : {"biosnoop_io_total", "biosnoop_io_bytes_total",
                        "biosnoop_io_slow_total", "biosnoop_io_errors_total"}) {
    EXPECT_EQ(types[c], "counter") << c;
  }
}

TEST(MetricsTextTest, EveryStatsCounterAndItsLossCountersAreCounters) {
  MetricsSnapshot m;
  m.stats.completions = 1;
  m.stats.emitted = 2;
  m.stats.written = 3;
  m.stats.lost = 4;
  m.stats.orphans = 5;
  m.stats.below_threshold = 6;
  m.stats.filtered = 7;
  m.stats.decode_errors = 8;
  m.stats.expired = 9;
  m.stats.dropped = 10;
  m.stats.missed = 11;
  m.stats.unfinished = 12;
  m.stuck = 13;
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m), &types);
  const std::map<std::string, std::string> want = {
      {"biosnoop_completions_total", "1"},
      {"biosnoop_emitted_total", "2"},
      {"biosnoop_written_total", "3"},
      {"biosnoop_lost_total", "4"},
      {"biosnoop_orphans_total", "5"},
      {"biosnoop_below_threshold_total", "6"},
      {"biosnoop_filtered_total", "7"},
      {"biosnoop_decode_errors_total", "8"},
      {"biosnoop_expired_total", "9"},
      {"biosnoop_dropped_total", "10"},
      {"biosnoop_missed_total", "11"},
      {"biosnoop_unfinished_total", "12"},
      {"biosnoop_stuck_total", "13"}};
  for (const auto& [name, value] : want) {
    EXPECT_EQ(s[name], value) << name;
    EXPECT_EQ(types[name], "counter") << name;
  }
}

// --ops: the op counters, served from the start of an --ops run (zeros
// included), and not at all without it.
TEST(MetricsTextTest, OpCountersWithOpsOnly) {
  MetricsSnapshot m;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m));
  EXPECT_EQ(s.count("biosnoop_ops_written_total"), 0u);
  EXPECT_EQ(s.count("biosnoop_ops_lost_total"), 0u);
  m.ops = true;
  s = Samples(FormatMetrics(m));
  EXPECT_EQ(s["biosnoop_ops_written_total"], "0");
  m.stats.ops_written = 21;
  m.stats.ops_lost = 2;
  m.stats.ops_untracked = 3;
  m.stats.ops_unfollowed = 4;
  std::map<std::string, std::string> types;
  s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["biosnoop_ops_written_total"], "21");
  EXPECT_EQ(s["biosnoop_ops_lost_total"], "2");
  EXPECT_EQ(s["biosnoop_ops_untracked_total"], "3");
  EXPECT_EQ(s["biosnoop_ops_unfollowed_total"], "4");
  for (const char* name :
       {"biosnoop_ops_written_total", "biosnoop_ops_lost_total",
        "biosnoop_ops_untracked_total", "biosnoop_ops_unfollowed_total"}) {
    EXPECT_EQ(types[name], "counter") << name;
  }
}

TEST(MetricsTextTest, LedgerCountersWithTheLedgerOnly) {
  MetricsSnapshot m;
  m.stats.ledger_misses = 4;
  m.stats.ledger_replaced = 9;
  m.stats.ledger_stale = 2;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m));
  EXPECT_EQ(s.count("biosnoop_ledger_misses_total"), 0u);
  EXPECT_EQ(s.count("biosnoop_ledger_replaced_total"), 0u);
  EXPECT_EQ(s.count("biosnoop_ledger_stale_total"), 0u);
  m.ledger = true;
  std::map<std::string, std::string> types;
  s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["biosnoop_ledger_misses_total"], "4");
  EXPECT_EQ(s["biosnoop_ledger_replaced_total"], "9");
  EXPECT_EQ(s["biosnoop_ledger_stale_total"], "2");
  EXPECT_EQ(types["biosnoop_ledger_misses_total"], "counter");
  EXPECT_EQ(types["biosnoop_ledger_replaced_total"], "counter");
  EXPECT_EQ(types["biosnoop_ledger_stale_total"], "counter");
}

TEST(MetricsTextTest, NoIoYetStillDescribesTheFamilies) {
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> s =
      Samples(FormatMetrics(MetricsSnapshot{}), &types);
  EXPECT_EQ(types["biosnoop_io_latency_seconds"], "histogram");
  EXPECT_EQ(s["biosnoop_lost_total"], "0");
  for (const auto& [key, value] : s) {
    if (key.rfind("biosnoop_build_info{", 0) == 0) continue;
    EXPECT_EQ(key.find("{"), std::string::npos) << key;
  }
}

// What every exporter serves: its build, and its process's CPU, memory and
// descriptors under the names Prometheus's client libraries give them.
TEST(MetricsTextTest, BuildInfoAndProcessMetrics) {
  MetricsSnapshot m;
  m.version = "0.1.0";
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["biosnoop_build_info{version=\"0.1.0\"}"], "1");
  EXPECT_EQ(types["biosnoop_build_info"], "gauge");
  EXPECT_EQ(types.count("process_cpu_seconds_total"), 0u)
      << "process metrics without a reading of /proc";

  ProcessMetrics p;
  p.cpu_seconds = 1.25;
  p.resident_bytes = 12 << 20;
  p.virtual_bytes = uint64_t{300} << 20;
  p.open_fds = 17;
  p.start_time_seconds = 1767225600.5;
  m.process = p;
  s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["process_cpu_seconds_total"], "1.25");
  EXPECT_EQ(s["process_resident_memory_bytes"], "12582912");
  EXPECT_EQ(s["process_virtual_memory_bytes"], "314572800");
  EXPECT_EQ(s["process_open_fds"], "17");
  EXPECT_EQ(s["process_start_time_seconds"], "1767225600.5");
  EXPECT_EQ(s.count("process_max_fds"), 0u) << "no limit, no gauge";
  EXPECT_EQ(types["process_cpu_seconds_total"], "counter");
  for (const char* g :
       {"process_resident_memory_bytes", "process_virtual_memory_bytes",
        "process_open_fds", "process_start_time_seconds"}) {
    EXPECT_EQ(types[g], "gauge") << g;
  }
  m.process->max_fds = 1048576;
  m.process->cpu_seconds = 0.1 + 0.2;  // the shortest text that reads back
  s = Samples(FormatMetrics(m), &types);
  EXPECT_EQ(s["process_max_fds"], "1048576");
  EXPECT_EQ(types["process_max_fds"], "gauge");
  EXPECT_EQ(std::stod(s["process_cpu_seconds_total"]), 0.1 + 0.2);
}

TEST(MetricsTextTest, LabelValuesAreEscapedAndValidUtf8) {
  EXPECT_EQ(MetricsLabelValue("vda"), "\"vda\"");
  EXPECT_EQ(MetricsLabelValue("254:0"), "\"254:0\"");
  EXPECT_EQ(MetricsLabelValue("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(MetricsLabelValue("x\xff"), "\"x\xef\xbf\xbd\"");  // U+FFFD
  EXPECT_EQ(MetricsLabelValue("d\xc3\xa9"), "\"d\xc3\xa9\"");  // kept
  MetricsSnapshot m;
  m.groups.push_back(Group("we\"ird\\", "read"));
  std::map<std::string, std::string> s = Samples(FormatMetrics(m));
  EXPECT_TRUE(s.count("biosnoop_io_total{disk=\"we\\\"ird\\\\\",op=\"read\"}"));
}

}  // namespace
}  // namespace biosnoop
