#pragma once

// The kernel's histograms as ReadHistograms() (kernel_counts.h) returns
// them: each key's per-CPU struct biosnoop_hist (and biosnoop_hist_fine)
// summed, still in the ABI's layout.  The domain histograms
// (event/histogram.h) are made from these by event/hist_decoder.h.

#include <cstdint>
#include <map>

#include "biosnoop_abi.h"

namespace biosnoop {

struct KernelHistograms {
  // Kernel key (biosnoop_hist_key: dev, op, flags) -> the key's histogram
  // summed over CPUs (its `key` field is the map key).
  std::map<uint64_t, biosnoop_hist> coarse;
  // Fine latency counts, key (dev, op, flags 0) -> summed over CPUs.
  std::map<uint64_t, biosnoop_hist_fine> fine;
};

// *sum += one, field by field and bucket by bucket (`key` untouched).
inline void AddKernelHist(const biosnoop_hist& one, biosnoop_hist* sum) {
  sum->count += one.count;
  sum->bytes += one.bytes;
  sum->slow += one.slow;
  sum->errors += one.errors;
  sum->latency_ns += one.latency_ns;
  for (int i = 0; i < BIOSNOOP_HIST_BUCKETS; ++i) {
    sum->latency[i] += one.latency[i];
    sum->size[i] += one.size[i];
  }
}

inline void AddKernelHist(const biosnoop_hist_fine& one,
                          biosnoop_hist_fine* sum) {
  for (int i = 0; i < BIOSNOOP_HIST_FINE_BUCKETS; ++i) {
    sum->latency[i] += one.latency[i];
  }
}

}  // namespace biosnoop
