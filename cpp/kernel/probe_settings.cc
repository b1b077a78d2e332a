// The programs' settings (probe_settings.h).

#include "probe_settings.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cstring>

#include "attribution_config.h"
#include "biosnoop_skeleton.h"
#include "libbpf_status.h"
#include "ops_config.h"
#include "status_macros.h"

namespace biosnoop {

absl::Status WriteSettings(const ProbeConfig& config,
                           const KernelFeatures& features,
                           int64_t preempt_count_from_rq, biosnoop_bpf* skel) {
  auto* ro = skel->rodata;
  ro->min_ns = config.min_ns;
  ro->include_queue = config.include_queue ? 1 : 0;
  ro->filter_dev = config.dev;
  ro->filter_partition = config.partition.empty() ? 0 : 1;
  skel->data->filter_sectors.start = config.sector_start;
  skel->data->filter_sectors.end = config.sector_end;
  ro->filter_pid = config.pid;
  ro->filter_op = static_cast<uint32_t>(config.op_filter);
  ro->filter_cgroup_set = config.cgroup_id != 0 ? 1 : 0;
  ro->filter_cgroup_level = config.cgroup_level;
  skel->data->filter_cgroup_id = config.cgroup_id;
  ro->hist_enabled = config.histograms ? 1 : 0;
  ro->hist_unit_ns = config.hist_unit_ns;
  ro->events_disabled = config.events_disabled ? 1 : 0;
  // Before block_io_start, queue time runs from the request's allocation
  // (docs/kernels.md).
  ro->queue_from_alloc = features.block_io_start ? 0 : 1;
  ro->preempt_count_from_rq = preempt_count_from_rq;
  if (!config.comm.empty()) {
    ro->filter_comm_set = 1;
    char* comm = ro->filter_comm;
    std::memset(comm, 0, sizeof(ro->filter_comm));
    std::memcpy(comm, config.comm.data(),
                std::min(config.comm.size(), sizeof(ro->filter_comm) - 1));
  }
  // Wake the consumer once a quarter of the ring (at most 256 KiB) waits.
  ro->wakeup_batch_bytes =
      std::min<uint64_t>(config.ringbuf_bytes / 4, 256 * 1024);
  if (int err =
          bpf_map__set_max_entries(skel->maps.events, config.ringbuf_bytes)) {
    return ErrnoStatus(err, "size ring buffer");
  }

  RETURN_IF_ERROR(ConfigureAttribution(config, skel));
  // Read from dm_mod's BTF, not by CO-RE (kernel_features.h).
  ro->dm_tio_clone_off = static_cast<uint64_t>(features.dm_tio_clone);
  ro->dm_tio_io_off = static_cast<uint64_t>(features.dm_tio_io);
  ro->dm_io_orig_bio_off = static_cast<uint64_t>(features.dm_io_orig_bio);
  return ConfigureOps(config, skel);
}

bool DirectIoUnfollowed(const ProbeConfig& config, const biosnoop_bpf& skel) {
  return config.files && skel.rodata->iomap_dio_end_io == 0;
}

void SetSectorRange(biosnoop_bpf* skel, uint64_t start, uint64_t end) {
  // The programs read the two bounds without a lock, so each moment in
  // between is a range too: first narrowed to what the old and new ranges
  // share (maybe nothing), then widened to the new one.  A completion in
  // between is thus judged by a part of either range, never by more.
  biosnoop_sector_range& r = skel->data->filter_sectors;
  const uint64_t old_start = __atomic_load_n(&r.start, __ATOMIC_RELAXED);
  const uint64_t old_end = __atomic_load_n(&r.end, __ATOMIC_RELAXED);
  __atomic_store_n(&r.start, std::max(old_start, start), __ATOMIC_RELEASE);
  __atomic_store_n(&r.end, std::min(old_end, end), __ATOMIC_RELEASE);
  __atomic_store_n(&r.end, end, __ATOMIC_RELEASE);
  __atomic_store_n(&r.start, start, __ATOMIC_RELEASE);
}

void SetCgroupId(biosnoop_bpf* skel, uint64_t id) {
  // One aligned 64-bit store: a submission reads the old id or the new one.
  __atomic_store_n(&skel->data->filter_cgroup_id, id, __ATOMIC_RELEASE);
}

}  // namespace biosnoop
