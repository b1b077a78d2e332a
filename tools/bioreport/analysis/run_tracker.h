#pragma once

// Which biosnoop run each record of a stream set belongs to, and each
// run's loss figures: the highest counters of its stats records and the
// event numbers (seq) present.
//
// A run is one header's boot_id + start_time.  Records follow the header
// before them in their input, with two exceptions:
//   - Records before the first header of an input (a file cut by a
//     copy-and-truncate rotation starts with the events written before
//     biosnoop's SIGHUP header; a file never reopened has no header at
//     all) belong to the run that wrote them: the run named by a stats
//     record among them (run_id), else the run of the input's first
//     header when its host is theirs, else the run an earlier input of
//     their host ended in; else to an anonymous run of their own.
//   - A stats record whose run_id names another known run than the
//     header's (two biosnoops appending to one file) counts for that run,
//     and both runs are "mixed": which of them wrote each event is
//     unknown, so their event numbers are not checked.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"

namespace biosnoop::report {

// Sums of values read from a stream: 128 bits (see aggregator.h).
using Sum = unsigned __int128;

// The event numbers (seq: 1, 2, 3, ... in each run) present in the input,
// as disjoint ranges.  Events come in order, so the usual case extends
// the last range; a file given twice, or out of order, costs a range each.
class SeqRanges {
 public:
  using Map = std::map<uint64_t, uint64_t>;  // first -> last, not adjacent
  // Adds `seq` (>= 1); false when it was there already.
  bool Add(uint64_t seq);
  bool empty() const { return ranges_.empty(); }
  uint64_t count() const { return count_; }  // distinct numbers
  uint64_t first() const { return ranges_.begin()->first; }
  uint64_t last() const { return ranges_.rbegin()->second; }
  const Map& ranges() const { return ranges_; }

 private:
  Map ranges_;
  Map::iterator last_added_;  // valid when !ranges_.empty()
  uint64_t count_ = 0;
};

// Loss figures of the runs (of one host, with a host filter).
struct LossSummary {
  uint64_t runs = 0;
  uint64_t runs_without_stats = 0;  // their loss is unknown
  uint64_t runs_not_final = 0;      // with stats, none marked final: loss
                                    // after their last one is unknown
  // Runs that wrote into one file at the same time (see above): their
  // events are counted, their seq numbers not checked.
  uint64_t mixed_runs = 0;
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
  // the count of a stats record that opens its part of the input (right
  // after its header: a file SIGHUP opened; its earlier log files not
  // given).
  Sum before_input = 0;
  // Events present more than once (the same log given twice), so counted
  // twice in the report.
  Sum duplicates = 0;

  // --ops: op records (calls) lost in the kernel (the stats' ops_lost),
  // calls not followed because the kernel's table of calls in progress
  // was full (ops_untracked); op records a run wrote (ops_written) that
  // are not in the input (its op_ids are not numbered without gaps, so
  // only the count tells: earlier or later files not given, lines dropped
  // on the way, a filtered input; not counted for mixed runs, nor the op
  // records counted by a stats record that opens the run's part of the
  // input); op records present more than once (the same op_id of a run).
  Sum ops_lost = 0;
  Sum ops_untracked = 0;
  Sum ops_not_in_input = 0;
  Sum ops_duplicates = 0;
  // Op records of these runs in the input (distinct).
  Sum ops_read = 0;
};

class RunTracker {
 public:
  // A new input begins (the previous one is over).
  void StartInput();
  // After the last input.  Loss() is complete only after it.
  void Finish();
  void AddHeader(const v1::StreamHeader& h);
  void AddStats(const v1::Stats& s);
  // An event's number (0, no number, is not checked) and host.
  void AddEvent(uint64_t seq, absl::string_view host);
  // An op record's op_id (unique in its run) and host.
  void AddOp(uint64_t op_id, absl::string_view host);
  // A record that is neither (summary, stuck).
  void AddOther() { after_header_ = false; }

  // The figures of all runs, or of the runs of `host` when not empty.
  LossSummary Loss(absl::string_view host) const;

 private:
  struct Run {
    std::string host;
    std::string run_id;
    bool has_stats = false;
    bool final = false;
    bool mixed = false;
    uint64_t lost = 0;
    uint64_t dropped = 0;
    uint64_t missed = 0;
    uint64_t unfinished = 0;
    uint64_t decode_errors = 0;
    uint64_t written = 0;  // the most any of its stats records says
    // `written` of a stats record that opens the run's part of an input
    // (right after its header, or first in a headerless input) when none
    // of its events came before it: the events numbered up to it are in
    // earlier files.
    std::optional<uint64_t> written_before_events;
    SeqRanges seqs;
    uint64_t duplicates = 0;
    // --ops: as the events' figures above, for op records (op_ids).
    uint64_t ops_lost = 0;
    uint64_t ops_untracked = 0;
    uint64_t ops_written = 0;
    std::optional<uint64_t> ops_written_before;
    SeqRanges op_ids;
    uint64_t op_duplicates = 0;
  };
  // Where the records of the input go now: the header's run, or the
  // input's headless prefix.
  Run& Current();
  // Gives the headless prefix of the input to its run (see above);
  // `header_run` is the input's first header's, or null at its end.
  void ResolvePrefix(Run* header_run);
  Run* FindRunId(const std::string& run_id);
  static void MergeInto(const Run& from, Run* to);

  std::map<std::string, Run> runs_;
  std::map<std::string, std::string> run_ids_;  // run_id -> key in runs_
  // The run the last input of each host ended in, by key.
  std::map<std::string, std::string> last_run_of_host_;
  Run* current_ = nullptr;  // in runs_; null before the input's header
  std::string current_key_;
  std::optional<Run> prefix_;  // records before the input's first header
  std::string prefix_run_id_;  // a run_id its stats records named
  bool after_header_ = false;  // no record since the header (or input start)
  bool header_seen_ = false;   // in this input
  uint64_t inputs_ = 0;
};

}  // namespace biosnoop::report
