// The baseline forms: text for people, CSV and JSON for scripts, from the
// summary records a BaselineCollector selected.  Layouts are fixed (golden
// tests compare them byte for byte).

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"
#include "report.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

constexpr int kP50 = 500;
constexpr int kP90 = 900;
constexpr int kP99 = 990;
constexpr int kP999 = 999;

// One row of any form: a group over a span of time.
struct Row {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double seconds = 0;
  const BaselineGroup* group = nullptr;
  bool all = false;  // the "all" row: disk and op read "all"
};

// The sum of `groups`, labelled `host`, all, all.
BaselineGroup SumOf(const std::string& host,
                    const std::vector<const BaselineGroup*>& groups) {
  BaselineGroup all;
  all.host = host;
  all.disk = "all";
  all.op = "all";
  all.min_us = groups.front()->min_us;
  for (const BaselineGroup* g : groups) all.Add(*g);
  return all;
}

// The rows every form shows, and the groups they point into.
struct RowSet {
  std::vector<BaselineGroup> merged;
  std::vector<BaselineGroup> alls;  // sums for the "all" rows
  std::vector<Row> rows;
};

// Per interval: a row per interval and group.  Merged: a row per group
// over the window; when all intervals have one threshold (shares of
// different thresholds do not add up), an "all" row after more than one
// group.  With several hosts (`multi_host`), each host's rows span its own
// window and time covered, and end with the host's "all" row; the "all"
// row of every host (host "all") comes last.
RowSet MakeRows(const BaselineCollector& b, bool per_interval,
                bool multi_host) {
  RowSet set;
  if (per_interval) {
    for (const BaselineInterval& iv : b.intervals()) {
      for (const BaselineGroup& g : iv.groups) {
        set.rows.push_back({iv.start_ns, iv.end_ns, iv.interval_s, &g});
      }
    }
    return set;
  }
  set.merged = b.Merged();
  const bool one_threshold = b.OneThreshold();
  // Rows point into alls: no reallocation once they do.
  set.alls.reserve(set.merged.size() + 1);
  std::vector<const BaselineGroup*> every;
  if (!multi_host) {
    for (const BaselineGroup& g : set.merged) {
      set.rows.push_back(
          {b.window_start_ns(), b.window_end_ns(), b.covered_s(), &g});
      every.push_back(&g);
    }
  } else {
    for (size_t i = 0; i < set.merged.size();) {
      const std::string& host = set.merged[i].host;
      const BaselineWindow w = b.WindowOf(host);
      std::vector<const BaselineGroup*> of_host;
      for (; i < set.merged.size() && set.merged[i].host == host; ++i) {
        const BaselineGroup& g = set.merged[i];
        set.rows.push_back({w.start_ns, w.end_ns, w.covered_s, &g});
        of_host.push_back(&g);
        every.push_back(&g);
      }
      if (one_threshold && of_host.size() > 1) {
        set.alls.push_back(SumOf(host, of_host));
        set.rows.push_back(
            {w.start_ns, w.end_ns, w.covered_s, &set.alls.back(), true});
      }
    }
  }
  if (one_threshold && every.size() > 1) {
    set.alls.push_back(SumOf("all", every));
    set.rows.push_back({b.window_start_ns(), b.window_end_ns(), b.covered_s(),
                        &set.alls.back(), true});
  }
  return set;
}

bool MultiHost(const ReportInput& in) {
  return in.agg != nullptr && in.agg->MultiHost();
}

std::optional<double> SlowPercent(const BaselineGroup& g) {
  if (g.count == 0) return std::nullopt;
  return 100.0 * static_cast<double>(g.slow) / static_cast<double>(g.count);
}

// "0.47%"; "<0.01%" rather than a share that rounds to nothing.
std::string PercentText(const BaselineGroup& g) {
  const std::optional<double> pct = SlowPercent(g);
  if (!pct) return "-";
  if (g.slow == 0) return "0%";
  if (g.slow == g.count) return "100%";
  if (*pct < 0.01) return "<0.01%";
  return absl::StrFormat("%.2f%%", *pct);
}

std::string LatencyText(std::optional<uint64_t> us, bool ms) {
  if (!us) return "-";
  if (!ms) return absl::StrCat(*us);
  return absl::StrFormat("%.1f", static_cast<double>(*us) / 1000);
}

// "10 ms", "1500 us".
std::string Threshold(uint64_t min_us) {
  if (min_us > 0 && min_us % 1000 == 0)
    return absl::StrCat(min_us / 1000, " ms");
  return absl::StrCat(min_us, " us");
}

// "reads", "flushes", "zone_append requests".
std::string OpPlural(const std::string& op) {
  if (op == "read" || op == "write" || op == "discard") return op + "s";
  if (op == "flush") return "flushes";
  return absl::StrCat(Printable(op), " requests");
}

// The end of a span: the time alone when the day is the start's.
std::string SpanEnd(int64_t start_ns, int64_t end_ns) {
  const std::string start = FormatShortTimeMs(start_ns);
  const std::string end = FormatShortTimeMs(end_ns);
  return start.substr(0, 11) == end.substr(0, 11) ? end.substr(11) : end;
}

// A JSON array of the buckets up to the last non-empty one, as biosnoop
// writes its histograms.
void AppendSumArray(const Log2Sums& hist, std::string* out) {
  size_t n = hist.size();
  while (n > 0 && hist[n - 1] == 0) --n;
  out->push_back('[');
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out->push_back(',');
    out->append(Decimal(hist[i]));
  }
  out->push_back(']');
}

}  // namespace

std::string BaselineWarningBlock(const ReportInput& in) {
  std::vector<std::string> lines;
  if (in.baseline->duplicates() > 0) {
    lines.push_back(absl::StrCat(
        in.baseline->duplicates(),
        " summary records are in the input more than once (the same log "
        "given twice?): each counted once"));
  }
  AppendDamageLines(in, &lines);
  return FormatWarningBlock("summary records", lines);
}

std::string BaselineEmptyReason(const ReportInput& in) {
  const BaselineCollector& b = *in.baseline;
  if (b.records_seen() == 0) {
    return "no summary records in this stream (biosnoop writes them with "
           "--summary-interval)";
  }
  if (b.intervals().empty()) {
    return absl::StrCat("no summary records in the time window (",
                        b.records_seen(), " in the stream)");
  }
  for (const BaselineInterval& iv : b.intervals()) {
    if (!iv.groups.empty()) return "";
  }
  std::string what;
  if (!b.filter().disk.empty())
    absl::StrAppend(&what, " --disk ", b.filter().disk);
  if (!b.filter().op.empty()) absl::StrAppend(&what, " --op ", b.filter().op);
  if (what.empty()) return "no groups in the summary records (no completions)";
  return absl::StrCat("no summary groups match", Printable(what),
                      b.filter().disk.empty()
                          ? ""
                          : " (summaries name whole disks, not partitions)");
}

std::string BaselineReport(const ReportInput& in, const ReportOptions& opt) {
  const BaselineCollector& b = *in.baseline;
  std::string out = BaselineWarningBlock(in);
  absl::StrAppend(&out, "inputs: ", in.inputs, " (", in.formats,
                  "), summary records: ", b.records_seen(),
                  ", in the window: ", b.intervals().size(), "\n");
  const std::string empty = BaselineEmptyReason(in);
  if (b.intervals().empty()) return absl::StrCat(out, "\n", empty, "\n");

  const bool one_threshold = b.OneThreshold();
  const bool multi = MultiHost(in);
  const std::vector<std::string> hosts = b.Hosts();
  if (!multi) {
    absl::StrAppend(&out, "window: ", FormatShortTimeMs(b.window_start_ns()),
                    " .. ", FormatShortTimeMs(b.window_end_ns()), " UTC (",
                    absl::StrFormat("%.1f", b.covered_s()), " s in ",
                    b.intervals().size(), " intervals)\n");
  } else {
    // The time covered by any host, then each host's own: never a sum
    // over hosts.
    absl::StrAppend(&out, "window: ", FormatShortTimeMs(b.window_start_ns()),
                    " .. ", FormatShortTimeMs(b.window_end_ns()), " UTC (",
                    absl::StrFormat("%.1f", b.covered_s()), " s covered by ",
                    b.intervals().size(), " intervals of ", hosts.size(),
                    " hosts)\n");
    for (const std::string& host : hosts) {
      const BaselineWindow w = b.WindowOf(host);
      absl::StrAppend(&out, "  host ", HostName(host), ": ",
                      FormatShortTimeMs(w.start_ns), " .. ",
                      FormatShortTimeMs(w.end_ns), " UTC (",
                      absl::StrFormat("%.1f", w.covered_s), " s in ",
                      w.intervals, " intervals)\n");
    }
  }
  const double window_s =
      SecondsBetween(b.window_start_ns(), b.window_end_ns());
  if (b.covered_s() < 0.99 * window_s) {
    absl::StrAppend(&out, "not covered: ",
                    absl::StrFormat("%.1f", window_s - b.covered_s()),
                    " s of the window have no summary record (biosnoop not "
                    "running, or records missing)\n");
  }
  if (one_threshold) {
    absl::StrAppend(&out, "slow: ", b.intervals().front().min_us,
                    " us or more\n");
  } else {
    out += "slow: at least min_us, the threshold of each run\n";
  }
  if (!empty.empty()) return absl::StrCat(out, "\n", empty, "\n");

  const char* u = opt.ms ? "ms" : "us";
  std::vector<std::string> header;
  std::string align;
  if (opt.per_interval) {
    header = {"end (UTC)", "secs"};
    align = "lr";
  }
  if (multi) {
    header.push_back("host");
    align += "l";
  }
  header.insert(header.end(), {"disk", "op"});
  align += "ll";
  if (!one_threshold) {
    header.push_back("min_us");
    align += "r";
  }
  header.insert(header.end(),
                {"count", "slow", "slow_%", "errors", "bytes",
                 absl::StrCat("p50_", u), absl::StrCat("p90_", u),
                 absl::StrCat("p99_", u), absl::StrCat("p99.9_", u)});
  align += "rrrrrrrrr";
  bool all_fine = true, any_fine = false;
  Table table(header, align);
  auto add = [&](const Row& row) {
    const BaselineGroup& g = *row.group;
    std::vector<std::string> cells;
    if (opt.per_interval) {
      cells = {FormatShortTimeMs(row.end_ns),
               absl::StrFormat("%.3f", row.seconds)};
    }
    if (multi) cells.push_back(HostName(g.host));
    cells.push_back(row.all ? "all" : Printable(g.disk));
    cells.push_back(row.all ? "all" : Printable(g.op));
    if (!one_threshold) cells.push_back(absl::StrCat(g.min_us));
    cells.insert(cells.end(),
                 {Decimal(g.count), Decimal(g.slow), PercentText(g),
                  Decimal(g.errors), HumanBytes(g.bytes),
                  LatencyText(EstimatePercentileUs(g, kP50), opt.ms),
                  LatencyText(EstimatePercentileUs(g, kP90), opt.ms),
                  LatencyText(EstimatePercentileUs(g, kP99), opt.ms),
                  LatencyText(EstimatePercentileUs(g, kP999), opt.ms)});
    table.Add(std::move(cells));
    if (g.count > 0 && HasFineBuckets(g)) {
      any_fine = true;
    } else if (g.count > 0) {
      all_fine = false;
    }
  };
  const RowSet set = MakeRows(b, opt.per_interval, multi);
  for (const Row& row : set.rows) add(row);
  absl::StrAppend(&out, "\n", table.Render(), "\n");
  if (any_fine) {
    absl::StrAppend(
        &out,
        "p50 to p99.9: estimated from the summaries' fine buckets (16 per "
        "power of two):\nwithin 4.4% of the true value.\n");
  }
  if (!all_fine || !any_fine) {
    absl::StrAppend(
        &out,
        any_fine ? "Groups whose summaries lack fine buckets (older "
                   "streams): "
                 : "p50 to p99.9: ",
        "estimated from the log2 histograms, at bucket resolution: the "
        "upper\nbound of the bucket holding that rank (the true value lies "
        "between half of it\nand it).\n");
  }
  if (opt.per_interval) return out;

  absl::StrAppend(&out, "\nbetween ", FormatShortTimeMs(b.window_start_ns()),
                  " and ", SpanEnd(b.window_start_ns(), b.window_end_ns()),
                  " UTC:\n");
  for (const BaselineGroup& g : set.merged) {
    if (g.count == 0) continue;
    absl::StrAppend(
        &out, "  ", PercentText(g), " of ", OpPlural(g.op), " on ",
        Printable(g.disk), multi ? absl::StrCat(" of ", HostName(g.host)) : "",
        " took ", Threshold(g.min_us), " or more (", Decimal(g.slow), " of ",
        Decimal(g.count), ")",
        g.errors == 0 ? std::string()
                      : absl::StrCat("; ", Decimal(g.errors), " failed"),
        "\n");
  }
  return out;
}

std::string BaselineCsv(const ReportInput& in, const ReportOptions& opt) {
  const BaselineCollector& b = *in.baseline;
  const bool multi = MultiHost(in);
  std::string out = absl::StrCat(
      "start,end,", multi ? "host," : "",
      "disk,op,min_us,count,bytes,slow,slow_pct,p50_us_est,p99_us_est,"
      "errors,p90_us_est,p99_9_us_est\n");
  for (const Row& row : MakeRows(b, opt.per_interval, multi).rows) {
    const BaselineGroup& g = *row.group;
    const std::optional<double> pct = SlowPercent(g);
    auto cell = [&g](int permille) {
      const std::optional<uint64_t> v = EstimatePercentileUs(g, permille);
      return v ? absl::StrCat(*v) : std::string();
    };
    absl::StrAppend(
        &out, FormatRfc3339(row.start_ns), ",", FormatRfc3339(row.end_ns), ",",
        multi ? absl::StrCat(CsvField(g.host), ",") : "", CsvField(g.disk), ",",
        CsvField(g.op), ",", g.min_us, ",", Decimal(g.count), ",",
        Decimal(g.bytes), ",", Decimal(g.slow), ",",
        pct ? absl::StrFormat("%.4f", *pct) : std::string(), ",", cell(kP50),
        ",", cell(kP99), ",", Decimal(g.errors), ",", cell(kP90), ",",
        cell(kP999), "\n");
  }
  return out;
}

std::string BaselineJson(const ReportInput& in, const ReportOptions& opt) {
  const BaselineCollector& b = *in.baseline;
  const bool any = !b.intervals().empty();
  auto time_or_null = [any](int64_t ns) {
    return any ? absl::StrCat("\"", FormatRfc3339(ns), "\"")
               : std::string("null");
  };
  auto number_or_null = [](const auto& v) {
    return v ? absl::StrCat(*v) : std::string("null");
  };
  std::string out =
      absl::StrCat("{\"summary_records\":", b.records_seen(),
                   ",\"intervals\":", b.intervals().size(),
                   ",\"window_start\":", time_or_null(b.window_start_ns()),
                   ",\"window_end\":", time_or_null(b.window_end_ns()),
                   ",\"covered_s\":", JsonFixed(b.covered_s(), 3),
                   ",\"per_interval\":", opt.per_interval ? "true" : "false",
                   ",\"duplicate_records\":", b.duplicates());
  const bool multi = MultiHost(in);
  if (multi) {
    // Each host's window and time covered (covered_s above is their union).
    out += ",\"hosts\":[";
    bool first_host = true;
    for (const std::string& host : b.Hosts()) {
      const BaselineWindow w = b.WindowOf(host);
      if (!first_host) out += ",";
      first_host = false;
      out += "{\"host\":";
      AppendJsonString(host, &out);
      absl::StrAppend(&out, ",\"intervals\":", w.intervals,
                      ",\"window_start\":\"", FormatRfc3339(w.start_ns),
                      "\",\"window_end\":\"", FormatRfc3339(w.end_ns),
                      "\",\"covered_s\":", JsonFixed(w.covered_s, 3), "}");
    }
    out += "]";
  }
  out += ",\"rows\":[";
  bool first = true;
  for (const Row& row : MakeRows(b, opt.per_interval, multi).rows) {
    const BaselineGroup& g = *row.group;
    if (!first) out += ",";
    first = false;
    const std::optional<double> pct = SlowPercent(g);
    absl::StrAppend(&out, "{\"start\":\"", FormatRfc3339(row.start_ns),
                    "\",\"end\":\"", FormatRfc3339(row.end_ns), "\",");
    if (multi) {
      out += "\"host\":";
      AppendJsonString(g.host, &out);
      out += ",";
    }
    out += "\"disk\":";
    AppendJsonString(g.disk, &out);
    out += ",\"op\":";
    AppendJsonString(g.op, &out);
    absl::StrAppend(
        &out, ",\"min_us\":", g.min_us, ",\"count\":", Decimal(g.count),
        ",\"bytes\":", Decimal(g.bytes), ",\"slow\":", Decimal(g.slow),
        ",\"slow_pct\":", pct ? JsonFixed(*pct, 4) : std::string("null"),
        ",\"errors\":", Decimal(g.errors),
        ",\"p50_us_est\":", number_or_null(EstimatePercentileUs(g, kP50)),
        ",\"p90_us_est\":", number_or_null(EstimatePercentileUs(g, kP90)),
        ",\"p99_us_est\":", number_or_null(EstimatePercentileUs(g, kP99)),
        ",\"p99_9_us_est\":", number_or_null(EstimatePercentileUs(g, kP999)),
        ",\"fine\":", HasFineBuckets(g) ? "true" : "false",
        ",\"latency_us_log2\":");
    AppendSumArray(g.latency, &out);
    out += "}";
  }
  out += "]}\n";
  return out;
}

}  // namespace biosnoop::report
