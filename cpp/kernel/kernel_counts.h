#pragma once

// The programs' per-CPU counts read from their maps and summed over CPUs:
// the counters (counters.h) and the histograms (kernel_histograms.h).

#include "absl/status/statusor.h"
#include "counters.h"
#include "kernel_histograms.h"

struct biosnoop_bpf;

namespace biosnoop {

// The counters since load.
absl::StatusOr<Counters> ReadCounters(const biosnoop_bpf& skel);

// The histograms since load (empty unless enabled).
absl::StatusOr<KernelHistograms> ReadHistograms(const biosnoop_bpf& skel);

}  // namespace biosnoop
