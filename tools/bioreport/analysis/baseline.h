#pragma once

// The data of the baseline report: biosnoop's summary records (every
// completion, counted in the kernel per interval, disk and operation),
// selected by the report's filters, kept per interval and merged.
//
// Selection: an interval is in when its timestamp (its end) is inside
// --since/--until and its host is --host's; a group is in when its disk
// equals --disk (summaries name whole disks only) and its op equals --op.
// The other event filters (--pid, --comm, --min-us) have no meaning here.
//
// Hosts: a summary record names no host; it is its run's, the host of the
// header before it in its input.  Summaries before an input's first header
// (a file cut by a copy-and-truncate rotation) take the host of the
// input's first record that names one (an event or stuck record before
// the header, else the header), since one file is one host's log; an
// input with no such record leaves them without a host ("").  Groups are
// kept per host, and the time covered is measured per host and as a union
// (never summed across hosts: two hosts watching the same minute cover one
// minute, not two).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "aggregator.h"
#include "biosnoop.pb.h"
#include "filter.h"
#include "fine_buckets.h"

namespace biosnoop::report {

// A log2 histogram summed over summary records (Sum: exact).
using Log2Sums = std::array<Sum, kBuckets>;

// One (disk, op) of one interval, or their sum over several intervals.
// Counts are Sums: the sum of several intervals' uint64 counters is exact.
struct BaselineGroup {
  std::string host;
  std::string disk;
  std::string op;
  uint64_t min_us = 0;  // the threshold `slow` was counted against
  Sum count = 0;
  Sum bytes = 0;
  Sum slow = 0;
  Sum errors = 0;      // failed, whatever their latency (0 in older streams)
  Log2Sums latency{};  // log2 microseconds, as SummaryGroup.latency_us_log2
  // The fine latency buckets (SummaryGroup.latency_fine), bucket index k
  // at fine_schema -> count; fine_total their sum.  Used for percentiles
  // only when fine_total == count: every interval summed had them.  An
  // interval's group keeps them packed, a sum summed (fine_buckets.h).
  int fine_schema = kNoFineSchema;
  FineBuckets fine;
  Sum fine_total = 0;
  static constexpr int kNoFineSchema = -100;

  // Adds counts and buckets (fine ones at the coarser of the two schemas);
  // labels are left alone.
  void Add(const BaselineGroup& other);
};

struct BaselineInterval {
  std::string host;      // its run's (see above)
  int64_t start_ns = 0;  // end_ns - interval_s (0 s if interval_s < 0)
  int64_t end_ns = 0;    // the record's timestamp
  double interval_s = 0;
  uint64_t min_us = 0;
  std::vector<BaselineGroup> groups;  // those that pass --disk and --op
};

// The selected intervals of one host, or of all.
struct BaselineWindow {
  size_t intervals = 0;
  int64_t start_ns = 0;  // earliest start (0 if none)
  int64_t end_ns = 0;    // latest end (0 if none)
  // The time inside the intervals, each moment once (their union): for
  // one biosnoop, whose intervals follow each other, their sum.
  double covered_s = 0;
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
// The group's latency at `permille`, in whole microseconds (rounded):
// from its fine buckets when every completion is in them, the value of
// rank ceil(permille * n / 1000) placed inside its bucket by its rank
// among the bucket's, geometrically (a bucket at schema 4 is 4.43% wide:
// the estimate is within that of the truth); else as above, from the
// log2 histogram.  nullopt for an empty group.
std::optional<uint64_t> EstimatePercentileUs(const BaselineGroup& group,
                                             int permille);
// Whether EstimatePercentileUs(group, ...) reads the fine buckets.
bool HasFineBuckets(const BaselineGroup& group);
// The estimate above, from fine buckets alone (bucket index k at `schema`
// -> count, counts summing to more than 0), in microseconds, unrounded:
// rank ceil(permille * n / 1000) placed inside its bucket (lo, hi] at
// lo * (hi / lo)^f, f = (rank - those below) / the bucket's count, log-
// linear interpolation by rank; the zero bucket (k = -20 * 2^schema,
// everything up to 2^-20 s) at its upper bound.  nullopt when empty.
std::optional<double> EstimateFineUs(const FineBuckets& fine, int schema,
                                     int permille);

class BaselineCollector {
 public:
  explicit BaselineCollector(const Filter& filter) : filter_(filter) {}

  // A new input begins: its summaries belong to no run until its header.
  void StartInput();
  // After the last input.
  void Finish() { ResolvePending(); }
  // A header: the summaries after it are its run's.
  void AddHeader(const v1::StreamHeader& header);
  // The host of an event or stuck record: names the host of the summaries
  // before the input's first header (see above).
  void NoteHost(const std::string& host) {
    if (!host_known_ && !host.empty()) {
      host_ = host;
      ResolvePending();
    }
  }
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
  // Groups over all selected intervals: one per (host, disk, op, min_us),
  // sorted.
  std::vector<BaselineGroup> Merged() const;
  // The hosts of the selected intervals, sorted.
  std::vector<std::string> Hosts() const;
  // The selected intervals of `host`.
  BaselineWindow WindowOf(const std::string& host) const;
  // True when all selected intervals have the same threshold.
  bool OneThreshold() const;
  // Earliest start and latest end of the selected intervals (0 if none).
  int64_t window_start_ns() const { return window_start_ns_; }
  int64_t window_end_ns() const { return window_end_ns_; }
  // The time the selected intervals cover, of every host, each moment
  // once (BaselineWindow::covered_s).
  double covered_s() const;

 private:
  // Counts (or not, see Add()) a summary of host_ and run_.
  void AddResolved(const v1::Summary& summary);
  // Counts the summaries that waited for their host, with host_.
  void ResolvePending();

  Filter filter_;
  uint64_t records_seen_ = 0;
  uint64_t duplicates_ = 0;
  std::string run_;   // the current header's boot id and start time
  std::string host_;  // of the summaries now
  // In this input.  Summaries given with no input started (a collector fed
  // directly) have no host.
  bool host_known_ = true;
  std::vector<v1::Summary> pending_;       // before the input's host is known
  absl::flat_hash_set<std::string> seen_;  // run, end and length of each
  std::vector<BaselineInterval> intervals_;
  int64_t window_start_ns_ = 0;
  int64_t window_end_ns_ = 0;
};

}  // namespace biosnoop::report
