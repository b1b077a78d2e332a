#pragma once

// One pass over the events and the non-event records of a stream set,
// keeping what every report needs: per host, disk and operation the exact
// latencies (for percentiles), log2 histograms, counts and sums; per
// process and per disk totals; I/O sizes; errors; and the loss figures of
// each biosnoop run.  Everything is kept per host (a fleet's logs merged
// into one report must not merge two hosts' loop0 or pid 4242); a report
// shows the host only when there is more than one (Hosts()).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "record.h"
#include "run_tracker.h"

namespace biosnoop::report {

// Sums (Sum, run_tracker.h) are 128 bits, so that no sum wraps or
// saturates (2^64 values of up to 2^64 - 1 each fit) and every total and
// mean is exact, however absurd the input: the readers accept any uint64,
// and a capped sum printed as a number would be a wrong figure (a mean
// below the minimum).  Counts of records and events stay 64-bit: no input
// has 2^64 of them.
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

// A row of the per-group figures: host, disk and operation.  Sorted by
// host first, so that one host's rows stay together.
struct GroupKey {
  std::string host;
  std::string disk;
  std::string op;
  auto operator<=>(const GroupKey&) const = default;
};

// A row of the errors: host, disk and error name ("EIO", "errno 5").
struct ErrorKey {
  std::string host;
  std::string disk;
  std::string error;
  auto operator<=>(const ErrorKey&) const = default;
};

// The figures of one host's events (those that passed the filters).
struct HostTotals {
  LatencyStats overall;  // latencies_us not kept (see LatenciesOf())
  uint64_t tail_events = 0;
  Log2Hist size_hist_kib{};
  uint64_t zero_byte_events = 0;
};

struct ProcessTotals {
  std::string host;
  uint32_t pid = 0;
  std::string comm;
  uint64_t count = 0;
  Sum total_us = 0;
  uint64_t max_us = 0;
  Sum bytes = 0;
};

// The events of one cgroup, or of one container, of one host.
struct NamedTotals {
  std::string host;
  std::string name;  // the cgroup path, or the container id
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

struct AggregatorOptions {
  bool keep_latencies = true;  // needed for percentiles
  uint64_t tail_us = 100000;   // events with latency_us >= this are "tail"
  // --host: only this host's runs in Loss() and Hosts() ("" = every host).
  // Its events are selected by the Filter, like the other filters.
  std::string host;
};

class Aggregator {
 public:
  explicit Aggregator(AggregatorOptions options) : options_(options) {}

  // An event that passed the filters; `ns` is its timestamp.
  void AddEvent(const v1::Event& e, int64_t ns);
  // Every record (events too, for the time span), before filtering.
  void AddRecordTime(int64_t ns);
  // Every record but events, before filtering: headers and stats track
  // runs and loss (run_tracker.h), op records too (their op_ids: op
  // records missing or given twice), the others only break a header's
  // contact with the stats record SIGHUP writes after it.
  void AddNonEvent(const ParsedRecord& rec);
  // Every event, before filtering: its number in its run (tracks events
  // missing from the input; 0, no number, is ignored) and its host.
  void AddEventSeq(const v1::Event& e) {
    runs_.AddEvent(e.seq(), e.host());
    SeeHost(e.host());
  }
  // A summary record in the time window (only counted here: the baseline
  // report reads them, baseline.h).
  void CountSummary() { ++summary_records_; }
  // A new input begins; Finish() after the last one.
  void StartInput() { runs_.StartInput(); }
  void Finish() { runs_.Finish(); }

  uint64_t events() const { return overall_.count; }
  uint64_t tail_events() const { return tail_events_; }
  uint64_t tail_us() const { return options_.tail_us; }
  int64_t first_event_ns() const { return first_event_ns_; }
  int64_t last_event_ns() const { return last_event_ns_; }
  int64_t first_record_ns() const { return first_record_ns_; }
  int64_t last_record_ns() const { return last_record_ns_; }
  uint64_t records() const { return records_; }
  uint64_t summary_records() const { return summary_records_; }
  // Op records (calls, --ops) in the input, whatever the filters.
  uint64_t op_records() const { return op_records_; }

  // Overall figures (latencies_us not kept here: see AllLatencies()).
  const LatencyStats& overall() const { return overall_; }
  // (host, disk, op) -> stats, sorted.
  const std::map<GroupKey, LatencyStats>& groups() const { return groups_; }
  std::vector<uint64_t> AllLatencies() const;
  // The latencies of one host's events.
  std::vector<uint64_t> LatenciesOf(absl::string_view host) const;
  // Host -> the figures of its events, sorted (hosts with no event that
  // passed the filters are absent).
  const std::map<std::string, HostTotals>& host_totals() const {
    return host_totals_;
  }
  std::vector<ProcessTotals> Processes() const;
  // Per cgroup (events whose cgroup is known; one whose cgroup was removed
  // before biosnoop named it is "cgroup id N"), and per container (events
  // with a container id); empty when no event had one.
  std::vector<NamedTotals> Cgroups() const { return Values(cgroups_); }
  std::vector<NamedTotals> Containers() const { return Values(containers_); }
  // Per content ("file", "metadata", ...: events whose files were looked
  // at), per file (the first of an event's files, by its path; one with no
  // name is "inode N on MAJ:MIN"), per dirtier (dirtied_by's pid and
  // comm) and per dirtier cgroup (its path, or "cgroup id N" as above);
  // empty when no event had one.
  std::vector<NamedTotals> Contents() const { return Values(contents_); }
  std::vector<NamedTotals> Files() const { return Values(files_); }
  std::vector<ProcessTotals> Dirtiers() const { return Values(dirtiers_); }
  std::vector<NamedTotals> DirtierCgroups() const {
    return Values(dirtier_cgroups_);
  }
  // Sizes of requests that carry data (bytes > 0), in KiB.
  const Log2Hist& size_hist_kib() const { return size_hist_kib_; }
  uint64_t zero_byte_events() const { return zero_byte_events_; }
  // (host, disk, error name) -> totals, sorted.
  const std::map<ErrorKey, ErrorTotals>& errors() const { return errors_; }
  // Of every run (of the --host when one is given), or of the runs of
  // `host`.
  LossSummary Loss() const { return runs_.Loss(options_.host); }
  LossSummary Loss(absl::string_view host) const { return runs_.Loss(host); }
  // The hosts of the input, sorted: named by a header, an event, a stuck
  // record or an op record, whatever the filters but --host (so that the layout
  // of a report does not depend on which events pass --disk or --pid). More
  // than one: the reports show the host.
  std::vector<std::string> Hosts() const;
  bool MultiHost() const { return Hosts().size() > 1; }

 private:
  void SeeHost(const std::string& host) {
    if (host != last_seen_host_) {
      last_seen_host_ = host;
      hosts_.insert(host);
    }
  }

  using NamedMap = absl::flat_hash_map<std::string, NamedTotals>;
  using ProcessMap = absl::flat_hash_map<std::string, ProcessTotals>;
  template <typename Totals>
  static std::vector<Totals> Values(
      const absl::flat_hash_map<std::string, Totals>& m) {
    std::vector<Totals> out;
    out.reserve(m.size());
    for (const auto& [key, t] : m) out.push_back(t);
    return out;
  }
  // Adds an event of `host` and `name` to `m` (named_key_: scratch).
  void AddNamed(NamedMap& m, const std::string& host, absl::string_view name,
                uint64_t latency_us, uint64_t bytes);
  // Adds an event of `host`, `pid` and `comm` to `m` (process_key_:
  // scratch).
  void AddProcess(ProcessMap& m, const std::string& host, uint32_t pid,
                  const std::string& comm, uint64_t latency_us, uint64_t bytes);
  // The attribution tables' share of an event (content not empty).
  void AddAttribution(const v1::Event& e);

  AggregatorOptions options_;
  LatencyStats overall_;
  std::map<GroupKey, LatencyStats> groups_;
  // Last group used: events come in runs of the same host, disk and op.
  LatencyStats* last_group_ = nullptr;
  GroupKey last_key_;
  std::map<std::string, HostTotals> host_totals_;
  HostTotals* last_host_totals_ = nullptr;
  std::string last_totals_host_;
  ProcessMap processes_;
  std::string process_key_;
  NamedMap cgroups_;
  NamedMap containers_;
  NamedMap contents_;
  NamedMap files_;
  ProcessMap dirtiers_;
  NamedMap dirtier_cgroups_;
  std::string named_key_;
  Log2Hist size_hist_kib_{};
  uint64_t zero_byte_events_ = 0;
  std::map<ErrorKey, ErrorTotals> errors_;
  uint64_t tail_events_ = 0;
  int64_t first_event_ns_ = 0;
  int64_t last_event_ns_ = 0;
  int64_t first_record_ns_ = 0;
  int64_t last_record_ns_ = 0;
  uint64_t records_ = 0;
  uint64_t summary_records_ = 0;
  uint64_t op_records_ = 0;
  RunTracker runs_;
  std::set<std::string> hosts_;
  std::string last_seen_host_;
};

}  // namespace biosnoop::report
