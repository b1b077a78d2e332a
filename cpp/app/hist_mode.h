#pragma once

// --hist: biolatency-style latency and size histograms of every I/O,
// aggregated in the kernel and printed (text, CSV or JSON) at exit or
// every --interval.  No events: the Probe's consumer is none.  The Runner
// (runner.h) calls it at its steps.

#include <cstdint>
#include <memory>
#include <string>

#include "hist_format.h"
#include "histogram.h"
#include "run_mode.h"
#include "run_output.h"
#include "wall_clock.h"

namespace biosnoop {

class HistogramMode : public RunMode {
 public:
  explicit HistogramMode(const Options& options);

  absl::StatusOr<absl::Duration> OpenOutput(const RunState& run) override;
  void RemoveOutputIfUnused() override { file_->RemoveIfCreatedAndUnused(); }
  OutputFile& output() override { return *file_; }
  RecordConsumer* consumer() override { return nullptr; }
  int poll_ms() const override { return 100; }
  // Reports name whole disks only.
  DiskNames* disk_names() override { return nullptr; }

  absl::Status Started(RunState& run) override;
  absl::Status AfterPoll(RunState&, uint64_t) override {
    return absl::OkStatus();
  }
  // A new CSV file starts with its column line.
  absl::Status NewFile(RunState& run) override;
  absl::Status EverySecond(RunState&, uint64_t) override {
    return absl::OkStatus();
  }
  // A report every --interval.
  absl::Status Periodic(RunState& run, uint64_t now_ns) override;
  // --count reports printed.
  bool Finished() const override;
  absl::Status Drained(RunState&) override { return absl::OkStatus(); }
  // The last report, once nothing counts any more (none after --count
  // reports: each covered its whole interval).
  absl::Status LastRecords(RunState& run) override;
  absl::Status Summarise(RunState& run, uint64_t unfinished) override;

 private:
  // Prints the histograms since the last report.
  absl::Status Report(RunState& run);

  const Options& options_;
  const HistUnit unit_;
  const HistRows rows_;
  const HistGrouping grouping_;
  std::unique_ptr<OutputFile> file_;
  DiskNames names_;
  WallClock clock_;
  HistSet previous_;
  uint64_t interval_start_ = 0;
  uint64_t every_ns_ = UINT64_MAX;
  uint64_t next_report_ = UINT64_MAX;
  uint64_t reports_ = 0;  // printed by Periodic
  bool csv_header_ = true;
};

}  // namespace biosnoop
