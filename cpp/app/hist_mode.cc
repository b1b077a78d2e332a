// The histogram mode's part of each run step; the steps' order is the
// Runner's (runner.cc).

#include "hist_mode.h"

#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "biosnoop_abi.h"
#include "counters.h"
#include "hist_decoder.h"
#include "status_macros.h"
#include "stream_header.h"

namespace biosnoop {
namespace {

HistGrouping GroupingFor(const Options& o) {
  if (o.per_disk && o.per_flags) return HistGrouping::kPerDiskAndFlags;
  if (o.per_disk) return HistGrouping::kPerDisk;
  if (o.per_flags) return HistGrouping::kPerFlags;
  return HistGrouping::kAll;
}

}  // namespace

HistogramMode::HistogramMode(const Options& options)
    : options_(options),
      unit_(options.hist_ms ? HistUnit::kMilliseconds
                            : HistUnit::kMicroseconds),
      rows_(options.hist_fine ? HistRows::kFine : HistRows::kLog2),
      grouping_(GroupingFor(options)) {}

absl::StatusOr<absl::Duration> HistogramMode::OpenOutput(const RunState& run) {
  ASSIGN_OR_RETURN(RunOutput out,
                   OpenRunOutput(options_, RecordFraming::kLines, run.diag));
  file_ = std::move(out.file);
  return out.waited;
}

absl::Status HistogramMode::Started(RunState& run) {
  interval_start_ = run.start_ns;
  if (options_.interval.has_value()) {
    every_ns_ = absl::ToInt64Nanoseconds(*options_.interval);
    next_report_ = run.start_ns + every_ns_;
  }
  return absl::OkStatus();
}

absl::Status HistogramMode::NewFile(RunState&) {
  csv_header_ = true;
  return absl::OkStatus();
}

absl::Status HistogramMode::Periodic(RunState& run, uint64_t now_ns) {
  if (now_ns >= next_report_) {
    next_report_ = now_ns + every_ns_;
    ++reports_;
    return Report(run);
  }
  return absl::OkStatus();
}

bool HistogramMode::Finished() const {
  return options_.count.has_value() && reports_ >= *options_.count;
}

absl::Status HistogramMode::LastRecords(RunState& run) {
  // After the detach, so that this report and the counters in the summary
  // line count the same completions: under load, the last looks for
  // missed completions alone add thousands that no report would show.
  if (run.output_ok() && !Finished()) return Report(run);
  return absl::OkStatus();
}

absl::Status HistogramMode::Summarise(RunState& run, uint64_t unfinished) {
  ASSIGN_OR_RETURN(Counters c, run.probe->ReadCounters());
  absl::FPrintF(run.diag,
                "biosnoop: completions=%d orphans=%d filtered=%d "
                "hist_full=%d expired=%d missed=%d unfinished=%d "
                "duration_s=%.1f\n",
                c.completions(), c.orphans(), c.filtered(),
                c.v[BIOSNOOP_CTR_HIST_FULL], run.upkeep->expired(),
                TotalMissed(c, run.probe->ReadMissed(c),
                            run.upkeep->missed_completions()),
                unfinished, (MonotonicNs() - run.start_ns) / 1e9);
  return absl::OkStatus();
}

absl::Status HistogramMode::Report(RunState& run) {
  ASSIGN_OR_RETURN(KernelHistograms read, run.probe->ReadHistograms());
  HistSet now_set = DecodeHistograms(read);
  const uint64_t now = MonotonicNs();
  HistSet delta = HistDelta(now_set, previous_);
  previous_ = std::move(now_set);
  std::vector<HistGroup> groups = GroupHistograms(
      delta, grouping_, [this, now](uint32_t major, uint32_t minor) {
        return names_.Lookup(major, minor, 0, now).disk;
      });
  std::string ts;
  AppendRfc3339Nanos(clock_.ToRealtimeNs(now), &ts);
  const double seconds = (now - interval_start_) / 1e9;
  interval_start_ = now;
  std::string text;
  switch (options_.hist_format) {
    case Options::HistFormat::kText:
      text = FormatHistText(groups, unit_,
                            absl::StrFormat("%s (%.1f s)", ts, seconds), rows_);
      break;
    case Options::HistFormat::kCsv:
      text = FormatHistCsv(groups, grouping_, unit_, csv_header_, rows_);
      csv_header_ = false;
      break;
    case Options::HistFormat::kJson:
      text = FormatHistJson(groups, unit_, ts, seconds, rows_);
      break;
  }
  if (text.empty()) return absl::OkStatus();
  if (!run.Keep(file_->Append(text))) return absl::OkStatus();
  run.Keep(file_->Flush());
  return absl::OkStatus();
}

}  // namespace biosnoop
