#pragma once

// Loop devices left on disk.img when slowdisk exits.  Normally whoever
// attached a loop device detaches it before stopping slowdisk; when that
// owner died instead (a crashed test), the device would outlive the mount
// as a broken disk nobody removes, so slowdisk detaches it on the way out.

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace biosnoop::slowdisk {

// /dev/loopN of every loop device whose backing file is `path` (absolute,
// as sysfs reports it).  Reads sysfs only: no I/O on `path`, so it is safe
// while the FUSE loop no longer answers.
std::vector<std::string> LoopDevicesBackedBy(const std::string& path);

// LOOP_CLR_FD on `device`.  If it is still open elsewhere, the kernel
// detaches it at the last close instead.  Call only once the FUSE
// connection is gone, so that I/O still queued fails instead of waiting.
absl::Status DetachLoopDevice(const std::string& device);

}  // namespace biosnoop::slowdisk
