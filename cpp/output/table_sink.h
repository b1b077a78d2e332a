#pragma once

// Table sink (--format table, and the default on a terminal): one aligned
// line per event, call and stuck request (event_table.h) through an
// OutputFile with line framing, and what the other records say as lines
// on the diagnostic stream (table_notes.h): the header's once, each stats
// record's but the final one (the run's summary line follows it), each
// summary record's.  The column header starts the output and each file a
// rotation opens (WriteHeader), and goes out again when a column widens.
// On a terminal, rows are fitted to its width, looked at again at most
// once a second of the records' time (a resized window).

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "event.h"
#include "event_table.h"
#include "file_sink.h"
#include "output_file.h"
#include "stream_info.h"
#include "terminal_text.h"

namespace biosnoop {

class TableSink : public FileSink {
 public:
  // `file` must not be null and must use RecordFraming::kLines; `notes`
  // (stderr) outlives this.  Names and paths are written for `charset`,
  // times of day in `zone`.
  TableSink(std::unique_ptr<OutputFile> file, std::FILE* notes,
            TerminalCharset charset, absl::TimeZone zone);

  // Errors are OutputFile::Append()'s, as JsonlSink's: an event row is
  // queued, the column header and stuck rows are written out at once.
  absl::Status Write(const EnrichedEvent& e) override;
  absl::Status WriteHeader(const StreamInfo& info) override;
  absl::Status WriteStats(const StatsSnapshot& stats) override;
  absl::Status WriteSummary(const SummaryRecord& summary) override;
  absl::Status WriteStuck(const StuckRequest& stuck) override;
  absl::Status WriteOp(const EnrichedOp& o) override;

 private:
  // The table, made by the first header (whose ops says whether there is
  // a CALL column); fitted to the terminal's width.
  EventTable& Table(int64_t realtime_ns);
  // After a row widened a column: the column header again first.
  absl::Status HeaderIfWidened(bool widened);

  std::FILE* const notes_;
  const TerminalCharset charset_;
  const absl::TimeZone zone_;
  std::optional<EventTable> table_;
  int64_t width_checked_second_ = INT64_MIN;
  std::string row_;  // reused
};

}  // namespace biosnoop
