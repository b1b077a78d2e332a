#pragma once

// The kernel's own traces of a disk's requests, for tests to hold
// biosnoop's events to: TraceInstance, a tracefs instance of the tests'
// own with block_rq_complete (and any other event); BlkTrace, the
// kernel's blktrace through ftrace's `blk` tracer.  tracefs is mounted
// for them if it is not, and unmounted again.

#include <cstdint>
#include <string>
#include <vector>

namespace biosnoop::testing {

// A tracefs instance of the tests' own (the global trace buffer is left
// alone) recording one disk's block_rq_complete lines, and any other
// events asked for.  Tests parse its trace() text themselves.
class TraceInstance {
 public:
  // `name` tells instances apart (the pid is added); `buffer_kb` 0 keeps
  // the kernel's default size; `extra_events` are "system/event" names.
  TraceInstance(const std::string& disk, const std::string& name,
                int buffer_kb = 0,
                const std::vector<std::string>& extra_events = {});
  ~TraceInstance();
  TraceInstance(const TraceInstance&) = delete;
  TraceInstance& operator=(const TraceInstance&) = delete;

  bool ok() const { return ok_; }
  // The instance's trace so far.
  std::string trace() const;

  // A line's "block_rq_complete: 7,3 RA () 2048 + 8 ..." fields: rwbs and
  // sector; false for any other line (a comm may hold spaces: parsed from
  // the event's name on).
  static bool ParseCompletion(const std::string& line, std::string* rwbs,
                              uint64_t* sector);

 private:
  bool mounted_ = false;
  bool ok_ = false;
  std::string dir_;
};

// One line of the blk tracer, e.g.
//   "fio-28980 [001] d..1. 20194.760387:   7,0    D  WS 56 + 8 [fio]".
struct BlkAction {
  uint64_t ts_ns = 0;  // the trace clock (mono: CLOCK_MONOTONIC), whole us
  unsigned major = 0, minor = 0;
  char action = 0;   // Q G I D C M F R X ... (blktrace's letters)
  std::string rwbs;  // the tracer's own spelling (R, WS, FWS, RA, N ...)
  uint64_t sector = 0;
  uint32_t sectors = 0;  // "sector + sectors"
};

// The kernel's blktrace of one disk through ftrace's `blk` tracer:
// /sys/block/DISK/trace/enable and current_tracer=blk.  The kernel allows
// that tracer only in the top-level trace buffer (an instance refuses it,
// EINVAL), so this takes the top level: a lock file
// (/run/lock/biosnoop-blk-tracer) keeps two such tests apart, and it fails
// rather than replace a tracer someone else set.  The trace clock is
// `mono`, the clock of bpf_ktime_get_ns, and the buffer `buffer_kb` per
// CPU.  The destructor puts back the tracer, clock, buffer size,
// tracing_on and the disk's trace/enable as they were.
class BlkTrace {
 public:
  BlkTrace(const std::string& disk, int buffer_kb);
  ~BlkTrace();
  BlkTrace(const BlkTrace&) = delete;
  BlkTrace& operator=(const BlkTrace&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why not ok
  // Empties the buffer: the trace starts again from now.
  bool Clear() const;
  // The trace so far (reading it does not consume it).
  std::string trace() const;
  // Entries the ring buffer overwrote or dropped (per_cpu/cpu*/stats
  // "overrun" and "dropped events"): a trace with any is incomplete.
  uint64_t Lost() const;

  // The fields of a line of the form above; false for any other line
  // (headers, plug and unplug lines that carry no sector, notes).
  static bool Parse(const std::string& line, BlkAction* out);

 private:
  bool mounted_ = false;
  int lock_fd_ = -1;
  std::string disk_;
  bool enabled_ = false;       // we wrote 1 to the disk's trace/enable
  bool tracer_set_ = false;    // we set current_tracer=blk
  std::string old_clock_;      // "" when not changed
  std::string old_buffer_kb_;  // "" when not changed
  std::string old_tracing_on_;
  std::string error_;
};

}  // namespace biosnoop::testing
