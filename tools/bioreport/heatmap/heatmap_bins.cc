// Streaming binning: per granule, its non-empty (group, bucket) cells in
// a sorted run, so that memory follows the events' spread in time and
// latency, not their number (10 million events of one hour fit in a few
// MB).  A run takes 12 bytes a cell where a hash map of (granule, group,
// bucket) keys took ~45 (docs/bioreport.md#speed).

#include "heatmap_bins.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "svg_text.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

// The columns [FloorDiv(lo, w), FloorDiv(hi, w)] as a count, or more than
// kMaxColumns when they are too many (no overflow: hi - lo may exceed
// int64).
uint64_t ColumnCount(int64_t lo, int64_t hi, int64_t w) {
  const __int128 n =
      static_cast<__int128>(FloorDiv(hi, w)) - FloorDiv(lo, w) + 1;
  return n > kMaxColumns ? kMaxColumns + 1 : static_cast<uint64_t>(n);
}

}  // namespace

int FineBucketOfUs(uint64_t us) {
  // In ns, saturating: anything past 2^64 ns is the kernel's last bucket
  // anyway.
  const uint64_t ns = us > UINT64_MAX / 1000 ? UINT64_MAX : us * 1000;
  return FineElementOfNs(ns) + kFineFirst;
}

absl::StatusOr<HeatmapColumns> ChooseColumns(int64_t first_ns, int64_t last_ns,
                                             std::optional<int64_t> since_ns,
                                             std::optional<int64_t> until_ns,
                                             int max_columns,
                                             int64_t fixed_width_ns,
                                             int64_t granule_ns) {
  // The x range: the window where given (the incident the user names), the
  // events' times elsewhere.  until is exclusive.
  const int64_t lo = since_ns ? *since_ns : first_ns;
  const int64_t hi = until_ns ? *until_ns - 1 : last_ns;
  HeatmapColumns out;
  if (hi < lo) return out;  // no events and no window
  int64_t width = fixed_width_ns;
  if (width > 0) {
    if (ColumnCount(lo, hi, width) > kMaxColumns) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--bucket ", DurationLabel(width), " gives more than ", kMaxColumns,
          " columns from ", FormatRfc3339(lo), " to ", FormatRfc3339(hi),
          ": choose a wider bucket, or --since/--until"));
    }
  } else {
    for (int64_t w : kRoundWidths) {
      if (w < granule_ns || w % granule_ns != 0) continue;
      if (ColumnCount(lo, hi, w) <= static_cast<uint64_t>(max_columns)) {
        width = w;
        break;
      }
    }
    if (width == 0) {
      // Longer than the round widths allow: whole days (every granule
      // divides a day), starting near the answer.
      const __int128 span_days =
          (static_cast<__int128>(hi) - lo) / kDay / std::max(1, max_columns);
      int64_t days = std::max<int64_t>(8, static_cast<int64_t>(span_days));
      while (ColumnCount(lo, hi, days * kDay) >
             static_cast<uint64_t>(max_columns)) {
        ++days;
      }
      width = days * kDay;
    }
  }
  out.width_ns = width;
  out.first_index = FloorDiv(lo, width);
  out.columns = static_cast<int>(ColumnCount(lo, hi, width));
  return out;
}

int64_t HeatmapColumns::Start(int64_t c) const {
  const __int128 ns = (static_cast<__int128>(first_index) + c) * width_ns;
  return ns < INT64_MIN   ? INT64_MIN
         : ns > INT64_MAX ? INT64_MAX
                          : static_cast<int64_t>(ns);
}

HeatmapBinner::HeatmapBinner(HistGroup by, int64_t fixed_width_ns)
    : by_(by),
      fixed_(fixed_width_ns > 0),
      granule_(fixed_width_ns > 0 ? fixed_width_ns : kGranules[0]) {}

PanelKey HeatmapBinner::KeyOf(absl::string_view host, absl::string_view disk,
                              absl::string_view op) const {
  PanelKey k;
  k.host = std::string(host);
  if (by_ == HistGroup::kDisk || by_ == HistGroup::kDiskOp) {
    k.disk = std::string(disk);
  }
  if (by_ == HistGroup::kOp || by_ == HistGroup::kDiskOp)
    k.op = std::string(op);
  return k;
}

uint32_t HeatmapBinner::GroupOf(absl::string_view host, absl::string_view disk,
                                absl::string_view op) {
  // One reused key buffer: no allocation once the groups are known.  Each
  // part is preceded by its length, so that no name can run into the next.
  scratch_.clear();
  const bool with_disk = by_ == HistGroup::kDisk || by_ == HistGroup::kDiskOp;
  const bool with_op = by_ == HistGroup::kOp || by_ == HistGroup::kDiskOp;
  for (absl::string_view part : {host, with_disk ? disk : absl::string_view(),
                                 with_op ? op : absl::string_view()}) {
    const uint32_t n = static_cast<uint32_t>(part.size());
    scratch_.append(reinterpret_cast<const char*>(&n), sizeof(n));
    scratch_.append(part.data(), part.size());
  }
  auto it = group_ids_.find(scratch_);
  if (it != group_ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(groups_.size());
  group_ids_.emplace(scratch_, id);
  groups_.push_back(KeyOf(host, disk, op));
  group_events_.push_back(0);
  current_.resize(groups_.size() * kFineBuckets, 0);
  return id;
}

void HeatmapBinner::Add(absl::string_view host, absl::string_view disk,
                        absl::string_view op, int64_t ns, uint64_t latency_us) {
  if (events_ == 0 || ns < first_ns_) first_ns_ = ns;
  if (events_ == 0 || ns > last_ns_) last_ns_ = ns;
  ++events_;
  const uint32_t group = GroupOf(host, disk, op);
  ++group_events_[group];
  const int64_t g = FloorDiv(ns, granule_);
  if (g != current_granule_) {
    FlushCurrent();
    if (granules_.size() > kMaxGranules) Coarsen();
    current_granule_ = FloorDiv(ns, granule_);  // Coarsen() may change it
  }
  const uint32_t i =
      group * kFineBuckets + (FineBucketOfUs(latency_us) - kFineFirst);
  if (current_[i]++ == 0) touched_.push_back(i);
}

void HeatmapBinner::MergeInto(GranuleCells from, GranuleCells* to) {
  if (to->cells.empty()) {
    *to = std::move(from);
    return;
  }
  // Events came back to a granule left before (inputs out of order), or
  // granules join (Coarsen()): one sorted run from the two.
  GranuleCells out;
  out.cells.reserve(from.cells.size() + to->cells.size());
  out.counts.reserve(out.cells.capacity());
  size_t i = 0;
  size_t j = 0;
  while (i < from.cells.size() || j < to->cells.size()) {
    const bool take_from =
        j == to->cells.size() ||
        (i < from.cells.size() && from.cells[i] <= to->cells[j]);
    const bool take_to =
        i == from.cells.size() ||
        (j < to->cells.size() && to->cells[j] <= from.cells[i]);
    out.cells.push_back(take_from ? from.cells[i] : to->cells[j]);
    uint64_t n = 0;
    if (take_from) n += from.counts[i++];
    if (take_to) n += to->counts[j++];
    out.counts.push_back(n);
  }
  out.cells.shrink_to_fit();
  out.counts.shrink_to_fit();
  *to = std::move(out);
}

void HeatmapBinner::FlushCurrent() {
  if (touched_.empty()) return;
  std::sort(touched_.begin(), touched_.end());
  GranuleCells run;
  run.cells = touched_;  // exactly their size
  run.counts.reserve(touched_.size());
  for (uint32_t i : touched_) {
    run.counts.push_back(current_[i]);
    current_[i] = 0;
  }
  touched_.clear();
  MergeInto(std::move(run), &granules_[current_granule_]);
}

void HeatmapBinner::Coarsen() {
  if (fixed_) {
    // A fixed width: a granule is a column, and with this many
    // ChooseColumns refuses the width anyway.  Memory stays bounded.
    granules_.clear();
    return;
  }
  constexpr size_t kLast = std::size(kGranules) - 1;
  while (granules_.size() > kMaxGranules && granule_index_ < kLast) {
    const int64_t old_granule = granule_;
    granule_ = kGranules[++granule_index_];
    absl::flat_hash_map<int64_t, GranuleCells> granules;
    for (auto& [old, run] : granules_) {
      // The new granule is a multiple of the old one.
      MergeInto(std::move(run),
                &granules[FloorDiv(old, granule_ / old_granule)]);
    }
    granules_ = std::move(granules);
  }
}

std::vector<HeatmapPanel> HeatmapBinner::Panels(
    const HeatmapColumns& columns) const {
  std::vector<HeatmapPanel> panels(groups_.size());
  // Per group, (column, element) -> count: several granules make a column.
  std::vector<absl::flat_hash_map<int64_t, uint64_t>> cells(groups_.size());
  auto add = [&](int64_t granule, uint32_t group, uint32_t element,
                 uint64_t n) {
    // The width is a multiple of the granule (ChooseColumns).
    const int64_t c =
        FloorDiv(granule, columns.width_ns / granule_) - columns.first_index;
    if (c < 0 || c >= columns.columns) return;
    cells[group][c * kFineBuckets + element] += n;
    panels[group].events += n;
  };
  if (columns.columns > 0) {
    for (const auto& [granule, run] : granules_) {
      for (size_t j = 0; j < run.cells.size(); ++j) {
        add(granule, run.cells[j] / kFineBuckets, run.cells[j] % kFineBuckets,
            run.counts[j]);
      }
    }
    for (uint32_t i : touched_) {
      add(current_granule_, i / kFineBuckets, i % kFineBuckets, current_[i]);
    }
  }
  for (size_t i = 0; i < groups_.size(); ++i) {
    panels[i].key = groups_[i];
    std::vector<HeatmapCell>& out = panels[i].cells;
    out.reserve(cells[i].size());
    for (const auto& [index, n] : cells[i]) {
      out.push_back(
          HeatmapCell{static_cast<int>(index / kFineBuckets),
                      static_cast<int>(index % kFineBuckets) + kFineFirst, n});
    }
    std::sort(
        out.begin(), out.end(), [](const HeatmapCell& a, const HeatmapCell& b) {
          return std::tie(a.column, a.bucket) < std::tie(b.column, b.bucket);
        });
  }
  std::sort(panels.begin(), panels.end(),
            [](const HeatmapPanel& a, const HeatmapPanel& b) {
              return a.key < b.key;
            });
  return panels;
}

}  // namespace biosnoop::report
