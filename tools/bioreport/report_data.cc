// Report forms for scripts: CSV and JSON.  No warning block here (it would
// break the format); loss figures are fields of the JSON, and the CLI
// prints the warning block to stderr.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"
#include "report.h"
#include "time_format.h"

namespace biosnoop::report {

std::string CsvReport(const ReportInput& in) {
  const Log2Hist& hist = in.agg->overall().hist;
  std::string out = "bucket,lo_us,hi_us,count\n";
  int hi = -1;
  for (int b = 0; b < kBuckets; ++b) {
    if (hist[b] > 0) hi = b;
  }
  for (int b = 0; b <= hi; ++b) {
    absl::StrAppend(&out, b, ",", BucketLow(b), ",", BucketHigh(b), ",",
                    hist[b], "\n");
  }
  return out;
}

std::string JsonReport(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  const LossSummary loss = a.Loss();
  auto time_or_null = [](bool have, int64_t ns) {
    return have ? absl::StrCat("\"", FormatRfc3339(ns), "\"") : std::string("null");
  };
  const bool have_events = a.events() > 0;
  std::string out = absl::StrCat(
      "{\"inputs\":", in.inputs, ",\"formats\":\"", in.formats,
      "\",\"records\":", a.records(), ",\"first_record\":",
      time_or_null(a.records() > 0, a.first_record_ns()),
      ",\"last_record\":", time_or_null(a.records() > 0, a.last_record_ns()),
      ",\"duration_s\":",
      JsonFixed(a.records() > 0
                    ? SecondsBetween(a.first_record_ns(), a.last_record_ns())
                    : 0.0,
                3),
      ",\"events\":", a.events(),
      ",\"first_event\":", time_or_null(have_events, a.first_event_ns()),
      ",\"last_event\":", time_or_null(have_events, a.last_event_ns()),
      ",\"tail_threshold_us\":", a.tail_us(),
      ",\"tail_events\":", a.tail_events(), ",\"highest_bucket\":");
  const Log2Hist& hist = a.overall().hist;
  int hi = -1;
  for (int b = 0; b < kBuckets; ++b) {
    if (hist[b] > 0) hi = b;
  }
  if (hi < 0) {
    out += "null";
  } else {
    absl::StrAppend(&out, "{\"bucket\":", hi, ",\"lo_us\":", BucketLow(hi),
                    ",\"hi_us\":", BucketHigh(hi), ",\"count\":", hist[hi], "}");
  }
  out += ",\"latency_us\":";
  if (!have_events) {
    out += "null";
  } else {
    std::vector<uint64_t> all = a.AllLatencies();
    const std::vector<uint64_t> p = Percentiles(&all, {500, 900, 990, 999});
    absl::StrAppend(&out, "{\"min\":", a.overall().min_us, ",\"mean\":",
                    JsonFixed(a.overall().mean_us(), 1),
                    ",\"p50\":", p[0], ",\"p90\":", p[1], ",\"p99\":", p[2],
                    ",\"p99_9\":", p[3], ",\"max\":", a.overall().max_us, "}");
  }
  const uint64_t skipped = in.damage ? in.damage->records_skipped : 0;
  const size_t truncated = in.damage ? in.damage->damaged_inputs.size() : 0;
  absl::StrAppend(
      &out, ",\"errors\":", a.overall().errors, ",\"runs\":", loss.runs,
      ",\"runs_not_final\":", loss.runs_not_final, ",\"loss_known\":",
      (loss.any_stats && loss.runs_without_stats == 0 &&
       loss.runs_not_final == 0)
          ? "true"
          : "false",
      ",\"lost\":", Decimal(loss.lost), ",\"dropped\":", Decimal(loss.dropped),
      ",\"missed\":", Decimal(loss.missed),
      ",\"unfinished\":", Decimal(loss.unfinished),
      ",\"decode_errors\":", Decimal(loss.decode_errors),
      ",\"not_in_input\":", Decimal(loss.not_in_input),
      ",\"before_input\":", Decimal(loss.before_input),
      ",\"duplicate_events\":", Decimal(loss.duplicates),
      ",\"mixed_runs\":", loss.mixed_runs,
      ",\"corrupt_records\":", skipped, ",\"truncated_inputs\":", truncated,
      ",\"stuck\":");
  AppendStuckJson(in, &out);
  out += "}\n";
  return out;
}

}  // namespace biosnoop::report
