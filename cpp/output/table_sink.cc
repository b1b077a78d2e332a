// The table sink (table_sink.h).

#include "table_sink.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "table_notes.h"

namespace biosnoop {

TableSink::TableSink(std::unique_ptr<OutputFile> file, std::FILE* notes,
                     TerminalCharset charset, absl::TimeZone zone)
    : FileSink(std::move(file)),
      notes_(notes),
      charset_(charset),
      zone_(zone) {}

EventTable& TableSink::Table(int64_t realtime_ns) {
  if (!table_.has_value()) {
    table_.emplace(
        TableLayout{.calls = false, .charset = charset_, .zone = zone_});
  }
  const int64_t second = realtime_ns / 1000000000;
  if (second != width_checked_second_) {
    width_checked_second_ = second;
    table_->set_max_width(static_cast<size_t>(file().TerminalColumns()));
  }
  return *table_;
}

absl::Status TableSink::HeaderIfWidened(bool widened) {
  if (!widened) return absl::OkStatus();
  return AppendNonEvent(table_->HeaderLine());
}

absl::Status TableSink::Write(const EnrichedEvent& e) {
  const bool widened = Table(e.realtime_ns).EventRow(e, &row_);
  if (absl::Status s = HeaderIfWidened(widened); !s.ok()) return s;
  return AppendEvent(row_);
}

absl::Status TableSink::WriteOp(const EnrichedOp& o) {
  const bool widened = Table(o.realtime_ns).OpRow(o, &row_);
  if (absl::Status s = HeaderIfWidened(widened); !s.ok()) return s;
  return AppendOp(row_);
}

absl::Status TableSink::WriteStuck(const StuckRequest& stuck) {
  const bool widened = Table(stuck.realtime_ns).StuckRow(stuck, &row_);
  if (absl::Status s = HeaderIfWidened(widened); !s.ok()) return s;
  return AppendNonEvent(row_);
}

absl::Status TableSink::WriteHeader(const StreamInfo& info) {
  if (!table_.has_value()) {
    // The first header: what the run traces, once.
    absl::FPrintF(notes_, "%s\n", TableStartNote(info));
    table_.emplace(
        TableLayout{.calls = info.ops, .charset = charset_, .zone = zone_});
  }
  Table(info.start_realtime_ns);
  return AppendNonEvent(table_->HeaderLine());
}

absl::Status TableSink::WriteStats(const StatsSnapshot& stats) {
  // The final one: the summary line on stderr says it.
  if (!stats.final) absl::FPrintF(notes_, "%s\n", TableStatsNote(stats, zone_));
  return absl::OkStatus();
}

absl::Status TableSink::WriteSummary(const SummaryRecord& summary) {
  for (const std::string& line : TableSummaryNotes(summary, zone_, charset_)) {
    absl::FPrintF(notes_, "%s\n", line);
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
