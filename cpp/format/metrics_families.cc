// The families of a scrape, in order (metrics_families.h).  New families
// go at the end, so that the text a scraper already reads keeps its order.

#include "metrics_families.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "metrics_text.h"

namespace biosnoop {
namespace {

MetricLabels DiskAndOp(const HistGroup& g) {
  return {{"disk", g.disk}, {"op", g.op}};
}

void IoCounter(const std::vector<HistGroup>& groups, absl::string_view name,
               absl::string_view help, uint64_t HistData::*field,
               MetricsWriter* out) {
  out->Family(name, MetricKind::kCounter, help);
  for (const HistGroup& g : groups) out->Sample(DiskAndOp(g), g.data.*field);
}

void RunCounter(absl::string_view name, absl::string_view help, uint64_t value,
                MetricsWriter* out) {
  out->Family(absl::StrCat("biosnoop_", name, "_total"), MetricKind::kCounter,
              help);
  out->Sample({}, value);
}

template <typename T>
void One(absl::string_view name, MetricKind kind, absl::string_view help,
         T value, MetricsWriter* out) {
  out->Family(name, kind, help);
  out->Sample({}, value);
}

// The names and meanings every exporter's process collector uses, so that
// the dashboards and alerts made for them work here too.
void Process(const ProcessMetrics& p, MetricsWriter* out) {
  One("process_cpu_seconds_total", MetricKind::kCounter,
      "Total user and system CPU time spent in seconds.", p.cpu_seconds, out);
  One("process_resident_memory_bytes", MetricKind::kGauge,
      "Resident memory size in bytes.", p.resident_bytes, out);
  One("process_virtual_memory_bytes", MetricKind::kGauge,
      "Virtual memory size in bytes.", p.virtual_bytes, out);
  One("process_open_fds", MetricKind::kGauge,
      "Number of open file descriptors.", p.open_fds, out);
  if (p.max_fds.has_value()) {
    One("process_max_fds", MetricKind::kGauge,
        "Maximum number of open file descriptors.", *p.max_fds, out);
  }
  One("process_start_time_seconds", MetricKind::kGauge,
      "Start time of the process since unix epoch in seconds.",
      p.start_time_seconds, out);
}

}  // namespace

void WriteMetricFamilies(const MetricsSnapshot& m, MetricsWriter* out) {
  out->Family("biosnoop_io_latency_seconds", MetricKind::kHistogram,
              "Latency of every I/O that passed the filters (issue to "
              "completion; with -Q submission to completion), per disk and "
              "op, since the start: the kernel's log2 microsecond buckets.");
  for (const HistGroup& g : m.groups) out->Histogram(DiskAndOp(g), g.data);
  IoCounter(m.groups, "biosnoop_io_total",
            "I/Os that passed the filters, per disk and op (the latency "
            "histogram's _count).",
            &HistData::count, out);
  IoCounter(m.groups, "biosnoop_io_bytes_total",
            "Bytes of those I/Os (request sizes at issue), per disk and op.",
            &HistData::bytes, out);
  IoCounter(m.groups, "biosnoop_io_slow_total",
            "Those I/Os at least as slow as --min-us, per disk and op.",
            &HistData::slow, out);
  IoCounter(m.groups, "biosnoop_io_errors_total",
            "Those I/Os that failed, per disk and op.", &HistData::errors, out);
  const StatsSnapshot& s = m.stats;
  RunCounter("completions",
             "Completions seen on the tracked disks (= emitted + lost + "
             "below_threshold + filtered + orphans).",
             s.completions, out);
  RunCounter("emitted",
             "Event records the kernel queued (I/O at least --min-us, and "
             "failed I/O).",
             s.emitted, out);
  RunCounter("written", "Event records written to the output.", s.written, out);
  RunCounter("lost",
             "Event records lost: the kernel ring buffer was full (loss).",
             s.lost, out);
  RunCounter("orphans",
             "Completions whose issue was not seen (no device time to give).",
             s.orphans, out);
  RunCounter("below_threshold",
             "Completions faster than --min-us that did not fail.",
             s.below_threshold, out);
  RunCounter("filtered", "Completions left out by the filters.", s.filtered,
             out);
  RunCounter("decode_errors", "Records biosnoop could not decode (loss).",
             s.decode_errors, out);
  RunCounter("expired",
             "In-flight requests forgotten after --max-inflight-age without "
             "a completion.",
             s.expired, out);
  RunCounter("dropped",
             "Events not written: the output failed, was closed or stalled "
             "at a stop (loss).",
             s.dropped, out);
  RunCounter("missed",
             "Completions the kernel never let biosnoop see: their events "
             "are missing (loss).",
             s.missed, out);
  RunCounter("unfinished",
             "Requests still in flight at exit, their events missing (loss; "
             "counted at exit, 0 while running).",
             s.unfinished, out);
  RunCounter("stuck",
             "Stuck records written: requests still in flight --stuck-after "
             "after their issue.",
             m.stuck, out);
  if (m.ledger) {
    RunCounter("ledger_misses",
               "Written pages of files whose dirtier the ledger no longer "
               "held (--ledger-entries too small for the dirty pages): "
               "events name no dirtier for them.",
               s.ledger_misses, out);
    RunCounter("ledger_replaced",
               "Ledger entries replaced before their pages were written.",
               s.ledger_replaced, out);
    RunCounter("ledger_stale",
               "Ledger entries of deleted files whose inode number a new "
               "file got, dropped unused.",
               s.ledger_stale, out);
  }
  if (m.ops) {
    RunCounter("ops_written",
               "Op records (--ops: calls at least --op-min-us long) written "
               "to the output.",
               s.ops_written, out);
    RunCounter("ops_lost",
               "Op records lost: the kernel ring buffer was full (loss).",
               s.ops_lost, out);
    RunCounter("ops_untracked",
               "Calls not followed: the kernel's table of calls in progress "
               "was full (loss).",
               s.ops_untracked, out);
    RunCounter("ops_unfollowed",
               "Calls not followed: their file system has no block device "
               "(FUSE, NFS...).",
               s.ops_unfollowed, out);
  }
  out->Family("biosnoop_build_info", MetricKind::kGauge,
              "1, labelled with the version of the biosnoop that serves "
              "these metrics.");
  out->Sample({{"version", m.version}}, uint64_t{1});
  if (m.process.has_value()) Process(*m.process, out);
}

}  // namespace biosnoop
