// Naming cgroup ids from cgroupfs without privilege, and the bounded cache
// (cgroup_names.h).

#include "cgroup_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "container_id.h"

namespace biosnoop {
namespace {

// The v2 root's id: kernfs numbers its root first.
constexpr uint64_t kRootId = 1;
// Cgroups nest far less deep; a bound keeps a strange tree from recursing.
constexpr int kMaxDepth = 64;

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string UnescapeMountField(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const char a = s[i + 1], b = s[i + 2], c = s[i + 3];
      if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && c >= '0' &&
          c <= '7') {
        out.push_back(
            static_cast<char>((a - '0') * 64 + (b - '0') * 8 + (c - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

bool InodeOf(const std::string& path, uint64_t* ino) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  *ino = st.st_ino;
  return true;
}

// Depth-first search of the directory open as `fd` (named `rel` from the
// root) for a subdirectory whose inode is `id`.  Takes ownership of fd.
bool Search(int fd, const std::string& rel, uint64_t id, int depth,
            std::string* path) {
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return false;
  }
  std::vector<std::string> children;
  bool found = false;
  while (dirent* d = readdir(dir)) {
    if (d->d_type != DT_DIR || std::strcmp(d->d_name, ".") == 0 ||
        std::strcmp(d->d_name, "..") == 0) {
      continue;
    }
    if (d->d_ino == id) {
      *path = absl::StrCat(rel == "/" ? "" : rel, "/", d->d_name);
      found = true;
      break;
    }
    children.emplace_back(d->d_name);
  }
  if (!found && depth < kMaxDepth) {
    for (const std::string& child : children) {
      const int child_fd =
          openat(dirfd(dir), child.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child_fd < 0) continue;  // removed meanwhile
      if (Search(child_fd, absl::StrCat(rel == "/" ? "" : rel, "/", child), id,
                 depth + 1, path)) {
        found = true;
        break;
      }
    }
  }
  closedir(dir);
  return found;
}

}  // namespace

std::string FindCgroup2Mount(const std::string& mountinfo_path) {
  std::ifstream in(mountinfo_path);
  std::string line;
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ..."
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<absl::string_view> tail =
        absl::StrSplit(absl::string_view(line).substr(dash + 3), ' ');
    if (tail.empty() || tail[0] != "cgroup2") continue;
    const std::vector<absl::string_view> head =
        absl::StrSplit(absl::string_view(line).substr(0, dash), ' ');
    // The whole hierarchy (root "/"), not a bind mount of a subtree.
    if (head.size() < 5 || head[3] != "/") continue;
    return UnescapeMountField(head[4]);
  }
  return "";
}

absl::StatusOr<CgroupTarget> ResolveCgroupPath(absl::string_view path,
                                               const std::string& mount) {
  if (mount.empty()) {
    return absl::UnavailableError(
        "--cgroup: no cgroup v2 hierarchy is mounted here (no cgroup2 in "
        "/proc/self/mountinfo), so tasks cannot be told apart by cgroup");
  }
  absl::string_view rel = path;
  if (rel == mount || absl::StartsWith(rel, absl::StrCat(mount, "/"))) {
    rel.remove_prefix(mount.size());
    if (rel.empty()) rel = "/";
  }
  if (!absl::StartsWith(rel, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cgroup ", path,
                     ": expected a path from the cgroup v2 root, e.g. "
                     "/system.slice/postgresql.service, or one under ",
                     mount));
  }
  CgroupTarget t;
  std::vector<absl::string_view> parts =
      absl::StrSplit(rel, '/', absl::SkipEmpty());
  for (absl::string_view p : parts) {
    if (p == "." || p == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("--cgroup ", path, ": no . or .. in the path, please"));
    }
  }
  t.path = absl::StrCat("/", absl::StrJoin(parts, "/"));
  t.level = static_cast<uint32_t>(parts.size());
  if (!InodeOf(mount + (t.level == 0 ? "" : t.path), &t.id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cgroup ", path, ": no such cgroup (", mount, t.path,
                     ": ", std::strerror(errno), ")"));
  }
  return t;
}

CgroupFs::CgroupFs(std::string mount, std::string proc,
                   int64_t min_walk_interval_ns)
    : mount_(std::move(mount)),
      proc_(std::move(proc)),
      min_walk_interval_ns_(min_walk_interval_ns) {}

bool CgroupFs::FromProc(uint64_t id, uint32_t tid, std::string* path) const {
  if (tid == 0) return false;
  std::ifstream in(absl::StrCat(proc_, "/", tid, "/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "0::")) continue;  // the v2 line
    uint64_t ino = 0;
    // The task's cgroup now: the one the I/O came from if the ids agree.
    if (InodeOf(mount_ + (rest == "/" ? "" : std::string(rest)), &ino) &&
        ino == id) {
      path->assign(rest.data(), rest.size());
      return true;
    }
    return false;
  }
  return false;
}

CgroupLookup::Result CgroupFs::Walk(uint64_t id, std::string* path) {
  ++walks_;
  const int fd = open(mount_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return CgroupLookup::Result::kNotNow;
  return Search(fd, "/", id, 0, path) ? CgroupLookup::Result::kFound
                                      : CgroupLookup::Result::kGone;
}

CgroupLookup CgroupFs::Find(uint64_t id, uint32_t tid) {
  CgroupLookup out;
  if (id == kRootId) {  // the root, mounted or not (a v1-only machine)
    out.result = CgroupLookup::Result::kFound;
    out.path = "/";
    return out;
  }
  if (mount_.empty()) return out;  // kNotNow: nothing to look in
  if (FromProc(id, tid, &out.path)) {
    out.result = CgroupLookup::Result::kFound;
    return out;
  }
  const int64_t now = MonotonicNs();
  if (walked_ && now - last_walk_ns_ < min_walk_interval_ns_) return out;
  walked_ = true;
  last_walk_ns_ = now;
  out.result = Walk(id, &out.path);
  return out;
}

CgroupNames::CgroupNames(std::string mount, std::string proc, size_t capacity)
    : capacity_(capacity == 0 ? 1 : capacity) {
  auto fs = std::make_shared<CgroupFs>(std::move(mount), std::move(proc),
                                       1'000'000'000);
  lookup_ = [fs](uint64_t id, uint32_t tid) { return fs->Find(id, tid); };
}

CgroupNames::CgroupNames(LookupFn lookup, size_t capacity)
    : lookup_(std::move(lookup)), capacity_(capacity == 0 ? 1 : capacity) {}

const CgroupLabel& CgroupNames::Resolve(uint64_t id, uint32_t tid) {
  if (id == 0) return unknown_;
  if (auto it = index_.find(id); it != index_.end()) {
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);  // now most recent
    return it->second->second;
  }
  ++misses_;
  CgroupLookup found = lookup_(id, tid);
  if (found.result == CgroupLookup::Result::kNotNow) return unknown_;
  CgroupLabel label;
  if (found.result == CgroupLookup::Result::kFound) {
    label.known = true;
    ContainerNames names = ParseContainerNames(found.path);
    label.path = std::move(found.path);
    label.container_id = std::move(names.container_id);
    label.pod_uid = std::move(names.pod_uid);
  }
  if (index_.size() >= capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
    ++evictions_;
  }
  lru_.emplace_front(id, std::move(label));
  index_[id] = lru_.begin();
  return lru_.front().second;
}

}  // namespace biosnoop
