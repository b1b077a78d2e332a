#pragma once

// Process exit codes (sysexits.h values, so scripts and systemd can tell
// causes apart).  Documented in docs/reference/exit-codes.md; keep both in
// step.

#include "absl/status/status.h"

namespace biosnoop {

inline constexpr int kExitOk = 0;            // ran and ended normally
inline constexpr int kExitUsage = 64;        // bad option, value or disk name
inline constexpr int kExitUnsupported = 69;  // kernel lacks BTF/tracepoints/BPF
inline constexpr int kExitSoftware = 70;     // internal error (a bug)
// The system refused a resource (the kernel could not allocate memory for
// the ring buffer): not a bug, and not missing kernel support.
inline constexpr int kExitOsError = 71;
inline constexpr int kExitCantCreate = 73;    // output file cannot be created
inline constexpr int kExitIoError = 74;       // writing the output failed
inline constexpr int kExitNoPermission = 77;  // not root / missing capability

// Tags a status with the exit code it must produce, where the status code
// alone would be ambiguous (a permission error opening the output file is
// 73, not 77).
absl::Status WithExitCode(absl::Status status, int exit_code);

// The exit code for a status: its tag if WithExitCode set one, else by
// status code (InvalidArgument/NotFound 64, PermissionDenied 77,
// Unavailable/Unimplemented 69, OK/Cancelled 0, anything else 70).
int ExitCodeFor(const absl::Status& status);

}  // namespace biosnoop
