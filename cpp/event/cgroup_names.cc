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

// A mountinfo root made of ".." alone ("/../.."): the mount shows an
// ancestor of this process's cgroup namespace's root.
bool AboveNamespaceRoot(absl::string_view root) {
  bool any = false;
  for (absl::string_view p : absl::StrSplit(root, '/', absl::SkipEmpty())) {
    if (p != "..") return false;
    any = true;
  }
  return any;
}

// Whether `dir`/cgroup.procs lists the process `pid`.
bool ListsPid(const std::string& dir, const std::string& pid) {
  std::ifstream in(dir + "/cgroup.procs");
  std::string line;
  while (std::getline(in, line)) {
    if (line == pid) return true;
  }
  return false;
}

// Depth-first search of the directory open as `fd` (at `abs`, named `rel`
// from the root) for the cgroup listing `pid`.  Takes ownership of fd.
bool SearchPid(int fd, const std::string& abs, const std::string& rel,
               const std::string& pid, int depth, std::string* path) {
  if (ListsPid(abs, pid)) {
    close(fd);
    *path = rel;
    return true;
  }
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return false;
  }
  bool found = false;
  while (dirent* d = readdir(dir)) {
    if (d->d_type != DT_DIR || std::strcmp(d->d_name, ".") == 0 ||
        std::strcmp(d->d_name, "..") == 0 || depth >= kMaxDepth) {
      continue;
    }
    const int child_fd =
        openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (child_fd < 0) continue;  // removed meanwhile
    if (SearchPid(child_fd, absl::StrCat(abs, "/", d->d_name),
                  absl::StrCat(rel == "/" ? "" : rel, "/", d->d_name), pid,
                  depth + 1, path)) {
      found = true;
      break;
    }
  }
  closedir(dir);
  return found;
}

}  // namespace

std::string FindCgroup2Mount(const std::string& mountinfo_path) {
  std::ifstream in(mountinfo_path);
  std::string line;
  std::string whole, ancestor;  // first mount rooted at "/", at "/../.."
  while (std::getline(in, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ..."
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    const std::vector<absl::string_view> tail =
        absl::StrSplit(absl::string_view(line).substr(dash + 3), ' ');
    if (tail.empty() || tail[0] != "cgroup2") continue;
    const std::vector<absl::string_view> head =
        absl::StrSplit(absl::string_view(line).substr(0, dash), ' ');
    if (head.size() < 5) continue;
    // The whole hierarchy, not a bind mount of a subtree: root "/", or
    // only ".." from a cgroup namespace's root.
    const bool at_root = head[3] == "/";
    if (!at_root && !AboveNamespaceRoot(head[3])) continue;
    std::string point = UnescapeMountField(head[4]);
    uint64_t ino = 0;
    if (InodeOf(point, &ino) && ino == kRootId) return point;
    std::string& slot = at_root ? whole : ancestor;
    if (slot.empty()) slot = std::move(point);
  }
  return whole.empty() ? ancestor : whole;
}

std::string CgroupPathFromRoot(absl::string_view ns_root,
                               absl::string_view path) {
  std::vector<absl::string_view> parts;
  for (absl::string_view from : {ns_root, path}) {
    for (absl::string_view p : absl::StrSplit(from, '/', absl::SkipEmpty())) {
      if (p == ".") continue;
      if (p == "..") {
        if (!parts.empty()) parts.pop_back();
        continue;
      }
      parts.push_back(p);
    }
  }
  return absl::StrCat("/", absl::StrJoin(parts, "/"));
}

std::string CgroupNamespaceRoot(const std::string& mount,
                                const std::string& proc) {
  if (mount.empty()) return "/";
  std::string self;  // this process's cgroup, from its namespace's root
  {
    std::ifstream in(proc + "/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
      absl::string_view rest = line;
      if (absl::ConsumePrefix(&rest, "0::")) self = std::string(rest);
    }
  }
  if (self.empty() || !absl::StartsWith(self, "/")) return "/";
  const std::string pid = std::to_string(getpid());
  // Outside a namespace (the common case) the path is the real one.
  if (ListsPid(mount + (self == "/" ? "" : self), pid)) return "/";
  std::string found;
  const int fd = open(mount.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !SearchPid(fd, mount, "/", pid, 0, &found)) return "/";
  // found = ns root + self: take self's components off its end.
  std::vector<absl::string_view> have =
      absl::StrSplit(found, '/', absl::SkipEmpty());
  const std::vector<absl::string_view> own =
      absl::StrSplit(self, '/', absl::SkipEmpty());
  if (own.size() > have.size()) return "/";
  for (size_t i = 0; i < own.size(); ++i) {
    if (have[have.size() - own.size() + i] != own[i]) return "/";
  }
  have.resize(have.size() - own.size());
  return absl::StrCat("/", absl::StrJoin(have, "/"));
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
      ns_root_(CgroupNamespaceRoot(mount_, proc_)),
      min_walk_interval_ns_(min_walk_interval_ns) {}

bool CgroupFs::FromProc(uint64_t id, uint32_t tid, std::string* path) const {
  if (tid == 0) return false;
  std::ifstream in(absl::StrCat(proc_, "/", tid, "/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "0::")) continue;  // the v2 line
    // From our cgroup namespace's root ("/../../x" in a container).
    std::string from_root = ns_root_ == "/" && !absl::StrContains(rest, "/..")
                                ? std::string(rest)
                                : CgroupPathFromRoot(ns_root_, rest);
    uint64_t ino = 0;
    // The task's cgroup now: the one the I/O came from if the ids agree.
    if (InodeOf(mount_ + (from_root == "/" ? "" : from_root), &ino) &&
        ino == id) {
      *path = std::move(from_root);
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
