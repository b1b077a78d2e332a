#pragma once

// What a run asks of the kernel side: its filters, its thresholds and the
// features it turns on.  Probe::Open() takes it as the user asked and
// adapts a copy to the kernel (kernel_features.h: AdaptToKernel); the
// settings (probe_settings.h) and the hook table (hook_table.h) read it.

#include <cstdint>
#include <string>

namespace biosnoop {

// The --cgroup filter's id while its cgroup does not exist: no cgroup has
// it (a v2 id is a kernfs node id, which counts up from 1).
inline constexpr uint64_t kNoCgroup = UINT64_MAX;

struct ProbeConfig {
  uint64_t min_ns = 0;
  bool include_queue = false;
  uint32_t dev = 0;  // kernel dev_t (major << 20 | minor); 0 = every disk
  // -d PART: the partition's name, followed while running (its sectors
  // below change with it, see Probe::SetSectorRange); empty otherwise.
  std::string partition;
  uint32_t partition_dev = 0;  // its kernel dev_t (calls' files, --ops)
  uint64_t sector_start = 0;
  uint64_t sector_end = UINT64_MAX;
  uint32_t pid = 0;
  std::string comm;   // empty = any
  int op_filter = 0;  // BIOSNOOP_FILTER_OP_*
  // --cgroup: only I/O submitted in the cgroup v2 subtree whose root has
  // this id (its directory's inode) at this depth below the v2 root; 0 =
  // every cgroup.  Its directory is followed while running (the id changes
  // with it, see Probe::SetCgroupId; kNoCgroup while it does not exist).
  uint64_t cgroup_id = 0;
  uint32_t cgroup_level = 0;
  std::string cgroup_dir;  // in the mounted v2 hierarchy; "" without it
  uint32_t ringbuf_bytes = 2u << 20;  // power of two, multiple of the page size
  int verbose = 0;  // 1: libbpf warnings to stderr, 2: also its debug log
  bool histograms = false;       // count every completion into histograms
  uint64_t hist_unit_ns = 1000;  // latency bucket unit: 1000 us, 1000000 ms
  bool events_disabled = false;  // histograms only: never emit records
  // Attach the completion's rescue program from the start instead of on
  // the first skipped completion (see Probe::RescueIfSkipped).
  bool rescue_always = false;
  // Files and dirtiers (bpf/attribution.bpf.h): read a reported request's
  // pages for its files; keep the dirtied-page ledger with this many
  // entries (a power of two; 0: no ledger, no dirtiers).
  bool files = true;
  uint32_t ledger_entries = 0;
  // --ops: follow read/write/fsync-family calls and io_uring requests on
  // files of the tracked disks (bpf/ops.bpf.h); an op record for each
  // that takes at least op_min_ns.  Off: none of it is attached.
  bool ops = false;
  uint64_t op_min_ns = 0;
  // The driver's layer where the kernel has its tracepoints (NVMe):
  // driver_prep_ns and driver_done_ns of events.
  bool driver_layer = true;
};

}  // namespace biosnoop
