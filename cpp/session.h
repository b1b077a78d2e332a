#pragma once

// What every run mode shares: turning options into the kernel program's
// configuration, and loading it, attaching it and dropping privilege.

#include <cstdint>
#include <cstdio>
#include <memory>

#include "absl/status/statusor.h"
#include "options.h"
#include "probe.h"

namespace biosnoop {

uint64_t MonotonicNs();

// The probe configuration for `options`, resolving -d/--disk through sysfs
// (NotFound for an unknown disk).
absl::StatusOr<ProbeConfig> ProbeConfigFor(const Options& options);

// Loads and attaches the program, then drops every privilege (see
// privileges.h) before returning, so no event is parsed with any held.
// With -v says what was attached on `diag`.
absl::StatusOr<std::unique_ptr<Probe>> OpenProbe(const ProbeConfig& config,
                                                 RecordHandler handler,
                                                 std::FILE* diag, int verbose);

// Attaches the completion rescue program once the kernel has begun to skip
// completions (Probe::RescueIfSkipped) and says so on `diag`.  Call it
// about once a second.
absl::Status RescueIfSkipped(Probe& probe, std::FILE* diag);

}  // namespace biosnoop
