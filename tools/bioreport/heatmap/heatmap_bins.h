#pragma once

// The heat map's data: events counted per group (host, and disk and/or op
// as --by asks), time column and fine latency bucket, in one pass and in
// bounded memory: no event is kept.
//
// Latency is binned on the kernel's fine grid (histogram.h: 16 buckets per
// power of two on the seconds grid of Prometheus's native histograms at
// schema 4, the buckets of the summaries' latency_fine), with the kernel's
// own bucket function: an event and a summary's count of the same latency
// land in the same bucket, and the rows drawn (heatmap.h) are these
// buckets or unions of them.
//
// Time is counted in "granules" first, because the column width can only
// be chosen once the span is known (after the last event).  The granule
// starts at 1 us and grows along kGranules (each a multiple of the one
// before) whenever more than kMaxGranules distinct granules hold events;
// every round column width (kRoundWidths) at least as wide as a granule
// is a multiple of it, so the final columns are exact unions of granules.
// With a fixed width (--bucket) the granule is that width from the start.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "aggregator.h"
#include "histogram.h"
#include "report.h"

namespace biosnoop::report {

inline constexpr int64_t kUs = 1000;
inline constexpr int64_t kMs = 1000 * kUs;
inline constexpr int64_t kSec = 1000 * kMs;
inline constexpr int64_t kMin = 60 * kSec;
inline constexpr int64_t kHour = 60 * kMin;
inline constexpr int64_t kDay = 24 * kHour;

// The column widths chosen automatically, smallest first: 1-2-5 steps up
// to 10 s, then the clock's (15 s, 30 s, 1 min, ..., 12 h, 1 d, 2 d, 7 d);
// beyond 7 d, whole days.
inline constexpr int64_t kRoundWidths[] = {
    1 * kUs,   2 * kUs,   5 * kUs,   10 * kUs,  20 * kUs,   50 * kUs,
    100 * kUs, 200 * kUs, 500 * kUs, 1 * kMs,   2 * kMs,    5 * kMs,
    10 * kMs,  20 * kMs,  50 * kMs,  100 * kMs, 200 * kMs,  500 * kMs,
    1 * kSec,  2 * kSec,  5 * kSec,  10 * kSec, 15 * kSec,  30 * kSec,
    1 * kMin,  2 * kMin,  5 * kMin,  10 * kMin, 15 * kMin,  30 * kMin,
    1 * kHour, 2 * kHour, 3 * kHour, 6 * kHour, 12 * kHour, 1 * kDay,
    2 * kDay,  7 * kDay};
inline constexpr int64_t kGranules[] = {
    1 * kUs,   10 * kUs, 100 * kUs, 1 * kMs,   10 * kMs,
    100 * kMs, 1 * kSec, 1 * kMin,  1 * kHour, 1 * kDay};
inline constexpr size_t kMaxGranules = 1 << 14;

// --columns: at most this many (default kDefaultColumns).
inline constexpr int kDefaultColumns = 200;
inline constexpr int kMaxColumns = 2000;

// floor(a / b) for b > 0 (C++ division truncates towards zero).
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && a < 0 ? 1 : 0);
}

// A panel: host, and disk and op when --by asks for them ("" otherwise).
struct PanelKey {
  std::string host;
  std::string disk;
  std::string op;
  auto operator<=>(const PanelKey&) const = default;
};

// The columns: `columns` of `width_ns`, column c covering
// [(first_index + c) * width_ns, (first_index + c + 1) * width_ns): columns
// line up with the clock.
struct HeatmapColumns {
  int64_t first_index = 0;
  int64_t width_ns = 0;
  int columns = 0;
  // The column of `ns` (may be outside [0, columns)).
  int64_t Of(int64_t ns) const { return FloorDiv(ns, width_ns) - first_index; }
  // Where column c starts, clamped to the int64 range (the first column
  // of a stream from 1677 may start before it).
  int64_t Start(int64_t c) const;
};

// Chooses the columns for events in [first_ns, last_ns] (or the
// --since/--until window, which takes precedence for each end it gives):
// with `fixed_width_ns` > 0, that width (InvalidArgumentError when it gives
// more than kMaxColumns columns); else the smallest round width, at least
// `granule_ns` and a multiple of it, that gives at most `max_columns`.
absl::StatusOr<HeatmapColumns> ChooseColumns(int64_t first_ns, int64_t last_ns,
                                             std::optional<int64_t> since_ns,
                                             std::optional<int64_t> until_ns,
                                             int max_columns,
                                             int64_t fixed_width_ns,
                                             int64_t granule_ns);

// The fine bucket k (at kFineSchema) a latency of `us` microseconds is
// counted in: (2^((k-1)/16), 2^(k/16)] seconds, from kFineFirst (the zero
// bucket, up to 2^-20 s) to the kernel's last bucket (everything above).
int FineBucketOfUs(uint64_t us);

// A non-empty cell: `count` events in `column` with latency in `bucket`
// (a bucket index k on the seconds grid, at the schema its holder says).
struct HeatmapCell {
  int column = 0;
  int bucket = 0;
  uint64_t count = 0;
  bool operator==(const HeatmapCell&) const = default;
};

// One panel's counts: its non-empty cells, sorted by (column, bucket),
// buckets at kFineSchema (FineBucketOfUs).
struct HeatmapPanel {
  PanelKey key;
  uint64_t events = 0;
  std::vector<HeatmapCell> cells;
};

class HeatmapBinner {
 public:
  // `by`: kAll (one panel per host), kDisk, kOp or kDiskOp.
  // `fixed_width_ns`: --bucket, 0 for a width chosen from the span.
  HeatmapBinner(HistGroup by, int64_t fixed_width_ns);

  // An event that passed the filters: its host, whole disk, op, time and
  // latency.
  void Add(absl::string_view host, absl::string_view disk, absl::string_view op,
           int64_t ns, uint64_t latency_us);

  // A run's threshold (its header's min_us, or op_min_us for a map of
  // calls), for the runs whose records are drawn: the map's title says
  // "slow" unless every one is 0.
  void AddThreshold(uint64_t us) { thresholds_.push_back(us); }
  const std::vector<uint64_t>& thresholds() const { return thresholds_; }

  uint64_t events() const { return events_; }
  int64_t first_ns() const { return first_ns_; }
  int64_t last_ns() const { return last_ns_; }
  int64_t granule_ns() const { return granule_; }
  // The key a record of (host, disk, op) is counted under with this --by.
  PanelKey KeyOf(absl::string_view host, absl::string_view disk,
                 absl::string_view op) const;

  // The panels (sorted by key), with the counts of each column of
  // `columns`; events outside the columns are not counted.
  std::vector<HeatmapPanel> Panels(const HeatmapColumns& columns) const;

 private:
  // One granule's non-empty cells, sorted by cell (group * kFineBuckets
  // + element), and their counts: 12 bytes a cell.
  struct GranuleCells {
    std::vector<uint32_t> cells;
    std::vector<uint64_t> counts;
  };
  // Adds the sorted cells `from` (each cell once) to `to`.
  static void MergeInto(GranuleCells from, GranuleCells* to);
  // Moves the current granule's counts into granules_.
  void FlushCurrent();
  // Moves every count to the next granule of kGranules, until at most
  // kMaxGranules distinct ones hold events (or the last is reached).
  void Coarsen();
  uint32_t GroupOf(absl::string_view host, absl::string_view disk,
                   absl::string_view op);

  HistGroup by_;
  bool fixed_;
  int64_t granule_;
  size_t granule_index_ = 0;
  uint64_t events_ = 0;
  int64_t first_ns_ = 0;
  int64_t last_ns_ = 0;
  // The granules that hold events (the current one once flushed).
  absl::flat_hash_map<int64_t, GranuleCells> granules_;
  // The granule events arrive in (they come in time order, mostly), as
  // dense counts per group * kFineBuckets + element, and which are
  // non-zero.
  int64_t current_granule_ = INT64_MIN;
  std::vector<uint64_t> current_;
  std::vector<uint32_t> touched_;
  absl::flat_hash_map<std::string, uint32_t> group_ids_;
  std::vector<PanelKey> groups_;
  std::vector<uint64_t> group_events_;
  std::vector<uint64_t> thresholds_;
  std::string scratch_;
};

}  // namespace biosnoop::report
