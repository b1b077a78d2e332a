#pragma once

// One pass over the events and the non-event records of a stream set,
// keeping what every report needs: per disk and operation the exact
// latencies (for percentiles), log2 histograms, counts and sums; per
// process and per disk totals; I/O sizes; errors; and the loss figures of
// each biosnoop run.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "record.h"

namespace biosnoop::report {

// Sums of values read from a stream: 128 bits, so that no sum wraps or
// saturates (2^64 values of up to 2^64 - 1 each fit) and every total and
// mean is exact, however absurd the input: the readers accept any uint64,
// and a capped sum printed as a number would be a wrong figure (a mean
// below the minimum).  Counts of records and events stay 64-bit: no input
// has 2^64 of them.
using Sum = unsigned __int128;
// "36893488147419103230".
std::string Decimal(Sum v);

// log2 buckets: 0 holds 0 and 1; bucket b >= 1 holds [2^b, 2^(b+1) - 1].
inline constexpr int kBuckets = 64;
using Log2Hist = std::array<uint64_t, kBuckets>;
int Log2Bucket(uint64_t v);
uint64_t BucketLow(int b);
uint64_t BucketHigh(int b);

// Latency figures of a set of events, exact.
struct LatencyStats {
  uint64_t count = 0;
  Sum bytes = 0;
  uint64_t errors = 0;
  Sum sum_us = 0;
  uint64_t min_us = UINT64_MAX;
  uint64_t max_us = 0;
  Log2Hist hist{};     // of latency_us
  Log2Hist hist_ms{};  // of latency_us / 1000 (log2 of ms differs)
  std::vector<uint64_t> latencies_us;  // unsorted; empty unless kept

  void Add(uint64_t latency_us, uint64_t bytes, bool error, bool keep);
  void Merge(const LatencyStats& other);
  double mean_us() const {
    return count == 0 ? 0 : static_cast<double>(sum_us) / count;
  }
};

// Nearest-rank percentiles of `latencies` (reordered in place): for each
// permille p (500 = p50, 999 = p99.9), the value at rank ceil(p * n / 1000).
// Empty input gives zeros.
std::vector<uint64_t> Percentiles(std::vector<uint64_t>* latencies,
                                  const std::vector<int>& permilles);

struct ProcessTotals {
  uint32_t pid = 0;
  std::string comm;
  uint64_t count = 0;
  Sum total_us = 0;
  uint64_t max_us = 0;
  Sum bytes = 0;
};

struct ErrorTotals {
  uint64_t count = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
};

// The event numbers (seq: 1, 2, 3, ... in each run) present in the input,
// as disjoint ranges.  Events come in order, so the usual case extends
// the last range; a file given twice, or out of order, costs a range each.
class SeqRanges {
 public:
  // Adds `seq` (>= 1); false when it was there already.
  bool Add(uint64_t seq);
  bool empty() const { return ranges_.empty(); }
  uint64_t count() const { return count_; }  // distinct numbers
  uint64_t first() const { return ranges_.begin()->first; }
  uint64_t last() const { return ranges_.rbegin()->second; }

 private:
  using Map = std::map<uint64_t, uint64_t>;  // first -> last, not adjacent
  Map ranges_;
  Map::iterator last_added_;  // valid when !ranges_.empty()
  uint64_t count_ = 0;
};

// Loss figures, from the last stats record of each run (a run is one
// header's boot_id + start_time; records before any header in an input
// belong to an anonymous run).
struct LossSummary {
  uint64_t runs = 0;
  uint64_t runs_without_stats = 0;  // their loss is unknown
  uint64_t runs_not_final = 0;  // with stats, none marked final: loss
                                // after their last one is unknown
  // Sums over runs of each run's counter.
  Sum lost = 0;
  Sum dropped = 0;
  Sum missed = 0;
  Sum unfinished = 0;
  Sum decode_errors = 0;
  bool any_stats = false;
  // From the events' seq numbers, whatever the stats say: events of a run
  // absent from the input between its first and last event there, or
  // after its last one up to the `written` of its last stats record (lines
  // dropped on the way to the log store, a copytruncate rotation, a
  // filtered input); numbers up to the count of a stats record that opens
  // the run's part of the input are not among them (before_input).
  Sum not_in_input = 0;
  // Events of a run numbered before its first one in the input, or up to
  // the count of a stats record that opens its part of the input (its
  // earlier log files not given).
  Sum before_input = 0;
  // Events present more than once (the same log given twice), so counted
  // twice in the report.
  Sum duplicates = 0;
};

struct AggregatorOptions {
  bool keep_latencies = true;  // needed for percentiles
  uint64_t tail_us = 100000;   // events with latency_us >= this are "tail"
};

class Aggregator {
 public:
  explicit Aggregator(AggregatorOptions options) : options_(options) {}

  // An event that passed the filters; `ns` is its timestamp.
  void AddEvent(const v1::Event& e, int64_t ns);
  // Every record (events too, for the time span), before filtering.
  void AddRecordTime(int64_t ns);
  // A header or stats record (tracks runs and loss).
  void AddNonEvent(const ParsedRecord& rec);
  // Every event's number in its run, before filtering (tracks events
  // missing from the input).  0, no number, is ignored.
  void AddEventSeq(uint64_t seq);
  // A summary record in the time window (only counted here: the baseline
  // report reads them, baseline.h).
  void CountSummary() { ++summary_records_; }
  // A new input begins: its records belong to no run until its header.
  void StartInput();

  uint64_t events() const { return overall_.count; }
  uint64_t tail_events() const { return tail_events_; }
  uint64_t tail_us() const { return options_.tail_us; }
  int64_t first_event_ns() const { return first_event_ns_; }
  int64_t last_event_ns() const { return last_event_ns_; }
  int64_t first_record_ns() const { return first_record_ns_; }
  int64_t last_record_ns() const { return last_record_ns_; }
  uint64_t records() const { return records_; }
  uint64_t summary_records() const { return summary_records_; }

  // Overall figures (latencies_us not kept here: see AllLatencies()).
  const LatencyStats& overall() const { return overall_; }
  // (disk, op) -> stats, sorted by disk then op.
  const std::map<std::pair<std::string, std::string>, LatencyStats>& groups()
      const {
    return groups_;
  }
  std::vector<uint64_t> AllLatencies() const;
  std::vector<ProcessTotals> Processes() const;
  // Sizes of requests that carry data (bytes > 0), in KiB.
  const Log2Hist& size_hist_kib() const { return size_hist_kib_; }
  uint64_t zero_byte_events() const { return zero_byte_events_; }
  // (disk, error name) -> totals, sorted.
  const std::map<std::pair<std::string, std::string>, ErrorTotals>& errors()
      const {
    return errors_;
  }
  LossSummary Loss() const;
  std::vector<std::string> Hosts() const;

 private:
  struct Run {
    bool has_stats = false;
    bool final = false;
    uint64_t lost = 0;
    uint64_t dropped = 0;
    uint64_t missed = 0;
    uint64_t unfinished = 0;
    uint64_t decode_errors = 0;
    uint64_t written = 0;  // the most any of its stats records says
    // `written` of its first stats record in the input when none of its
    // events came before it (a rotated file starts with one): the events
    // numbered up to it are in earlier files.
    std::optional<uint64_t> written_before_events;
    SeqRanges seqs;
    uint64_t duplicates = 0;
  };
  Run& CurrentRun();

  AggregatorOptions options_;
  LatencyStats overall_;
  std::map<std::pair<std::string, std::string>, LatencyStats> groups_;
  // Last group used: events come in runs of the same disk and op.
  LatencyStats* last_group_ = nullptr;
  std::string last_disk_;
  std::string last_op_;
  absl::flat_hash_map<std::string, ProcessTotals> processes_;
  std::string process_key_;
  Log2Hist size_hist_kib_{};
  uint64_t zero_byte_events_ = 0;
  std::map<std::pair<std::string, std::string>, ErrorTotals> errors_;
  uint64_t tail_events_ = 0;
  int64_t first_event_ns_ = 0;
  int64_t last_event_ns_ = 0;
  int64_t first_record_ns_ = 0;
  int64_t last_record_ns_ = 0;
  uint64_t records_ = 0;
  uint64_t summary_records_ = 0;
  std::map<std::string, Run> runs_;
  Run* current_run_ = nullptr;  // in runs_; null until a header or record
  uint64_t inputs_started_ = 0;
  std::map<std::string, int> hosts_;
  std::string last_host_;
};

}  // namespace biosnoop::report
