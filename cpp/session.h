#pragma once

// What every run mode shares: turning options into the kernel program's
// configuration, and loading it, attaching it and dropping privilege.

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>

#include "absl/status/statusor.h"
#include "missed_completions.h"
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

// Completions the kernel finished without running biosnoop's hook
// (missed_completions.h): one observation of the disks biosnoop holds
// requests for.  Removes the completions it confirms from the in-flight
// table and returns how many, and zeroes the queue-depth counter of an
// idle disk left with no request.  Call it about once a second, and at
// exit twice, kMissedRecheckUs apart, with the programs still attached
// (else every completion in between would look missed).
absl::StatusOr<uint64_t> FindMissedCompletions(Probe& probe,
                                               MissedCompletionFinder& finder);
inline constexpr useconds_t kMissedRecheckUs = 50000;

// Housekeeping period of both modes (rescue, missed completions), and the
// age past which a request still held at exit counts as unfinished.
inline constexpr uint64_t kTickNs = 1000000000;  // 1 s

// How often each mode sweeps the in-flight table for requests older than
// --max-inflight-age (at most half that age apart).
inline constexpr uint64_t kExpireEveryNs = 30000000000;  // 30 s

}  // namespace biosnoop
