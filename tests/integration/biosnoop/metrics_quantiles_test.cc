// Issue #40's check of percentiles: a slow disk with two latency modes
// (75% of 4 KiB reads ~0.1 ms, 25% ~20 ms), fio reading it at queue depth
// 1 (~200 IOPS), biosnoop serving metrics to a real Prometheus (Debian's
// 2.42, native histograms on), and the percentiles Prometheus computes
// from the native histogram held to the block layer's own latencies of
// the same reads, and set beside fio's.
//
// What is compared with what, and why:
//   - the truth is the block layer's latency of every read, issue to
//     completion, from a second biosnoop logging every I/O (--min-us 0;
//     its latencies are the kernel's, checked against the kernel's own
//     blktrace in blktrace_truth_test.cc).  That is what the histogram
//     counts;
//   - fio's clat is that plus the time from the completion to fio's
//     thread seeing it (and for psync the system call's entry): measured
//     here 20-40 us more at the median, a third of the 0.1 ms mode, and
//     0.1-1% at 20 ms.  So fio's figures are printed beside the others,
//     and held to the truth only in the 20 ms mode (p90 and up); fio runs
//     at a real-time priority, so that a busy machine does not delay its
//     wake-ups;
//   - histogram_quantile interpolates linearly inside a bucket, and a
//     schema-4 bucket is 4.43% wide: the estimate lies in the bucket that
//     holds the true percentile, so within -4.24% to +4.43% of it, however
//     the latencies lie inside the bucket.  (At schema 3, 9.05% wide, a
//     mode as narrow as slowdisk's, 20.05-20.3 ms across the bucket bound
//     at 20.26 ms, put p99 up to 6.4% off.)  Each percentile is held to
//     its bucket and to 5% of the truth, and every error is printed.
//
// The run is one function (TwoModeRun) whose results other checks of the
// same run can use: the metrics biosnoop also writes its log of slow I/O
// (--min-us 10000, the summaries bioreport reads) to run.slow_log.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "metrics_proto.h"
#include "prometheus_server.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

constexpr double kQuantiles[] = {0.5, 0.9, 0.99, 0.999};
constexpr int kFioSeconds = 25;
constexpr char kProtoAccept[] =
    "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
    "encoding=delimited";

// What the run measured.
struct TwoModeRun {
  std::unique_ptr<TempDir> dir;
  std::string slow_log;    // the metrics biosnoop's -o (--min-us 10000)
  std::string disk_name;   // the two-mode disk (loopN)
  json fio;                // fio's JSON: jobs[0].read.clat_ns.percentile
  uint64_t fio_reads = 0;  // reads fio completed
  // Every read's block-layer latency, us, sorted (the second biosnoop).
  std::vector<uint64_t> truth_us;
  uint64_t truth_fio_reads = 0;  // of them, fio's
  uint64_t truth_missed = 0;     // completions the truth biosnoop missed
  // The metrics biosnoop's reads, as Prometheus has them at the end.
  double prometheus_count = 0;
  uint64_t metrics_missed = 0;
  std::map<double, double> prometheus;     // q -> histogram_quantile, seconds
  std::string text;                        // the text of a scrape at the end
  size_t text_bytes = 0, proto_bytes = 0;  // one scrape at the end
};

// The q-quantile of sorted values as Prometheus and fio rank it: the
// ceil(q n)-th smallest.
uint64_t Percentile(const std::vector<uint64_t>& sorted, double q) {
  const size_t rank = static_cast<size_t>(std::ceil(q * sorted.size()));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

// Native bucket index at the kernel's schema of a latency in seconds:
// bucket k holds (2^((k-1)/2^schema), 2^(k/2^schema)].
constexpr double kPerOctave = 1 << kFineSchema;
int NativeBucket(double seconds) {
  return static_cast<int>(std::ceil(std::log2(seconds) * kPerOctave - 1e-9));
}
double BucketUpper(int k) { return std::exp2(k / kPerOctave); }

void RunTwoModeDisk(TwoModeRun* run) {
  // A quarter of the disk holds reads 20 ms, the rest 50 us (plus the
  // FUSE round trip's ~40 us): random reads hit each by its share.
  SlowDisk disk({.size_mib = 64,
                 .read_delay_ms = 20,
                 .slow_region = "48M:16M",
                 .fast_delay_us = 50});
  ASSERT_TRUE(disk.ok()) << disk.error();
  run->dir = std::make_unique<TempDir>();
  ASSERT_FALSE(run->dir->path().empty());
  run->slow_log = run->dir->path() + "/slow.jsonl";
  run->disk_name = disk.loop_name();
  Biosnoop truth({"--min-us", "0", "-d", disk.loop_name(), "--stats-interval",
                  "1", "--summary-interval", "0"});
  ASSERT_TRUE(truth.WaitAttached()) << truth.Stderr();
  Biosnoop metrics({"--min-us", "10000", "-d", disk.loop_name(), "-o",
                    run->slow_log, "--metrics-listen", "0"});
  ASSERT_TRUE(metrics.WaitAttached()) << metrics.Stderr();
  const int port = MetricsPort(metrics);
  ASSERT_GT(port, 0) << metrics.Stderr();
  Prometheus prom(port, {"--enable-feature=native-histograms"});
  ASSERT_TRUE(prom.started()) << "could not start prometheus";

  // fio at a real-time priority (SCHED_FIFO): its clat includes its
  // thread's wake-up after each completion, which on a loaded machine
  // (both cores busy with builds) otherwise waits behind other tasks for
  // milliseconds, a few percent of the 20 ms mode's reads.
  const std::optional<std::string> out = CommandOutput(
      {"chrt", "--fifo", "10", "fio", "--output-format=json",
       "--name=two-modes", "--filename=" + disk.loop_path(), "--rw=randread",
       "--bs=4k", "--direct=1", "--ioengine=psync", "--time_based",
       absl::StrCat("--runtime=", kFioSeconds),
       "--percentile_list=50:90:99:99.9"});
  ASSERT_TRUE(out.has_value()) << "fio failed";
  run->fio = json::parse(*out);
  run->fio_reads = run->fio["jobs"][0]["read"]["total_ios"].get<uint64_t>();

  // fio has returned: every read has completed and is in the kernel's
  // counts (or counted as missed), which the endpoint serves within a
  // second.  Prometheus has them once it has scraped that count (the disk
  // is idle now).
  const std::string labels =
      absl::StrCat("{disk=\"", disk.loop_name(), "\",op=\"read\"}");
  std::string text;
  ASSERT_TRUE(WaitUntil(
      [&] {
        text = Scrape(port);
        return Sample(text, "biosnoop_io_total" + labels).value_or(0) +
                   Sample(text, "biosnoop_missed_total").value_or(0) >=
               static_cast<double>(run->fio_reads);
      },
      30000))
      << "awaited a scrape counting fio's " << run->fio_reads
      << " reads; last:\n"
      << text;
  const double served = *Sample(text, "biosnoop_io_total" + labels);
  const std::string series = "biosnoop_io_latency_seconds" + labels;
  std::string answer;
  const bool ingested = WaitUntil(
      [&] {
        run->prometheus_count =
            prom.Query("histogram_count(" + series + ")", &answer).value_or(-1);
        return run->prometheus_count == served;
      },
      30000);
  ASSERT_TRUE(ingested) << "awaited Prometheus's histogram_count(" << series
                        << ") == " << served << "; it said: " << answer
                        << "\ntargets: " << prom.Targets()
                        << "\nprometheus log:\n"
                        << prom.Log();
  for (double q : kQuantiles) {
    const std::optional<double> v = prom.Query(
        absl::StrCat("histogram_quantile(", q, ", ", series, ")"), &answer);
    ASSERT_TRUE(v.has_value()) << "histogram_quantile(" << q << "): " << answer;
    run->prometheus[q] = *v;
  }
  std::string type;
  run->proto_bytes = Scrape(port, 5, kProtoAccept, &type).size();
  EXPECT_EQ(type, kMetricsProtoContentType);
  run->text = Scrape(port);
  run->text_bytes = run->text.size();

  ASSERT_EQ(metrics.Stop(), 0) << metrics.Stderr();
  ASSERT_EQ(truth.Stop(), 0) << truth.Stderr();
  run->metrics_missed = static_cast<uint64_t>(metrics.Summary()["missed"]);
  run->truth_missed = static_cast<uint64_t>(truth.Summary()["missed"]);
  for (const json& e : truth.Events()) {
    if (e["op"] != "read") continue;
    run->truth_us.push_back(e["latency_us"]);
    run->truth_fio_reads += e["comm"] == "fio";
  }
  std::sort(run->truth_us.begin(), run->truth_us.end());
}

TEST(MetricsQuantiles, NativeHistogramPercentilesOfATwoModeDisk) {
  BIOSNOOP_REQUIRE_ROOT();
  TwoModeRun run;
  RunTwoModeDisk(&run);
  if (HasFatalFailure()) return;

  // Every read once: fio's in the truth, and the disk's (fio's and any
  // other's, a udev probe's) in both biosnoops, a completion either
  // missed (docs/reference/counters.md) aside.
  ASSERT_FALSE(run.truth_us.empty());
  EXPECT_LE(run.truth_fio_reads, run.fio_reads);
  EXPECT_GE(run.truth_fio_reads + run.truth_missed, run.fio_reads);
  EXPECT_EQ(run.prometheus_count + run.metrics_missed,
            static_cast<double>(run.truth_us.size() + run.truth_missed));
  // The two modes are there: a quarter of the reads (by the region's
  // share, within a few points) at 20 ms or more.
  const double slow_share =
      static_cast<double>(
          run.truth_us.end() -
          std::lower_bound(run.truth_us.begin(), run.truth_us.end(), 20000)) /
      run.truth_us.size();
  EXPECT_GT(slow_share, 0.20);
  EXPECT_LT(slow_share, 0.30);

  // The classic buckets, in the text every other scraper gets, as before.
  const ChildResult checked = PromtoolCheckMetrics(run.text);
  EXPECT_TRUE(ExitedWith(checked, 0)) << run.text;
  EXPECT_EQ(checked.output, "") << "promtool's lint:\n" << checked.output;

  const json& fio_pct = run.fio["jobs"][0]["read"]["clat_ns"]["percentile"];
  std::printf(
      "two-mode disk: %llu reads (fio), %.0f (Prometheus), %zu (block layer); "
      "scrape %zu B text, %zu B protobuf\n",
      static_cast<unsigned long long>(run.fio_reads), run.prometheus_count,
      run.truth_us.size(), run.text_bytes, run.proto_bytes);
  std::printf("%-7s %12s %12s %12s %10s %10s %10s\n", "", "block us",
              "native us", "fio us", "vs block", "vs fio", "fio-block");
  for (double q : kQuantiles) {
    const uint64_t truth = Percentile(run.truth_us, q);
    const double native = run.prometheus[q];
    const double fio =
        fio_pct[absl::StrFormat("%.6f", q * 100)].get<double>() / 1e3;
    const double vs_truth = native * 1e6 / truth - 1;
    const double vs_fio = native * 1e6 / fio - 1;
    std::printf("p%-6g %12llu %12.1f %12.1f %+9.1f%% %+9.1f%% %+9.1f%%\n",
                q * 100, static_cast<unsigned long long>(truth), native * 1e6,
                fio, vs_truth * 100, vs_fio * 100, (fio / truth - 1) * 100);

    // In the native bucket that holds the true percentile, or a
    // neighbour: the truth is whole microseconds, and the two biosnoops'
    // counts may differ by a missed completion, so a percentile within a
    // few us of a bucket edge (20252 us, 11 us under 20263, seen once)
    // may rank across it.  The 5% bound below holds either way.
    const int low = NativeBucket(truth / 1e6) - 1;
    const int high = NativeBucket((truth + 1) / 1e6) + 1;
    EXPECT_GE(native, BucketUpper(low - 1))
        << "p" << q * 100 << ": below the bucket of the true " << truth
        << " us";
    EXPECT_LE(native, BucketUpper(high))
        << "p" << q * 100 << ": above the bucket of the true " << truth
        << " us";
    // Inside the true percentile's bucket, 4.43% wide: within 5%.
    EXPECT_LT(std::fabs(vs_truth), 0.05) << "p" << q * 100;
    if (q >= 0.9 && q < 0.999) {
      // fio's clat agrees with the block layer in the 20 ms mode (its own
      // buckets are 1.3% wide there; its thread's wake-up is added, which
      // on a loaded machine may reach the last few reads: p99.9 is only
      // printed).
      EXPECT_LT(std::fabs(fio / truth - 1), 0.05)
          << "p" << q * 100 << ": fio " << fio << " us, block " << truth
          << " us";
    }
  }

  // The same percentiles from the summary records of the --min-us 10000
  // log (the main job's), which hold every read in fine buckets: bioreport
  // baseline's estimates, within 5% of the truth as well.
  const std::optional<std::string> baseline =
      CommandOutput({BIOREPORT_BIN, "baseline", "--json", run.slow_log});
  ASSERT_TRUE(baseline.has_value()) << "bioreport baseline failed";
  const json report = json::parse(*baseline);
  const json* row = nullptr;
  for (const json& r : report["rows"]) {
    if (r["disk"] == run.disk_name && r["op"] == "read") row = &r;
  }
  ASSERT_NE(row, nullptr) << *baseline;
  EXPECT_EQ((*row)["fine"], true) << *baseline;
  EXPECT_EQ((*row)["count"].get<uint64_t>() + run.metrics_missed,
            run.truth_us.size() + run.truth_missed);
  for (double q : kQuantiles) {
    const char* key = q == 0.5    ? "p50_us_est"
                      : q == 0.9  ? "p90_us_est"
                      : q == 0.99 ? "p99_us_est"
                                  : "p99_9_us_est";
    const uint64_t truth = Percentile(run.truth_us, q);
    const double est = (*row)[key].get<double>();
    const double fio =
        fio_pct[absl::StrFormat("%.6f", q * 100)].get<double>() / 1e3;
    std::printf(
        "bioreport p%-6g %10.0f us: %+6.1f%% vs block, %+6.1f%% vs "
        "fio\n",
        q * 100, est, (est / truth - 1) * 100, (est / fio - 1) * 100);
    EXPECT_LT(std::fabs(est / truth - 1), 0.05)
        << key << ": " << est << " us, the block layer's " << truth << " us";
  }
}

}  // namespace
}  // namespace biosnoop::testing
