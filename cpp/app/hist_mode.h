#pragma once

// --hist: biolatency-style latency and size histograms of every I/O,
// aggregated in the kernel and printed at exit or every --interval.

#include <cstdio>

#include "absl/status/status.h"
#include "options.h"

namespace biosnoop {

absl::Status RunHistograms(const Options& options, std::FILE* diag);

}  // namespace biosnoop
