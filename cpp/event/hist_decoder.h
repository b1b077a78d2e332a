#pragma once

// The kernel's histogram reading (kernel/kernel_histograms.h, ABI layout)
// -> domain histograms (histogram.h).  Includes a kernel/ header: for the
// run (app/), which links both layers; format/ and output/ use
// histogram.h alone.

#include "histogram.h"
#include "kernel_histograms.h"

namespace biosnoop {

// Every key of `kernel`, bucket arrays copied as they are (the two layouts
// have the same buckets); a fine key's counts go to the entry of the same
// key (dev, op, flags 0), made if that key had no completions of its own.
HistSet DecodeHistograms(const KernelHistograms& kernel);

}  // namespace biosnoop
