// The JSON Lines sink (jsonl_sink.h).

#include "jsonl_sink.h"

#include <utility>

#include "json_format.h"

namespace biosnoop {

JsonlSink::JsonlSink(std::unique_ptr<OutputFile> file, absl::string_view host)
    : FileSink(std::move(file)), host_(host) {}

absl::Status JsonlSink::Write(const EnrichedEvent& e) {
  // Formatted straight into the output buffer: a typical line is ~300
  // bytes, its bound ~1.2 KiB.
  const size_t bound = EventJsonBound(e, host_);
  absl::Status flushed;
  if (char* p = ReserveEvent(bound, &flushed)) {
    const absl::Status queued = CommitEvent(p, WriteEventJson(e, host_, p));
    return flushed.ok() ? queued : flushed;
  }
  // A bound larger than the whole buffer (not for any event today).
  if (line_.size() < bound) line_.resize(bound);
  const char* end = WriteEventJson(e, host_, line_.data());
  return AppendEvent(
      absl::string_view(line_.data(), static_cast<size_t>(end - line_.data())));
}

absl::Status JsonlSink::WriteHeader(const StreamInfo& info) {
  std::string line;
  AppendHeaderJson(info, &line);
  return AppendNonEvent(line);
}

absl::Status JsonlSink::WriteStats(const StatsSnapshot& stats) {
  std::string line;
  AppendStatsJson(stats, &line);
  return AppendNonEvent(line);
}

absl::Status JsonlSink::WriteSummary(const SummaryRecord& summary) {
  std::string line;
  AppendSummaryJson(summary, &line);
  return AppendNonEvent(line);
}

absl::Status JsonlSink::WriteStuck(const StuckRequest& stuck) {
  std::string line;
  AppendStuckJson(stuck, host_, &line);
  return AppendNonEvent(line);
}

absl::Status JsonlSink::WriteOp(const EnrichedOp& o) {
  op_line_.clear();
  AppendOpJson(o, host_, &op_line_);
  return AppendOp(op_line_);
}

}  // namespace biosnoop
