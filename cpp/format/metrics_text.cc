// The Prometheus text of a metrics snapshot (metrics_text.h).  Written by
// hand, not through a client library: Debian has none for C++, and the
// format is a few lines of text per family.

#include "metrics_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"  // AppendSanitizedUtf8: the same UTF-8 rule

namespace biosnoop {
namespace {

constexpr char kLatency[] = "biosnoop_io_latency_seconds";

void Family(std::string* out, absl::string_view name, absl::string_view type,
            absl::string_view help) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type,
                  "\n");
}

// {disk="vda",op="read" -- open: the caller adds more labels or '}'.
std::string OpenLabels(const HistGroup& g) {
  return absl::StrCat("{disk=", MetricsLabelValue(g.disk),
                      ",op=", MetricsLabelValue(g.op));
}

// Whole nanoseconds as seconds, exactly (no binary rounding).
std::string Seconds(uint64_t ns) {
  return absl::StrFormat("%d.%09d", ns / 1000000000, ns % 1000000000);
}

void LatencyHistograms(const std::vector<HistGroup>& groups, std::string* out) {
  Family(out, kLatency, "histogram",
         "Latency of every I/O that passed the filters (issue to "
         "completion; with -Q submission to completion), per disk and op, "
         "since the start: the kernel's log2 microsecond buckets.");
  for (const HistGroup& g : groups) {
    const std::string labels = OpenLabels(g);
    uint64_t below = 0;
    // The last kernel bucket holds everything above the one before it:
    // it has no upper bound but +Inf.
    for (int i = 0; i + 1 < kHistBuckets; ++i) {
      below += g.data.latency[i];
      absl::StrAppend(out, kLatency, "_bucket", labels, ",le=\"",
                      LatencyBucketLe(i), "\"} ", below, "\n");
    }
    // _count and +Inf from the buckets, so they agree even when the read
    // met a completion half counted.
    const uint64_t all = below + g.data.latency[kHistBuckets - 1];
    absl::StrAppend(out, kLatency, "_bucket", labels, ",le=\"+Inf\"} ", all,
                    "\n");
    absl::StrAppend(out, kLatency, "_sum", labels, "} ",
                    Seconds(g.data.latency_ns), "\n");
    absl::StrAppend(out, kLatency, "_count", labels, "} ", all, "\n");
  }
}

void IoCounter(const std::vector<HistGroup>& groups, absl::string_view name,
               absl::string_view help, uint64_t HistData::*field,
               std::string* out) {
  Family(out, name, "counter", help);
  for (const HistGroup& g : groups) {
    absl::StrAppend(out, name, OpenLabels(g), "} ", g.data.*field, "\n");
  }
}

void RunCounter(absl::string_view name, absl::string_view help, uint64_t value,
                std::string* out) {
  const std::string full = absl::StrCat("biosnoop_", name, "_total");
  Family(out, full, "counter", help);
  absl::StrAppend(out, full, " ", value, "\n");
}

}  // namespace

std::string LatencyBucketLe(int i) {
  const uint64_t us = uint64_t{2} << i;
  std::string frac = absl::StrFormat("%06d", us % 1000000);
  while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
  return absl::StrCat(us / 1000000, ".", frac);
}

std::string MetricsLabelValue(const std::string& value) {
  std::string utf8;
  AppendSanitizedUtf8(value, &utf8);
  std::string out = "\"";
  for (char c : utf8) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string FormatMetrics(const MetricsSnapshot& m) {
  std::string out;
  LatencyHistograms(m.groups, &out);
  IoCounter(m.groups, "biosnoop_io_total",
            "I/Os that passed the filters, per disk and op (the latency "
            "histogram's _count).",
            &HistData::count, &out);
  IoCounter(m.groups, "biosnoop_io_bytes_total",
            "Bytes of those I/Os (request sizes at issue), per disk and op.",
            &HistData::bytes, &out);
  IoCounter(m.groups, "biosnoop_io_slow_total",
            "Those I/Os at least as slow as --min-us, per disk and op.",
            &HistData::slow, &out);
  IoCounter(m.groups, "biosnoop_io_errors_total",
            "Those I/Os that failed, per disk and op.", &HistData::errors,
            &out);
  const StatsSnapshot& s = m.stats;
  RunCounter("completions",
             "Completions seen on the tracked disks (= emitted + lost + "
             "below_threshold + filtered + orphans).",
             s.completions, &out);
  RunCounter("emitted",
             "Event records the kernel queued (I/O at least --min-us, and "
             "failed I/O).",
             s.emitted, &out);
  RunCounter("written", "Event records written to the output.", s.written,
             &out);
  RunCounter("lost",
             "Event records lost: the kernel ring buffer was full (loss).",
             s.lost, &out);
  RunCounter("orphans",
             "Completions whose issue was not seen (no device time to give).",
             s.orphans, &out);
  RunCounter("below_threshold",
             "Completions faster than --min-us that did not fail.",
             s.below_threshold, &out);
  RunCounter("filtered", "Completions left out by the filters.", s.filtered,
             &out);
  RunCounter("decode_errors", "Records biosnoop could not decode (loss).",
             s.decode_errors, &out);
  RunCounter("expired",
             "In-flight requests forgotten after --max-inflight-age without "
             "a completion.",
             s.expired, &out);
  RunCounter("dropped",
             "Events not written: the output failed, was closed or stalled "
             "at a stop (loss).",
             s.dropped, &out);
  RunCounter("missed",
             "Completions the kernel never let biosnoop see: their events "
             "are missing (loss).",
             s.missed, &out);
  RunCounter("unfinished",
             "Requests still in flight at exit, their events missing (loss; "
             "counted at exit, 0 while running).",
             s.unfinished, &out);
  RunCounter("stuck",
             "Stuck records written: requests still in flight --stuck-after "
             "after their issue.",
             m.stuck, &out);
  if (m.ledger) {
    RunCounter("ledger_misses",
               "Written pages of files whose dirtier the ledger no longer "
               "held (--ledger-entries too small for the dirty pages): "
               "events name no dirtier for them.",
               s.ledger_misses, &out);
    RunCounter("ledger_replaced",
               "Ledger entries replaced before their pages were written.",
               s.ledger_replaced, &out);
    RunCounter("ledger_stale",
               "Ledger entries of deleted files whose inode number a new "
               "file got, dropped unused.",
               s.ledger_stale, &out);
  }
  if (m.ops) {
    RunCounter("ops_written",
               "Op records (--ops: calls at least --op-min-us long) written "
               "to the output.",
               s.ops_written, &out);
    RunCounter("ops_lost",
               "Op records lost: the kernel ring buffer was full (loss).",
               s.ops_lost, &out);
    RunCounter("ops_untracked",
               "Calls not followed: the kernel's table of calls in progress "
               "was full (loss).",
               s.ops_untracked, &out);
    RunCounter("ops_unfollowed",
               "Calls not followed: their file system has no block device "
               "(FUSE, NFS...).",
               s.ops_unfollowed, &out);
  }
  return out;
}

}  // namespace biosnoop
