// The ECS sink (ecs_sink.h).

#include "ecs_sink.h"

#include <utility>

#include "ecs_format.h"

namespace biosnoop {

EcsSink::EcsSink(std::unique_ptr<OutputFile> file, absl::string_view host)
    : FileSink(std::move(file)), host_(host) {}

absl::Status EcsSink::Write(const EnrichedEvent& e) {
  line_.clear();
  AppendEventEcs(e, host_, &line_);
  return AppendEvent(line_);
}

absl::Status EcsSink::WriteHeader(const StreamInfo& info) {
  std::string line;
  AppendHeaderEcs(info, &line);
  return AppendNonEvent(line);
}

absl::Status EcsSink::WriteStats(const StatsSnapshot& stats) {
  std::string line;
  AppendStatsEcs(stats, host_, &line);
  return AppendNonEvent(line);
}

absl::Status EcsSink::WriteSummary(const SummaryRecord& summary) {
  // One document per group, written together: none for no group.
  std::string lines;
  AppendSummaryEcs(summary, host_, &lines);
  return AppendNonEvent(lines);
}

absl::Status EcsSink::WriteStuck(const StuckRequest& stuck) {
  std::string line;
  AppendStuckEcs(stuck, host_, &line);
  return AppendNonEvent(line);
}

absl::Status EcsSink::WriteOp(const EnrichedOp& o) {
  op_line_.clear();
  AppendOpEcs(o, host_, &op_line_);
  return AppendOp(op_line_);
}

}  // namespace biosnoop
