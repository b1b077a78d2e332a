// Columns, rows, panels and lines: what the heat map shows, before any
// drawing.

#include "heatmap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "status_macros.h"

namespace biosnoop::report {
namespace {

constexpr int kP50 = 500;
constexpr int kP99 = 990;

// The zero bucket's index at `schema`: everything up to 2^-20 s.
int ZeroBucket(int schema) { return -20 * (1 << schema); }

// The lines of a panel from its own cells (fine buckets): per column, the
// estimate of the events drawn there.
void EventLines(const HeatmapPanel& panel, int columns, HeatmapPanelData* d) {
  d->p50.assign(columns, std::nullopt);
  d->p99.assign(columns, std::nullopt);
  FineBuckets fine;
  auto flush = [&](int c) {
    if (fine.empty()) return;
    d->p50[c] = EstimateFineUs(fine, kFineSchema, kP50);
    d->p99[c] = EstimateFineUs(fine, kFineSchema, kP99);
    fine.clear();
  };
  int column = -1;
  for (const HeatmapCell& cell : panel.cells) {  // sorted by column
    if (cell.column != column) {
      if (column >= 0) flush(column);
      column = cell.column;
    }
    fine.Add(cell.bucket, cell.count);
  }
  if (column >= 0) flush(column);
}

// The panel's cells at the coarser `schema`: sorted cells stay sorted, and
// neighbours that fall in one row are summed.
void CellsAtSchema(int schema, HeatmapPanel* panel) {
  std::vector<HeatmapCell> out;
  out.reserve(panel->cells.size());
  for (HeatmapCell cell : panel->cells) {
    cell.bucket = CoarserBucket(cell.bucket, kFineSchema, schema);
    if (!out.empty() && out.back().column == cell.column &&
        out.back().bucket == cell.bucket) {
      out.back().count += cell.count;
    } else {
      out.push_back(cell);
    }
  }
  panel->cells = std::move(out);
}

}  // namespace

double RowUpperUs(int k, int schema) {
  return std::exp2(static_cast<double>(k) / (1 << schema)) * 1e6;
}

double RowLowerUs(int k, int schema) {
  return k <= ZeroBucket(schema) ? 0 : RowUpperUs(k - 1, schema);
}

int FineBucketOfValueUs(double us) {
  constexpr int kLast = kFineFirst + kFineBuckets - 1;
  if (!(us > 0)) return kFineFirst;
  const double k = std::ceil(std::log2(us / 1e6) * (1 << kFineSchema));
  return static_cast<int>(std::clamp<double>(k, kFineFirst, kLast));
}

int ChooseRowSchema(int lo, int hi, std::optional<int> lowest_cell) {
  for (int s = kFineSchema; s > 0; --s) {
    const int rows = CoarserBucket(hi, kFineSchema, s) -
                     CoarserBucket(lo, kFineSchema, s) + 1;
    if (rows > kMaxRows) continue;
    if (lowest_cell && *lowest_cell > ZeroBucket(kFineSchema)) {
      const int r = CoarserBucket(*lowest_cell, kFineSchema, s);
      if (RowUpperUs(r, s) - RowLowerUs(r, s) < 1.0) continue;
    }
    return s;
  }
  return 0;
}

std::vector<std::optional<double>> EstimateColumns(
    const std::vector<BaselineGroup>& groups, int permille, bool* log2) {
  std::vector<std::optional<double>> out;
  out.reserve(groups.size());
  for (const BaselineGroup& g : groups) {
    if (g.count == 0) {
      out.push_back(std::nullopt);
    } else if (HasFineBuckets(g)) {
      out.push_back(EstimateFineUs(g.fine, g.fine_schema, permille));
    } else {
      const std::optional<uint64_t> us =
          EstimatePercentileUs(g.latency, permille);
      if (us) *log2 = true;
      out.push_back(us ? std::optional<double>(static_cast<double>(*us))
                       : std::nullopt);
    }
  }
  return out;
}

std::vector<std::pair<PanelKey, std::vector<BaselineGroup>>>
SummaryColumnGroups(const std::vector<BaselineInterval>& intervals,
                    const HeatmapBinner& binner,
                    const HeatmapColumns& columns) {
  std::map<PanelKey, std::vector<BaselineGroup>> by_key;
  for (const BaselineInterval& in : intervals) {
    // The columns the interval overlaps (its end is exclusive).
    const int64_t c0 = std::max<int64_t>(0, columns.Of(in.start_ns));
    const int64_t c1 = std::min<int64_t>(
        columns.columns - 1,
        columns.Of(in.end_ns > in.start_ns ? in.end_ns - 1 : in.end_ns));
    if (c1 < c0) continue;
    for (const BaselineGroup& g : in.groups) {
      std::vector<BaselineGroup>& groups =
          by_key[binner.KeyOf(in.host, g.disk, g.op)];
      if (groups.empty()) groups.resize(columns.columns);
      for (int64_t c = c0; c <= c1; ++c) groups[c].Add(g);
    }
  }
  return {std::make_move_iterator(by_key.begin()),
          std::make_move_iterator(by_key.end())};
}

absl::StatusOr<Heatmap> BuildHeatmap(const HeatmapBinner& binner,
                                     const BaselineCollector& baseline,
                                     const HeatmapOptions& options) {
  // The x range: the events', widened to the summary intervals' (a quiet
  // stretch with no slow I/O is still time biosnoop watched).
  int64_t first = binner.first_ns();
  int64_t last = binner.last_ns();
  const bool any_summary = !baseline.intervals().empty();
  if (any_summary) {
    const int64_t s = baseline.window_start_ns();
    const int64_t e = baseline.window_end_ns();
    first = binner.events() == 0 ? s : std::min(first, s);
    last = binner.events() == 0 ? e - 1 : std::max(last, e - 1);
  } else if (binner.events() == 0) {
    first = 1;
    last = 0;  // nothing, unless --since and --until give the range
  }
  Heatmap map;
  ASSIGN_OR_RETURN(map.columns,
                   ChooseColumns(first, last, options.since_ns,
                                 options.until_ns, options.max_columns,
                                 options.fixed_width_ns, binner.granule_ns()));
  const int ncols = map.columns.columns;

  std::map<PanelKey, HeatmapPanelData> panels;
  for (HeatmapPanel& p : binner.Panels(map.columns)) {
    PanelKey key = p.key;
    panels[key].counts = std::move(p);
  }
  map.lines = any_summary ? LineSource::kSummaries : LineSource::kEvents;
  if (any_summary) {
    for (auto& [key, groups] :
         SummaryColumnGroups(baseline.intervals(), binner, map.columns)) {
      HeatmapPanelData& d = panels[key];
      d.counts.key = key;  // a disk with no slow event: lines only
      d.p50 = EstimateColumns(groups, kP50, &map.lines_log2);
      d.p99 = EstimateColumns(groups, kP99, &map.lines_log2);
    }
  }
  for (auto& [key, d] : panels) {
    if (map.lines == LineSource::kEvents) EventLines(d.counts, ncols, &d);
    if (d.p50.empty()) d.p50.assign(ncols, std::nullopt);
    if (d.p99.empty()) d.p99.assign(ncols, std::nullopt);
    map.panels.push_back(std::move(d));
  }
  for (const HeatmapPanelData& d : map.panels) map.events += d.counts.events;
  // Too many panels to read: those with the most events (then by key).
  if (map.panels.size() > kMaxPanels) {
    std::stable_sort(map.panels.begin(), map.panels.end(),
                     [](const HeatmapPanelData& a, const HeatmapPanelData& b) {
                       return a.counts.events > b.counts.events;
                     });
    map.panels_left_out = map.panels.size() - kMaxPanels;
    map.panels.resize(kMaxPanels);
    std::sort(map.panels.begin(), map.panels.end(),
              [](const HeatmapPanelData& a, const HeatmapPanelData& b) {
                return a.counts.key < b.counts.key;
              });
  }
  // The rows: the span of the cells and lines drawn, in fine buckets,
  // then at the schema that fits.
  std::optional<int> lo, hi, lowest_cell;
  auto span = [&](int k) {
    lo = lo ? std::min(*lo, k) : k;
    hi = hi ? std::max(*hi, k) : k;
  };
  for (const HeatmapPanelData& d : map.panels) {
    for (const HeatmapCell& cell : d.counts.cells) {
      span(cell.bucket);
      if (cell.bucket > ZeroBucket(kFineSchema) &&
          (!lowest_cell || cell.bucket < *lowest_cell)) {
        lowest_cell = cell.bucket;
      }
    }
    for (const auto* line : {&d.p50, &d.p99}) {
      for (const std::optional<double>& us : *line) {
        if (us) span(FineBucketOfValueUs(*us));
      }
    }
  }
  if (!lo) return map;  // nothing to draw: no rows
  // Two fine buckets more on each side, so that no line runs on the
  // grid's edge.
  lo = std::max(kFineFirst, *lo - 2);
  hi = std::min(kFineFirst + kFineBuckets - 1, *hi + 2);
  map.row_schema = ChooseRowSchema(*lo, *hi, lowest_cell);
  map.lo_row = CoarserBucket(*lo, kFineSchema, map.row_schema);
  map.hi_row = CoarserBucket(*hi, kFineSchema, map.row_schema);
  for (HeatmapPanelData& d : map.panels) {
    CellsAtSchema(map.row_schema, &d.counts);
    for (const HeatmapCell& cell : d.counts.cells) {
      map.max_count = std::max(map.max_count, cell.count);
    }
  }
  return map;
}

}  // namespace biosnoop::report
