#pragma once

// Giving up privilege once the BPF program is loaded and attached: the
// user biosnoop runs as from then on (-Z/--user), and its capabilities.

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace biosnoop {

// Who biosnoop is once the program is attached.
struct RunAs {
  std::string name;  // as the messages name it: "nobody", "root"
  uid_t uid = 0;
  gid_t gid = 0;              // the user's group (passwd)
  std::vector<gid_t> groups;  // supplementary groups, gid first
  bool switches = false;      // false: stays the user it started as
};

// The user a run switches to, from -Z/--user's value `requested` (a user
// name, or a number found as a uid in the user database):
//  - "" (no -Z): the user "biosnoop" if it exists, else "nobody"; a
//    process that does not start as root stays as it is;
//  - "root" or "0": stays root (switches false);
//  - the user it already is: no switch.
// Groups are the user's in the group database (getgrouplist, as
// initgroups(3) would set them).  InvalidArgumentError (bad usage, exit
// 64) for a user that does not exist, or when the default finds neither
// "biosnoop" nor "nobody".
absl::StatusOr<RunAs> ResolveRunAs(const std::string& requested);

// Irrevocably drops every capability (effective, permitted, inheritable,
// ambient and the bounding set), locks the securebits so that uid 0 gains
// nothing back on execve, and sets no_new_privs.  `keep_bpf` retains
// CAP_BPF (or CAP_SYS_ADMIN where CAP_BPF does not exist) in the permitted
// and effective sets, for kernels that refuse map reads without it.
// When `run_as.switches`, first sets the supplementary groups, then the
// real, effective and saved gid, then the uid, of every thread (glibc
// applies set*id to all threads); capabilities, which are per thread,
// are dropped for the calling thread only: call it before any other
// thread starts.  A switch the kernel refuses (no CAP_SETUID or
// CAP_SETGID) is PermissionDeniedError (exit 77).
absl::Status DropPrivileges(bool keep_bpf, const RunAs& run_as);

// Whether the running kernel lets a process without CAP_BPF read and
// update maps through fds it already holds.  Linux 6.5 (commit "bpf: Move
// unprivileged checks into map_create() and bpf_prog_load()") moved the
// check for kernel.unprivileged_bpf_disabled from every bpf() command to
// map and program creation; before it, a capability-less process gets
// EPERM on map lookups whenever unprivileged BPF is disabled.
bool KernelAllowsMapAccessWithoutCaps();

}  // namespace biosnoop
