#pragma once

// The FUSE file system slowdisk mounts (low-level libfuse API): a root
// directory holding two files,
//   disk.img  the Disk's bytes; every read, write and fsync is admitted by
//             the Disk (delay, EIO) and answered from the DelayQueue;
//   control   read: settings and counters as key=value lines;
//             write: control words (settings.h, ApplyControlText).
// Both are opened with FOPEN_DIRECT_IO, so the kernel page cache never
// answers a read: every read reaches the daemon and is delayed.

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include "delay_queue.h"
#include "disk.h"

namespace biosnoop::slowdisk {

inline constexpr char kImageName[] = "disk.img";
inline constexpr char kControlName[] = "control";

// The FUSE userdata: what the operations work on.  Outlives the session.
struct FsContext {
  Disk* disk = nullptr;
  DelayQueue* queue = nullptr;
};

// The operations table, for fuse_session_new(..., &ops, sizeof(ops), ctx).
const fuse_lowlevel_ops& SlowDiskOps();

}  // namespace biosnoop::slowdisk
