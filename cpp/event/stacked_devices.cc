// The devices stacked on a block device, from sysfs holders/ directories,
// cached and read again at most once a second (stacked_devices.h).

#include "stacked_devices.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"

namespace biosnoop {
namespace {

// A single path component that can name a block device.
bool IsValidName(absl::string_view name) {
  return !name.empty() && name.size() <= NAME_MAX && name != "." &&
         name != ".." && name.find('/') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

struct DirCloser {
  void operator()(DIR* dir) const { closedir(dir); }
};

// The entries of directory `path`, sorted by name; none when it cannot be
// read.
std::vector<std::string> SortedEntries(const std::string& path) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, DirCloser> dir(opendir(path.c_str()));
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir.get())) {
    const absl::string_view name(entry->d_name);
    if (IsValidName(name)) names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A device-mapper device's name (its dm/name attribute, without the
// newline): false for any other device, or when it cannot be read.  The
// kernel's names are under 128 bytes (DM_NAME_LEN); a longer attribute is
// not one.  O_NONBLOCK so that a FIFO in a broken or hostile tree cannot
// hang us.
bool ReadMapperName(const std::string& root, const std::string& device,
                    std::string* name) {
  const std::string path =
      absl::StrCat(root, "/class/block/", device, "/dm/name");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char buf[256];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0 || static_cast<size_t>(n) == sizeof(buf)) return false;
  absl::string_view text(buf, static_cast<size_t>(n));
  if (text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) return false;
  name->assign(text.data(), text.size());
  return true;
}

}  // namespace

StackedDevices::StackedDevices(std::string sysfs_root)
    : root_(std::move(sysfs_root)) {}

const std::vector<std::string>& StackedDevices::LookupSlow(
    absl::string_view name, uint64_t now_ns, uint64_t id) {
  // A recent device by its name (due for a re-read, or given a new id, or
  // none), else by hashing, which then takes the place of the oldest
  // recent one.
  Recent* recent = nullptr;
  for (Recent& r : recent_) {
    if (r.entry != nullptr && r.entry->name == name) recent = &r;
  }
  bool inserted = false;
  if (recent == nullptr) {
    auto [it, added] = entries_.try_emplace(name);
    if (added) {
      it->second = std::make_unique<Entry>();
      it->second->name = std::string(name);
    }
    inserted = added;
    recent = &recent_[next_recent_];
    next_recent_ = (next_recent_ + 1) % recent_.size();
    recent->entry = it->second.get();
  }
  recent->id = id;
  Entry* entry = recent->entry;
  if (inserted || Due(entry->read_ns, now_ns)) Read(now_ns, entry);
  return entry->stack;
}

void StackedDevices::Read(uint64_t now_ns, Entry* entry) {
  entry->read_ns = now_ns;
  std::vector<std::string> stack;
  // The device itself counts as seen: a cycle back to it ends there.
  std::vector<std::string> seen = {entry->name};
  if (IsValidName(entry->name)) AppendHolders(entry->name, 0, &seen, &stack);
  entry->stack = std::move(stack);
}

bool StackedDevices::AppendHolders(const std::string& name, int depth,
                                   std::vector<std::string>* seen,
                                   std::vector<std::string>* out) {
  if (depth >= kMaxDepth) return true;
  for (std::string& holder :
       SortedEntries(absl::StrCat(root_, "/class/block/", name, "/holders"))) {
    // Each device once: at most kMaxEntries of them, so a linear search.
    if (std::find(seen->begin(), seen->end(), holder) != seen->end()) continue;
    std::string mapper;
    const bool dm = ReadMapperName(root_, holder, &mapper);
    if (out->size() + (dm ? 2 : 1) > kMaxEntries) return false;
    seen->push_back(holder);
    out->push_back(holder);
    if (dm) out->push_back(std::move(mapper));
    if (!AppendHolders(holder, depth + 1, seen, out)) return false;
  }
  return true;
}

namespace {

// The kernel dev_t in `root`/class/block/`name`/dev; 0 when it cannot be
// read or does not fit the kernel's encoding.
uint32_t ReadDev(const std::string& root, const std::string& name) {
  uint32_t major = 0, minor = 0;
  if (!ReadSysfsDev(absl::StrCat(root, "/class/block/", name, "/dev"), &major,
                    &minor) ||
      major >= (1u << 12) || minor >= (1u << 20)) {
    return 0;
  }
  return (major << 20) | minor;
}

bool IsPartition(const std::string& root, const std::string& name) {
  return access(absl::StrCat(root, "/class/block/", name, "/partition").c_str(),
                F_OK) == 0;
}

// The whole disk of partition `name`: its device directory's parent's name
// (class/block/vda1 leads to .../block/vda/vda1).
std::string DiskOfPartition(const std::string& root, const std::string& name) {
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::canonical(absl::StrCat(root, "/class/block/", name), ec);
  if (ec) return "";
  const std::string disk = dir.parent_path().filename().string();
  return IsValidName(disk) ? disk : "";
}

// Appends the whole disks below `name` (slaves/) to `leaves` (nothing
// below them) or `stacked`, each once.
void AppendBelow(const std::string& root, const std::string& name, int depth,
                 std::vector<std::string>* leaves,
                 std::vector<std::string>* stacked) {
  if (depth >= StackedDevices::kMaxDepth) return;
  for (std::string slave :
       SortedEntries(absl::StrCat(root, "/class/block/", name, "/slaves"))) {
    if (IsPartition(root, slave)) slave = DiskOfPartition(root, slave);
    if (slave.empty() ||
        std::find(leaves->begin(), leaves->end(), slave) != leaves->end() ||
        std::find(stacked->begin(), stacked->end(), slave) != stacked->end()) {
      continue;
    }
    const bool has_below =
        !SortedEntries(absl::StrCat(root, "/class/block/", slave, "/slaves"))
             .empty();
    (has_below ? stacked : leaves)->push_back(slave);
    if (has_below) AppendBelow(root, slave, depth + 1, leaves, stacked);
  }
}

}  // namespace

std::vector<LowerDisks> ScanLowerDisks(const std::string& sysfs_root) {
  std::vector<LowerDisks> out;
  for (const std::string& name :
       SortedEntries(absl::StrCat(sysfs_root, "/class/block"))) {
    if (IsPartition(sysfs_root, name)) continue;
    std::vector<std::string> leaves, stacked;
    AppendBelow(sysfs_root, name, 0, &leaves, &stacked);
    if (leaves.empty() && stacked.empty()) continue;
    LowerDisks d;
    d.dev = ReadDev(sysfs_root, name);
    if (d.dev == 0) continue;
    leaves.insert(leaves.end(), stacked.begin(), stacked.end());
    for (const std::string& below : leaves) {
      if (d.below.size() == LowerDisks::kMax) break;
      const uint32_t dev = ReadDev(sysfs_root, below);
      if (dev != 0 && dev != d.dev) d.below.push_back(dev);
    }
    if (!d.below.empty()) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace biosnoop
