#include "jsonl_sink.h"

#include <utility>

#include "json_format.h"

namespace biosnoop {

JsonlSink::JsonlSink(std::unique_ptr<OutputFile> file, std::string host)
    : FileSink(std::move(file)), host_(std::move(host)) {}

absl::Status JsonlSink::Write(const EnrichedEvent& e) {
  // Only grown (and so zero-filled) when an event may need more than any
  // before it: a typical line is ~400 bytes, its bound ~1.2 KiB.
  const size_t bound = EventJsonBound(e, host_);
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

}  // namespace biosnoop
