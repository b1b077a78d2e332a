/* The counters helper: one per-CPU increment of a counter (enum
 * biosnoop_counter, biosnoop_abi.h) in the `counters` map.  Per CPU, so no
 * atomics; user space sums the CPUs (Counters).
 */
#ifndef BIOSNOOP_BPF_COUNTERS_BPF_H_
#define BIOSNOOP_BPF_COUNTERS_BPF_H_

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "biosnoop_abi.h"
#include "maps.bpf.h"

static __always_inline void count(__u32 idx) {
  __u64 *v = bpf_map_lookup_elem(&counters, &idx);
  if (v) *v += 1;
}

#endif /* BIOSNOOP_BPF_COUNTERS_BPF_H_ */
