#pragma once

// The kernel's histogram reading (kernel/kernel_histograms.h, ABI layout)
// -> domain histograms (histogram.h).  Includes a kernel/ header: for the
// run (app/), which links both layers; format/ and output/ use
// histogram.h alone.

#include "histogram.h"
#include "kernel_histograms.h"

namespace biosnoop {

// Every key of `kernel`, bucket arrays copied as they are (the two layouts
// have the same number of buckets).
HistSet DecodeHistograms(const KernelHistograms& kernel);

}  // namespace biosnoop
