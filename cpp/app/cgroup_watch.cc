// --cgroup followed while running: its directory's id read again, the change
// applied to the kernel filter (cgroup_watch.h).

#include "cgroup_watch.h"

#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop {

CgroupWatch::CgroupWatch(const ProbeConfig& config, std::string name)
    : name_(std::move(name)),
      dir_(config.cgroup_id != 0 ? config.cgroup_dir : ""),
      id_(config.cgroup_id) {}

std::optional<CgroupWatch::Change> CgroupWatch::Check() {
  if (dir_.empty()) return std::nullopt;
  // As at start (ResolveCgroupPath): a v2 cgroup's id is its directory's
  // inode number.  Removed, the path is gone (rmdir of an empty cgroup);
  // a plain file there is no cgroup either.
  struct stat st;
  uint64_t now = kNoCgroup;
  if (stat(dir_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) now = st.st_ino;
  } else if (errno != ENOENT && errno != ENOTDIR) {
    return std::nullopt;  // not known now: look again next time
  }
  if (now == id_) return std::nullopt;
  const bool was_removed = id_ == kNoCgroup;
  id_ = now;
  Change change;
  change.id = now;
  if (now == kNoCgroup) {
    change.message = absl::StrCat("biosnoop: --cgroup ", name_,
                                  ": removed; matching nothing until it "
                                  "exists again (I/O counted as filtered)");
  } else {
    // Also the cgroup removed and made again between two checks: the id
    // changed with no moment seen without it.
    change.message =
        absl::StrCat("biosnoop: --cgroup ", name_,
                     was_removed ? ": made again" : ": removed and made again",
                     " (id ", now, "), following it");
  }
  return change;
}

void FollowCgroup(CgroupWatch& watch, Probe& probe, ProbeConfig& config,
                  std::FILE* diag) {
  std::optional<CgroupWatch::Change> change = watch.Check();
  if (!change.has_value()) return;
  probe.SetCgroupId(change->id);
  config.cgroup_id = change->id;
  absl::FPrintF(diag, "%s\n", change->message);
}

}  // namespace biosnoop
