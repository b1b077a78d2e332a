// Disk and partition names from sysfs, cached and read again at most once a
// second (disk_names.h).

#include "disk_names.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace biosnoop {
namespace {

uint64_t DeviceKey(uint32_t major, uint32_t minor) {
  return (static_cast<uint64_t>(major) << 32) | minor;
}

// `now_ns` may lag `last_ns` a little when callers pass event timestamps,
// which are not strictly ordered; that counts as "not yet".
bool Elapsed(uint64_t last_ns, uint64_t now_ns, uint64_t interval_ns) {
  return now_ns >= last_ns && now_ns - last_ns >= interval_ns;
}

// Reads a small sysfs attribute. sysfs hands out a whole attribute in one
// read; anything that fills the buffer is not an attribute we understand.
// O_NONBLOCK so that a FIFO in a broken or hostile tree cannot hang us.
bool ReadSmallFile(const std::string& path, std::string* out, int* err) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  char buf[128];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  *err = n < 0 ? errno : 0;
  close(fd);
  if (n < 0) return false;
  if (static_cast<size_t>(n) == sizeof(buf)) {
    *err = EFBIG;
    return false;
  }
  out->assign(buf, static_cast<size_t>(n));
  return true;
}

bool ParseU64(absl::string_view text, uint64_t* value) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(text[0])))
    return false;  // SimpleAtoi would take "+1" and " 1"
  return absl::SimpleAtoi(text, value);
}

bool ReadU64(const std::string& path, uint64_t* value) {
  std::string text;
  int err;
  return ReadSmallFile(path, &text, &err) && ParseU64(text, value);
}

// "254:0\n" -> 254, 0.
bool ParseDev(absl::string_view text, uint32_t* major, uint32_t* minor) {
  text = absl::StripAsciiWhitespace(text);
  size_t colon = text.find(':');
  if (colon == absl::string_view::npos) return false;
  uint64_t maj, min;
  if (!ParseU64(text.substr(0, colon), &maj) ||
      !ParseU64(text.substr(colon + 1), &min) ||
      maj > std::numeric_limits<uint32_t>::max() ||
      min > std::numeric_limits<uint32_t>::max()) {
    return false;
  }
  *major = static_cast<uint32_t>(maj);
  *minor = static_cast<uint32_t>(min);
  return true;
}

// A single path component that can name a block device.
bool IsValidName(absl::string_view name) {
  return !name.empty() && name.size() <= NAME_MAX && name != "." &&
         name != ".." && name.find('/') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Refuses a disk whose I/O never becomes requests: a bio-based device
// (zram, brd, device-mapper's linear/striped/crypt targets, md) has no
// blk-mq queue, /sys/block/<disk>/mq, and never fires the block_rq_*
// tracepoints.  (Since Linux 5.0 every request-based queue is blk-mq, and
// biosnoop needs 5.8+.)  A stacked device's I/O is seen on the disks under
// it, which its slaves/ directory lists.
absl::Status CheckRequestBased(const std::string& disk_dir,
                               absl::string_view disk) {
  if (Exists(disk_dir + "/mq")) return absl::OkStatus();
  std::vector<std::string> slaves;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(disk_dir + "/slaves", ec)) {
    slaves.push_back(entry.path().filename().string());
  }
  std::sort(slaves.begin(), slaves.end());
  std::string message = absl::StrCat(
      "disk \"", absl::Utf8SafeCEscape(disk),
      "\" is not request-based (no blk-mq queue): its I/O never passes the "
      "block request tracepoints, so there would be no events");
  if (!slaves.empty()) {
    absl::StrAppend(&message, "; its I/O goes to ", absl::StrJoin(slaves, ", "),
                    ": give one of those with -d");
  }
  return absl::InvalidArgumentError(message);
}

// <root>/dev/block/MAJ:MIN is a symlink into /sys/devices whose last
// component is the kernel's name for the device.
bool ReadDiskName(const std::string& root, uint32_t major, uint32_t minor,
                  std::string* name) {
  std::string link = absl::StrCat(root, "/dev/block/", major, ":", minor);
  char target[PATH_MAX];
  ssize_t n = readlink(link.c_str(), target, sizeof(target));
  if (n <= 0 || static_cast<size_t>(n) == sizeof(target)) return false;
  absl::string_view path(target, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  absl::string_view base =
      slash == absl::string_view::npos ? path : path.substr(slash + 1);
  if (!IsValidName(base)) return false;
  name->assign(base.data(), base.size());
  return true;
}

struct DirCloser {
  void operator()(DIR* dir) const { closedir(dir); }
};

}  // namespace

bool ReadSysfsDev(const std::string& path, uint32_t* major, uint32_t* minor) {
  std::string text;
  int err;
  return ReadSmallFile(path, &text, &err) && ParseDev(text, major, minor);
}

absl::StatusOr<std::string> DiskNames::NameOfNode(absl::string_view path) {
  const std::string p(path);
  struct stat st;
  if (stat(p.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("disk \"", absl::Utf8SafeCEscape(path), "\""));
  }
  if (!S_ISBLK(st.st_mode)) {
    const char* what = S_ISCHR(st.st_mode)   ? "a character device"
                       : S_ISDIR(st.st_mode) ? "a directory"
                       : S_ISREG(st.st_mode) ? "a regular file"
                                             : "not a device";
    return absl::InvalidArgumentError(absl::StrCat(
        "disk \"", absl::Utf8SafeCEscape(path), "\" is not a block device (",
        what,
        "): give a disk or partition such as vda, vda1, /dev/vda or a "
        "/dev/disk/by-id/ link (see lsblk)"));
  }
  std::string name;
  if (!ReadDiskName(root_, major(st.st_rdev), minor(st.st_rdev), &name)) {
    return absl::NotFoundError(absl::StrCat(
        "disk \"", absl::Utf8SafeCEscape(path), "\" is block device ",
        major(st.st_rdev), ":", minor(st.st_rdev), ", which ", root_,
        "/dev/block does not know (see lsblk)"));
  }
  return name;
}

DiskNames::DiskNames(std::string sysfs_root) : root_(std::move(sysfs_root)) {}

DiskNames::Location DiskNames::Lookup(uint32_t major, uint32_t minor,
                                      uint64_t sector, uint64_t now_ns) {
  LocationView view = LookupView(major, minor, sector, now_ns);
  return Location{std::string(view.disk), std::string(view.partition)};
}

DiskNames::LocationView DiskNames::LookupView(uint32_t major, uint32_t minor,
                                              uint64_t sector,
                                              uint64_t now_ns) {
  // A stream's events mostly come from the disk of the event before: that
  // one is found without hashing.  The pointer is the one the last
  // try_emplace returned, and only try_emplace changes the map (and may
  // move its elements), so it is valid until it is replaced here.
  const uint64_t key = DeviceKey(major, minor);
  if (last_device_ == nullptr || last_key_ != key) {
    auto [it, inserted] = devices_.try_emplace(key);
    last_key_ = key;
    last_device_ = &it->second;
    if (inserted) Refresh(major, minor, now_ns, last_device_);
  }
  Device& device = *last_device_;
  if (device.stale ||
      Elapsed(device.name_read_ns, now_ns,
              device.known ? kRevalidateNs : kNegativeRetryNs)) {
    Refresh(major, minor, now_ns, &device);
  } else if (device.known && Elapsed(device.partitions_read_ns, now_ns,
                                     kPartitionRevalidateNs)) {
    ReadPartitions(now_ns, &device);
  }
  if (!device.known) return {device.name, {}, device.id};

  const Partition* partition = FindPartition(device, sector);
  if (partition == nullptr &&
      Elapsed(device.partitions_read_ns, now_ns, kPartitionRetryNs)) {
    // Maybe a partition table was (re)read since: losetup -P, partprobe.
    ReadPartitions(now_ns, &device);
    partition = FindPartition(device, sector);
  }
  if (partition == nullptr) return {device.name, {}, device.id};
  return {device.name, partition->name, partition->id};
}

void DiskNames::Invalidate(uint32_t major, uint32_t minor) {
  auto it = devices_.find(DeviceKey(major, minor));
  if (it == devices_.end()) return;
  it->second.stale = true;  // read again at the next lookup
}

void DiskNames::Refresh(uint32_t major, uint32_t minor, uint64_t now_ns,
                        Device* device) {
  device->name_read_ns = now_ns;
  device->stale = false;
  device->id = next_id_++;
  std::string name;
  if (!ReadDiskName(root_, major, minor, &name)) {
    device->known = false;
    device->name = absl::StrCat(major, ":", minor);
    device->partitions.clear();
    device->partitions_read_ns = now_ns;
    return;
  }
  device->known = true;
  device->name = std::move(name);
  // Also on revalidation of an unchanged name: partitions may have been
  // deleted or resized, which a lookup that still hits one never notices.
  ReadPartitions(now_ns, device);
}

void DiskNames::ReadPartitions(uint64_t now_ns, Device* device) {
  device->partitions_read_ns = now_ns;
  device->partitions.clear();
  const std::string& disk = device->name;
  std::string dir_path = absl::StrCat(root_, "/block/", disk);
  std::unique_ptr<DIR, DirCloser> dir(opendir(dir_path.c_str()));
  if (dir == nullptr) return;
  while (const dirent* entry = readdir(dir.get())) {
    absl::string_view child(entry->d_name);
    // The kernel names partitions "<disk><n>" or "<disk>p<n>"; the prefix
    // test skips queue/, holders/, power/ ... without a stat each.
    if (child.size() <= disk.size() || !absl::StartsWith(child, disk)) continue;
    std::string child_path = absl::StrCat(dir_path, "/", child);
    uint64_t start, size;
    if (!Exists(child_path + "/partition") ||
        !ReadU64(child_path + "/start", &start) ||
        !ReadU64(child_path + "/size", &size) ||
        size > std::numeric_limits<uint64_t>::max() - start) {
      continue;
    }
    device->partitions.push_back(
        Partition{start, start + size, 0, std::string(child), next_id_++});
  }
  auto& parts = device->partitions;
  std::sort(parts.begin(), parts.end(),
            [](const Partition& a, const Partition& b) {
              return a.start != b.start ? a.start < b.start : a.end > b.end;
            });
  uint64_t max_end = 0;
  for (Partition& p : parts) {
    max_end = std::max(max_end, p.end);
    p.max_end = max_end;
  }
}

// Partitions can nest (an MBR extended partition holds the logical ones),
// so walk back from the last one starting at or before `sector` and return
// the innermost that holds it; `max_end` stops the walk early.
const DiskNames::Partition* DiskNames::FindPartition(const Device& device,
                                                     uint64_t sector) {
  const auto& parts = device.partitions;
  auto it = std::upper_bound(
      parts.begin(), parts.end(), sector,
      [](uint64_t s, const Partition& p) { return s < p.start; });
  while (it != parts.begin()) {
    --it;
    if (it->max_end <= sector) break;
    if (sector < it->end) return &*it;
  }
  return nullptr;
}

absl::StatusOr<DiskNames::ResolvedDisk> DiskNames::Resolve(
    absl::string_view name) {
  absl::string_view base = name;
  const bool dev_name =
      absl::ConsumePrefix(&base, "/dev/") && IsValidName(base);
  if (name.find('/') != absl::string_view::npos &&
      name.find('\0') == absl::string_view::npos) {
    // A path: /dev/vda, or a link to the node (/dev/disk/by-id/...,
    // /dev/mapper/x).  The node's device number names the device; a
    // "/dev/NAME" whose node is missing (a container without devtmpfs)
    // is looked up by NAME below.
    absl::StatusOr<std::string> by_number = NameOfNode(name);
    if (by_number.ok()) return Resolve(*by_number);
    if (!dev_name || !absl::IsNotFound(by_number.status())) {
      return by_number.status();
    }
  }
  if (!IsValidName(base)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid disk name \"", absl::CEscape(name),
        "\": give a kernel block device name such as vda, vda1 or /dev/vda "
        "(see lsblk)"));
  }
  const std::string dir = absl::StrCat(root_, "/class/block/", base);
  std::string text;
  int err;
  if (!ReadSmallFile(dir + "/dev", &text, &err)) {
    if (err == ENOENT || err == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("unknown disk \"", absl::Utf8SafeCEscape(base),
                       "\": no ", absl::Utf8SafeCEscape(dir),
                       " (see lsblk for the disks on this machine)"));
    }
    return absl::ErrnoToStatus(
        err, absl::StrCat("read ", absl::Utf8SafeCEscape(dir), "/dev"));
  }
  ResolvedDisk resolved;
  if (!ParseDev(text, &resolved.major, &resolved.minor)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot parse ", absl::Utf8SafeCEscape(dir), "/dev: \"",
                     absl::CEscape(text), "\""));
  }
  if (!Exists(dir + "/partition")) {
    if (absl::Status s = CheckRequestBased(dir, base); !s.ok()) return s;
    resolved.sector_start = 0;
    resolved.sector_end = std::numeric_limits<uint64_t>::max();
    resolved.disk = std::string(base);
    return resolved;
  }

  // A partition: the kernel filters by the whole disk's dev_t plus the
  // partition's sector range. In sysfs a partition's directory sits inside
  // its disk's directory.
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "resolve ", absl::Utf8SafeCEscape(dir), ": ", ec.message()));
  }
  const std::string disk_dir = real.parent_path().string();
  resolved.part_major = resolved.major;  // the partition's own, read above
  resolved.part_minor = resolved.minor;
  uint64_t start, size;
  if (!ReadSmallFile(disk_dir + "/dev", &text, &err) ||
      !ParseDev(text, &resolved.major, &resolved.minor) ||
      !ReadU64(dir + "/start", &start) || !ReadU64(dir + "/size", &size) ||
      size > std::numeric_limits<uint64_t>::max() - start) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read partition \"", absl::Utf8SafeCEscape(base), "\" from ",
        absl::Utf8SafeCEscape(dir),
        ": its disk's dev or its start/size is missing or malformed"));
  }
  resolved.disk = real.parent_path().filename().string();
  if (absl::Status s = CheckRequestBased(disk_dir, resolved.disk); !s.ok()) {
    return s;
  }
  resolved.sector_start = start;
  resolved.sector_end = start + size;
  resolved.partition = std::string(base);
  return resolved;
}

}  // namespace biosnoop
