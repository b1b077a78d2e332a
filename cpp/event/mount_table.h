#pragma once

// Where each file system is mounted, from /proc/self/mountinfo (and, for
// btrfs, whose files carry their subvolume's dev, stat()): turns the
// path of a file inside its file system (as the kernel side names it, from
// its dentries) into the path biosnoop's own processes would open, and
// tells whether a block device holds a mounted file system.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "event.h"

namespace biosnoop {

// Not thread-safe: one instance, driven by the poll loop.
class MountTable {
 public:
  // `mountinfo` is re-read when a device is not found, at most once per
  // `min_reread_ns` (CLOCK_MONOTONIC, passed in by the caller).
  explicit MountTable(std::string mountinfo = "/proc/self/mountinfo",
                      int64_t min_reread_ns = 1'000'000'000);

  // The path of a file whose path inside the file system on (major,
  // minor) is `inside` ("/a/b", from that file system's root): its mount
  // point joined with it (kAbsolute) when a mount shows that part of the
  // file system, else `inside` itself (kFsRelative).
  PathKind Resolve(uint32_t major, uint32_t minor, absl::string_view inside,
                   uint64_t now_ns, std::string* path);

  // Whether a file system on (major, minor) is mounted.
  bool IsMounted(uint32_t major, uint32_t minor, uint64_t now_ns);

  // Mountinfo reads so far.
  int reads() const { return reads_; }

 private:
  struct Mount {
    std::string root;   // the mounted directory, inside the file system
    std::string point;  // where it is mounted
  };
  const std::vector<Mount>* Find(uint32_t major, uint32_t minor,
                                 uint64_t now_ns);
  void Read();
  // A btrfs subvolume's dev that no mount shows: found by stat() of the
  // file's path under each btrfs mount, then remembered until the next
  // Read().
  const std::vector<Mount>* FindBtrfsSubvolume(uint32_t major, uint32_t minor,
                                               absl::string_view inside);

  std::string mountinfo_;
  int64_t min_reread_ns_;
  int64_t last_read_ns_ = 0;
  bool read_once_ = false;
  int reads_ = 0;
  absl::flat_hash_map<uint64_t, std::vector<Mount>> by_dev_;
  std::vector<Mount> btrfs_;  // btrfs mounts, for FindBtrfsSubvolume
};

// Joins names given leaf first ("c", "b", "a") into "/a/b/c".
std::string JoinNamesFromRoot(const std::vector<std::string>& leaf_first);

}  // namespace biosnoop
