// Dropping every capability once the program is attached (privileges.h).

#include "privileges.h"

#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace biosnoop {
namespace {

absl::Status Errno(absl::string_view what) {
  return absl::InternalError(
      absl::StrCat("dropping privileges: ", what, ": ", strerror(errno)));
}

int LastCap() {
  int last = 40;  // CAP_CHECKPOINT_RESTORE, Linux 5.9
  if (FILE* f = fopen("/proc/sys/kernel/cap_last_cap", "re")) {
    if (fscanf(f, "%d", &last) != 1) last = 40;
    fclose(f);
  }
  return last;
}

}  // namespace

bool KernelAllowsMapAccessWithoutCaps() {
  struct utsname u;
  if (uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 5);
}

absl::Status DropPrivileges(bool keep_bpf) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Errno("no_new_privs");

  constexpr int kCapBpf = 39;
  const int last = LastCap();
  const int keep = keep_bpf ? (last >= kCapBpf ? kCapBpf : CAP_SYS_ADMIN) : -1;

  // Without CAP_SETPCAP in the effective set (e.g. started with only
  // CAP_BPF + CAP_PERFMON), the bounding set and securebits cannot be
  // changed; clearing the capability sets below still leaves nothing, and
  // no_new_privs stops execve from gaining any.
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return Errno("capget");
  const bool can_setpcap = (data[0].effective & (1u << CAP_SETPCAP)) != 0;

  if (can_setpcap) {
    for (int cap = 0; cap <= last; ++cap) {
      if (cap == keep) continue;
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
        return Errno(
            absl::StrCat("drop capability ", cap, " from bounding set"));
      }
    }
    // uid 0 must not regain capabilities through execve or setuid.
    if (prctl(PR_SET_SECUREBITS,
              SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                  SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
              0, 0, 0) != 0) {
      return Errno("securebits");
    }
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
      errno != EINVAL) {
    return Errno("clear ambient capabilities");
  }

  __user_cap_data_struct none[2] = {};
  if (keep >= 0) {
    none[keep / 32].effective = none[keep / 32].permitted = 1u << (keep % 32);
  }
  header = {_LINUX_CAPABILITY_VERSION_3, 0};
  if (syscall(SYS_capset, &header, none) != 0) return Errno("capset");
  return absl::OkStatus();
}

}  // namespace biosnoop
