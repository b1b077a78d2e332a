#pragma once

// How kernel/ turns a libbpf or syscall error into a Status (for kernel/'s
// own files; the layers above see only the Statuses).

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace biosnoop {

// `err` (a negative errno as libbpf returns it, or errno) -> a Status that
// says `what` failed and why: PermissionDenied with the privilege advice
// for EPERM/EACCES, Unavailable (the kernel lacks support) for ENOENT,
// EOPNOTSUPP, ENOTSUPP, EINVAL and E2BIG, Internal otherwise.
absl::Status ErrnoStatus(int err, absl::string_view what);

}  // namespace biosnoop
