#include "mount_table.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace biosnoop {
namespace {

uint64_t DevKey(uint32_t major, uint32_t minor) {
  return (static_cast<uint64_t>(major) << 32) | minor;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' &&
        s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
        s[i + 3] >= '0' && s[i + 3] <= '7') {
      out.push_back(static_cast<char>((s[i + 1] - '0') * 64 +
                                      (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

MountTable::MountTable(std::string mountinfo, int64_t min_reread_ns)
    : mountinfo_(std::move(mountinfo)), min_reread_ns_(min_reread_ns) {}

void MountTable::Read() {
  ++reads_;
  by_dev_.clear();
  btrfs_.clear();
  std::ifstream in(mountinfo_);
  // "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw"
  for (std::string line; std::getline(in, line);) {
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 5) continue;
    std::pair<absl::string_view, absl::string_view> mm =
        absl::StrSplit(f[2], absl::MaxSplits(':', 1));
    uint32_t major = 0, minor = 0;
    if (!absl::SimpleAtoi(mm.first, &major) ||
        !absl::SimpleAtoi(mm.second, &minor)) {
      continue;
    }
    Mount m{Unescape(f[3]), Unescape(f[4])};
    // btrfs: files carry their subvolume's dev (what stat() says), which
    // mountinfo does not show (it has the super block's): the mounted
    // subvolume's is its mount point's.
    auto dash = std::find(f.begin(), f.end(), "-");
    if (dash != f.end() && dash + 1 != f.end() && dash[1] == "btrfs") {
      btrfs_.push_back(m);
      struct stat st;
      if (stat(m.point.c_str(), &st) == 0 &&
          DevKey(::major(st.st_dev), ::minor(st.st_dev)) !=
              DevKey(major, minor)) {
        by_dev_[DevKey(::major(st.st_dev), ::minor(st.st_dev))].push_back(m);
      }
    }
    by_dev_[DevKey(major, minor)].push_back(std::move(m));
  }
}

const std::vector<MountTable::Mount>* MountTable::FindBtrfsSubvolume(
    uint32_t major, uint32_t minor, absl::string_view inside) {
  // A subvolume not mounted itself: the btrfs mount under which the file
  // has that dev is its file system's (nested subvolumes).
  for (const Mount& m : btrfs_) {
    absl::string_view rest = inside;
    if (m.root != "/" && !absl::ConsumePrefix(&rest, m.root)) continue;
    const std::string candidate = absl::StrCat(m.point, rest);
    struct stat st;
    if (stat(candidate.c_str(), &st) != 0 || ::major(st.st_dev) != major ||
        ::minor(st.st_dev) != minor) {
      continue;
    }
    std::vector<Mount>& mounts = by_dev_[DevKey(major, minor)];
    mounts.push_back(m);
    return &mounts;
  }
  return nullptr;
}

const std::vector<MountTable::Mount>* MountTable::Find(uint32_t major,
                                                       uint32_t minor,
                                                       uint64_t now_ns) {
  const int64_t now = static_cast<int64_t>(now_ns);
  if (!read_once_) {
    read_once_ = true;
    last_read_ns_ = now;
    Read();
  }
  auto it = by_dev_.find(DevKey(major, minor));
  if (it != by_dev_.end()) return &it->second;
  // Mounted since the last read?  At most once per min_reread_ns_.
  if (now - last_read_ns_ < min_reread_ns_) return nullptr;
  last_read_ns_ = now;
  Read();
  it = by_dev_.find(DevKey(major, minor));
  return it == by_dev_.end() ? nullptr : &it->second;
}

PathKind MountTable::Resolve(uint32_t major, uint32_t minor,
                             absl::string_view inside, uint64_t now_ns,
                             std::string* path) {
  const std::vector<Mount>* mounts = Find(major, minor, now_ns);
  if (mounts == nullptr && !btrfs_.empty()) {
    mounts = FindBtrfsSubvolume(major, minor, inside);
  }
  if (mounts != nullptr) {
    // The first mount whose root contains the file: the whole file system
    // ("/") or a bind mount of a directory above it.
    for (const Mount& m : *mounts) {
      absl::string_view rest = inside;
      if (m.root != "/") {
        if (!absl::ConsumePrefix(&rest, m.root)) continue;
        if (!rest.empty() && rest.front() != '/') continue;
      }
      if (m.point == "/") {
        path->assign(rest.empty() ? "/" : std::string(rest));
      } else {
        path->assign(m.point);
        path->append(rest.data(), rest.size());
      }
      return PathKind::kAbsolute;
    }
  }
  path->assign(inside.data(), inside.size());
  return PathKind::kFsRelative;
}

bool MountTable::IsMounted(uint32_t major, uint32_t minor, uint64_t now_ns) {
  return Find(major, minor, now_ns) != nullptr;
}

std::string JoinNamesFromRoot(const std::vector<std::string>& leaf_first) {
  std::string out;
  for (auto it = leaf_first.rbegin(); it != leaf_first.rend(); ++it) {
    out.push_back('/');
    out.append(*it);
  }
  if (out.empty()) out = "/";
  return out;
}

}  // namespace biosnoop
