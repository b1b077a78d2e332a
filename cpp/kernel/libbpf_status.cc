// libbpf's negative errno -> a Status that says what to do, in one place.

#include "libbpf_status.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace biosnoop {

absl::Status ErrnoStatus(int err, absl::string_view what) {
  err = err < 0 ? -err : err;
  std::string msg = absl::StrCat(what, ": ", strerror(err));
  switch (err) {
    case EPERM:
    case EACCES:
      return absl::PermissionDeniedError(absl::StrCat(
          msg,
          ". biosnoop needs root, or CAP_BPF and CAP_PERFMON: run it "
          "with sudo"));
    case ENOENT:
    case EOPNOTSUPP:
    case 524:  // ENOTSUPP, the kernel-internal 'not supported'
    case EINVAL:
    case E2BIG:
      return absl::UnavailableError(
          absl::StrCat(msg,
                       ". This kernel does not support what biosnoop needs "
                       "(run with -v for the kernel's log)"));
    default:
      return absl::InternalError(msg);
  }
}

}  // namespace biosnoop
