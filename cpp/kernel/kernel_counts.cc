// Reading the per-CPU counts (kernel_counts.h).

#include "kernel_counts.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <vector>

#include "biosnoop_skeleton.h"
#include "libbpf_status.h"

namespace biosnoop {

absl::StatusOr<Counters> ReadCounters(const biosnoop_bpf& skel) {
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return ErrnoStatus(ncpus, "count possible CPUs");
  std::vector<uint64_t> per_cpu(static_cast<size_t>(ncpus));
  int fd = bpf_map__fd(skel.maps.counters);
  Counters c;
  for (uint32_t i = 0; i < BIOSNOOP_CTR_MAX; ++i) {
    if (bpf_map_lookup_elem(fd, &i, per_cpu.data()) != 0) {
      return ErrnoStatus(errno, "read counters");
    }
    for (uint64_t v : per_cpu) c.v[i] += v;
  }
  return c;
}

absl::StatusOr<KernelHistograms> ReadHistograms(const biosnoop_bpf& skel) {
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return ErrnoStatus(ncpus, "count possible CPUs");
  std::vector<biosnoop_hist> per_cpu(static_cast<size_t>(ncpus));
  KernelHistograms set;
  auto add = [&set](uint64_t key, const biosnoop_hist& h) {
    if (key == 0 || h.count == 0) return;
    auto [it, inserted] = set.try_emplace(key, biosnoop_hist{});
    if (inserted) it->second.key = key;
    AddKernelHist(h, &it->second);
  };
  int fd = bpf_map__fd(skel.maps.hist_slots);
  for (uint32_t i = 0; i < BIOSNOOP_HIST_SLOTS; ++i) {
    if (bpf_map_lookup_elem(fd, &i, per_cpu.data()) != 0) {
      return ErrnoStatus(errno, "read histograms");
    }
    // A slot's key is per CPU: each CPU claims its own copy.
    for (const biosnoop_hist& h : per_cpu) add(h.key, h);
  }
  // An overflow entry's key is the map key.  Its value's key field is set
  // only in the copy of the CPU that inserted it: a BPF program's insert
  // into a per-CPU hash zero-fills the other CPUs' copies, and those CPUs
  // then count into a copy whose key field stays 0.
  fd = bpf_map__fd(skel.maps.hist_overflow);
  uint64_t key = 0, next = 0;
  uint64_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    if (bpf_map_lookup_elem(fd, &next, per_cpu.data()) == 0) {
      for (const biosnoop_hist& h : per_cpu) add(next, h);
    }
    key = next;
    prev = &key;
  }
  return set;
}

}  // namespace biosnoop
