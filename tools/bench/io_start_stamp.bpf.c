// SPDX-License-Identifier: GPL-2.0
/* io_start_stamp: the block layer's own issue stamp, rq->io_start_time_ns,
 * beside a clock read of our own at block_rq_issue, for every request of
 * one disk (issue #31, direction 1: could biosnoop take the device time's
 * start from the request instead of stamping it at issue?).
 *
 * blk_mq_start_request fires block_rq_issue and then, when the queue has
 * QUEUE_FLAG_STATS (writeback throttling turns it on), sets
 * io_start_time_ns from blk_time_get_ns(): inside a plug, the plug's
 * cached clock.  So the field is read at completion, and compared there
 * with the stamp taken at the tracepoint. */
/* vmlinux.h first, then the libbpf headers that use its types. */
// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
// clang-format on

char LICENSE[] SEC("license") = "GPL";

/* major << 20 | first_minor of the disk to follow; set before load. */
const volatile __u32 target_dev = 0;

/* One completed request (io_start_stamp.cc prints it). */
struct stamp {
  __u64 sector;
  __u64 start_ns;    /* rq->start_time_ns: the request's allocation */
  __u64 issue_ns;    /* bpf_ktime_get_ns() at block_rq_issue */
  __u64 io_start_ns; /* rq->io_start_time_ns; 0 when not set */
  __u64 complete_ns; /* bpf_ktime_get_ns() at block_rq_complete */
  __u32 bytes;
  __u32 op; /* REQ_OP_*: 0 read, 1 write */
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u64); /* the request's address */
  __type(value, __u64);
} issued SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 20);
} stamps SEC(".maps");

static __always_inline bool wanted(struct request *rq) {
  struct gendisk *disk = rq->q->disk;
  if (!disk) return false;
  return (((__u32)disk->major << 20) | (__u32)disk->first_minor) == target_dev;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(stamp_issue, struct request *rq) {
  if (!wanted(rq)) return 0;
  __u64 key = (__u64)rq;
  __u64 now = bpf_ktime_get_ns();
  bpf_map_update_elem(&issued, &key, &now, BPF_ANY);
  return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(stamp_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  if (!wanted(rq)) return 0;
  __u64 now = bpf_ktime_get_ns();
  __u64 key = (__u64)rq;
  __u64 *issue = bpf_map_lookup_elem(&issued, &key);
  if (!issue) return 0;
  struct stamp *s = bpf_ringbuf_reserve(&stamps, sizeof(*s), 0);
  if (s) {
    s->sector = rq->__sector;
    s->bytes = rq->__data_len;
    s->op = rq->cmd_flags & 0xff;
    s->start_ns = rq->start_time_ns;
    s->io_start_ns = rq->io_start_time_ns;
    s->issue_ns = *issue;
    s->complete_ns = now;
    bpf_ringbuf_submit(s, 0);
  }
  bpf_map_delete_elem(&issued, &key);
  return 0;
}
