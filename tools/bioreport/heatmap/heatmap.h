#pragma once

// The heat map of a stream: per panel (one per host, or per host and disk
// and/or op with --by) the events counted per time column and latency row
// (heatmap_bins.h), and the p50 and p99 latency of each column, from the
// summary records when the stream has any (all I/O, counted in the
// kernel), else from the events drawn (the slow I/O only).  Rendered by
// heatmap_svg.h.
//
// Rows are fine buckets on the seconds grid: 16 per power of two (the
// kernel's, schema 4) where that fits, else the fewest merges that do
// (ChooseRowSchema).  The lines are values, not buckets: each column's
// estimate (EstimateFineUs, or a log2 bucket's upper bound where a summary
// has no fine buckets), drawn where that value lies on the latency axis.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "baseline.h"
#include "heatmap_bins.h"

namespace biosnoop::report {

// Where the p50/p99 lines come from.
enum class LineSource {
  kSummaries,  // the summary intervals overlapping each column: all I/O
  kEvents,     // no summary record selected: the slow events drawn
};

struct HeatmapOptions {
  HistGroup by = HistGroup::kAll;
  int max_columns = kDefaultColumns;  // --columns
  int64_t fixed_width_ns = 0;         // --bucket; 0: chosen from the span
  std::optional<int64_t> since_ns;    // the x range, when given
  std::optional<int64_t> until_ns;
};

// A panel with its lines: per column, the p50 and p99 estimates in
// microseconds, nullopt where there is nothing to estimate from.
struct HeatmapPanelData {
  HeatmapPanel counts;  // cells at the map's row_schema
  std::vector<std::optional<double>> p50;
  std::vector<std::optional<double>> p99;
};

struct Heatmap {
  HeatmapColumns columns;
  LineSource lines = LineSource::kEvents;
  // Some column's estimate came from log2 buckets (summary records without
  // fine buckets, from an older biosnoop): the upper bound of the bucket
  // holding the rank, up to twice the truth.  Else every estimate is
  // inside the fine bucket of the rank, within 4.43% of the truth.
  bool lines_log2 = false;
  std::vector<HeatmapPanelData> panels;  // sorted by key; at most kMaxPanels
  size_t panels_left_out = 0;            // beyond kMaxPanels (fewest events)
  uint64_t events = 0;                   // in the columns
  uint64_t max_count = 0;                // the fullest cell's
  // The rows: buckets k at row_schema (2^row_schema per power of two; k
  // holds (2^((k-1)/2^s), 2^(k/2^s)] seconds), from lo_row to hi_row, the
  // span of every non-empty cell and line and two fine buckets more on
  // each side (within the kernel's); none when lo_row > hi_row.
  int row_schema = kFineSchema;
  int lo_row = 0;
  int hi_row = -1;
  int rows() const { return hi_row < lo_row ? 0 : hi_row - lo_row + 1; }
};

inline constexpr size_t kMaxPanels = 64;
// The most rows a map draws: beyond, rows merge (a coarser schema).
inline constexpr int kMaxRows = 200;

// Row k at `schema` covers (RowLowerUs, RowUpperUs] microseconds; the
// zero bucket (k = -20 * 2^schema) starts at 0.
double RowUpperUs(int k, int schema);
double RowLowerUs(int k, int schema);
// The fine bucket (kFineSchema) holding a latency of `us` (a line's value,
// fractional), within the kernel's buckets.
int FineBucketOfValueUs(double us);

// The row schema for fine buckets lo..hi (kFineSchema): the finest (at most
// kFineSchema) with at most kMaxRows rows whose row holding
// `lowest_cell` (the lowest fine bucket with events, the zero bucket not
// counted) is at least 1 us wide: stream latencies are whole
// microseconds, so a narrower row could hold none while its neighbours
// hold some, a comb of empty rows that is not in the data.  0 when none
// is (a row per power of two).
int ChooseRowSchema(int lo, int hi, std::optional<int> lowest_cell);

// Per column, the estimate at `permille` of `groups` (one BaselineGroup per
// column, EstimatePercentileUs: from fine buckets when the column has
// them), nullopt for an empty column; *log2 set when a column had none.
std::vector<std::optional<double>> EstimateColumns(
    const std::vector<BaselineGroup>& groups, int permille, bool* log2);

// The summary intervals' groups per panel key (binner.KeyOf) and column:
// each interval adds its groups to every column it overlaps.
std::vector<std::pair<PanelKey, std::vector<BaselineGroup>>>
SummaryColumnGroups(const std::vector<BaselineInterval>& intervals,
                    const HeatmapBinner& binner, const HeatmapColumns& columns);

// Chooses the columns (ChooseColumns) and the rows, builds the panels and
// lines.  `baseline` holds the selected summary records (its Filter: the
// same --since/--until, --host, --disk and --op).  Errors: ChooseColumns'.
absl::StatusOr<Heatmap> BuildHeatmap(const HeatmapBinner& binner,
                                     const BaselineCollector& baseline,
                                     const HeatmapOptions& options);

}  // namespace biosnoop::report
