// The packed and summed forms of fine buckets, and the schema steps.

#include "fine_buckets.h"

#include <utility>

namespace biosnoop::report {
namespace {

void AppendVarint(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

}  // namespace

int CoarserBucket(int k, int schema, int to) {
  for (int s = schema; s > to; --s) k = k > 0 ? (k + 1) / 2 : -((-k) / 2);
  return k;
}

uint64_t FineBuckets::ReadVarint(size_t* at) const {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = packed_[(*at)++];
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
}

void FineBuckets::Append(int k, uint64_t n) {
  if (n == 0) return;
  if (packed_.empty()) {
    // Zigzag: small negative k (every latency under a second) stay short.
    const int64_t k64 = k;
    AppendVarint(
        (static_cast<uint64_t>(k64) << 1) ^ static_cast<uint64_t>(k64 >> 63),
        &packed_);
  } else {
    AppendVarint(static_cast<uint64_t>(int64_t{k} - last_ - 1), &packed_);
  }
  AppendVarint(n, &packed_);
  last_ = k;
}

void FineBuckets::Add(int k, Sum n) {
  if (!packed_.empty()) {
    FineSums sums;
    ForEach([&sums](int b, Sum c) { sums.emplace_hint(sums.end(), b, c); });
    sums_ = std::move(sums);
    packed_ = {};  // its memory too
  }
  sums_[k] += n;
}

void FineBuckets::AddAll(const FineBuckets& other, int other_schema,
                         int schema) {
  if (&other == this) {  // Add() would change what is being read
    AddAll(FineBuckets(other), other_schema, schema);
    return;
  }
  other.ForEach(
      [&](int k, Sum n) { Add(CoarserBucket(k, other_schema, schema), n); });
}

FineBuckets FineBuckets::AtSchema(int schema, int to) const {
  FineBuckets out;
  out.AddAll(*this, schema, to);
  return out;
}

void FineBuckets::clear() {
  packed_.clear();
  last_ = 0;
  sums_.clear();
}

Sum FineBuckets::at(int k) const {
  Sum out = 0;
  ForEach([&out, k](int b, Sum n) {
    if (b == k) out = n;
  });
  return out;
}

Sum FineBuckets::Total() const {
  Sum total = 0;
  ForEach([&total](int, Sum n) { total += n; });
  return total;
}

}  // namespace biosnoop::report
