// Selecting, de-duplicating and merging summary records, and the union of
// the time they cover (per host and across hosts).

#include "baseline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "record.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

static_assert(kMaxSummaryBuckets <= kBuckets,
              "every bucket a reader accepts must fit a Log2Hist");

// The estimate for either bucket width.  The total in 128 bits: uint64
// buckets may each be near 2^64; Sum buckets are each at most one uint64
// per summary record, so 64 of them overflow only past 2^58 records.
template <typename Hist>
std::optional<uint64_t> Estimate(const Hist& hist, int permille) {
  Sum total = 0;
  for (const auto n : hist) total += n;
  if (total == 0) return std::nullopt;
  Sum rank = (total * static_cast<unsigned>(permille) + 999) / 1000;
  if (rank == 0) rank = 1;
  Sum seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += hist[b];
    if (seen >= rank) return BucketHigh(b);
  }
  return BucketHigh(kBuckets - 1);  // not reached: seen ends at total
}

// end - seconds, without overflow: a reader's interval_s is at most 100
// years, but an end in 1678 minus that is before int64 nanoseconds begin
// (clamped), and a collector fed directly may get any double.
int64_t StartOf(int64_t end_ns, double interval_s) {
  if (!(interval_s > 0)) return end_ns;
  const double ns = interval_s * 1e9;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // 9e18 ns is beyond any end_ns a reader accepts minus the int64 minimum.
  if (ns >= 9e18) return kMin;
  const auto back = static_cast<int64_t>(std::llround(ns));
  int64_t start = 0;
  if (__builtin_sub_overflow(end_ns, back, &start)) return kMin;
  return start;
}

}  // namespace

void BaselineGroup::Add(const BaselineGroup& o) {
  count += o.count;
  bytes += o.bytes;
  slow += o.slow;
  errors += o.errors;
  for (int b = 0; b < kBuckets; ++b) latency[b] += o.latency[b];
  if (o.fine_schema == kNoFineSchema) return;
  if (fine_schema == kNoFineSchema) {
    fine_schema = o.fine_schema;
  } else if (o.fine_schema != fine_schema) {
    const int to = std::min(fine_schema, o.fine_schema);
    if (to != fine_schema) fine = fine.AtSchema(fine_schema, to);
    fine_schema = to;
  }
  fine.AddAll(o.fine, o.fine_schema, fine_schema);
  fine_total += o.fine_total;
}

bool HasFineBuckets(const BaselineGroup& g) {
  return g.fine_schema != BaselineGroup::kNoFineSchema && g.count > 0 &&
         g.fine_total == g.count;
}

std::optional<double> EstimateFineUs(const FineBuckets& fine, int schema,
                                     int permille) {
  const Sum total = fine.Total();
  if (total == 0) return std::nullopt;
  Sum rank = (total * static_cast<unsigned>(permille) + 999) / 1000;
  if (rank == 0) rank = 1;
  const double per_octave = std::exp2(schema);
  // The zero bucket: everything up to 2^-20 s, whatever the schema.
  const int zero = static_cast<int>(std::lround(-20 * per_octave));
  Sum seen = 0;
  std::optional<double> us;  // found once seen reaches rank
  fine.ForEach([&](int k, Sum n) {
    if (us) return;
    if (seen + n < rank) {
      seen += n;
      return;
    }
    const double hi = std::exp2(k / per_octave);
    double seconds = hi;
    if (k > zero) {
      const double lo = std::exp2((k - 1) / per_octave);
      const double f =
          static_cast<double>(rank - seen) / static_cast<double>(n);
      seconds = lo * std::pow(hi / lo, f);
    }
    us = seconds * 1e6;
  });
  return us;  // nullopt not reached: total is their sum
}

std::optional<uint64_t> EstimatePercentileUs(const BaselineGroup& g,
                                             int permille) {
  if (!HasFineBuckets(g)) return EstimatePercentileUs(g.latency, permille);
  const std::optional<double> us =
      EstimateFineUs(g.fine, g.fine_schema, permille);
  if (!us) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*us));
}

std::optional<uint64_t> EstimatePercentileUs(const Log2Hist& hist,
                                             int permille) {
  return Estimate(hist, permille);
}

std::optional<uint64_t> EstimatePercentileUs(const Log2Sums& hist,
                                             int permille) {
  return Estimate(hist, permille);
}

void BaselineCollector::StartInput() {
  ResolvePending();  // the last input had no header and named no host
  run_.clear();
  host_.clear();
  host_known_ = false;
}

void BaselineCollector::ResolvePending() {
  host_known_ = true;
  for (const v1::Summary& s : pending_) AddResolved(s);
  pending_.clear();
}

void BaselineCollector::AddHeader(const v1::StreamHeader& h) {
  if (!host_known_) {
    host_ = h.host();
    ResolvePending();  // with run_ still the input's headless prefix
  }
  host_ = h.host();
  run_ = absl::StrCat(h.boot_id(), "/", ToNs(h.start_time()));
}

void BaselineCollector::Add(const v1::Summary& s) {
  ++records_seen_;
  if (!host_known_) {
    pending_.push_back(s);
    return;
  }
  AddResolved(s);
}

void BaselineCollector::AddResolved(const v1::Summary& s) {
  // A run writes one summary per interval end: the same one again is the
  // same record read twice, which would double every count.
  double interval_s = s.interval_s();
  uint64_t interval_bits = 0;
  static_assert(sizeof(interval_bits) == sizeof(interval_s));
  std::memcpy(&interval_bits, &interval_s, sizeof(interval_bits));
  if (!seen_
           .insert(absl::StrCat(host_.size(), "/", host_, "/", run_, "/",
                                ToNs(s.timestamp()), "/", interval_bits, "/",
                                s.min_us()))
           .second) {
    ++duplicates_;
    return;
  }
  const int64_t end = ToNs(s.timestamp());
  if (!filter_.InWindow(end)) return;
  if (!filter_.host.empty() && host_ != filter_.host) return;
  BaselineInterval& iv = intervals_.emplace_back();
  iv.host = host_;
  iv.end_ns = end;
  iv.interval_s = s.interval_s();
  iv.start_ns = StartOf(end, s.interval_s());
  iv.min_us = s.min_us();
  for (const v1::SummaryGroup& g : s.groups()) {
    if (!filter_.disk.empty() && g.disk() != filter_.disk) continue;
    if (!filter_.op.empty() && g.op() != filter_.op) continue;
    BaselineGroup& out = iv.groups.emplace_back();
    out.host = iv.host;
    out.disk = g.disk();
    out.op = g.op();
    out.min_us = iv.min_us;
    out.count = g.count();
    out.bytes = g.bytes();
    out.slow = g.slow();
    out.errors = g.errors();
    // The reader guarantees at most kMaxSummaryBuckets elements.
    for (int b = 0; b < g.latency_us_log2_size() && b < kBuckets; ++b) {
      out.latency[b] = g.latency_us_log2(b);
    }
    // Prometheus's schemas run from -4 to 8; another is not ours.
    if (g.has_latency_fine_schema() && g.latency_fine_schema() <= 8 &&
        g.latency_fine_size() > 0) {
      out.fine_schema = static_cast<int>(g.latency_fine_schema());
      for (int i = 0; i < g.latency_fine_size(); ++i) {
        const int64_t k = int64_t{g.latency_fine_first()} + i;
        // Beyond 2^±100000/2^schema s is no latency: left out, the group
        // then falls back on its log2 buckets (fine_total < count).
        if (g.latency_fine(i) == 0 || k < -100000 || k > 100000) continue;
        out.fine.Append(static_cast<int>(k), g.latency_fine(i));
        out.fine_total += g.latency_fine(i);
      }
      out.fine.ShrinkToFit();
    }
  }
  if (intervals_.size() == 1 || iv.start_ns < window_start_ns_) {
    window_start_ns_ = iv.start_ns;
  }
  if (intervals_.size() == 1 || iv.end_ns > window_end_ns_) {
    window_end_ns_ = iv.end_ns;
  }
}

std::vector<BaselineGroup> BaselineCollector::Merged() const {
  std::map<std::tuple<std::string, std::string, std::string, uint64_t>,
           BaselineGroup>
      merged;
  for (const BaselineInterval& iv : intervals_) {
    for (const BaselineGroup& g : iv.groups) {
      auto [it, inserted] =
          merged.try_emplace({g.host, g.disk, g.op, g.min_us});
      if (inserted) {
        it->second.host = g.host;
        it->second.disk = g.disk;
        it->second.op = g.op;
        it->second.min_us = g.min_us;
      }
      it->second.Add(g);
    }
  }
  std::vector<BaselineGroup> out;
  out.reserve(merged.size());
  for (auto& [key, g] : merged) out.push_back(std::move(g));
  return out;
}

std::vector<std::string> BaselineCollector::Hosts() const {
  std::set<std::string> hosts;
  for (const BaselineInterval& iv : intervals_) hosts.insert(iv.host);
  return {hosts.begin(), hosts.end()};
}

namespace {

// The union of the intervals `take` selects, in seconds: sorted by start,
// each one counts from where the ones before it ended.
template <typename Take>
BaselineWindow Window(const std::vector<BaselineInterval>& intervals,
                      Take take) {
  BaselineWindow w;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const BaselineInterval& iv : intervals) {
    if (!take(iv)) continue;
    if (w.intervals == 0 || iv.start_ns < w.start_ns) w.start_ns = iv.start_ns;
    if (w.intervals == 0 || iv.end_ns > w.end_ns) w.end_ns = iv.end_ns;
    ++w.intervals;
    if (iv.interval_s > 0) spans.emplace_back(iv.start_ns, iv.end_ns);
  }
  std::sort(spans.begin(), spans.end());
  bool any = false;
  int64_t reached = 0;  // the end of the union so far
  for (const auto& [start, end] : spans) {
    const int64_t from = any ? std::max(start, reached) : start;
    if (end > from) w.covered_s += SecondsBetween(from, end);
    reached = any ? std::max(reached, end) : end;
    any = true;
  }
  return w;
}

}  // namespace

BaselineWindow BaselineCollector::WindowOf(const std::string& host) const {
  return Window(intervals_, [&host](const BaselineInterval& iv) {
    return iv.host == host;
  });
}

double BaselineCollector::covered_s() const {
  return Window(intervals_, [](const BaselineInterval&) { return true; })
      .covered_s;
}

bool BaselineCollector::OneThreshold() const {
  for (const BaselineInterval& iv : intervals_) {
    if (iv.min_us != intervals_.front().min_us) return false;
  }
  return true;
}

}  // namespace biosnoop::report
