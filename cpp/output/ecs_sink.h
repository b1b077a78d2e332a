#pragma once

// ECS sink (--format ecs): one Elastic Common Schema document per line
// (ecs_format.h: events, stuck requests, the stream header, stats, one
// document per summary group), through an OutputFile with line framing,
// so a document reaches the file whole or not at all.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "event.h"
#include "file_sink.h"
#include "output_file.h"
#include "stream_info.h"

namespace biosnoop {

class EcsSink : public FileSink {
 public:
  // `file` must not be null and must use RecordFraming::kLines.  `host`
  // goes into every document's host.name.
  EcsSink(std::unique_ptr<OutputFile> file, absl::string_view host);

  // Errors are JsonlSink's.
  absl::Status Write(const EnrichedEvent& e) override;
  absl::Status WriteHeader(const StreamInfo& info) override;
  absl::Status WriteStats(const StatsSnapshot& stats) override;
  absl::Status WriteSummary(const SummaryRecord& summary) override;
  absl::Status WriteStuck(const StuckRequest& stuck) override;
  // Queued with the events (FileSink::AppendOp).
  absl::Status WriteOp(const EnrichedOp& o) override;

 private:
  // One op record, reused: no allocation once it has grown.
  std::string op_line_;
  const std::string host_;
  // One event's document, reused: no allocation once it has grown.
  std::string line_;
};

}  // namespace biosnoop
