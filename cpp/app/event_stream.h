#pragma once

// The event stream (the default mode): every slow or failed completion
// as an event record through the RecordPipeline, beside the stream
// header, stats, summary and stuck records, in JSON Lines or protobuf
// (--format), while an OutputWatch says loss and a blocked output on
// stderr.  The Runner (runner.h) calls it at its steps.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "enricher.h"
#include "file_sink.h"
#include "histogram.h"
#include "metrics_server.h"
#include "output_watch.h"
#include "record_pipeline.h"
#include "run_mode.h"
#include "stream_info.h"
#include "stuck_watch.h"

namespace biosnoop {

class EventStream : public RunMode {
 public:
  explicit EventStream(const Options& options);
  ~EventStream() override;

  // Binds --metrics-listen first, so a port in use stops the start
  // before the output is created.
  absl::StatusOr<absl::Duration> OpenOutput(const RunState& run) override;
  void RemoveOutputIfUnused() override { sink_->RemoveOutputIfUnused(); }
  OutputFile& output() override { return sink_->mutable_file(); }
  RecordConsumer* consumer() override { return pipeline_.get(); }
  int poll_ms() const override;
  DiskNames* disk_names() override { return &enricher_.disk_names(); }

  // The stream header, the output watch, the metrics served.
  absl::Status Started(RunState& run) override;
  // Flushes at most every kFlushEveryNs.
  absl::Status AfterPoll(RunState& run, uint64_t now_ns) override;
  // A header and a stats record start each file.
  absl::Status NewFile(RunState& run) override;
  // Recalibrates the wall clock; the stuck look and its records; the
  // metrics' new snapshot.
  absl::Status EverySecond(RunState& run, uint64_t now_ns) override;
  // Summary and stats records when due.
  absl::Status Periodic(RunState& run, uint64_t now_ns) override;
  absl::Status Drained(RunState& run) override;
  // The last summary record.
  absl::Status LastRecords(RunState& run) override;
  // The final stats record (and metrics), then the summary line.
  absl::Status Summarise(RunState& run, uint64_t unfinished) override;
  void OutputFailed() override { pipeline_->discarding = true; }

 private:
  // A stats record's values from the counters as they are now.  Flushes
  // first, so written/dropped count what has reached the file.
  absl::StatusOr<StatsSnapshot> Snapshot(RunState& run, bool final);
  // A summary record: the interval's kernel histograms per disk and op.
  absl::Status WriteSummary(RunState& run);
  // `set` per disk and op, disks named as at now_ns.
  std::vector<HistGroup> PerDiskAndOp(const HistSet& set, uint64_t now_ns);
  // What the metrics serve from now on: `stats` and the kernel's
  // histograms since the start.  Does nothing without --metrics-listen.
  absl::Status PublishMetrics(RunState& run, const StatsSnapshot& stats);
  // The metrics port was in use at start: tries it again every
  // MetricsServer::kRetryBindS, and serves once bound.
  void RetryMetricsBind(RunState& run, uint64_t now_ns);

  const Options& options_;
  Enricher enricher_;
  std::unique_ptr<FileSink> sink_;
  std::unique_ptr<RecordPipeline> pipeline_;
  std::unique_ptr<OutputWatch> watch_;
  std::optional<StuckWatch> stuck_;
  StreamInfo info_;
  std::string host_ = "unknown";
  uint64_t unfinished_ = 0;  // known at exit only
  uint64_t last_flush_ = 0;
  uint64_t stats_every_ns_ = UINT64_MAX;
  uint64_t next_stats_ = UINT64_MAX;
  uint64_t summary_every_ns_ = UINT64_MAX;
  uint64_t next_summary_ = UINT64_MAX;
  HistSet hist_before_;
  uint64_t summary_start_ = 0;
  std::unique_ptr<MetricsServer> metrics_;  // --metrics-listen
  uint64_t metrics_in_use_since_ = 0;       // while not bound
  uint64_t metrics_next_bind_ = 0;
};

}  // namespace biosnoop
