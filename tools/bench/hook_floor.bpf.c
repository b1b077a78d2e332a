// SPDX-License-Identifier: GPL-2.0
/* The hook floor: empty programs on the three tracepoints biosnoop's
 * kernel side runs on for every I/O (submission, issue, completion).
 *
 * Whatever a tracer does per I/O, it pays at least this: the tracepoint
 * calling into BPF (recursion check, RCU, migrate_disable) three times per
 * request.  tools/bench/run measures it as the `floor` configuration, in
 * the same interleaved series as biosnoop, so the gap between `floor` and
 * `quiet` is the cost of biosnoop's own work and the gap between the
 * baseline and `floor` is what no three-hook design can remove. */
/* vmlinux.h first, then the libbpf headers that use its types. */
// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
// clang-format on

char LICENSE[] SEC("license") = "GPL";

/* Submission: block_io_start where the kernel has it (6.5+), else
 * block_rq_insert, as biosnoop chooses (user space loads one of them). */
SEC("tp_btf/block_io_start")
int BPF_PROG(floor_io_start, struct request *rq) { return 0; }

SEC("tp_btf/block_rq_insert")
int BPF_PROG(floor_rq_insert, struct request *rq) { return 0; }

SEC("tp_btf/block_rq_issue")
int BPF_PROG(floor_rq_issue, struct request *rq) { return 0; }

SEC("tp_btf/block_rq_complete")
int BPF_PROG(floor_rq_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  return 0;
}
