// Switching user and dropping every capability once the program is
// attached (privileges.h).

#include "privileges.h"

#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
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

// The user database's entry for `name`, or for the uid `name` spells;
// nullopt when there is none.
std::optional<RunAs> LookUp(const std::string& name) {
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 ||
      found == nullptr) {
    uint32_t uid = 0;
    if (!absl::SimpleAtoi(name, &uid) ||
        getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 ||
        found == nullptr) {
      return std::nullopt;
    }
  }
  RunAs r;
  r.name = found->pw_name;
  r.uid = found->pw_uid;
  r.gid = found->pw_gid;
  int n = 16;
  for (;;) {
    r.groups.resize(static_cast<size_t>(n));
    const int want = n;
    if (getgrouplist(found->pw_name, found->pw_gid, r.groups.data(), &n) >= 0) {
      r.groups.resize(static_cast<size_t>(n));
      break;
    }
    if (n <= want) n = want * 2;  // some NSS modules do not say how many
    if (n > 65536) {
      r.groups.assign(1, found->pw_gid);
      break;
    }
  }
  return r;
}

absl::Status SwitchUser(const RunAs& r) {
  auto refused = [&](absl::string_view call) {
    const int err = errno;
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot switch to user ", r.name, " (-Z) after loading: ", call, ": ",
        strerror(err),
        err == EPERM ? " (needs CAP_SETUID and CAP_SETGID; -Z root stays root)"
                     : ""));
  };
  if (setgroups(r.groups.size(), r.groups.data()) != 0) {
    return refused("setgroups");
  }
  if (setresgid(r.gid, r.gid, r.gid) != 0) return refused("setresgid");
  if (setresuid(r.uid, r.uid, r.uid) != 0) return refused("setresuid");
  // Each set*id call above is the kernel's word; a saved uid of 0 left
  // behind would let the process come back.
  uid_t ru, eu, su;
  gid_t rg, eg, sg;
  if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0 ||
      ru != r.uid || eu != r.uid || su != r.uid || rg != r.gid || eg != r.gid ||
      sg != r.gid) {
    return absl::InternalError(
        absl::StrCat("switching to user ", r.name, ": ids not all changed"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunAs> ResolveRunAs(const std::string& requested) {
  const uid_t me = geteuid();
  RunAs stay;
  stay.uid = me;
  stay.gid = getegid();
  if (me == 0) {
    stay.name = "root";
  } else if (std::optional<RunAs> self = LookUp(std::to_string(me))) {
    stay.name = self->name;
  } else {
    stay.name = absl::StrCat("uid ", me);
  }
  std::optional<RunAs> found;
  if (requested.empty()) {
    // Not root at start (CAP_BPF and CAP_PERFMON given to a user):
    // already unprivileged.
    if (me != 0) return stay;
    found = LookUp("biosnoop");
    if (!found.has_value()) found = LookUp("nobody");
    if (!found.has_value()) {
      return absl::InvalidArgumentError(
          "no user \"biosnoop\" or \"nobody\" to run as after loading: give "
          "-Z USER, or -Z root to stay root");
    }
  } else {
    found = LookUp(requested);
    if (!found.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--user: no user \"", absl::CHexEscape(requested),
          "\" on this system (give a user name, or root to stay root)"));
    }
  }
  if (found->uid == me) return stay;
  found->switches = true;
  return *found;
}

bool KernelAllowsMapAccessWithoutCaps() {
  struct utsname u;
  if (uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 5);
}

absl::Status DropPrivileges(bool keep_bpf, const RunAs& run_as) {
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
    // uid 0 must not regain capabilities through execve or setuid.  With
    // NO_SETUID_FIXUP the switch of user below leaves the capability sets
    // as they are: the capset at the end decides what remains.
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

  if (run_as.switches) {
    // Leaving uid 0 clears the permitted set unless asked to keep it (the
    // securebits above already do, when they could be set).
    if (!can_setpcap && keep >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) {
      return Errno("keepcaps");
    }
    if (absl::Status s = SwitchUser(run_as); !s.ok()) return s;
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
