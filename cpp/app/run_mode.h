#pragma once

// What a run does that depends on its mode, called by the Runner
// (runner.h) at its named steps: the event stream (event_stream.h) writes
// records through a sink, the histogram mode (hist_mode.h) prints reports.
// Everything else -- the start, the poll loop, rotation, the in-flight
// upkeep, the drain -- is the Runner's, the same for both.
//
// Error channels: a step's returned status is fatal (the kernel's tables
// could not be read: the run ends at once).  An output error is handed to
// RunState::Keep instead: the loop ends, and the run still drains and
// summarises (a closed pipe, CancelledError, is a clean end).

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "disk_names.h"
#include "inflight_upkeep.h"
#include "options.h"
#include "output_file.h"
#include "privileges.h"
#include "probe.h"

namespace biosnoop {

class RunMode;

// What the Runner holds for the run and shows the mode.
struct RunState {
  const Options& options;
  std::FILE* diag;
  RunMode* mode;
  // As PrepareStart made it; a followed partition's sectors change in it.
  ProbeConfig config;
  std::unique_ptr<Probe> probe;
  // -Z: who the run is once the program is attached (ResolveRunAs).
  RunAs run_as;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC when tracing started
  std::optional<InflightUpkeep> upkeep;
  // The output's first error; OK while the output works.
  absl::Status output_status;

  // Records an output error (the first one stays); true while the output
  // works.  The first error also tells the mode (RunMode::OutputFailed).
  bool Keep(absl::Status status);
  bool output_ok() const { return output_status.ok(); }
};

class RunMode {
 public:
  virtual ~RunMode() = default;

  // Start: opens the output (the checks are done, the signal handlers
  // installed).  Returns how long it waited for a FIFO's reader.  Errors
  // as OpenRunOutput's.
  virtual absl::StatusOr<absl::Duration> OpenOutput(const RunState& run) = 0;
  // A start that failed after OpenOutput: the file goes if this run
  // created it and nothing was written.
  virtual void RemoveOutputIfUnused() = 0;
  // The output file, for rotation.
  virtual OutputFile& output() = 0;
  // Where the Probe hands ring-buffer records; nullptr: events disabled.
  virtual RecordConsumer* consumer() = 0;
  // The poll loop's wait for records, per turn.
  virtual int poll_ms() const = 0;
  // The disk names to invalidate when a followed partition moves
  // (nullptr: the mode names nothing by partition).
  virtual DiskNames* disk_names() = 0;

  // Start, once attached and run.start_ns is set: what opens the output.
  virtual absl::Status Started(RunState& run) = 0;
  // Tick, after each poll: e.g. flush.
  virtual absl::Status AfterPoll(RunState& run, uint64_t now_ns) = 0;
  // Rotate: a new file (or a new section of stdout) starts here.
  virtual absl::Status NewFile(RunState& run) = 0;
  // Tick, once a second.
  virtual absl::Status EverySecond(RunState& run, uint64_t now_ns) = 0;
  // Tick, every turn: the mode's periodic records, each when due.
  virtual absl::Status Periodic(RunState& run, uint64_t now_ns) = 0;
  // Drain, after the programs are detached: what is left in the ring buffer.
  virtual absl::Status Drained(RunState& run) = 0;
  // Summarise: the last records (when the output still works) ...
  virtual absl::Status LastRecords(RunState& run) = 0;
  // ... and the summary line on run.diag; `unfinished` requests were
  // still held at exit.
  virtual absl::Status Summarise(RunState& run, uint64_t unfinished) = 0;
  // The output failed (RunState::Keep's first error).
  virtual void OutputFailed() {}
  // The mode has done what it was asked (--hist's --count reports): the
  // loop ends there, and the run drains and summarises as at a stop.
  virtual bool Finished() const { return false; }
};

}  // namespace biosnoop
