#pragma once

// The process's own figures for the metrics endpoint (process_cpu_seconds_
// total, process_resident_memory_bytes ...: metrics_text.h), read from
// /proc as every exporter's process collector reads them.

#include <string>

#include "absl/status/statusor.h"
#include "metrics_text.h"

namespace biosnoop {

// From `proc` (/proc, or a tree laid out like it for tests): self/stat
// (CPU time, sizes, start), self/fd (descriptors open, the listing's own
// left out), self/limits ("Max open files", its soft limit; "unlimited"
// leaves max_fds unset) and stat (btime, the boot's wall-clock time).  An
// error names the file that could not be read or parsed.
absl::StatusOr<ProcessMetrics> ReadProcessMetrics(
    const std::string& proc = "/proc");

}  // namespace biosnoop
