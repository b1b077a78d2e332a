#pragma once

// The load-time settings of the kernel side's calls (--ops,
// bpf/ops.bpf.h): which syscall numbers are which followed call, the
// threshold of an op record, the partition a call's file must be on, and
// the size of the table of calls in progress.

#include <cstdint>

#include "absl/status/status.h"
#include "probe_config.h"

struct biosnoop_bpf;

namespace biosnoop {

// Calls in progress the kernel side can follow at once, with --ops.
inline constexpr uint32_t kOpsInProgress = 8192;

// Sets ops_enabled, op_min_ns, syscall_calls[] and filter_bdev
// (config.partition_dev), and sizes the ops map (1 entry when off).
absl::Status ConfigureOps(const ProbeConfig& config, biosnoop_bpf* skel);

// The syscall numbers of this architecture, by followed call
// (enum biosnoop_call): {number, call} pairs.
struct SyscallCall {
  long nr;
  uint8_t call;
};
const SyscallCall* FollowedSyscalls(int* count);

}  // namespace biosnoop
