// The one place that sees both histogram layouts, so the one place that
// holds them to the same bucket count.

#include "hist_decoder.h"

#include <algorithm>
#include <iterator>

namespace biosnoop {

static_assert(kHistBuckets == BIOSNOOP_HIST_BUCKETS,
              "event/histogram.h's kHistBuckets must match the kernel's");
static_assert(sizeof(biosnoop_hist) == 8 * (6 + 2 * BIOSNOOP_HIST_BUCKETS),
              "struct biosnoop_hist layout changed: change both sides");
static_assert(kFineBuckets == BIOSNOOP_HIST_FINE_BUCKETS &&
                  kFineFirst == BIOSNOOP_HIST_FINE_FIRST,
              "event/histogram.h's fine buckets must match the kernel's");

HistSet DecodeHistograms(const KernelHistograms& kernel) {
  HistSet set;
  for (const auto& [key, h] : kernel.coarse) {
    HistData& d = set[key];
    d.count = h.count;
    d.bytes = h.bytes;
    d.slow = h.slow;
    d.errors = h.errors;
    d.latency_ns = h.latency_ns;
    std::copy(std::begin(h.latency), std::end(h.latency), d.latency.begin());
    std::copy(std::begin(h.size), std::end(h.size), d.size.begin());
  }
  // Fine keys are (dev, op, flags 0): the same key as that flags-0 entry.
  for (const auto& [key, h] : kernel.fine) {
    HistData& d = set[key];
    std::copy(std::begin(h.latency), std::end(h.latency), d.fine.begin());
  }
  return set;
}

}  // namespace biosnoop
