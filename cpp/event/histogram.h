#pragma once

// Latency and size histograms as domain values: per (dev, op, flags) key,
// differenced between two reads of the kernel's cumulative counts, and
// grouped the way the user asked (all I/O, per disk, per operation/flags).
// Made from the kernel's reading by DecodeHistograms (hist_decoder.h);
// this header does not depend on the kernel's layout.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "event.h"

namespace biosnoop {

// log2 buckets per histogram: bucket i holds [2^i, 2^(i+1)), 0 in bucket 0
// (BucketLow/BucketHigh).  The kernel's BIOSNOOP_HIST_BUCKETS, asserted
// equal in hist_decoder.cc.
inline constexpr int kHistBuckets = 32;

// Fine latency buckets (the kernel's BIOSNOOP_HIST_FINE_*): 16 per power
// of two on the seconds grid of Prometheus's native histograms at schema
// 4.  Element n is bucket k = n + kFineFirst, holding latencies in
// (2^((k-1)/16), 2^(k/16)] seconds; element 0 also holds everything at most
// 2^-20 s (the zero bucket), the last element everything above.
inline constexpr int kFineBuckets = 512;
inline constexpr int kFineFirst = -320;
inline constexpr int kFineSchema = 4;
// FineUpperSeconds(n) = 2^((n + kFineFirst) / 16), the upper bound of
// element n (for element 0, the zero bucket's threshold 2^-20 s).
double FineUpperSeconds(int n);
// The element of `fine` the kernel counts a latency of `ns` in (the ABI's
// biosnoop_fine_bucket, the same function): for a reader that bins
// latencies it has one by one on the kernel's grid.
int FineElementOfNs(uint64_t ns);

struct HistData {
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t slow = 0;        // at least as slow as the threshold
  uint64_t errors = 0;      // failed (a nonzero blk_status_t)
  uint64_t latency_ns = 0;  // the latencies summed, in ns
  std::array<uint64_t, kHistBuckets> latency{};
  std::array<uint64_t, kHistBuckets> size{};
  // Fine latency counts (kFineBuckets).  The kernel keeps them per disk
  // and op, not per flags: DecodeHistograms puts them on the key with
  // flags 0, so a grouping by flags sees them in that group alone.
  std::array<uint64_t, kFineBuckets> fine{};

  void Add(const HistData& other);
  // this - earlier, bucket by bucket (counters only grow).
  HistData Minus(const HistData& earlier) const;
  bool empty() const;
};

// Kernel key (dev << 16 | op << 8 | flags, as bpf's biosnoop_hist_key
// makes it; DecodeHistKey) -> summed histogram.
using HistSet = std::map<uint64_t, HistData>;

struct HistKey {
  uint32_t major = 0, minor = 0;
  Op op = Op::kOther;
  uint8_t flags = 0;
};
HistKey DecodeHistKey(uint64_t key);

// cur - prev, per key (keys missing from prev count from zero).
HistSet HistDelta(const HistSet& cur, const HistSet& prev);

enum class HistGrouping {
  kAll,
  kPerDisk,
  kPerFlags,
  kPerDiskAndFlags,
  kPerDiskAndOp
};

// Whether a grouping labels its groups with a disk / an op (or rwbs).
inline bool GroupsByDisk(HistGrouping g) {
  return g == HistGrouping::kPerDisk || g == HistGrouping::kPerDiskAndFlags ||
         g == HistGrouping::kPerDiskAndOp;
}
inline bool GroupsByOp(HistGrouping g) {
  return g == HistGrouping::kPerFlags || g == HistGrouping::kPerDiskAndFlags ||
         g == HistGrouping::kPerDiskAndOp;
}

// One histogram of a report, with the labels its grouping gives it.
struct HistGroup {
  std::string disk;  // empty unless grouped by disk
  std::string op;    // op name, or rwbs when grouped by flags; else empty
  HistData data;
};

// Groups `set` by `grouping`, naming disks with `disk_name(major, minor)`.
// Sorted by (disk, op).  kAll always yields one group, even if empty.
template <typename DiskNameFn>
std::vector<HistGroup> GroupHistograms(const HistSet& set,
                                       HistGrouping grouping,
                                       DiskNameFn disk_name) {
  std::map<std::pair<std::string, std::string>, HistData> groups;
  if (grouping == HistGrouping::kAll) groups[{"", ""}];
  for (const auto& [key, data] : set) {
    HistKey k = DecodeHistKey(key);
    std::string disk, op;
    if (GroupsByDisk(grouping)) disk = disk_name(k.major, k.minor);
    if (grouping == HistGrouping::kPerFlags ||
        grouping == HistGrouping::kPerDiskAndFlags) {
      op = std::string(Rwbs(k.op, k.flags));
    } else if (grouping == HistGrouping::kPerDiskAndOp) {
      op = std::string(OpName(k.op));
    }
    groups[{disk, op}].Add(data);
  }
  std::vector<HistGroup> out;
  for (auto& [labels, data] : groups) {
    out.push_back(HistGroup{labels.first, labels.second, data});
  }
  return out;
}

// The fine counts from the first non-empty bucket to the last, as summary
// records carry them: `first` is the bucket index k of counts[0]; counts
// is empty when all are.
struct FineSpan {
  int first = 0;
  std::vector<uint64_t> counts;
};
FineSpan NonEmptyFine(const HistData& data);

// Bucket i covers [lo, hi]: [0, 1] for i = 0, else [2^i, 2^(i+1) - 1].
uint64_t BucketLow(int i);
uint64_t BucketHigh(int i);

}  // namespace biosnoop
