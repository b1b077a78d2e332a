#pragma once

// The heat map drawn: one SVG document (or an HTML page around it) with,
// per panel, a grid of cells (x: time columns, y: log2 latency buckets,
// the slowest at the top), each non-empty cell coloured by its count
// (color_scale.h), axes labelled with times (UTC) and latencies, and the
// p50 and p99 lines; then the colour legend, what the lines are, and the
// warnings.  Same heat map, same bytes.
//
// The layout is fixed in pixels (below), so that a test can find a cell
// on a screenshot: panel i's grid starts at
//   y = kTop + i * PanelHeight(rows) + kPanelLabelHeight,
// and cell (column c, bucket b) covers
//   x in [kMarginLeft + c * cell_width, + cell_width),
//   y in [grid_y + (hi_bucket - b) * kRowHeight, + kRowHeight),
// with cell_width = CellWidth(columns).

#include <string>
#include <vector>

#include "heatmap.h"

namespace biosnoop::report {

namespace heatmap_layout {
inline constexpr int kMarginLeft = 96;
inline constexpr int kMarginRight = 24;
inline constexpr int kTop = 56;  // title and subtitle above
inline constexpr int kPanelLabelHeight = 20;
inline constexpr int kRowHeight = 14;
inline constexpr int kAxisHeight = 30;  // time labels below a grid
inline constexpr int kPanelGap = 14;
inline constexpr int kPlotWidth = 960;  // what the columns share
inline constexpr int kMaxCellWidth = 32;

// kPlotWidth / columns, from 1 to kMaxCellWidth pixels.
int CellWidth(int columns);
int PanelHeight(int rows);
}  // namespace heatmap_layout

struct HeatmapLabels {
  HistGroup by = HistGroup::kAll;
  bool show_host = false;  // several hosts: panels name theirs
  std::vector<std::string> hosts;
  // Lines of the WARNING block (events may be missing), shown under the
  // legend.
  std::vector<std::string> warnings;
  // The map is of calls (op records, `heatmap --of ops`), not of events:
  // its texts say "calls", and its lines are of the calls drawn.
  bool calls = false;
};

// The SVG document, XML declaration first, ending in '\n'.
std::string RenderHeatmapSvg(const Heatmap& map, const HeatmapLabels& labels);

// A self-contained HTML page holding the same SVG: no script, nothing
// loaded (its Content-Security-Policy forbids any load), ending in '\n'.
std::string RenderHeatmapHtml(const Heatmap& map, const HeatmapLabels& labels);

}  // namespace biosnoop::report
