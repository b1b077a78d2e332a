#pragma once

// The report forms: text for people (summary, hist, top, sizes, errors),
// CSV and JSON for scripts.  Each returns the whole text; the text forms
// start with the WARNING block whenever events may be missing.

#include <cstddef>
#include <string>

#include "aggregator.h"
#include "stream_set.h"

namespace biosnoop::report {

enum class HistGroup { kAll, kDisk, kOp, kDiskOp };

struct ReportOptions {
  bool ms = false;               // latencies in milliseconds
  HistGroup by = HistGroup::kAll;
  size_t top = 10;               // rows per top table
};

struct ReportInput {
  const Aggregator* agg = nullptr;
  const InputDamage* damage = nullptr;
  size_t inputs = 0;
  std::string formats;  // "jsonl", "proto", ...
};

// Empty when nothing is wrong.  Otherwise "WARNING: ..." lines, a blank
// line after: events lost in the kernel, dropped by a failed output,
// rejected by biosnoop's decoder, corrupt or truncated input, runs with no
// stats ("no stats records: loss unknown").
std::string WarningBlock(const ReportInput& in);

// Per disk and operation, then all: count, bytes, min, mean, p50, p90,
// p99, p99.9, max latency, errors.  Percentiles are exact (nearest rank).
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
// highest non-empty one (all events, in microseconds).
std::string CsvReport(const ReportInput& in);

// One JSON object and '\n': duration, event counts, tail events over the
// threshold, highest bucket, latency figures, errors and loss figures.
std::string JsonReport(const ReportInput& in);

// Helpers shared by the forms (report_text.cc).
std::string HumanBytes(uint64_t bytes);
std::string RenderLog2Hist(const Log2Hist& hist, const char* unit_label);

}  // namespace biosnoop::report
