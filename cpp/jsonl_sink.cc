#include "jsonl_sink.h"

#include <utility>

#include "json_format.h"

namespace biosnoop {

JsonlSink::JsonlSink(std::unique_ptr<OutputFile> file, std::string host)
    : FileSink(std::move(file)), host_(std::move(host)) {
  line_.reserve(1024);  // a typical line is ~400 bytes
}

absl::Status JsonlSink::Write(const EnrichedEvent& e) {
  line_.clear();  // keeps the capacity
  AppendEventJson(e, host_, &line_);
  return AppendEvent(line_);
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
