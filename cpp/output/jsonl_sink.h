#pragma once

// JSON Lines sink: one line per record (json_format.h: events, the stream
// header, stats, summaries), through an OutputFile, so a line reaches the
// file whole or not at all.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "event.h"
#include "file_sink.h"
#include "json_format.h"
#include "output_file.h"
#include "stream_info.h"

namespace biosnoop {

class JsonlSink : public FileSink {
 public:
  // `file` must not be null and must use RecordFraming::kLines.  `host` goes
  // into every event's "host" field.
  JsonlSink(std::unique_ptr<OutputFile> file, absl::string_view host);

  // Errors are OutputFile::Append()'s (and Flush()'s for header, stats and
  // summaries, which are written out at once; see FileSink).
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
  const JsonHost host_;
  // Scratch for one event line, reused: no allocation or zero-fill per event.
  std::string line_;
};

}  // namespace biosnoop
