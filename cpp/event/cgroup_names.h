#pragma once

// cgroup v2 ids -> names for output: the path relative to the v2 root, and
// the container and pod it names (container_id.h).
//
// The kernel side records the submitting task's cgroup id, the inode
// number of the cgroup's directory in cgroupfs.  Naming it takes no
// privilege (biosnoop has dropped its capabilities by then, and
// open_by_handle_at() would need CAP_DAC_READ_SEARCH): first the task's
// own /proc/<tid>/cgroup, checked against the id by the directory's inode
// (one open, one read, one stat); when the task has gone or moved, a walk
// of the v2 tree reading directory entries, whose d_ino is the id, at most
// one walk per second.  Names are cached, at most `capacity` ids, least
// recently used out first.
//
// In a cgroup namespace of its own (a container: Kubernetes gives one to
// every unprivileged container on a cgroup v2 node), /proc/<tid>/cgroup
// names cgroups from the namespace's root ("/../../system.slice/x") and
// mountinfo shows the host's v2 mount rooted at "/../..": biosnoop finds
// where its namespace's root is in the whole tree once, from the cgroup
// that lists its own pid, and names every cgroup from the real v2 root.  A
// cgroup id is never reused, so a name once found stays true, and an id that a
// fresh walk does not find belongs to a removed cgroup: it stays unnamed (path
// null, id kept), cached as such.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "event.h"

namespace biosnoop {

// The mount point of the cgroup v2 hierarchy (file system type cgroup2)
// in a /proc/<pid>/mountinfo file; "" when there is none (a v1-only
// machine) or the file cannot be read.  A mount of the whole hierarchy:
// root "/", or, seen from a cgroup namespace, an ancestor of the
// namespace's root ("/../.."); where several qualify, the one whose
// directory is the v2 root itself (inode 1).
std::string FindCgroup2Mount(
    const std::string& mountinfo_path = "/proc/self/mountinfo");

// A cgroup named on the command line (--cgroup).
struct CgroupTarget {
  uint64_t id = 0;     // its directory's inode
  uint32_t level = 0;  // its depth below the v2 root (the root is 0)
  std::string path;    // relative to the v2 root, "/" for the root
};

// `path` relative to the v2 root ("/system.slice/x.service") or absolute
// under `mount`.  InvalidArgument when it names no cgroup directory,
// Unavailable when `mount` is empty (no v2 hierarchy: exit 69).
absl::StatusOr<CgroupTarget> ResolveCgroupPath(absl::string_view path,
                                               const std::string& mount);

// One lookup of an id in cgroupfs.
struct CgroupLookup {
  enum class Result {
    kFound,   // path holds its name
    kGone,    // not in the tree now: the cgroup was removed
    kNotNow,  // not found without a walk, and a walk is not due yet
  };
  Result result = Result::kNotNow;
  std::string path;
};

// Where this process's cgroup namespace is rooted, from the v2 root of the
// tree mounted at `mount`: "/" outside a cgroup namespace, else the path
// of the cgroup that lists getpid() in its cgroup.procs, less this
// process's own path in the namespace (`proc`/self/cgroup).  "/" when it
// cannot be told (no mount, no such file, no cgroup lists the pid).
std::string CgroupNamespaceRoot(const std::string& mount,
                                const std::string& proc);

// A path from /proc/<tid>/cgroup, relative to the namespace rooted at
// `ns_root`, as a path from the v2 root ("/" for the root); ".." at the
// root stays there.
std::string CgroupPathFromRoot(absl::string_view ns_root,
                               absl::string_view path);

// The lookups themselves, over the v2 mount `mount` ("" = none: only the
// root, id 1, is named) and the proc file system `proc`.
class CgroupFs {
 public:
  // Finds the namespace's root (CgroupNamespaceRoot) once, here.
  CgroupFs(std::string mount, std::string proc, int64_t min_walk_interval_ns);
  // `tid`: the thread that submitted the I/O (0: unknown).
  CgroupLookup Find(uint64_t id, uint32_t tid);
  uint64_t walks() const { return walks_; }
  const std::string& ns_root() const { return ns_root_; }

 private:
  bool FromProc(uint64_t id, uint32_t tid, std::string* path) const;
  CgroupLookup::Result Walk(uint64_t id, std::string* path);

  std::string mount_;
  std::string proc_;
  std::string ns_root_;  // "/" outside a cgroup namespace
  int64_t min_walk_interval_ns_;
  int64_t last_walk_ns_ = 0;
  bool walked_ = false;
  uint64_t walks_ = 0;
};

// The cache.  Not thread-safe: one instance, driven by the poll loop.
class CgroupNames {
 public:
  using LookupFn = std::function<CgroupLookup(uint64_t id, uint32_t tid)>;
  static constexpr size_t kDefaultCapacity = 4096;

  // Over cgroupfs (CgroupFs, one walk a second at most).
  CgroupNames(std::string mount, std::string proc,
              size_t capacity = kDefaultCapacity);
  // Over any lookup (tests).
  CgroupNames(LookupFn lookup, size_t capacity);

  // The names of cgroup `id` (0: unknown, never looked up), as submitted
  // by thread `tid`.  The reference is valid until the next call.
  const CgroupLabel& Resolve(uint64_t id, uint32_t tid);

  size_t size() const { return index_.size(); }
  size_t capacity() const { return capacity_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }

 private:
  using Entry = std::pair<uint64_t, CgroupLabel>;

  LookupFn lookup_;
  size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  absl::flat_hash_map<uint64_t, std::list<Entry>::iterator> index_;
  CgroupLabel unknown_;  // for id 0 and for lookups not done yet
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace biosnoop
