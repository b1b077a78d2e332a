#pragma once

// --ops: says once on the diagnostic stream which file systems the calls
// seen cannot be followed on (no block device: FUSE, NFS...), as the
// kernel side notes them (their calls are counted in ops_unfollowed).

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"
#include "probe.h"

namespace biosnoop {

// The line for the file system on `s_dev` (kernel encoding: major << 20 |
// minor) as `mountinfo` (/proc/self/mountinfo's text) shows it: "biosnoop:
// --ops: calls on fuse at /mnt/x are not followed: no block device".
// Unmounted since: "on the file system 0:52".
std::string UnfollowedFsLine(uint32_t s_dev, absl::string_view mountinfo);

// Writes the line of each file system the kernel noted since the last call
// to `diag`; each is said once (the probe's map remembers it).
void NoteUnfollowedFs(Probe& probe, std::FILE* diag);

}  // namespace biosnoop
