/* Latency and size histograms for every completion, aggregated in the
 * kernel: the baseline beside the slow events (biolatency/bitesize).
 *
 * Per-CPU, so no atomics: only handle_rq_complete writes, and the kernel
 * never runs one BPF program nested in itself on a CPU.  Like the
 * in-flight table, a key's first home is a slot of an array indexed by its
 * hash (an inlined lookup); a key whose slot holds another key on this CPU
 * goes to a per-CPU hash map.  User space sums every CPU and both maps;
 * an overflow entry's key field is set only in the inserting CPU's copy
 * (the insert zero-fills the other CPUs'), so user space keys overflow
 * entries by their map key.
 */
#ifndef BIOSNOOP_BPF_HIST_BPF_H_
#define BIOSNOOP_BPF_HIST_BPF_H_

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "biosnoop_abi.h"
#include "counters.bpf.h"
#include "maps.bpf.h" /* hist_enabled, hist_unit_ns, hist_slots, hist_overflow,
                         hist_fine_slots, hist_fine_overflow */

/* The value of `key` in a slot array and its overflow hash (both holding
 * values whose first __u64 is their key), inserting it from `zero` when it
 * is in neither.  NULL when the overflow is full. */
static __always_inline void *keyed_value(void *slots, void *overflow,
                                         const void *zero, __u32 idx,
                                         __u64 key) {
  __u64 *h = bpf_map_lookup_elem(slots, &idx);
  if (h) {
    if (*h == key) return h;
    if (*h == 0) {
      *h = key;
      return h;
    }
  }
  h = bpf_map_lookup_elem(overflow, &key);
  if (h) return h;
  /* Too big for the stack: insert from an all-zero global, then key it. */
  bpf_map_update_elem(overflow, &key, zero, BPF_NOEXIST);
  h = bpf_map_lookup_elem(overflow, &key);
  if (h) *h = key;
  return h;
}

#define HIST_SLOW 1
#define HIST_FAILED 2

/* The power-of-two part of hist_count: the key's totals, its latency and
 * size buckets.  False when the overflow is full. */
static __always_inline bool hist_count_log2(__u64 key, __u64 latency_ns,
                                            __u32 bytes, __u32 outcome) {
  struct biosnoop_hist *h = keyed_value(&hist_slots, &hist_overflow, &hist_zero,
                                        biosnoop_hist_slot_index(key), key);
  if (!h) {
    count(BIOSNOOP_CTR_HIST_FULL);
    return false;
  }
  h->count += 1;
  h->bytes += bytes;
  h->latency_ns += latency_ns;
  if (outcome & HIST_SLOW) h->slow += 1;
  if (outcome & HIST_FAILED) h->errors += 1;
  __u32 lb = biosnoop_log2_bucket(latency_ns / hist_unit_ns);
  __u32 sb = biosnoop_log2_bucket(bytes);
  /* Bounded above by biosnoop_log2_bucket; the masks make that plain to the
   * verifier. */
  h->latency[lb & (BIOSNOOP_HIST_BUCKETS - 1)] += 1;
  h->size[sb & (BIOSNOOP_HIST_BUCKETS - 1)] += 1;
  return true;
}

/* The fine part (issue #40): the latency's bucket of 16 per power of two
 * in the (dev, op) key's fine histogram. */
static __always_inline void hist_count_fine(__u64 key, __u64 latency_ns) {
  __u64 fine_key = key & ~0xFFULL; /* (dev, op, flags 0) */
  struct biosnoop_hist_fine *f =
      keyed_value(&hist_fine_slots, &hist_fine_overflow, &hist_fine_zero,
                  biosnoop_hist_fine_slot_index(fine_key), fine_key);
  if (!f) {
    count(BIOSNOOP_CTR_HIST_FULL);
    return;
  }
  f->latency[biosnoop_fine_bucket(latency_ns) &
             (BIOSNOOP_HIST_FINE_BUCKETS - 1)] += 1;
}

/* Counts one completion: key is biosnoop_hist_key(dev, op, flags),
 * outcome HIST_SLOW | HIST_FAILED.  Inlined: as a global function (which
 * 6.1's 512-byte combined stack needed while the fine bucket took sixteen
 * compares) the call and return alone cost ~7 ns a completion here,
 * as much as the fine buckets (tools/bench/hist_cost); with the bucket
 * found through a table 6.1 and 6.12 load every mode with it inlined. */
static __always_inline int hist_count(__u64 key, __u64 latency_ns, __u32 bytes,
                                      __u32 outcome) {
  if (hist_count_log2(key, latency_ns, bytes, outcome))
    hist_count_fine(key, latency_ns);
  return 0;
}

#endif /* BIOSNOOP_BPF_HIST_BPF_H_ */
