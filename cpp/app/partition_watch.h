#pragma once

// -d PART while biosnoop runs: the partition is followed by its name.
// Resized (resizepart, growpart), moved, deleted or added again, what
// sysfs says at each check becomes the kernel filter's sectors, the stuck
// look's filter and the names in events, and one line on stderr says so.
// A deleted partition matches nothing (its disk's I/O is counted as
// filtered) until a partition of that name appears again, wherever it is.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "disk_names.h"
#include "probe.h"

namespace biosnoop {

class PartitionWatch {
 public:
  // `config` as ProbeConfigFor() made it; watches nothing unless
  // config.partition is set.
  explicit PartitionWatch(const ProbeConfig& config,
                          std::string sysfs_root = "/sys");

  struct Change {
    bool exists = false;
    uint64_t start = 0;  // [start, end) of the whole disk; [0, 0) when gone
    uint64_t end = 0;
    std::string message;  // one line for stderr, without the newline
  };
  // Reads where the partition is now; returns the change since the last
  // check (or start), nullopt when there is none or nothing is watched.
  // sysfs content that cannot be read now (other than a partition that is
  // gone) is no change: the next check tries again.
  std::optional<Change> Check();

 private:
  DiskNames names_;
  std::string partition_;
  uint32_t dev_ = 0;  // kernel dev_t of its disk
  bool exists_ = true;
  uint64_t start_ = 0;
  uint64_t end_ = 0;
};

// One check, applied: the kernel filter (probe), the stuck look's filter
// (config) and the cached partition names of its disk (names, may be
// null), and the line on `diag`.  Call it at the periodic tick.
void FollowPartition(PartitionWatch& watch, Probe& probe, ProbeConfig& config,
                     DiskNames* names, std::FILE* diag);

}  // namespace biosnoop
