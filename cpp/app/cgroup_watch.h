#pragma once

// --cgroup PATH while biosnoop runs: the cgroup is followed by its path.
// systemd removes a service's cgroup and makes it again at each restart,
// with a new id; at each check the directory's id (its inode, as at start)
// becomes the kernel filter's, and one line on stderr says so.  A removed
// cgroup matches nothing (all I/O is counted as filtered) until a
// directory of that path exists again.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "probe.h"

namespace biosnoop {

class CgroupWatch {
 public:
  // `config` as ProbeConfigFor() made it; watches nothing unless
  // config.cgroup_id is set.  `name` is the path as the user gave it (for
  // the messages).
  CgroupWatch(const ProbeConfig& config, std::string name);

  struct Change {
    uint64_t id = 0;      // the new id; kNoCgroup when removed
    std::string message;  // one line for stderr, without the newline
  };
  // Reads the directory's id now; returns the change since the last check
  // (or start), nullopt when there is none or nothing is watched.  A
  // directory that cannot be read now for another reason than being gone
  // (EACCES, ENOMEM, ...) is no change: the next check tries again.
  std::optional<Change> Check();

 private:
  std::string name_;
  std::string dir_;
  uint64_t id_ = 0;  // kNoCgroup while removed
};

// One check, applied: the kernel filter (probe) and the config's id (what
// the run's other readers of it see), and the line on `diag`.  Call it at
// the periodic tick.
void FollowCgroup(CgroupWatch& watch, Probe& probe, ProbeConfig& config,
                  std::FILE* diag);

}  // namespace biosnoop
