#pragma once

// The devices stacked on a block device, from sysfs: device-mapper (LVM,
// dm-crypt, multipath) and md RAID devices are bio-based, so their I/O is
// seen as requests on the disks under them; an event on such a disk names
// what it serves (proto Event.stack).
//
// Lookup("vdb1") lists each holder in <root>/class/block/vdb1/holders/
// (sorted by name) as its kernel name, followed, for a device-mapper
// device, by its mapper name (<root>/class/block/dm-N/dm/name), then the
// holders of that holder the same way, depth first, before the next one:
// dm-crypt over an LVM volume over md0 over vdb gives, for vdb,
// ["md0", "dm-0", "vg0-data", "dm-1", "data_crypt"].  Each device is
// listed once (a device reached twice, or a cycle in a broken or hostile
// tree, is not followed again), at most kMaxDepth levels up and at most
// kMaxEntries names in all (a device-mapper device's kernel name is never
// left without its mapper name at the cap).
//
// Lookup() runs once per event: each device's list is cached after its
// first lookup and read again, at its next lookup, once kRevalidateNs has
// passed (an LVM volume created after start shows within a second), so a
// device already known costs no syscall.  Looked up by what DiskNames
// named, the last few devices are found inline by its id for the name,
// without comparing names, hashing or a call (a stream's events mostly
// come from one or two partitions).
//
// The sysfs root is injectable so that tests can use a fake tree.
// Malformed sysfs content never crashes: a holder whose name is not a
// valid device name is skipped, a mapper name that cannot be read is left
// out, a holders directory that cannot be read has none.
//
// Not thread-safe: one instance per consumer thread.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "disk_names.h"

namespace biosnoop {

// A stacked disk (device-mapper, md: one with slaves/) and the whole
// disks below it, for --ops: a call on a file system over it waits for
// requests on those (bpf/ops.bpf.h, op_lower_register).
struct LowerDisks {
  uint32_t dev = 0;  // kernel dev_t (major << 20 | minor)
  // Its whole disks below, at every level: those with nothing below them
  // first (the request-based ones), then the stacked ones nearest first,
  // each once, at most kMax; the kernel's dev_t of each.
  static constexpr size_t kMax = 4;
  std::vector<uint32_t> below;
};

// Every stacked whole disk under `sysfs_root`/class/block, by name, with
// its disks below (slaves/, a partition counting as its disk), followed
// StackedDevices::kMaxDepth levels down; one whose dev cannot be read is
// left out.
std::vector<LowerDisks> ScanLowerDisks(const std::string& sysfs_root);

class StackedDevices {
 public:
  static constexpr uint64_t kRevalidateNs = 1'000'000'000;
  // Levels of holders followed above the device looked up.
  static constexpr int kMaxDepth = 8;
  // Names in one list (kernel names and mapper names together).
  static constexpr size_t kMaxEntries = 32;

  // `sysfs_root` is where sysfs is mounted ("/sys"); it must contain
  // class/block laid out as the kernel does.
  explicit StackedDevices(std::string sysfs_root = "/sys");

  StackedDevices(const StackedDevices&) = delete;
  StackedDevices& operator=(const StackedDevices&) = delete;

  // The devices stacked on block device `name` (a kernel name: "vdb",
  // "vdb1"), nearest first, as above; empty when none (also for a name
  // sysfs does not know).  `now_ns` is any monotonic clock in ns
  // (CLOCK_MONOTONIC); it only drives the revalidation.  The list is the
  // cache's: valid until the next call.
  const std::vector<std::string>& Lookup(absl::string_view name,
                                         uint64_t now_ns) {
    return LookupSlow(name, now_ns, 0);
  }
  // The same for what DiskNames named: the partition, or without one the
  // disk.  A device looked up lately is found by the view's id alone (so
  // every view given must come from one DiskNames).
  const std::vector<std::string>& Lookup(const DiskNames::LocationView& where,
                                         uint64_t now_ns) {
    if (where.id != 0) {  // always, from DiskNames
      for (const Recent& recent : recent_) {
        if (recent.id == where.id && !Due(recent.entry->read_ns, now_ns)) {
          return recent.entry->stack;
        }
      }
    }
    return LookupSlow(where.partition.empty() ? where.disk : where.partition,
                      now_ns, where.id);
  }

 private:
  struct Entry {
    std::string name;  // the device looked up
    std::vector<std::string> stack;
    uint64_t read_ns = 0;
  };

  // Whether the list read at `read_ns` is to be read again.  `now_ns` may
  // lag `read_ns` a little when callers pass event timestamps, which are
  // not strictly ordered: that counts as "not yet".
  static bool Due(uint64_t read_ns, uint64_t now_ns) {
    return now_ns >= read_ns && now_ns - read_ns >= kRevalidateNs;
  }
  // Lookup() of a device not among the recent ones by id (0: none
  // given), or due for a re-read.
  const std::vector<std::string>& LookupSlow(absl::string_view name,
                                             uint64_t now_ns, uint64_t id);

  // Reads entry->stack afresh from sysfs.
  void Read(uint64_t now_ns, Entry* entry);
  // Appends the holders of `name`, and theirs, to *out (see above);
  // false once kMaxEntries stopped the walk.
  bool AppendHolders(const std::string& name, int depth,
                     std::vector<std::string>* seen,
                     std::vector<std::string>* out);

  std::string root_;
  // Entries never move (unique_ptr), so `recent_` can point at them.
  absl::flat_hash_map<std::string, std::unique_ptr<Entry>> entries_;
  // The last devices looked up, each with the id it was last given (0:
  // none, or an unused slot, whose entry is null), the oldest replaced by
  // the next one found by hashing.
  struct Recent {
    uint64_t id = 0;
    Entry* entry = nullptr;
  };
  std::array<Recent, 4> recent_{};
  size_t next_recent_ = 0;
};

}  // namespace biosnoop
