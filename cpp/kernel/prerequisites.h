#pragma once

// Whether biosnoop can load on this machine, asked before anything is
// loaded: the process's privilege and the kernel's BTF; and what that BTF
// says the kernel offers.  Each refusal says what to do.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernel_features.h"

namespace biosnoop {

// Root, or CAP_BPF and CAP_PERFMON (else PermissionDenied), and a kernel
// BTF file whose header is BTF (else Unavailable): cheap, nothing parsed.
absl::Status CheckPrerequisites();

// Whether this process has CAP_SYS_ADMIN (libbpf needs it to find a
// module's tracepoint).
bool HaveSysAdmin();

// The running kernel, from its BTF (parsed once, then freed).
struct RunningKernel {
  KernelFeatures features;
  int64_t preempt_count_from_rq = 0;  // preempt_count.h
};

// Reads the running kernel's BTF.  Unavailable when its types do not
// parse or it lacks the block tracepoints every run needs.
absl::StatusOr<RunningKernel> ReadRunningKernel();

}  // namespace biosnoop
