// Report forms for scripts: CSV and JSON.  No warning block here (it would
// break the format); loss figures are fields of the JSON, and the CLI
// prints the warning block to stderr.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"
#include "report.h"
#include "time_format.h"

namespace biosnoop::report {

namespace {

// The highest non-empty bucket, -1 when all are empty.
int HighestBucket(const Log2Hist& hist) {
  int hi = -1;
  for (int b = 0; b < kBuckets; ++b) {
    if (hist[b] > 0) hi = b;
  }
  return hi;
}

// The rows of one histogram, each after `prefix` ("db7," or "").
void AppendCsvRows(const Log2Hist& hist, const std::string& prefix,
                   std::string* out) {
  const int hi = HighestBucket(hist);
  for (int b = 0; b <= hi; ++b) {
    absl::StrAppend(out, prefix, b, ",", BucketLow(b), ",", BucketHigh(b), ",",
                    hist[b], "\n");
  }
}

std::string TimeOrNull(bool have, int64_t ns) {
  return have ? absl::StrCat("\"", FormatRfc3339(ns), "\"")
              : std::string("null");
}

// "null" or {"min", "mean", "p50", "p90", "p99", "p99_9", "max"}.
std::string LatencyJson(const LatencyStats& s,
                        std::vector<uint64_t> latencies) {
  if (s.count == 0) return "null";
  const std::vector<uint64_t> p = Percentiles(&latencies, {500, 900, 990, 999});
  return absl::StrCat("{\"min\":", s.min_us,
                      ",\"mean\":", JsonFixed(s.mean_us(), 1),
                      ",\"p50\":", p[0], ",\"p90\":", p[1], ",\"p99\":", p[2],
                      ",\"p99_9\":", p[3], ",\"max\":", s.max_us, "}");
}

bool LossKnown(const LossSummary& loss) {
  return loss.any_stats && loss.runs_without_stats == 0 &&
         loss.runs_not_final == 0;
}

// The loss fields every JSON object with loss figures has, from "runs" to
// "mixed_runs".
void AppendLossJson(const LossSummary& loss, std::string* out) {
  absl::StrAppend(
      out, ",\"runs\":", loss.runs, ",\"runs_not_final\":", loss.runs_not_final,
      ",\"loss_known\":", LossKnown(loss) ? "true" : "false",
      ",\"lost\":", Decimal(loss.lost), ",\"dropped\":", Decimal(loss.dropped),
      ",\"missed\":", Decimal(loss.missed),
      ",\"unfinished\":", Decimal(loss.unfinished),
      ",\"decode_errors\":", Decimal(loss.decode_errors),
      ",\"not_in_input\":", Decimal(loss.not_in_input),
      ",\"before_input\":", Decimal(loss.before_input),
      ",\"duplicate_events\":", Decimal(loss.duplicates),
      ",\"mixed_runs\":", loss.mixed_runs);
}

// The "hosts" array of the JSON form: per host of the input, its events'
// figures and its runs' loss.
void AppendHostsJson(const Aggregator& a, std::string* out) {
  static const HostTotals kNone;
  out->append(",\"hosts\":[");
  bool first = true;
  for (const std::string& host : a.Hosts()) {
    if (!first) out->push_back(',');
    first = false;
    const auto it = a.host_totals().find(host);
    const HostTotals& h = it != a.host_totals().end() ? it->second : kNone;
    out->append("{\"host\":");
    AppendJsonString(host, out);
    absl::StrAppend(
        out, ",\"events\":", h.overall.count,
        ",\"tail_events\":", h.tail_events, ",\"errors\":", h.overall.errors,
        ",\"latency_us\":", LatencyJson(h.overall, a.LatenciesOf(host)));
    AppendLossJson(a.Loss(host), out);
    out->push_back('}');
  }
  out->push_back(']');
}

}  // namespace

std::string CsvReport(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  if (!a.MultiHost()) {
    std::string out = "bucket,lo_us,hi_us,count\n";
    AppendCsvRows(a.overall().hist, "", &out);
    return out;
  }
  std::string out = "host,bucket,lo_us,hi_us,count\n";
  for (const auto& [host, h] : a.host_totals()) {
    AppendCsvRows(h.overall.hist, absl::StrCat(CsvField(host), ","), &out);
  }
  return out;
}

std::string JsonReport(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  const bool have_events = a.events() > 0;
  const bool have_records = a.records() > 0;
  std::string out = absl::StrCat(
      "{\"inputs\":", in.inputs, ",\"formats\":\"", in.formats,
      "\",\"records\":", a.records(),
      ",\"first_record\":", TimeOrNull(have_records, a.first_record_ns()),
      ",\"last_record\":", TimeOrNull(have_records, a.last_record_ns()),
      ",\"duration_s\":",
      JsonFixed(have_records
                    ? SecondsBetween(a.first_record_ns(), a.last_record_ns())
                    : 0.0,
                3),
      ",\"events\":", a.events(),
      ",\"first_event\":", TimeOrNull(have_events, a.first_event_ns()),
      ",\"last_event\":", TimeOrNull(have_events, a.last_event_ns()),
      ",\"tail_threshold_us\":", a.tail_us(),
      ",\"tail_events\":", a.tail_events(), ",\"highest_bucket\":");
  const Log2Hist& hist = a.overall().hist;
  const int hi = HighestBucket(hist);
  if (hi < 0) {
    out += "null";
  } else {
    absl::StrAppend(&out, "{\"bucket\":", hi, ",\"lo_us\":", BucketLow(hi),
                    ",\"hi_us\":", BucketHigh(hi), ",\"count\":", hist[hi],
                    "}");
  }
  absl::StrAppend(
      &out, ",\"latency_us\":", LatencyJson(a.overall(), a.AllLatencies()),
      ",\"errors\":", a.overall().errors);
  AppendLossJson(a.Loss(), &out);
  const uint64_t skipped = in.damage ? in.damage->records_skipped : 0;
  const size_t truncated = in.damage ? in.damage->damaged_inputs.size() : 0;
  absl::StrAppend(&out, ",\"corrupt_records\":", skipped,
                  ",\"truncated_inputs\":", truncated, ",\"stuck\":");
  AppendStuckJson(in, &out);
  if (a.MultiHost()) AppendHostsJson(a, &out);
  out += "}\n";
  return out;
}

}  // namespace biosnoop::report
