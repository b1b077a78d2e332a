#pragma once

// Fine latency buckets (SummaryGroup.latency_fine) of a baseline group:
// bucket index k -> count, the non-empty ones, in increasing k.
//
// Two forms.  A group read from one summary record keeps its buckets
// packed, as that record's uint64 counts: per bucket a varint of its gap
// to the bucket before and a varint of its count, 2 to 4 bytes a bucket
// where a B-tree of Sums took ~35 (every interval of a day of summaries
// is kept, tens of thousands of groups of ~100 buckets each; figures in
// docs/bioreport.md#speed).  Adding to a group (Add(), a merge over
// intervals) turns it into the summed form, a B-tree of Sums: exact for
// the sum of any number of uint64 counts a reader can deliver.

#include <cstdint>
#include <vector>

#include "absl/container/btree_map.h"
#include "run_tracker.h"

namespace biosnoop::report {

// Summed fine buckets: bucket index k -> count.
using FineSums = absl::btree_map<int, Sum>;

// Bucket k at `schema` as the bucket of the coarser schema `to` (<=
// schema) that holds it: each step down merges pairs, (2k-1, 2k] -> k.
int CoarserBucket(int k, int schema, int to);

class FineBuckets {
 public:
  // Appends bucket k with count n to the packed form.  Only on buckets
  // built by Append() alone, k above every bucket before; n == 0 is left
  // out.
  void Append(int k, uint64_t n);
  // Frees what the packed form reserved beyond its bytes: once, after the
  // last Append().
  void ShrinkToFit() { packed_.shrink_to_fit(); }

  // Adds n to bucket k: the summed form from then on.
  void Add(int k, Sum n);
  // Adds every bucket of `other` at `other_schema` to this one at the
  // coarser `schema` (CoarserBucket).  `other` may be this.
  void AddAll(const FineBuckets& other, int other_schema, int schema);
  // The same buckets at the coarser schema `to` (<= schema), summed.
  FineBuckets AtSchema(int schema, int to) const;

  bool empty() const { return packed_.empty() && sums_.empty(); }
  void clear();
  // The count of bucket k, 0 if it is empty.
  Sum at(int k) const;
  // The sum of every bucket.
  Sum Total() const;
  // Calls fn(k, n) with each non-empty bucket k and its count n (a Sum),
  // in increasing k.
  template <typename Fn>
  void ForEach(Fn fn) const;

 private:
  // Reads the varint at packed_[*at], moving *at past it.
  uint64_t ReadVarint(size_t* at) const;

  // Packed: the first bucket's k zigzag-encoded, then k minus the previous
  // bucket's minus 1; each followed by its count.  Empty once summed.
  std::vector<uint8_t> packed_;
  int last_ = 0;  // the last bucket appended
  FineSums sums_;
};

template <typename Fn>
void FineBuckets::ForEach(Fn fn) const {
  if (packed_.empty()) {
    for (const auto& [k, n] : sums_) fn(k, n);
    return;
  }
  size_t at = 0;
  int64_t k = 0;
  bool first = true;
  while (at < packed_.size()) {
    const uint64_t v = ReadVarint(&at);
    if (first) {
      k = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
      first = false;
    } else {
      k += static_cast<int64_t>(v) + 1;
    }
    fn(static_cast<int>(k), Sum{ReadVarint(&at)});
  }
}

}  // namespace biosnoop::report
