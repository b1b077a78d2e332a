#pragma once

// The report forms: text for people (summary, hist, top, sizes, errors),
// CSV and JSON for scripts.  Each returns the whole text; the text forms
// start with the WARNING block whenever events may be missing.
//
// Hosts: when the input has more than one (Aggregator::MultiHost(), the
// fleet case), every form keeps them apart: a host column in each table
// (first; the baseline CSV's before disk), a histogram per host, per-host
// "all" rows before the "all" row of every host, loss warnings that name
// their host, and per-host objects in the JSON forms.  With one host the
// output is what it was before hosts were a dimension.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "aggregator.h"
#include "baseline.h"
#include "ops.h"
#include "stream_set.h"
#include "stuck.h"

namespace biosnoop::report {

enum class HistGroup { kAll, kDisk, kOp, kDiskOp };

struct ReportOptions {
  bool ms = false;  // latencies in milliseconds
  HistGroup by = HistGroup::kAll;
  size_t top = 10;            // rows per top table
  bool per_interval = false;  // baseline: a row per interval and group
};

struct ReportInput {
  const Aggregator* agg = nullptr;
  const InputDamage* damage = nullptr;
  size_t inputs = 0;
  std::string formats;                          // "jsonl", "proto", ...
  const BaselineCollector* baseline = nullptr;  // for the baseline forms
  const StuckCollector* stuck = nullptr;        // stuck records (may be null)
  const OpCollector* ops = nullptr;             // for the ops forms
};

// The warning block of the event forms (report_warnings.cc).
// Empty when nothing is wrong.  Otherwise "WARNING: ..." lines, a blank
// line after: events lost in the kernel, dropped by a failed output,
// rejected by biosnoop's decoder, corrupt or truncated input, runs with no
// stats ("no stats records: loss unknown").  With several hosts, each
// loss line starts with its host ("WARNING:   db7: 3 events lost ...").
std::string WarningBlock(const ReportInput& in);

// The pieces of a warning block, shared by the event and baseline reports:
// the lines about corrupt or truncated input, and the block around lines
// (empty when there are none).
void AppendDamageLines(const ReportInput& in, std::vector<std::string>* lines);
// The lines about runs whose loss is unknown (no stats records, or no
// final one), each after `prefix`: shared by the event and call warnings.
void AppendUnknownLossLines(const LossSummary& loss, bool any_records,
                            const std::string& prefix,
                            std::vector<std::string>* lines);
std::string FormatWarningBlock(absl::string_view what,
                               const std::vector<std::string>& lines);

// Per disk and operation, then all: count, bytes, min, mean, p50, p90,
// p99, p99.9, max latency, errors.  Percentiles are exact (nearest rank).
// When the stream has stuck records, their section (StuckSection) comes
// first, after the heading.
std::string SummaryReport(const ReportInput& in, const ReportOptions& opt);

// log2 latency histogram(s) as biolatency prints them.
std::string HistReport(const ReportInput& in, const ReportOptions& opt);

// Top processes and disks by slow I/O count and by total latency.
std::string TopReport(const ReportInput& in, const ReportOptions& opt);

// log2 histogram of I/O sizes in KiB (as bitesize prints them).
std::string SizesReport(const ReportInput& in, const ReportOptions& opt);

// Errors by disk and errno name, with first and last time seen.
std::string ErrorsReport(const ReportInput& in, const ReportOptions& opt);

// "bucket,lo_us,hi_us,count" then one row per log2 bucket from 0 to the
// highest non-empty one (all events, in microseconds).  With several
// hosts, "host,bucket,lo_us,hi_us,count" and each host's rows.
std::string CsvReport(const ReportInput& in);

// One JSON object and '\n': duration, event counts, tail events over the
// threshold, highest bucket, latency figures, errors, loss figures, and
// the stuck requests (AppendStuckJson; never counted as events).  With
// several hosts, "hosts" too: per host its events, tail events, errors,
// latency figures and loss figures.
std::string JsonReport(const ReportInput& in);

// The baseline, from summary records (baseline.h; report_baseline.cc):
// per disk and operation, summed over the selected intervals (or, with
// per_interval, one row per interval and group): completions, slow ones
// and their share in percent, bytes, and p50 and p99 estimated from the
// log2 histograms; then one sentence per group ("0.47% of reads on
// nvme0n1 took 10 ms or more (57 of 12034)").  A stream without summary
// records gives "no summary records in this stream".  Starts with a
// WARNING block only for damaged input: the kernel counts summaries, so
// event loss does not touch them.
std::string BaselineReport(const ReportInput& in, const ReportOptions& opt);

// The same rows for scripts: CSV with a header line
// (start,end,disk,op,min_us,count,bytes,slow,slow_pct,p50_us_est,p99_us_est),
// or one JSON object whose "rows" have those fields and latency_us_log2.
// Times are RFC 3339; latencies always microseconds.
std::string BaselineCsv(const ReportInput& in, const ReportOptions& opt);
std::string BaselineJson(const ReportInput& in, const ReportOptions& opt);

// The WARNING block of the baseline: corrupt records skipped and truncated
// inputs (either may have cost summary records).  Empty when neither.
std::string BaselineWarningBlock(const ReportInput& in);

// Why the baseline has no rows ("no summary records in this stream", ...),
// or empty when it has some.
std::string BaselineEmptyReason(const ReportInput& in);

// Stuck records (report_stuck.cc), empty when there are none: the section
// of the summary form (how many, still in flight after how long; per
// disk: count, longest in flight, first and last found; the
// StuckCollector::kLongest longest requests: time, disk, op, sector,
// bytes, in flight, pid, comm), and the one line the other text forms
// print after their WARNING block.
std::string StuckSection(const ReportInput& in, const ReportOptions& opt);
std::string StuckNotice(const ReportInput& in);
// The "stuck" object of JsonReport: {"requests", "stuck_after_us" (the
// runs' distinct non-zero values), "disks" (disk, count, max_inflight_us,
// first, last), "longest" (timestamp, host, disk, partition, op, sector,
// bytes, inflight_us, pid, tid, comm)}; zero and empty arrays when none.
void AppendStuckJson(const ReportInput& in, std::string* out);

// The calls (biosnoop --ops; report_ops.cc).  OpsReport: the WARNING block
// of the calls (OpsWarningBlock), a heading (inputs, records, op records,
// the runs' --op-min-us), then the slowest calls (returned, op_id, call,
// pid, comm, file, bytes done, total, block wait, writeback wait, other,
// block and writeback requests, oldest dirty data written back, error),
// then per process and per file (at most opt.top each, most calls first):
// calls, errors, bytes, and p50 and p99 of the total and of each layer;
// or why there are none (biosnoop ran without --ops, ...).  OpsJson: the
// same as one object ("op_records", "calls", "op_min_us", the loss
// figures, "slowest", "processes", "files").
std::string OpsReport(const ReportInput& in, const ReportOptions& opt);
std::string OpsJson(const ReportInput& in, const ReportOptions& opt);
// --op-id: the call (per run that names it): its record with its layers,
// or a line saying it has none, then the requests submitted under it, the
// writeback of the pages it dirtied and its stuck requests, each with its
// times.  The JSON form: {"op_id", "calls", "submitted", "writeback",
// "stuck"}.
std::string OpIdReport(const ReportInput& in, const ReportOptions& opt);
std::string OpIdJson(const ReportInput& in, const ReportOptions& opt);
// The WARNING block of the calls: op records lost in the kernel, calls not
// followed, op records not in the input or in it twice, runs without
// stats, damaged input; with `with_events`, the events' block after it
// (--op-id shows events).
std::string OpsWarningBlock(const ReportInput& in, bool with_events);

// Helpers shared by the forms (report_common.cc).
std::string HumanBytes(Sum bytes);
// A host as a table cell: escaped (Printable), "-" for none.
std::string HostName(const std::string& host);
// A name as a CSV field: escaped as in the text forms first (a row stays
// one line, and no terminal escape reaches whoever cats the file), then
// quoted when it holds a comma or a quote; one that starts as a formula
// would (=, +, -, @) gets a leading ' and is quoted, so that a
// spreadsheet shows it as text instead of running it.
std::string CsvField(const std::string& name);
// A JSON number with `decimals` fixed decimals ("1.500"), or null when
// `v` is not finite: printf's "inf" and "nan" are not JSON.
std::string JsonFixed(double v, int decimals);
std::string RenderLog2Hist(const Log2Hist& hist, const char* unit_label);

}  // namespace biosnoop::report
