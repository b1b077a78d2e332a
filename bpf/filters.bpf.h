/* Filters and ring-buffer helpers shared by the block hooks
 * (biosnoop.bpf.c) and the call hooks (ops.bpf.h).
 */
#ifndef BIOSNOOP_BPF_FILTERS_BPF_H_
#define BIOSNOOP_BPF_FILTERS_BPF_H_

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "maps.bpf.h"

/* A task's comm, 16 bytes, with two plain loads: about 100 ns cheaper
 * than bpf_get_current_comm()'s strscpy, and as racy as the kernel's own
 * readers against a concurrent prctl(PR_SET_NAME). */
static __always_inline void copy_comm(char *dst, struct task_struct *task) {
  __u64 *d = (__u64 *)dst;
  d[0] = *(__u64 *)&task->comm[0];
  d[1] = *(__u64 *)&task->comm[8];
}

/* --comm: `comm` (16 bytes, NUL-padded) is the filter's. */
static __always_inline bool comm_matches(const char *comm) {
#pragma unroll
  for (int i = 0; i < 16; i++) {
    if (comm[i] != filter_comm[i]) return false;
    if (comm[i] == 0) return true;
  }
  return true;
}

/* Waking the consumer costs more than writing the record (an irq_work and
 * a task wakeup per record, ~1 us).  So a record wakes it only when a
 * batch has built up (wakeup_batch_bytes) or when nothing woke it for
 * wakeup_delay_ns, which makes a lone slow event wake it at once; records
 * submitted in between wait for the next wakeup or the consumer's own poll
 * timeout (user space polls every 10 ms), which bounds their delay. */
static __always_inline __u64 wakeup_flags(__u64 now) {
  if (now - last_wakeup_ns >= wakeup_delay_ns ||
      bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_batch_bytes) {
    last_wakeup_ns = now;
    return BPF_RB_FORCE_WAKEUP;
  }
  return BPF_RB_NO_WAKEUP;
}

#endif /* BIOSNOOP_BPF_FILTERS_BPF_H_ */
