// Columns, panels and lines: what the heat map shows, before any drawing.

#include "heatmap.h"

#include <algorithm>
#include <map>
#include <utility>

#include "status_macros.h"

namespace biosnoop::report {
namespace {

std::vector<Log2Sums> EventColumnHists(const HeatmapPanel& panel, int columns) {
  std::vector<Log2Sums> hists(columns);
  for (int c = 0; c < columns; ++c) {
    for (int b = 0; b < kBuckets; ++b) hists[c][b] = panel.at(c, b);
  }
  return hists;
}

}  // namespace

std::vector<int> EstimateColumns(const std::vector<Log2Sums>& hists,
                                 int permille) {
  std::vector<int> out;
  out.reserve(hists.size());
  for (const Log2Sums& h : hists) {
    const std::optional<uint64_t> us = EstimatePercentileUs(h, permille);
    out.push_back(us ? Log2Bucket(*us) : -1);
  }
  return out;
}

std::vector<std::pair<PanelKey, std::vector<Log2Sums>>> SummaryColumnHists(
    const std::vector<BaselineInterval>& intervals, const HeatmapBinner& binner,
    const HeatmapColumns& columns) {
  std::map<PanelKey, std::vector<Log2Sums>> by_key;
  for (const BaselineInterval& in : intervals) {
    // The columns the interval overlaps (its end is exclusive).
    const int64_t c0 = std::max<int64_t>(0, columns.Of(in.start_ns));
    const int64_t c1 = std::min<int64_t>(
        columns.columns - 1,
        columns.Of(in.end_ns > in.start_ns ? in.end_ns - 1 : in.end_ns));
    if (c1 < c0) continue;
    for (const BaselineGroup& g : in.groups) {
      std::vector<Log2Sums>& hists =
          by_key[binner.KeyOf(in.host, g.disk, g.op)];
      if (hists.empty()) hists.resize(columns.columns, Log2Sums{});
      for (int64_t c = c0; c <= c1; ++c) {
        for (int b = 0; b < kBuckets; ++b) hists[c][b] += g.latency[b];
      }
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
    for (auto& [key, hists] :
         SummaryColumnHists(baseline.intervals(), binner, map.columns)) {
      HeatmapPanelData& d = panels[key];
      if (d.counts.cells.empty()) {  // a disk with no slow event: lines only
        d.counts.key = key;
        d.counts.cells.assign(static_cast<size_t>(ncols) * kBuckets, 0);
      }
      d.p50 = EstimateColumns(hists, 500);
      d.p99 = EstimateColumns(hists, 990);
    }
  }
  for (auto& [key, d] : panels) {
    if (map.lines == LineSource::kEvents) {
      const std::vector<Log2Sums> hists = EventColumnHists(d.counts, ncols);
      d.p50 = EstimateColumns(hists, 500);
      d.p99 = EstimateColumns(hists, 990);
    }
    if (d.p50.empty()) d.p50.assign(ncols, -1);
    if (d.p99.empty()) d.p99.assign(ncols, -1);
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
  for (const HeatmapPanelData& d : map.panels) {
    for (int c = 0; c < ncols; ++c) {
      for (int b = 0; b < kBuckets; ++b) {
        const uint64_t n = d.counts.at(c, b);
        if (n == 0) continue;
        map.max_count = std::max(map.max_count, n);
        if (map.lo_bucket < 0 || b < map.lo_bucket) map.lo_bucket = b;
        map.hi_bucket = std::max(map.hi_bucket, b);
      }
      for (int b : {d.p50[c], d.p99[c]}) {
        if (b < 0) continue;
        if (map.lo_bucket < 0 || b < map.lo_bucket) map.lo_bucket = b;
        map.hi_bucket = std::max(map.hi_bucket, b);
      }
    }
  }
  return map;
}

}  // namespace biosnoop::report
