// Histogram arithmetic: sums, differences, key decoding, bucket bounds
// (histogram.h).

#include "histogram.h"

#include <cmath>

#include "biosnoop_abi.h"

namespace biosnoop {

void HistData::Add(const HistData& o) {
  count += o.count;
  bytes += o.bytes;
  slow += o.slow;
  errors += o.errors;
  latency_ns += o.latency_ns;
  for (size_t i = 0; i < latency.size(); ++i) latency[i] += o.latency[i];
  for (size_t i = 0; i < size.size(); ++i) size[i] += o.size[i];
  for (size_t i = 0; i < fine.size(); ++i) fine[i] += o.fine[i];
}

bool HistData::empty() const {
  if (count != 0) return false;
  for (uint64_t n : fine) {
    if (n != 0) return false;
  }
  return true;
}

HistData HistData::Minus(const HistData& e) const {
  // Guard against a counter that went backwards (it cannot, short of a
  // reload): a negative delta reads as zero rather than as 2^64.
  auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };
  HistData d;
  d.count = sub(count, e.count);
  d.bytes = sub(bytes, e.bytes);
  d.slow = sub(slow, e.slow);
  d.errors = sub(errors, e.errors);
  d.latency_ns = sub(latency_ns, e.latency_ns);
  for (size_t i = 0; i < latency.size(); ++i)
    d.latency[i] = sub(latency[i], e.latency[i]);
  for (size_t i = 0; i < size.size(); ++i) d.size[i] = sub(size[i], e.size[i]);
  for (size_t i = 0; i < fine.size(); ++i) d.fine[i] = sub(fine[i], e.fine[i]);
  return d;
}

HistKey DecodeHistKey(uint64_t key) {
  HistKey k;
  uint32_t dev = static_cast<uint32_t>(key >> 16);
  k.major = dev >> 20;
  k.minor = dev & ((1u << 20) - 1);
  uint8_t op = static_cast<uint8_t>(key >> 8);
  k.op =
      op <= static_cast<uint8_t>(Op::kOther) ? static_cast<Op>(op) : Op::kOther;
  k.flags = static_cast<uint8_t>(key);
  return k;
}

HistSet HistDelta(const HistSet& cur, const HistSet& prev) {
  HistSet out;
  for (const auto& [key, data] : cur) {
    auto it = prev.find(key);
    HistData d = it == prev.end() ? data : data.Minus(it->second);
    if (!d.empty()) out[key] = d;
  }
  return out;
}

uint64_t BucketLow(int i) { return i == 0 ? 0 : (uint64_t{1} << i); }
uint64_t BucketHigh(int i) { return (uint64_t{1} << (i + 1)) - 1; }

FineSpan NonEmptyFine(const HistData& data) {
  int first = 0, last = kFineBuckets - 1;
  while (first < kFineBuckets && data.fine[first] == 0) ++first;
  while (last >= first && data.fine[last] == 0) --last;
  FineSpan span;
  if (first > last) return span;
  span.first = first + kFineFirst;
  span.counts.assign(data.fine.begin() + first, data.fine.begin() + last + 1);
  return span;
}

int FineElementOfNs(uint64_t ns) {
  return static_cast<int>(biosnoop_fine_bucket(ns));
}

double FineUpperSeconds(int n) {
  return std::exp2(static_cast<double>(n + kFineFirst) / (1 << kFineSchema));
}

}  // namespace biosnoop
