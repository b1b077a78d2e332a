#pragma once

// --format table's lines on stderr: what the stream's other records say,
// for a person beside the table on stdout.  Each is one line without its
// '\n', starting with "biosnoop: ".
//
//   the header   "biosnoop: tracing block I/O taking at least 10 ms, and
//                every failed one (Ctrl-C ends)"
//   stats        "biosnoop: 10:42:07 stats: completions=... emitted=...
//                written=... lost=... dropped=... missed=..." (and the
//                calls' counts with --ops)
//   a summary    one line per disk and operation with I/O in the interval:
//                "biosnoop: 10:42:07 last 60.0 s: vda1 read: 1200 I/O, 3
//                slow, 0 failed, mean 0.412 ms, p99 <= 2.379 ms" (the p99
//                is the upper bound of the fine bucket that holds it)
//
// Times of day are in `zone`; disk names are terminal text.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "stream_info.h"
#include "terminal_text.h"

namespace biosnoop {

std::string TableStartNote(const StreamInfo& info);
std::string TableStatsNote(const StatsSnapshot& stats, absl::TimeZone zone);
// None when no disk had I/O in the interval.
std::vector<std::string> TableSummaryNotes(const SummaryRecord& summary,
                                           absl::TimeZone zone,
                                           TerminalCharset charset);

}  // namespace biosnoop
