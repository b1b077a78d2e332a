#pragma once

// The metrics a scrape of --metrics-listen gets, in the Prometheus text
// exposition format (version 0.0.4, which OpenMetrics parsers also take):
//
//   biosnoop_io_latency_seconds{disk,op}   histogram: the kernel's log2
//       microsecond latency buckets since the start, bucket i (latencies
//       in [2^i, 2^(i+1)) us) as le = 2^(i+1) us in seconds, cumulative;
//       the last kernel bucket (open-ended) only in le="+Inf"; _sum the
//       latencies summed, _count every I/O (= the +Inf bucket)
//   biosnoop_io_total, biosnoop_io_bytes_total, biosnoop_io_slow_total,
//   biosnoop_io_errors_total{disk,op}   counters from the same histograms
//   biosnoop_<counter>_total   the stats record's counters (completions,
//       emitted, written, lost, orphans, below_threshold, filtered,
//       decode_errors, expired, dropped, missed, unfinished) and stuck
//       (stuck records written); with --ops also ops_written, ops_lost
//       ops_untracked and ops_unfollowed
//   biosnoop_build_info{version}   gauge, 1
//   process_cpu_seconds_total, process_resident_memory_bytes,
//   process_virtual_memory_bytes, process_open_fds, process_max_fds,
//   process_start_time_seconds   the process's own, as every exporter
//       names them, when /proc could be read
//
// Each family has its HELP and TYPE lines; label values are UTF-8 (each
// byte of an invalid sequence becomes U+FFFD, as in the JSON output) with
// '\', '"' and newline escaped.  The same families in the protobuf format,
// with native histograms: metrics_proto.h.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histogram.h"
#include "stream_info.h"

namespace biosnoop {

// The Content-Type of FormatMetrics' text.
inline constexpr char kMetricsContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

// The process's own figures (from /proc/self), read on the run's tick.
struct ProcessMetrics {
  double cpu_seconds = 0;           // user + system
  uint64_t resident_bytes = 0;      // RSS
  uint64_t virtual_bytes = 0;       // the address space's size
  uint64_t open_fds = 0;            // descriptors open
  std::optional<uint64_t> max_fds;  // RLIMIT_NOFILE's soft limit; unlimited
  double start_time_seconds = 0;    // since the epoch
};

// What one scrape shows, as the run's last tick read it.
struct MetricsSnapshot {
  std::string version;  // biosnoop's (biosnoop_build_info)
  std::optional<ProcessMetrics> process;
  StatsSnapshot stats;  // cumulative; `unfinished` is counted at exit only
  uint64_t stuck = 0;   // stuck records written
  bool ops = false;     // --ops: the ops_* counters are served
  bool ledger = false;  // the dirtied-page ledger: its counters are served
  // Per disk and op (GroupHistograms' kPerDiskAndOp), cumulative since the
  // start, latency buckets in microseconds.
  std::vector<HistGroup> groups;
};

// The exposition text of `m`, ending with a newline.
std::string FormatMetrics(const MetricsSnapshot& m);

// A latency bucket's upper bound, 2^(i+1) microseconds, in seconds as
// exact decimal text ("0.000002" for bucket 0, "0.032768" for 14).
std::string LatencyBucketLe(int i);

// `value` as a label value between quotes (escaped as above).
std::string MetricsLabelValue(const std::string& value);

}  // namespace biosnoop
