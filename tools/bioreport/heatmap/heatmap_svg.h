#pragma once

// The heat map drawn: one SVG document (or an HTML page around it) with,
// per panel, a grid of cells (x: time columns, y: latency rows, the
// slowest at the top), each non-empty cell coloured by its count
// (color_scale.h), axes labelled with times (UTC) and latencies and
// titled, and the p50 and p99 lines at their estimated values; then the
// colour legend, what the lines are, and the warnings.  Same heat map,
// same bytes.
//
// The layout is fixed in pixels (below), so that a test can find a cell
// on a screenshot: panel i's grid starts at
//   y = kTop + i * PanelHeight(rows) + kPanelLabelHeight,
// and cell (column c, row k) covers
//   x in [kMarginLeft + c * cell_width, + cell_width),
//   y in [grid_y + (hi_row - k) * row_height, + row_height),
// with cell_width = CellWidth(columns), row_height = RowHeight(rows); a
// line's value `us` is drawn at grid_y + LatencyY(us, ...).

#include <string>
#include <vector>

#include "heatmap.h"

namespace biosnoop::report {

namespace heatmap_layout {
inline constexpr int kMarginLeft = 104;  // latency labels and axis title
inline constexpr int kMarginRight = 24;
inline constexpr int kTop = 56;  // title and subtitle above
inline constexpr int kPanelLabelHeight = 20;
inline constexpr int kAxisHeight = 44;  // time labels and axis title below
inline constexpr int kPanelGap = 14;
inline constexpr int kPlotWidth = 1200;  // what the columns share
inline constexpr int kPlotHeight = 400;  // what the rows share
inline constexpr int kMaxCellWidth = 32;
inline constexpr int kMinRowHeight = 2;  // kMaxRows of them: kPlotHeight
inline constexpr int kMaxRowHeight = 24;

// kPlotWidth / columns, from 1 to kMaxCellWidth pixels.
int CellWidth(int columns);
// kPlotHeight / rows, from kMinRowHeight to kMaxRowHeight pixels.
int RowHeight(int rows);
int PanelHeight(int rows);
// Where `us` lies below the top of a grid whose top row is `hi_row` at
// `schema`: latency is linear in log2 there, hi_row's upper bound at 0,
// each row `row_height` pixels; rounded to the pixel and clamped to the
// grid's [0, rows * row_height].
int LatencyY(double us, int schema, int hi_row, int rows, int row_height);
}  // namespace heatmap_layout

// The most hosts a title names (the rest counted), the most characters of
// a name in a title or panel label, and the most warning lines the picture
// shows (the rest counted; stderr has them all), and their length.
inline constexpr size_t kMaxTitleHosts = 5;
inline constexpr size_t kMaxNameChars = 48;
inline constexpr size_t kMaxWarningLines = 20;
inline constexpr size_t kMaxWarningChars = 200;

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
  // Every run drawn had threshold 0 (--min-us 0, or --op-min-us 0 for
  // calls) and no --min-us selects: the events are all I/O, and the title
  // says "latency heat map", not "slow".
  bool every_io = false;
};

// The document's title: "Slow I/O latency heat map: db7, web3" (at most
// kMaxTitleHosts hosts named, each cut to kMaxNameChars), escaped.
std::string HeatmapTitle(const HeatmapLabels& labels);

// The SVG document, XML declaration first, ending in '\n'.
std::string RenderHeatmapSvg(const Heatmap& map, const HeatmapLabels& labels);

// A self-contained HTML page holding the same SVG: no script, nothing
// loaded (its Content-Security-Policy forbids any load), ending in '\n'.
std::string RenderHeatmapHtml(const Heatmap& map, const HeatmapLabels& labels);

}  // namespace biosnoop::report
