#pragma once

// Printing histograms: as biolatency users read them (text with bars), as
// CSV `bucket,lo_us,hi_us,count`, and as one JSON object per report.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "histogram.h"

namespace biosnoop {

enum class HistUnit { kMicroseconds, kMilliseconds };
// Latency rows: one per power of two (biolatency's), or --fine's 16 per
// power of two (HistData::fine, bucket k = (2^((k-1)/16), 2^(k/16)] s),
// shown from the first non-empty bucket to the last, bounds as decimals.
enum class HistRows { kLog2, kFine };

// Text: one latency histogram per group (bucket range, count, a 40-column
// bar), then its I/O size histogram in KiB and its totals.  Buckets are
// shown from 0 to the highest non-empty one.  `title` heads the report
// (e.g. the wall-clock time of the interval).
std::string FormatHistText(const std::vector<HistGroup>& groups, HistUnit unit,
                           absl::string_view title,
                           HistRows rows = HistRows::kLog2);

// CSV.  Columns: bucket,lo_us,hi_us,count, preceded by disk and/or op
// when `grouping` groups by them (whether or not `groups` has any rows, so
// a header written for an interval without I/O fits the rows after it).
// In millisecond mode lo_us/hi_us are the bucket's bounds converted to
// microseconds.  `header` adds the column line.  Fine rows: bucket is k,
// lo_us and hi_us the bounds in microseconds with 3 decimals.
std::string FormatHistCsv(const std::vector<HistGroup>& groups,
                          HistGrouping grouping, HistUnit unit, bool header,
                          HistRows rows = HistRows::kLog2);

// One JSON object and '\n': {"type":"histogram","timestamp":...,
// "interval_s":...,"unit":"us","histograms":[{"disk":...,"op":...,
// "count":...,"bytes":...,"slow":...,"errors":...,"latency":[{"lo":..,"hi":..,
// "count":..}],"size_bytes":[...]}]}.  Empty buckets are omitted.  Fine
// rows add "buckets":"fine" after "unit", and each latency bucket is
// {"k":..,"lo":..,"hi":..,"count":..} with lo and hi in the unit, as
// decimals.
std::string FormatHistJson(const std::vector<HistGroup>& groups, HistUnit unit,
                           absl::string_view timestamp, double interval_s,
                           HistRows rows = HistRows::kLog2);

}  // namespace biosnoop
