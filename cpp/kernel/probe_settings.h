#pragma once

// What the BPF programs read as their settings: the load-time constants
// (.rodata) written from a ProbeConfig and the kernel's features before
// the load, and the settings that change while they run, the partition's
// sectors and the cgroup's id (.data, mapped into this process).

#include <cstdint>

#include "absl/status/status.h"
#include "kernel_features.h"
#include "probe_config.h"

struct biosnoop_bpf;

namespace biosnoop {

// Writes the filters, thresholds, histogram and event switches, the ring
// buffer's size and wakeup batch, the files' and calls' settings
// (attribution_config.h, ops_config.h) and the kernel's offsets into the
// opened, not yet loaded `skel`.  Errors: a map that cannot be sized.
absl::Status WriteSettings(const ProbeConfig& config,
                           const KernelFeatures& features,
                           int64_t preempt_count_from_rq, biosnoop_bpf* skel);

// Files on (as written), but the address of iomap_dio_bio_end_io could not
// be read: direct I/O is then not followed to its file.
bool DirectIoUnfollowed(const ProbeConfig& config, const biosnoop_bpf& skel);

// Changes the partition filter's sectors to [start, end), for completions
// from now on, while the programs run.  Needs no privilege.
void SetSectorRange(biosnoop_bpf* skel, uint64_t start, uint64_t end);

// Changes the --cgroup filter's subtree root to the cgroup `id`
// (kNoCgroup: none, matching nothing), for I/O submitted from now on,
// while the programs run.  Needs no privilege.
void SetCgroupId(biosnoop_bpf* skel, uint64_t id);

}  // namespace biosnoop
