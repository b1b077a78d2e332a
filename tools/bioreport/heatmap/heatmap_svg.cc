// Drawing: integer coordinates throughout and crisp edges, so that a cell
// is exactly its pixels and its colour exactly the scale's (a screenshot
// test relies on both); every text from the input through
// AppendXmlEscaped.

#include "heatmap_svg.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "color_scale.h"
#include "svg_text.h"

namespace biosnoop::report {
namespace heatmap_layout {

int CellWidth(int columns) {
  return std::clamp(kPlotWidth / std::max(1, columns), 1, kMaxCellWidth);
}

int RowHeight(int rows) {
  return std::clamp(kPlotHeight / std::max(1, rows), kMinRowHeight,
                    kMaxRowHeight);
}

int PanelHeight(int rows) {
  return kPanelLabelHeight + rows * RowHeight(rows) + kAxisHeight + kPanelGap;
}

int LatencyY(double us, int schema, int hi_row, int rows, int row_height) {
  const double grid = static_cast<double>(rows) * row_height;
  if (!(us > 0)) return static_cast<int>(grid);  // log2(0): the bottom
  const double rows_down =
      hi_row - std::log2(us / 1e6) * static_cast<double>(1 << schema);
  return static_cast<int>(
      std::lround(std::clamp(rows_down * row_height, 0.0, grid)));
}

}  // namespace heatmap_layout

namespace {

using namespace heatmap_layout;

constexpr char kP50Color[] = "#1565c0";
constexpr char kP99Color[] = "#111111";
constexpr int kLineHeight = 16;  // of the legend and notes
// Cells get a tooltip (<title>) unless there are more than this many:
// beyond, the document would grow large for little use.
constexpr size_t kMaxTooltips = 20000;

const char* ByName(HistGroup by) {
  switch (by) {
    case HistGroup::kDisk:
      return "disk";
    case HistGroup::kOp:
      return "op";
    case HistGroup::kDiskOp:
      return "disk,op";
    default:
      return "all";
  }
}

std::string PanelName(const PanelKey& key, const HeatmapLabels& labels) {
  std::vector<std::string> parts;
  if (labels.show_host) {
    parts.push_back(absl::StrCat(
        "host ",
        key.host.empty() ? "-" : XmlEscapedShort(key.host, kMaxNameChars)));
  }
  if (labels.by == HistGroup::kDisk || labels.by == HistGroup::kDiskOp) {
    parts.push_back(
        absl::StrCat("disk ", XmlEscapedShort(key.disk, kMaxNameChars)));
  }
  if (labels.by == HistGroup::kOp || labels.by == HistGroup::kDiskOp) {
    // A map of calls groups by the call.
    parts.push_back(absl::StrCat(labels.calls ? "call " : "op ",
                                 XmlEscapedShort(key.op, kMaxNameChars)));
  }
  if (parts.empty()) {
    parts.push_back(labels.calls ? "all calls" : "all disks and operations");
  }
  return absl::StrJoin(parts, ", ");
}

// A count with thousands separators: "1,234,567".
std::string Count(uint64_t n) {
  std::string digits = absl::StrCat(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void Text(std::string* out, int x, int y, absl::string_view escaped,
          absl::string_view attrs = "") {
  absl::StrAppend(out, "<text x=\"", x, "\" y=\"", y, "\"",
                  attrs.empty() ? "" : " ", attrs, ">", escaped, "</text>\n");
}

struct Geometry {
  int rows = 0;
  int cw = 1;
  int rh = 1;
  int plot_width = 0;
  int width = 0;
  int height = 0;
  int legend_y = 0;
};

// The p50 or p99 line of a panel: a step per column at the column's
// estimate, joined across neighbouring columns, broken where a column has
// none.
void Line(std::string* out, const Heatmap& map,
          const std::vector<std::optional<double>>& values, int grid_y,
          const Geometry& g, const char* color, const char* dash) {
  std::string d;
  bool open = false;
  int last_y = 0, end_x = 0;  // of the open segment, not yet written
  for (size_t c = 0; c <= values.size(); ++c) {
    if (c == values.size() || !values[c]) {
      if (open) absl::StrAppend(&d, " H", end_x);
      open = false;
      continue;
    }
    const int x0 = kMarginLeft + static_cast<int>(c) * g.cw;
    const int y =
        grid_y + LatencyY(*values[c], map.row_schema, map.hi_row, g.rows, g.rh);
    if (!open) {
      absl::StrAppend(&d, d.empty() ? "" : " ", "M", x0, " ", y);
      open = true;
    } else if (y != last_y) {
      // A step: the level so far, then up or down.
      absl::StrAppend(&d, " H", x0, " V", y);
    }
    last_y = y;
    end_x = x0 + g.cw;
  }
  if (d.empty()) return;
  // A white halo first, so that the line shows on dark cells too.
  absl::StrAppend(out, "<path d=\"", d,
                  "\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"4\" "
                  "stroke-opacity=\"0.8\"/>\n");
  absl::StrAppend(out, "<path d=\"", d, "\" fill=\"none\" stroke=\"", color,
                  "\" stroke-width=\"2\"", dash, "/>\n");
}

// The latencies the y axis names: 1, 2 and 5 times a power of ten, or
// only the powers of ten where a power of two is under 14 pixels.
std::vector<double> AxisValues(const Heatmap& map, const Geometry& g) {
  const bool dense = (1 << map.row_schema) * g.rh < 14;
  const double lo = std::max(1.0, RowLowerUs(map.lo_row, map.row_schema));
  const double hi = RowUpperUs(map.hi_row, map.row_schema);
  std::vector<double> out;
  for (double decade = 1; decade <= hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (dense && m != 1.0) continue;
      const double v = decade * m;
      if (v >= lo && v <= hi) out.push_back(v);
    }
  }
  return out;
}

void DrawPanel(const Heatmap& map, const HeatmapPanelData& panel,
               const HeatmapLabels& labels, const ColorScale& scale,
               const Geometry& g, int panel_y, DateForm date, bool tooltips,
               std::string* out) {
  const HeatmapColumns& cols = map.columns;
  const int grid_y = panel_y + kPanelLabelHeight;
  const int grid_h = g.rows * g.rh;
  const int hi = map.hi_row;
  const int schema = map.row_schema;
  Text(out, kMarginLeft, panel_y + 14,
       absl::StrCat(PanelName(panel.counts.key, labels), " (",
                    Count(panel.counts.events),
                    labels.calls ? " calls)" : " events)"),
       "font-weight=\"bold\"");
  absl::StrAppend(out, "<rect x=\"", kMarginLeft, "\" y=\"", grid_y,
                  "\" width=\"", g.plot_width, "\" height=\"", grid_h,
                  "\" fill=\"", HexColor(kBackground), "\"/>\n");
  // The cells.
  absl::StrAppend(out, "<g shape-rendering=\"crispEdges\">\n");
  for (const HeatmapCell& cell : panel.counts.cells) {
    absl::StrAppend(out, "<rect x=\"", kMarginLeft + cell.column * g.cw,
                    "\" y=\"", grid_y + (hi - cell.bucket) * g.rh,
                    "\" width=\"", g.cw, "\" height=\"", g.rh, "\" fill=\"",
                    HexColor(scale.Color(scale.Level(cell.count))), "\"");
    if (!tooltips) {
      absl::StrAppend(out, "/>\n");
      continue;
    }
    absl::StrAppend(out, "><title>",
                    TimeLabel(cols.Start(cell.column), cols.width_ns,
                              date == DateForm::kNone ? DateForm::kDay : date),
                    " +", DurationLabel(cols.width_ns), ", ",
                    LatencyLabel(RowLowerUs(cell.bucket, schema)),
                    " \xe2\x80\x93 ",
                    LatencyLabel(RowUpperUs(cell.bucket, schema)), ": ",
                    Count(cell.count), "</title></rect>\n");
  }
  absl::StrAppend(out, "</g>\n");
  // The y axis: round latencies where they lie, and its title.
  for (double us : AxisValues(map, g)) {
    const int y = grid_y + LatencyY(us, schema, hi, g.rows, g.rh);
    absl::StrAppend(out, "<line x1=\"", kMarginLeft - 4, "\" y1=\"", y,
                    "\" x2=\"", kMarginLeft, "\" y2=\"", y,
                    "\" stroke=\"#555555\"/>\n");
    Text(out, kMarginLeft - 6, y + 4, LatencyLabel(us),
         "text-anchor=\"end\" font-size=\"10\"");
  }
  const int mid_y = grid_y + grid_h / 2;
  Text(out, 0, 0, "latency",
       absl::StrCat("transform=\"translate(20 ", mid_y,
                    ") rotate(-90)\" text-anchor=\"middle\" font-size=\"11\""));
  // The x axis: a label at each multiple of a round interval (a multiple
  // of the width) about 100 pixels apart or more, wider for longer labels.
  const int label_px = date == DateForm::kYear  ? 130
                       : date == DateForm::kDay ? 110
                                                : 100;
  int every = std::max(1, (label_px + g.cw - 1) / g.cw);
  for (int64_t t : kRoundWidths) {
    if (t % cols.width_ns == 0 && t / cols.width_ns >= every) {
      every = static_cast<int>(t / cols.width_ns);
      break;
    }
  }
  const int64_t first_tick =
      ((-(cols.first_index % every)) % every + every) % every;
  for (int64_t c = first_tick; c <= cols.columns; c += every) {
    const int x = kMarginLeft + static_cast<int>(c) * g.cw;
    absl::StrAppend(out, "<line x1=\"", x, "\" y1=\"", grid_y + grid_h,
                    "\" x2=\"", x, "\" y2=\"", grid_y + grid_h + 4,
                    "\" stroke=\"#555555\"/>\n");
    Text(out, x, grid_y + grid_h + 16,
         TimeLabel(cols.Start(c), cols.width_ns, date),
         "text-anchor=\"middle\" font-size=\"10\"");
  }
  Text(out, kMarginLeft + g.plot_width / 2, grid_y + grid_h + 32, "time (UTC)",
       "text-anchor=\"middle\" font-size=\"11\"");
  Line(out, map, panel.p50, grid_y, g, kP50Color, "");
  Line(out, map, panel.p99, grid_y, g, kP99Color, " stroke-dasharray=\"6 3\"");
}

// The warnings the picture shows: at most kMaxWarningLines, each cut to
// kMaxWarningChars, then how many more stderr has.
std::vector<std::string> WarningTexts(const HeatmapLabels& labels) {
  std::vector<std::string> out;
  for (size_t i = 0; i < labels.warnings.size() && i < kMaxWarningLines; ++i) {
    out.push_back(absl::StrCat(
        "WARNING: ", XmlEscapedShort(labels.warnings[i], kMaxWarningChars)));
  }
  if (labels.warnings.size() > kMaxWarningLines) {
    out.push_back(absl::StrCat(
        "WARNING: ", labels.warnings.size() - kMaxWarningLines,
        " more warnings not shown (bioreport prints them all on stderr)"));
  }
  return out;
}

// What the lines are, in two notes: of what, and how exact.
std::pair<std::string, std::string> LineNotes(const Heatmap& map,
                                              const HeatmapLabels& labels) {
  std::string of =
      labels.calls ? "of the calls drawn: those of at least --op-min-us only"
      : map.lines == LineSource::kSummaries
          ? "of all I/O, from the summary records overlapping each column"
      : labels.every_io
          ? "of the events drawn (every I/O: the runs' threshold is 0)"
          : "of the events drawn: no summary records in the selection, so "
            "slow I/O only";
  std::string how =
      map.lines_log2
          ? "drawn at their estimates: within 4.4% from fine buckets; from "
            "summaries without (older biosnoop) a log2 bucket's upper "
            "bound, up to 2x"
          : "drawn at their estimates, placed inside the fine bucket of "
            "the rank: within 4.4% of the true values";
  return {of, how};
}

void DrawLegend(const Heatmap& map, const ColorScale& scale,
                const HeatmapLabels& labels, int y, std::string* out) {
  Text(out, kMarginLeft, y + 12,
       labels.calls ? "calls per cell (log scale):"
                    : "events per cell (log scale):");
  constexpr int kSwatch = 56;
  for (int l = 0; l < scale.levels(); ++l) {
    const int x = kMarginLeft + 170 + l * kSwatch;
    absl::StrAppend(out, "<rect x=\"", x, "\" y=\"", y + 2, "\" width=\"",
                    kSwatch - 4, "\" height=\"12\" fill=\"",
                    HexColor(scale.Color(l)), "\"/>\n");
    const uint64_t lo = scale.Low(l), hi = scale.High(l);
    Text(out, x, y + 28,
         lo == hi ? Count(lo)
                  : absl::StrCat(Count(lo), "\xe2\x80\x93", Count(hi)),
         "font-size=\"10\"");
  }
  int line_y = y + 44;
  absl::StrAppend(out, "<line x1=\"", kMarginLeft, "\" y1=\"", line_y - 4,
                  "\" x2=\"", kMarginLeft + 24, "\" y2=\"", line_y - 4,
                  "\" stroke=\"", kP50Color, "\" stroke-width=\"2\"/>\n");
  Text(out, kMarginLeft + 30, line_y, "p50");
  absl::StrAppend(out, "<line x1=\"", kMarginLeft + 70, "\" y1=\"", line_y - 4,
                  "\" x2=\"", kMarginLeft + 94, "\" y2=\"", line_y - 4,
                  "\" stroke=\"", kP99Color,
                  "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n");
  Text(out, kMarginLeft + 100, line_y, "p99");
  const auto [of, how] = LineNotes(map, labels);
  Text(out, kMarginLeft + 140, line_y, of, "font-size=\"11\"");
  line_y += kLineHeight;
  Text(out, kMarginLeft + 140, line_y, how, "font-size=\"11\"");
  line_y += kLineHeight;
  if (map.panels_left_out > 0) {
    Text(out, kMarginLeft, line_y,
         absl::StrCat(map.panels_left_out,
                      labels.calls ? " more groups with fewer calls "
                                   : " more groups with fewer events ",
                      "not drawn (at most ", kMaxPanels,
                      " panels): narrow with --disk, --op or --by"),
         "font-size=\"11\"");
    line_y += kLineHeight;
  }
  for (const std::string& w : WarningTexts(labels)) {
    Text(out, kMarginLeft, line_y, w, "font-size=\"11\" fill=\"#b00000\"");
    line_y += kLineHeight;
  }
}

std::string Svg(const Heatmap& map, const HeatmapLabels& labels,
                bool standalone) {
  const HeatmapColumns& cols = map.columns;
  Geometry g;
  g.rows = map.rows();
  g.cw = CellWidth(cols.columns);
  g.rh = RowHeight(g.rows);
  g.plot_width = g.cw * cols.columns;
  const bool empty = g.rows == 0 || cols.columns == 0;
  const int panels = empty ? 0 : static_cast<int>(map.panels.size());
  g.legend_y = kTop + panels * PanelHeight(g.rows) + (empty ? 20 : 0);
  const size_t warnings = WarningTexts(labels).size();
  const int notes = 3 + (map.panels_left_out > 0) + static_cast<int>(warnings);
  g.height = g.legend_y + 36 + notes * kLineHeight + 8;
  g.width = std::max(kMarginLeft + g.plot_width + kMarginRight, 1000);
  const ColorScale scale(map.max_count);
  const std::string title = HeatmapTitle(labels);
  const DateForm date =
      cols.columns > 0 ? DateFormOf(cols.Start(0), cols.Start(cols.columns))
                       : DateForm::kNone;

  std::string out;
  if (standalone) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                  g.width, "\" height=\"", g.height, "\" viewBox=\"0 0 ",
                  g.width, " ", g.height,
                  "\" font-family=\"sans-serif\" font-size=\"12\">\n");
  absl::StrAppend(&out, "<title>", title, "</title>\n");
  absl::StrAppend(&out, "<rect width=\"", g.width, "\" height=\"", g.height,
                  "\" fill=\"#ffffff\"/>\n");
  Text(&out, 16, 22, title, "font-size=\"15\" font-weight=\"bold\"");
  std::string sub =
      absl::StrCat(Count(map.events), labels.calls ? " calls" : " events");
  if (cols.columns > 0) {
    // The span in full: with the date at least, the year when it crosses
    // one.
    const DateForm full = date == DateForm::kNone ? DateForm::kDay : date;
    absl::StrAppend(
        &sub, ", ", TimeLabel(cols.Start(0), cols.width_ns, full), " .. ",
        TimeLabel(cols.Start(cols.columns), cols.width_ns, full), " UTC, ",
        cols.columns, " columns of ", DurationLabel(cols.width_ns));
  }
  absl::StrAppend(&sub, ", by ", ByName(labels.by));
  if (!empty) {
    absl::StrAppend(&sub, "; y: latency, log scale, ", 1 << map.row_schema,
                    map.row_schema == 0 ? " row" : " rows",
                    " per power of two");
  }
  Text(&out, 16, 40, sub, "font-size=\"12\"");
  if (empty) {
    Text(&out, kMarginLeft, kTop + 10,
         labels.calls ? "no calls in the selection"
                      : "no events in the selection");
  } else {
    size_t cells = 0;
    for (const HeatmapPanelData& p : map.panels) cells += p.counts.cells.size();
    const bool tooltips = cells <= kMaxTooltips;
    for (int i = 0; i < panels; ++i) {
      DrawPanel(map, map.panels[i], labels, scale, g,
                kTop + i * PanelHeight(g.rows), date, tooltips, &out);
    }
  }
  if (!empty) DrawLegend(map, scale, labels, g.legend_y, &out);
  if (empty) {
    int y = g.legend_y + 12;
    for (const std::string& w : WarningTexts(labels)) {
      Text(&out, kMarginLeft, y, w, "font-size=\"11\" fill=\"#b00000\"");
      y += kLineHeight;
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string HeatmapTitle(const HeatmapLabels& labels) {
  std::vector<std::string> hosts;
  for (size_t i = 0; i < labels.hosts.size() && i < kMaxTitleHosts; ++i) {
    const std::string& h = labels.hosts[i];
    hosts.push_back(h.empty() ? "-" : XmlEscapedShort(h, kMaxNameChars));
  }
  std::string out = labels.calls
                        ? (labels.every_io ? "Call latency heat map"
                                           : "Slow call latency heat map")
                        : (labels.every_io ? "I/O latency heat map"
                                           : "Slow I/O latency heat map");
  if (hosts.empty()) return out;
  absl::StrAppend(&out, ": ", absl::StrJoin(hosts, ", "));
  if (labels.hosts.size() > kMaxTitleHosts) {
    absl::StrAppend(&out, " and ", labels.hosts.size() - kMaxTitleHosts,
                    " more hosts");
  }
  return out;
}

std::string RenderHeatmapSvg(const Heatmap& map, const HeatmapLabels& labels) {
  return Svg(map, labels, /*standalone=*/true);
}

std::string RenderHeatmapHtml(const Heatmap& map, const HeatmapLabels& labels) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing may be loaded: the page is all there is.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
      "'none'; style-src 'unsafe-inline'\">\n";
  absl::StrAppend(&out, "<title>", HeatmapTitle(labels), "</title>\n");
  out +=
      "<style>body{margin:0;background:#ffffff}svg{display:block}</style>\n"
      "</head>\n<body>\n";
  out += Svg(map, labels, /*standalone=*/false);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace biosnoop::report
