#pragma once

// The heat map of a stream: per panel (one per host, or per host and disk
// and/or op with --by) the events counted per time column and log2
// latency bucket (heatmap_bins.h), and the p50 and p99 latency of each
// column, from the summary records when the stream has any (all I/O,
// counted in the kernel), else from the events drawn (the slow I/O only).
// Rendered by heatmap_svg.h.

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

// A panel with its lines: per column, the log2 bucket of the p50 and p99
// estimates (EstimatePercentileUs: the upper bound of the bucket holding
// the rank), -1 where there is nothing to estimate from.
struct HeatmapPanelData {
  HeatmapPanel counts;
  std::vector<int> p50;
  std::vector<int> p99;
};

struct Heatmap {
  HeatmapColumns columns;
  LineSource lines = LineSource::kEvents;
  std::vector<HeatmapPanelData> panels;  // sorted by key; at most kMaxPanels
  size_t panels_left_out = 0;            // beyond kMaxPanels (fewest events)
  uint64_t events = 0;                   // in the columns
  uint64_t max_count = 0;                // the fullest cell's
  int lo_bucket = -1;  // the rows drawn: every non-empty cell and line
  int hi_bucket = -1;  // (-1 when there is none)
};

inline constexpr size_t kMaxPanels = 64;

// Per column, the bucket of the estimate at `permille` of `hists` (one
// Log2Sums per column), -1 for an empty column.
std::vector<int> EstimateColumns(const std::vector<Log2Sums>& hists,
                                 int permille);

// The summary intervals' histograms per panel key (binner.KeyOf) and
// column: each interval adds its groups to every column it overlaps.
std::vector<std::pair<PanelKey, std::vector<Log2Sums>>> SummaryColumnHists(
    const std::vector<BaselineInterval>& intervals, const HeatmapBinner& binner,
    const HeatmapColumns& columns);

// Chooses the columns (ChooseColumns) and builds the panels and lines.
// `baseline` holds the selected summary records (its Filter: the same
// --since/--until, --host, --disk and --op).  Errors: ChooseColumns'.
absl::StatusOr<Heatmap> BuildHeatmap(const HeatmapBinner& binner,
                                     const BaselineCollector& baseline,
                                     const HeatmapOptions& options);

}  // namespace biosnoop::report
