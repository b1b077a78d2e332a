// Reading the per-CPU counts (kernel_counts.h).

#include "kernel_counts.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <vector>

#include "biosnoop_skeleton.h"
#include "libbpf_status.h"
#include "status_macros.h"

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

namespace {

bool IsEmpty(const biosnoop_hist& h) { return h.count == 0; }
bool IsEmpty(const biosnoop_hist_fine& h) {
  for (uint64_t n : h.latency) {
    if (n != 0) return false;
  }
  return true;
}

// Sums a slot array and its overflow hash (hist.bpf.h's keyed_value) over
// every CPU into *set, by key.
template <typename Value>
absl::Status ReadKeyedMaps(const bpf_map* slots, const bpf_map* overflow,
                           std::map<uint64_t, Value>* set) {
  int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) return ErrnoStatus(ncpus, "count possible CPUs");
  std::vector<Value> per_cpu(static_cast<size_t>(ncpus));
  auto add = [set](uint64_t key, const Value& h) {
    if (key == 0 || IsEmpty(h)) return;
    auto [it, inserted] = set->try_emplace(key, Value{});
    if (inserted) it->second.key = key;
    AddKernelHist(h, &it->second);
  };
  int fd = bpf_map__fd(slots);
  const uint32_t n_slots = bpf_map__max_entries(slots);
  for (uint32_t i = 0; i < n_slots; ++i) {
    if (bpf_map_lookup_elem(fd, &i, per_cpu.data()) != 0) {
      return ErrnoStatus(errno, "read histograms");
    }
    // A slot's key is per CPU: each CPU claims its own copy.
    for (const Value& h : per_cpu) add(h.key, h);
  }
  // An overflow entry's key is the map key.  Its value's key field is set
  // only in the copy of the CPU that inserted it: a BPF program's insert
  // into a per-CPU hash zero-fills the other CPUs' copies, and those CPUs
  // then count into a copy whose key field stays 0.
  fd = bpf_map__fd(overflow);
  uint64_t key = 0, next = 0;
  uint64_t* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    if (bpf_map_lookup_elem(fd, &next, per_cpu.data()) == 0) {
      for (const Value& h : per_cpu) add(next, h);
    }
    key = next;
    prev = &key;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<KernelHistograms> ReadHistograms(const biosnoop_bpf& skel) {
  KernelHistograms set;
  RETURN_IF_ERROR(ReadKeyedMaps(skel.maps.hist_slots, skel.maps.hist_overflow,
                                &set.coarse));
  RETURN_IF_ERROR(ReadKeyedMaps(skel.maps.hist_fine_slots,
                                skel.maps.hist_fine_overflow, &set.fine));
  return set;
}

}  // namespace biosnoop
