// SPDX-License-Identifier: GPL-2.0
/* hist_cost: the histograms' per-completion work in isolation, timed with
 * BPF_PROG_TEST_RUN (tools/bench/hist_cost.cc runs each program a million
 * times and reads the kernel's average ns per run).
 *
 * Three programs, each drawing a latency and a (disk, op) key the same
 * way: `floor` only draws them; `log2` counts them in the power-of-two
 * histogram only, as biosnoop did before issue #40 (hist_count_log2);
 * `fine` runs biosnoop's hist_count, the power-of-two histogram and the
 * fine one.  `fine` minus `log2` is what the fine buckets add to every
 * completion, `log2` minus `floor` what the histograms cost before them.
 * tc programs, because their test runs repeat in the kernel: the
 * tracepoint programs' cannot be test-run. */
/* vmlinux.h first, then the libbpf headers that use its types. */
// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
// clang-format on

#include "hist.bpf.h"
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Latencies over sixteen octaves from ~1 us, sizes from 512 bytes to 64
 * KiB, one of 2 * disks keys: reads and writes of disk_mask + 1 disks
 * (hist_cost --disks; set before load), and one in four slow.  One random
 * draw per run: nothing the compiler could fold into one program and not
 * into another. */
const volatile __u32 disk_mask = 3;

struct draw {
  __u64 key;
  __u64 latency_ns;
  __u32 bytes;
  __u32 outcome;
};

static __always_inline struct draw next_draw(void) {
  __u32 r = bpf_get_prandom_u32();
  struct draw d;
  d.latency_ns = (__u64)(1024 + (r & 0x3FF)) << ((r >> 10) & 15);
  d.key = biosnoop_hist_key(
      ((r >> 16) & disk_mask) + 1,
      (r >> 14) & 1 ? BIOSNOOP_OP_WRITE : BIOSNOOP_OP_READ, 0);
  d.bytes = 512U << ((r >> 20) & 7);
  d.outcome = (r >> 23) & 3 ? 0 : HIST_SLOW;
  return d;
}

/* Where `floor` leaves its draw, so the compiler keeps it. */
__u64 sink;

SEC("tc")
int hist_floor(struct __sk_buff *skb) {
  struct draw d = next_draw();
  sink += d.key ^ d.latency_ns ^ d.bytes ^ d.outcome;
  return 0;
}

SEC("tc")
int hist_log2(struct __sk_buff *skb) {
  struct draw d = next_draw();
  hist_count_log2(d.key, d.latency_ns, d.bytes, d.outcome);
  return 0;
}

SEC("tc")
int hist_fine(struct __sk_buff *skb) {
  struct draw d = next_draw();
  hist_count(d.key, d.latency_ns, d.bytes, d.outcome);
  return 0;
}
