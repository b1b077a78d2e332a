// --format table's lines on stderr (table_notes.h).

#include "table_notes.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop {
namespace {

std::string TimeOfDay(int64_t realtime_ns, absl::TimeZone zone) {
  return absl::FormatTime("%H:%M:%S", absl::FromUnixNanos(realtime_ns), zone);
}

// "10 ms", "0.250 ms": a threshold as it was most likely typed.
std::string Threshold(uint64_t us) {
  if (us % 1000 == 0) return absl::StrCat(us / 1000, " ms");
  return absl::StrFormat("%d.%03d ms", us / 1000, us % 1000);
}

// The upper bound, in ms, of the fine bucket that holds the `percent`th
// percentile of `d`; the log2 buckets' when the fine ones are empty.
double PercentileUpperMs(const HistData& d, uint64_t percent) {
  const uint64_t rank = std::max<uint64_t>(1, (d.count * percent + 99) / 100);
  uint64_t seen = 0;
  for (int n = 0; n < kFineBuckets; ++n) {
    seen += d.fine[n];
    if (seen >= rank) return FineUpperSeconds(n) * 1e3;
  }
  seen = 0;
  for (int i = 0; i < kHistBuckets; ++i) {
    seen += d.latency[i];
    if (seen >= rank) return static_cast<double>(BucketHigh(i) + 1) / 1e3;
  }
  return 0;
}

}  // namespace

std::string TableStartNote(const StreamInfo& info) {
  return absl::StrCat(
      "biosnoop: tracing ",
      info.min_us == 0
          ? std::string("every block I/O")
          : absl::StrCat("block I/O taking at least ", Threshold(info.min_us),
                         ", and every failed one"),
      info.ops ? absl::StrCat(", and calls taking at least ",
                              Threshold(info.op_min_us))
               : std::string(),
      " (Ctrl-C ends)");
}

std::string TableStatsNote(const StatsSnapshot& s, absl::TimeZone zone) {
  std::string line = absl::StrCat("biosnoop: ", TimeOfDay(s.realtime_ns, zone),
                                  " stats: completions=", s.completions,
                                  " emitted=", s.emitted,
                                  " written=", s.written, " lost=", s.lost,
                                  " dropped=", s.dropped, " missed=", s.missed);
  if (s.HasOps()) {
    absl::StrAppend(&line, " ops_written=", s.ops_written,
                    " ops_lost=", s.ops_lost);
  }
  return line;
}

std::vector<std::string> TableSummaryNotes(const SummaryRecord& summary,
                                           absl::TimeZone zone,
                                           TerminalCharset charset) {
  std::vector<std::string> lines;
  for (const HistGroup& g : summary.groups) {
    const HistData& d = g.data;
    if (d.count == 0) continue;
    std::string line = absl::StrFormat(
        "biosnoop: %s last %.1f s: ", TimeOfDay(summary.realtime_ns, zone),
        summary.interval_s);
    AppendTerminalText(g.disk, charset, &line);
    absl::StrAppendFormat(
        &line, " %s: %d I/O, %d slow, %d failed, mean %.3f ms, p99 <= %.3f ms",
        g.op, d.count, d.slow, d.errors,
        static_cast<double>(d.latency_ns) / static_cast<double>(d.count) / 1e6,
        PercentileUpperMs(d, 99));
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace biosnoop
