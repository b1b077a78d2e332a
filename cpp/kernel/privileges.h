#pragma once

// Giving up privilege once the BPF program is loaded and attached.

#include "absl/status/status.h"

namespace biosnoop {

// Irrevocably drops every capability (effective, permitted, inheritable,
// ambient and the bounding set), locks the securebits so that uid 0 gains
// nothing back on execve, and sets no_new_privs.  `keep_bpf` retains
// CAP_BPF (or CAP_SYS_ADMIN where CAP_BPF does not exist) in the permitted
// and effective sets, for kernels that refuse map reads without it.
// The uid stays as it is, so the output file can still be reopened.
absl::Status DropPrivileges(bool keep_bpf);

// Whether the running kernel lets a process without CAP_BPF read and
// update maps through fds it already holds.  Linux 6.5 (commit "bpf: Move
// unprivileged checks into map_create() and bpf_prog_load()") moved the
// check for kernel.unprivileged_bpf_disabled from every bpf() command to
// map and program creation; before it, a capability-less process gets
// EPERM on map lookups whenever unprivileged BPF is disabled.
bool KernelAllowsMapAccessWithoutCaps();

}  // namespace biosnoop
