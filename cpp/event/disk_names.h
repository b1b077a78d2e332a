#pragma once

// Block device names from sysfs: major:minor -> "vda", a sector -> "vda1",
// and a user-given name ("vda", "/dev/vda1") -> major:minor and sector range.
//
// Lookup() runs once per event, so every device is cached after its first
// lookup and a known device costs no syscall. The cache heals itself, with
// every sysfs re-read rate limited per device by the caller's clock:
//   - an unknown major:minor (hotplug: losetup after start) is looked up
//     again at most once per kNegativeRetryNs;
//   - a sector in no known partition (losetup -P, partprobe after start)
//     re-reads that disk's partitions at most once per kPartitionRetryNs;
//   - a known name is revalidated, with its partitions, every
//     kRevalidateNs (a major:minor can be reused by another device);
//   - a known disk's partitions are read again, at its next lookup, once
//     kPartitionRevalidateNs has passed (resized, moved or deleted: a
//     sector that still falls in a stale partition would be misnamed), or
//     at once after Invalidate().
//
// The sysfs root is injectable so tests can use a fake tree. Malformed sysfs
// content never crashes: a device whose name cannot be read is unknown, a
// partition whose start/size cannot be parsed is ignored.
//
// Not thread-safe: one instance per consumer thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace biosnoop {

// A disk or partition given by name on the command line, as the kernel-side
// filter needs it.
struct ResolvedDisk {
  uint32_t major = 0;  // of the whole disk, also for a partition
  uint32_t minor = 0;
  uint64_t sector_start = 0;  // [sector_start, sector_end), 512-byte units
  uint64_t sector_end = 0;    // relative to the whole disk
  std::string disk;           // "vda"
  std::string partition;      // "vda1"; empty for a whole disk
  uint32_t part_major = 0;    // a partition's own number; 0:0 for a disk
  uint32_t part_minor = 0;
};

// A sysfs dev attribute ("254:0\n") at `path`: false when it cannot be
// read (read without blocking, so that a FIFO in a broken or hostile tree
// cannot hang the caller) or parsed.
bool ReadSysfsDev(const std::string& path, uint32_t* major, uint32_t* minor);

class DiskNames {
 public:
  static constexpr uint64_t kNegativeRetryNs = 1'000'000'000;
  static constexpr uint64_t kPartitionRetryNs = 1'000'000'000;
  static constexpr uint64_t kRevalidateNs = 10'000'000'000;
  static constexpr uint64_t kPartitionRevalidateNs = 1'000'000'000;

  // `sysfs_root` is where sysfs is mounted ("/sys"); it must contain
  // dev/block, block and class/block laid out as the kernel does.
  explicit DiskNames(std::string sysfs_root = "/sys");

  DiskNames(const DiskNames&) = delete;
  DiskNames& operator=(const DiskNames&) = delete;

  struct Location {
    std::string disk;       // "vda"; "254:0" when sysfs does not know it
    std::string partition;  // "vda1"; empty when the sector is in none
  };
  // Same, as views into the cache: valid until the next call of any
  // non-const method. For the hot path, so the caller can copy into strings
  // whose capacity it reuses.
  struct LocationView {
    absl::string_view disk;
    absl::string_view partition;
    // A number for the name of the device named last (the partition's,
    // else the disk's) as read this time: never 0, and a new one each time
    // sysfs is read again (a disk's partitions about once a second), so
    // that a caller keeping something per device name (StackedDevices)
    // knows "the same name as before" by this number alone.
    uint64_t id = 0;
  };

  // Names the whole disk `major`:`minor` and the partition holding `sector`
  // (512-byte units, relative to the start of the whole disk). `now_ns` is
  // any monotonic clock in ns (CLOCK_MONOTONIC); it only drives the rate
  // limits above.
  Location Lookup(uint32_t major, uint32_t minor, uint64_t sector,
                  uint64_t now_ns);
  LocationView LookupView(uint32_t major, uint32_t minor, uint64_t sector,
                          uint64_t now_ns);

  // Makes the next lookup of `major`:`minor` read its name and partitions
  // again (a partition of it is known to have changed).
  void Invalidate(uint32_t major, uint32_t minor);

  using ResolvedDisk = ::biosnoop::ResolvedDisk;
  // Resolves a name given on the command line (-d/--disk): "vda",
  // "/dev/vda", "vda1" or "/dev/vda1", read fresh from sysfs (no cache).
  // A path (with a '/') is a device node or a symlink to one
  // (/dev/disk/by-id/..., /dev/mapper/x): the node's device number names
  // the device (InvalidArgument when it is not a block device, NotFound
  // when it does not exist); "/dev/NAME" without a node is NAME.
  // A whole disk gets [0, UINT64_MAX); a partition gets its whole disk's
  // major:minor and its own sector range.
  // Errors: InvalidArgument for a malformed name (empty, ".", "..", a NUL
  // byte); NotFound for a name sysfs does
  // not know; FailedPrecondition when sysfs holds unparsable content;
  // InvalidArgument for a disk that is not request-based (zram, dm, md:
  // no blk-mq queue, so no events), naming the disks under a stacked one.
  absl::StatusOr<ResolvedDisk> Resolve(absl::string_view name);

 private:
  struct Partition {
    uint64_t start = 0;
    uint64_t end = 0;      // exclusive
    uint64_t max_end = 0;  // max `end` of this and all earlier partitions
    std::string name;
    uint64_t id = 0;  // LocationView::id
  };
  struct Device {
    bool known = false;
    bool stale = false;  // Invalidate()d: read again at the next lookup
    std::string name;    // disk name, or "MAJ:MIN" while unknown
    uint64_t id = 0;     // LocationView::id of `name`
    std::vector<Partition> partitions;  // sorted by start
    uint64_t name_read_ns = 0;
    uint64_t partitions_read_ns = 0;
  };

  // The kernel name ("sdb", "sdb1", "dm-0") of the block device node at
  // `path`, symlinks followed, by its device number.
  absl::StatusOr<std::string> NameOfNode(absl::string_view path);
  // Re-reads the name and, when known, the partitions of `device`.
  void Refresh(uint32_t major, uint32_t minor, uint64_t now_ns, Device* device);
  void ReadPartitions(uint64_t now_ns, Device* device);
  // The partition holding `sector`, or nullptr.
  static const Partition* FindPartition(const Device& device, uint64_t sector);

  std::string root_;
  absl::flat_hash_map<uint64_t, Device> devices_;
  uint64_t next_id_ = 1;  // LocationView::id of the next name read
  // The device of the last lookup: see LookupView.
  uint64_t last_key_ = 0;
  Device* last_device_ = nullptr;
};

}  // namespace biosnoop
