#pragma once

// The data of the baseline report: biosnoop's summary records (every
// completion, counted in the kernel per interval, disk and operation),
// selected by the report's filters, kept per interval and merged.
//
// Selection: an interval is in when its timestamp (its end) is inside
// --since/--until; a group is in when its disk equals --disk (summaries
// name whole disks only) and its op equals --op.  The other event filters
// (--pid, --comm, --min-us) have no meaning here.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "aggregator.h"
#include "biosnoop.pb.h"
#include "filter.h"

namespace biosnoop::report {

// A log2 histogram summed over summary records (Sum: exact).
using Log2Sums = std::array<Sum, kBuckets>;

// One (disk, op) of one interval, or their sum over several intervals.
// Counts are Sums: the sum of several intervals' uint64 counters is exact.
struct BaselineGroup {
  std::string disk;
  std::string op;
  uint64_t min_us = 0;  // the threshold `slow` was counted against
  Sum count = 0;
  Sum bytes = 0;
  Sum slow = 0;
  Sum errors = 0;      // failed, whatever their latency (0 in older streams)
  Log2Sums latency{};  // log2 microseconds, as SummaryGroup.latency_us_log2

  // Adds counts and buckets; labels are left alone.
  void Add(const BaselineGroup& other);
};

struct BaselineInterval {
  int64_t start_ns = 0;  // end_ns - interval_s (0 s if interval_s < 0)
  int64_t end_ns = 0;    // the record's timestamp
  double interval_s = 0;
  uint64_t min_us = 0;
  std::vector<BaselineGroup> groups;  // those that pass --disk and --op
};

// An estimate of the latency at `permille` (500 = p50) from a log2
// histogram: the upper bound of the bucket holding the value of rank
// ceil(permille * n / 1000), n being the histogram's total.  The true value
// lies between half of that (the bucket's lower bound) and that.  nullopt
// for an empty histogram.
std::optional<uint64_t> EstimatePercentileUs(const Log2Hist& hist,
                                             int permille);
std::optional<uint64_t> EstimatePercentileUs(const Log2Sums& hist,
                                             int permille);

class BaselineCollector {
 public:
  explicit BaselineCollector(const Filter& filter) : filter_(filter) {}

  // A new input begins: its summaries belong to no run until its header.
  void StartInput() { run_.clear(); }
  // A header: the summaries after it are its run's.
  void AddHeader(const v1::StreamHeader& header);
  // A summary record, in stream order.  One already seen (the same run's
  // interval with the same end: the same log given twice, overlapping
  // files) is counted in duplicates() and not again in the figures.
  void Add(const v1::Summary& summary);

  const Filter& filter() const { return filter_; }
  // Summary records seen, before any filter, duplicates included.
  uint64_t records_seen() const { return records_seen_; }
  // Summary records seen before (see Add()).
  uint64_t duplicates() const { return duplicates_; }
  // The intervals in the time window, in stream order (also those whose
  // groups all fail --disk/--op: their time still counts).
  const std::vector<BaselineInterval>& intervals() const { return intervals_; }
  // Groups over all selected intervals: one per (disk, op, min_us), sorted.
  std::vector<BaselineGroup> Merged() const;
  // True when all selected intervals have the same threshold.
  bool OneThreshold() const;
  // Earliest start and latest end of the selected intervals (0 if none).
  int64_t window_start_ns() const { return window_start_ns_; }
  int64_t window_end_ns() const { return window_end_ns_; }
  // The sum of the selected intervals' lengths.
  double covered_s() const { return covered_s_; }

 private:
  Filter filter_;
  uint64_t records_seen_ = 0;
  uint64_t duplicates_ = 0;
  std::string run_;  // the current header's boot id and start time
  absl::flat_hash_set<std::string> seen_;  // run, end and length of each
  std::vector<BaselineInterval> intervals_;
  int64_t window_start_ns_ = 0;
  int64_t window_end_ns_ = 0;
  double covered_s_ = 0;
};

}  // namespace biosnoop::report
