// Drawing: integer coordinates throughout and crisp edges, so that a cell
// is exactly its pixels and its colour exactly the scale's (a screenshot
// test relies on both); every text from the input through
// AppendXmlEscaped.

#include "heatmap_svg.h"

#include <algorithm>

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

int PanelHeight(int rows) {
  return kPanelLabelHeight + rows * kRowHeight + kAxisHeight + kPanelGap;
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
    parts.push_back(
        absl::StrCat("host ", key.host.empty() ? "-" : XmlEscaped(key.host)));
  }
  if (labels.by == HistGroup::kDisk || labels.by == HistGroup::kDiskOp) {
    parts.push_back(absl::StrCat("disk ", XmlEscaped(key.disk)));
  }
  if (labels.by == HistGroup::kOp || labels.by == HistGroup::kDiskOp) {
    // A map of calls groups by the call.
    parts.push_back(
        absl::StrCat(labels.calls ? "call " : "op ", XmlEscaped(key.op)));
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

// The p50 or p99 line of a panel: a step per column, joined across
// neighbouring columns, broken where a column has no estimate.  Drawn at
// the upper edge of the bucket (the estimate is the bucket's upper bound).
void Line(std::string* out, const std::vector<int>& buckets, int grid_y, int hi,
          int cw, const char* color, const char* dash) {
  std::string d;
  bool open = false;
  for (size_t c = 0; c < buckets.size(); ++c) {
    if (buckets[c] < 0) {
      open = false;
      continue;
    }
    const int x0 = kMarginLeft + static_cast<int>(c) * cw;
    const int y = grid_y + (hi - buckets[c]) * kRowHeight;
    if (!open) {
      absl::StrAppend(&d, d.empty() ? "" : " ", "M", x0, " ", y);
      open = true;
    } else {
      absl::StrAppend(&d, " V", y);
    }
    absl::StrAppend(&d, " H", x0 + cw);
  }
  if (d.empty()) return;
  // A white halo first, so that the line shows on dark cells too.
  absl::StrAppend(out, "<path d=\"", d,
                  "\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"4\" "
                  "stroke-opacity=\"0.8\"/>\n");
  absl::StrAppend(out, "<path d=\"", d, "\" fill=\"none\" stroke=\"", color,
                  "\" stroke-width=\"2\"", dash, "/>\n");
}

struct Geometry {
  int rows = 0;
  int cw = 1;
  int plot_width = 0;
  int width = 0;
  int height = 0;
  int legend_y = 0;
};

void DrawPanel(const Heatmap& map, const HeatmapPanelData& panel,
               const HeatmapLabels& labels, const ColorScale& scale,
               const Geometry& g, int panel_y, bool tooltips,
               std::string* out) {
  const HeatmapColumns& cols = map.columns;
  const int grid_y = panel_y + kPanelLabelHeight;
  const int grid_h = g.rows * kRowHeight;
  const int hi = map.hi_bucket;
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
  for (int c = 0; c < cols.columns; ++c) {
    for (int b = hi; b >= map.lo_bucket; --b) {
      const uint64_t n = panel.counts.at(c, b);
      if (n == 0) continue;
      absl::StrAppend(out, "<rect x=\"", kMarginLeft + c * g.cw, "\" y=\"",
                      grid_y + (hi - b) * kRowHeight, "\" width=\"", g.cw,
                      "\" height=\"", kRowHeight, "\" fill=\"",
                      HexColor(scale.Color(scale.Level(n))), "\"");
      if (!tooltips) {
        absl::StrAppend(out, "/>\n");
        continue;
      }
      absl::StrAppend(
          out, "><title>", TimeLabel(cols.Start(c), cols.width_ns, true), " +",
          DurationLabel(cols.width_ns), ", ", LatencyLabel(BucketLow(b)),
          " \xe2\x80\x93 ", LatencyLabel(BucketHigh(b)), ": ", Count(n),
          "</title></rect>\n");
    }
  }
  absl::StrAppend(out, "</g>\n");
  // The y axis: each bucket boundary, the bucket's lower bound.
  for (int b = map.lo_bucket; b <= hi + 1; ++b) {
    const int y = grid_y + (hi + 1 - b) * kRowHeight;
    absl::StrAppend(out, "<line x1=\"", kMarginLeft - 4, "\" y1=\"", y,
                    "\" x2=\"", kMarginLeft, "\" y2=\"", y,
                    "\" stroke=\"#555555\"/>\n");
    const uint64_t us = b >= kBuckets ? BucketHigh(kBuckets - 1) : BucketLow(b);
    Text(out, kMarginLeft - 6, y + 4, LatencyLabel(us),
         "text-anchor=\"end\" font-size=\"10\"");
  }
  // The x axis: a label at each multiple of a round interval (a multiple
  // of the width) about 100 pixels apart or more.
  int every = std::max(1, (100 + g.cw - 1) / g.cw);
  for (int64_t t : kRoundWidths) {
    if (t % cols.width_ns == 0 && t / cols.width_ns >= every) {
      every = static_cast<int>(t / cols.width_ns);
      break;
    }
  }
  const int64_t first_tick =
      ((-(cols.first_index % every)) % every + every) % every;
  const bool with_date =
      cols.columns > 0 &&
      cols.Start(0) / kDay != cols.Start(cols.columns) / kDay;
  for (int64_t c = first_tick; c <= cols.columns; c += every) {
    const int x = kMarginLeft + static_cast<int>(c) * g.cw;
    absl::StrAppend(out, "<line x1=\"", x, "\" y1=\"", grid_y + grid_h,
                    "\" x2=\"", x, "\" y2=\"", grid_y + grid_h + 4,
                    "\" stroke=\"#555555\"/>\n");
    Text(out, x, grid_y + grid_h + 16,
         TimeLabel(cols.Start(c), cols.width_ns, with_date),
         "text-anchor=\"middle\" font-size=\"10\"");
  }
  Line(out, panel.p50, grid_y, hi, g.cw, kP50Color, "");
  Line(out, panel.p99, grid_y, hi, g.cw, kP99Color,
       " stroke-dasharray=\"6 3\"");
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
  Text(out, kMarginLeft + 140, line_y,
       labels.calls
           ? "of the calls drawn: those of at least --op-min-us only "
             "(log2-bucket estimates, drawn at the bucket's upper bound)"
       : map.lines == LineSource::kSummaries
           ? "of all I/O, from the summary records overlapping each column "
             "(log2-bucket estimates, drawn at the bucket's upper bound)"
           : "of the events drawn: no summary records in the selection, so "
             "slow I/O only (log2-bucket estimates, drawn at the bucket's "
             "upper bound)",
       "font-size=\"11\"");
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
  for (const std::string& w : labels.warnings) {
    Text(out, kMarginLeft, line_y, absl::StrCat("WARNING: ", XmlEscaped(w)),
         "font-size=\"11\" fill=\"#b00000\"");
    line_y += kLineHeight;
  }
}

std::string Title(const Heatmap& map, const HeatmapLabels& labels) {
  std::vector<std::string> hosts;
  for (const std::string& h : labels.hosts) {
    hosts.push_back(h.empty() ? "-" : XmlEscaped(h));
  }
  return absl::StrCat(
      labels.calls ? "Slow call latency heat map" : "Slow I/O latency heat map",
      hosts.empty() ? "" : ": ", absl::StrJoin(hosts, ", "));
}

std::string Svg(const Heatmap& map, const HeatmapLabels& labels,
                bool standalone) {
  const HeatmapColumns& cols = map.columns;
  Geometry g;
  g.rows = map.hi_bucket < 0 ? 0 : map.hi_bucket - map.lo_bucket + 1;
  g.cw = CellWidth(cols.columns);
  g.plot_width = g.cw * cols.columns;
  const bool empty = g.rows == 0 || cols.columns == 0;
  const int panels = empty ? 0 : static_cast<int>(map.panels.size());
  g.legend_y = kTop + panels * PanelHeight(g.rows) + (empty ? 20 : 0);
  const int notes =
      2 + (map.panels_left_out > 0) + static_cast<int>(labels.warnings.size());
  g.height = g.legend_y + 36 + notes * kLineHeight + 8;
  g.width = std::max(kMarginLeft + g.plot_width + kMarginRight, 900);
  const ColorScale scale(map.max_count);
  const std::string title = Title(map, labels);

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
    absl::StrAppend(
        &sub, ", ", TimeLabel(cols.Start(0), cols.width_ns, true), " .. ",
        TimeLabel(cols.Start(cols.columns), cols.width_ns, true), " UTC, ",
        cols.columns, " columns of ", DurationLabel(cols.width_ns));
  }
  absl::StrAppend(&sub, ", by ", ByName(labels.by),
                  "; y: latency, log2 buckets");
  Text(&out, 16, 40, sub, "font-size=\"12\"");
  if (empty) {
    Text(&out, kMarginLeft, kTop + 10,
         labels.calls ? "no calls in the selection"
                      : "no events in the selection");
  } else {
    size_t cells = 0;
    for (const HeatmapPanelData& p : map.panels) {
      for (uint64_t n : p.counts.cells) cells += n > 0;
    }
    const bool tooltips = cells <= kMaxTooltips;
    for (int i = 0; i < panels; ++i) {
      DrawPanel(map, map.panels[i], labels, scale, g,
                kTop + i * PanelHeight(g.rows), tooltips, &out);
    }
  }
  if (!empty) DrawLegend(map, scale, labels, g.legend_y, &out);
  if (empty) {
    int y = g.legend_y + 12;
    for (const std::string& w : labels.warnings) {
      Text(&out, kMarginLeft, y, absl::StrCat("WARNING: ", XmlEscaped(w)),
           "font-size=\"11\" fill=\"#b00000\"");
      y += kLineHeight;
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string RenderHeatmapSvg(const Heatmap& map, const HeatmapLabels& labels) {
  return Svg(map, labels, /*standalone=*/true);
}

std::string RenderHeatmapHtml(const Heatmap& map, const HeatmapLabels& labels) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing may be loaded: the page is all there is.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
      "'none'; style-src 'unsafe-inline'\">\n";
  absl::StrAppend(&out, "<title>", Title(map, labels), "</title>\n");
  out +=
      "<style>body{margin:0;background:#ffffff}svg{display:block}</style>\n"
      "</head>\n<body>\n";
  out += Svg(map, labels, /*standalone=*/false);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace biosnoop::report
