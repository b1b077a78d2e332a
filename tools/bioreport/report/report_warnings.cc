// The WARNING block that starts a report whenever events may be missing:
// loss counted by biosnoop (per host when there are several), events
// missing from the input by their seq numbers, runs whose loss is unknown,
// corrupt or truncated input: one line per cause that applies.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report.h"

namespace biosnoop::report {
namespace {

// The loss lines of one set of runs, each after `prefix` ("db7: " when
// there are several hosts, so that a warning names the host it is about).
void AppendLossLines(const LossSummary& loss, bool any_records,
                     const std::string& prefix,
                     std::vector<std::string>* lines) {
  const std::pair<Sum, const char*> counted[] = {
      {loss.lost, " events lost in the kernel (ring buffer full)"},
      {loss.dropped, " events dropped by biosnoop (output write failed)"},
      {loss.missed, " completions missed in the kernel (hook skipped)"},
      {loss.unfinished, " requests issued but never seen completing"},
      {loss.decode_errors,
       " kernel records rejected by biosnoop (decode errors)"},
      {loss.not_in_input,
       " events biosnoop wrote are not in the input (gaps in their runs' seq "
       "numbers: lines dropped on the way, or a filtered input)"},
      {loss.before_input,
       " earlier events of these runs are not in the input (their first seq "
       "is above 1: older log files not given?)"},
      {loss.duplicates,
       " events are in the input more than once and counted each time (the "
       "same log given twice?)"},
  };
  for (const auto& [n, what] : counted) {
    if (n > 0) lines->push_back(absl::StrCat(prefix, Decimal(n), what));
  }
  if (loss.mixed_runs > 0) {
    lines->push_back(absl::StrCat(
        prefix, loss.mixed_runs,
        " runs wrote into one file at the same time (two biosnoops appending "
        "to it): their events are all counted, but not checked against their "
        "seq numbers"));
  }
  AppendUnknownLossLines(loss, any_records, prefix, lines);
}

}  // namespace

void AppendUnknownLossLines(const LossSummary& loss, bool any_records,
                            const std::string& prefix,
                            std::vector<std::string>* lines) {
  if (any_records && !loss.any_stats) {
    lines->push_back(absl::StrCat(prefix, "no stats records: loss unknown"));
  } else if (loss.runs_without_stats > 0) {
    lines->push_back(absl::StrCat(prefix, loss.runs_without_stats, " of ",
                                  loss.runs,
                                  " runs have no stats records: their loss is "
                                  "unknown"));
  }
  if (loss.runs_not_final > 0) {
    // Kernel loss leaves no gap in the seq numbers: only a later stats
    // record could tell.
    lines->push_back(absl::StrCat(
        prefix, loss.runs_not_final, " of ", loss.runs,
        " runs have no final stats record (still running, killed, or their "
        "newest file not given): loss after their last stats record is "
        "unknown"));
  }
}

std::string WarningBlock(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  std::vector<std::string> lines;
  if (a.MultiHost()) {
    for (const std::string& host : a.Hosts()) {
      AppendLossLines(a.Loss(host), a.records() > 0,
                      absl::StrCat(HostName(host), ": "), &lines);
    }
  } else {
    AppendLossLines(a.Loss(), a.records() > 0, "", &lines);
  }
  AppendDamageLines(in, &lines);
  return FormatWarningBlock("events", lines);
}

void AppendDamageLines(const ReportInput& in, std::vector<std::string>* lines) {
  if (in.damage == nullptr) return;
  if (in.damage->records_skipped > 0) {
    lines->push_back(
        absl::StrCat(in.damage->records_skipped, " corrupt records skipped"));
  }
  for (const DamagedInput& input : in.damage->damaged_inputs) {
    lines->push_back(absl::StrCat(input.name, " ", input.what));
  }
}

std::string FormatWarningBlock(absl::string_view what,
                               const std::vector<std::string>& lines) {
  if (lines.empty()) return "";
  std::string out =
      absl::StrCat("WARNING: ", what, " may be missing from this report:\n");
  for (const std::string& line : lines)
    absl::StrAppend(&out, "WARNING:   ", line, "\n");
  out += "\n";
  return out;
}

}  // namespace biosnoop::report
