#pragma once

// The op records of a stream set (biosnoop --ops: one per application call
// that took at least --op-min-us), for `bioreport ops`: the slowest calls
// with their layers, and per process and per file the distribution of
// each layer's time; and, for `--op-id N`, one call with the requests it
// waited for: the events submitted under it (Event.op_id) and the
// writeback of the pages it dirtied (Event.dirtier_op_ids, a dirtier's
// op_id), and its stuck requests.
//
// op_ids are unique in a run, not across runs: each record is tagged with
// its run (the header before it in its input; records before an input's
// first header belong to no known run, and are given to their host's run
// when the input holds only one), so that one call is never mixed with
// another run's call of the same number.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "aggregator.h"
#include "biosnoop.pb.h"

namespace biosnoop::report {

// One call, as the report shows it.
struct OpCall {
  int64_t ns = 0;  // when it returned
  std::string run;
  v1::Op op;
};

// The figures of a set of calls (one process's, one file's): exact
// percentiles need every value, eight per call.
struct OpGroup {
  std::string host;
  std::string name;  // comm, or the file as FileName() names it
  uint32_t pid = 0;  // per process
  uint64_t count = 0;
  uint64_t errors = 0;
  Sum bytes_done = 0;
  uint64_t requests = 0;  // block and writeback requests waited for
  std::vector<uint64_t> total_us, block_us, writeback_us, journal_us, flush_us,
      others_writeback_us, throttle_us, other_us;
};

// One request tied to the call of --op-id.
struct OpRequest {
  int64_t ns = 0;  // completed (an event) or found in flight (stuck)
  std::string run;
  std::string host;
  std::string disk;
  std::string op;
  uint64_t sector = 0;
  uint32_t bytes = 0;
  uint64_t latency_us = 0;  // an event's; a stuck record's inflight_us
  std::optional<uint64_t> queue_us;
  uint64_t device_us = 0;
  uint32_t pid = 0;
  std::string comm;
  std::string error;  // "" when none
  uint64_t seq = 0;
};

// The calls' figures per host: how many calls, and the --op-min-us of
// the runs (from their headers).
struct OpsHeaderInfo {
  uint64_t headers = 0;      // headers read
  uint64_t ops_headers = 0;  // of them, with ops on
  std::set<uint64_t> op_min_us;
};

class OpCollector {
 public:
  // `top`: the slowest calls kept.  `op_id`: the call of --op-id, or none
  // (then no event is looked at).
  OpCollector(size_t top, std::optional<uint64_t> op_id)
      : top_(top), op_id_(op_id) {}

  void StartInput() { run_.clear(); }
  void AddHeader(const v1::StreamHeader& h);
  // Every op record, before filtering (counted), then Add() for those
  // that passed.
  void Count() { ++records_; }
  void Add(const v1::Op& op, int64_t ns);
  // --op-id: every event and stuck record (its own selection: the call's
  // requests, whatever the filters but the window and host, which the
  // caller applies).
  void AddEvent(const v1::Event& e, int64_t ns);
  void AddStuck(const v1::Stuck& k, int64_t ns);

  uint64_t records() const { return records_; }  // op records read
  uint64_t selected() const { return selected_; }
  const OpsHeaderInfo& headers() const { return headers_; }
  // The slowest calls, slowest first (ties: earliest, then by op_id).
  const std::vector<OpCall>& Slowest() const { return slowest_; }
  // (host, pid, comm) and (host, file) -> figures, sorted.
  using ProcessKey = std::tuple<std::string, uint32_t, std::string>;
  const std::map<ProcessKey, OpGroup>& processes() const { return processes_; }
  using FileKey = std::pair<std::string, std::string>;
  const std::map<FileKey, OpGroup>& files() const { return files_; }

  std::optional<uint64_t> op_id() const { return op_id_; }
  // --op-id: the call's records (one per run where it has one), its
  // submitted requests, the writeback of its dirtied pages, its stuck
  // requests, each in the order read.  Runs are resolved (see above).
  std::vector<OpCall> Matches() const;
  std::vector<OpRequest> Submitted() const { return Resolved(submitted_); }
  std::vector<OpRequest> Written() const { return Resolved(written_); }
  std::vector<OpRequest> Stuck() const { return Resolved(stuck_); }
  // The runs (resolved) where the call shows at all, sorted.
  std::set<std::string> Runs() const;

 private:
  OpRequest RequestOf(const v1::Event& e, int64_t ns) const;
  // Gives records of no known run to their host's one run when the input
  // has one only.
  std::string ResolveRun(const std::string& run, const std::string& host) const;
  std::vector<OpRequest> Resolved(std::vector<OpRequest> v) const;

  size_t top_;
  std::optional<uint64_t> op_id_;
  std::string run_;  // of the current input's last header; "" before it
  std::map<std::string, std::set<std::string>> runs_of_host_;
  uint64_t records_ = 0;
  uint64_t selected_ = 0;
  OpsHeaderInfo headers_;
  std::vector<OpCall> slowest_;
  std::map<ProcessKey, OpGroup> processes_;
  std::map<FileKey, OpGroup> files_;
  std::vector<OpCall> matches_;
  std::vector<OpRequest> submitted_, written_, stuck_;
};

// A call's file as the report names it: its path, "inode N on MAJ:MIN"
// when it had none, "(unknown)" when neither is known.
std::string FileName(const v1::FileRef& f);

}  // namespace biosnoop::report
