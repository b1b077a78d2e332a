// SPDX-License-Identifier: GPL-2.0
/* biosnoop kernel side: follow each block request from submission to
 * completion and emit one ring-buffer record per completion slower than the
 * threshold, and per failed completion.
 *
 * Hooks are tp_btf only (no kprobes: the target kernel has none; no tracefs
 * needed).  Every kernel structure is read through CO-RE relocations; no
 * tracepoint record offsets are hard-coded.
 *
 * In-flight state is keyed by the request (struct request's address, see
 * inflight_table.bpf.h); the disk and start sector are recorded at issue.
 * The traps of following requests and what we do about each (all counted,
 * see enum biosnoop_counter):
 *  - flush requests carry no sector and several may be in flight: each is
 *    its own request, so each has its own entry;
 *  - a front merge moves the start sector after submission: the sector is
 *    read at issue, after any merge;
 *  - a request merged into another before issue never completes itself:
 *    its entry goes at block_rq_merge;
 *  - a partial completion advances the sector: the event is emitted at the
 *    final completion with the sector and size of the first issue;
 *  - a completion with no recorded issue (tracer started mid-flight) is an
 *    orphan: counted, never emitted with made-up data;
 *  - a request issued again after block_rq_requeue is counted as a requeue
 *    and timed from its last issue;
 *  - a request submitted again while its previous use is still held had
 *    that completion hidden from us: counted as missed (MISSED_REUSE), and
 *    the disk's in-flight count it held is given back.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "biosnoop_abi.h"
/* Every map and setting (maps.bpf.h), then the helpers over them. */
#include "maps.bpf.h"
#include "counters.bpf.h"
#include "hist.bpf.h"
#include "inflight_table.bpf.h"
#include "attribution.bpf.h"
#include "filters.bpf.h"
#include "ops.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline void flush_done(__u32 dev) {
  __u64 *n = bpf_map_lookup_elem(&flushes_done, &dev);
  if (n) {
    __sync_fetch_and_add(n, 1);
    return;
  }
  __u64 one = 1;
  if (bpf_map_update_elem(&flushes_done, &dev, &one, BPF_NOEXIST) != 0) {
    n = bpf_map_lookup_elem(&flushes_done, &dev); /* another CPU made it */
    if (n) __sync_fetch_and_add(n, 1);
  }
}

/* Linux 5.16 (commit "block: remove the ->rq_disk field in struct request")
 * moved the disk from request->rq_disk to request->q->disk. */
struct request___pre_5_16 {
  struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

/* tp_btf hands us trusted BTF pointers: plain loads (CO-RE relocated
 * through vmlinux.h's preserve_access_index) cost a fraction of
 * bpf_probe_read_kernel, and a fault reads as zero. */
static __always_inline __u32 disk_dev(struct gendisk *disk) {
  if (!disk) return 0;
  return ((__u32)disk->major << 20) | (__u32)disk->first_minor;
}

static __always_inline __u32 rq_dev(struct request *rq) {
  if (bpf_core_field_exists(((struct request_queue *)0)->disk))
    return disk_dev(rq->q->disk);
  return disk_dev(BPF_CORE_READ((struct request___pre_5_16 *)rq, rq_disk));
}

/* A number naming the request while it is in flight: its address minus a
 * fixed one.  The verifier allows no arithmetic on a trusted pointer except
 * the difference of two pointers (for programs that may see addresses, as
 * ours may with CAP_PERFMON), which is a plain subtraction where
 * bpf_probe_read_kernel of the pointer would cost a helper call per hook. */
static __always_inline __u64 rq_id(struct request *rq) {
  return (__u64)((char *)rq - &rq_id_base);
}

static __always_inline bool dev_wanted(__u32 dev) {
  return dev != 0 && (filter_dev == 0 || dev == filter_dev);
}

/* enum req_op and enum req_flag_bits values are read from the running
 * kernel's BTF at load time (they changed in 4.10, 5.x and 6.x). */
static __always_inline void decode_opf(__u32 opf, __u8 *op, __u8 *flags) {
  __u32 o = opf & 0xff; /* REQ_OP_MASK since 4.10: REQ_OP_BITS == 8 */
  if (o == bpf_core_enum_value(enum req_op, REQ_OP_READ))
    *op = BIOSNOOP_OP_READ;
  else if (o == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
    *op = BIOSNOOP_OP_WRITE;
  else if (o == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
    *op = BIOSNOOP_OP_FLUSH;
  else if (o == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
    *op = BIOSNOOP_OP_DISCARD;
  else if (o == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE))
    *op = BIOSNOOP_OP_SECURE_ERASE;
  else if (o == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES))
    *op = BIOSNOOP_OP_WRITE_ZEROES;
  else if (bpf_core_enum_value_exists(enum req_op, REQ_OP_ZONE_APPEND) &&
           o == bpf_core_enum_value(enum req_op, REQ_OP_ZONE_APPEND))
    *op = BIOSNOOP_OP_ZONE_APPEND;
  else
    *op = BIOSNOOP_OP_OTHER;

  __u8 f = 0;
  if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
    f |= BIOSNOOP_FLAG_PREFLUSH;
  if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
    f |= BIOSNOOP_FLAG_FUA;
  if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
    f |= BIOSNOOP_FLAG_RAHEAD;
  if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
    f |= BIOSNOOP_FLAG_SYNC;
  if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
    f |= BIOSNOOP_FLAG_META;
  *flags = f;
}

/* comm with plain loads (copy_comm, filters.bpf.h).  The cgroup is the task's
 * v2 cgroup: a bio's blkg names the v1 blkio cgroup on a hybrid machine, and
 * the root for writeback, so it is not taken for ownership.  --cgroup is
 * decided here, where the submitter is current, and applied at completion
 * (passes_filters). */
static __always_inline void fill_task(struct biosnoop_inflight_val *v) {
  struct task_struct *task = bpf_get_current_task_btf();
  v->pid = task->tgid;
  v->tid = task->pid;
  copy_comm(v->comm, task);
  v->cgroup_id = bpf_get_current_cgroup_id();
  v->outside_cgroup = filter_cgroup_set &&
                      bpf_get_current_ancestor_cgroup_id(filter_cgroup_level) !=
                          filter_cgroup_id;
}

/* Every field of a request's entry but its owner (rq), for a new use:
 * submitted now by the current task, not issued yet. */
static __always_inline void start_entry(struct biosnoop_inflight_val *v,
                                        __u32 dev, __u64 now, __u8 flags) {
  v->submit_ns = now;
  v->issue_ns = 0;
  v->sector = 0;
  v->dev = dev;
  v->bytes = 0;
  v->queue_depth = 0;
  v->op = 0;
  v->flags = flags;
  v->submit_known = 1;
  v->requeued = 0;
  v->op_class = BIOSNOOP_OPCLASS_BLOCK;
  v->op_id = 0;
  v->op_key = 0;
  v->driver_setup_ns = 0;
  v->driver_done_ns = 0;
  fill_task(v);
}

/* The in-flight counter of `dev`; created when `create`. */
static __always_inline __u64 *depth_counter(__u32 dev, bool create) {
  __u32 idx = biosnoop_depth_slot_index(dev);
  struct biosnoop_depth_slot *s = bpf_map_lookup_elem(&depth_slots, &idx);
  if (s) {
    if (s->dev == dev) return &s->inflight;
    if (create && s->dev == 0 &&
        __sync_val_compare_and_swap(&s->dev, 0, (__u64)dev) == 0)
      return &s->inflight;
    if (s->dev == dev) return &s->inflight; /* claimed by another CPU */
  }
  __u64 *v = bpf_map_lookup_elem(&dev_inflight, &dev);
  if (!v && create) {
    __u64 zero = 0;
    bpf_map_update_elem(&dev_inflight, &dev, &zero, BPF_NOEXIST);
    v = bpf_map_lookup_elem(&dev_inflight, &dev);
  }
  return v;
}

static __always_inline void depth_dec(__u32 dev) {
  __u64 *depth = depth_counter(dev, false);
  if (depth && *depth > 0) __sync_fetch_and_add(depth, -1);
}

/* An earlier use of a request, still held when the request is submitted
 * again: its completion was hidden from us (counted as MISSED_REUSE), so
 * the in-flight count its issue added is taken back here; otherwise every
 * later event of the disk would report a queue depth one too high until
 * user space next finds the disk idle (InflightUpkeep). */
static __always_inline void forget_depth(
    const struct biosnoop_inflight_val *old) {
  if (old->issue_ns && !old->requeued) depth_dec(old->dev);
}

/* Submission: the task that turned its bio into this request is current. */
static __always_inline int on_submit(struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  const __u64 id = rq_id(rq);
  /* Our own clock, not rq->start_time_ns: under a plug the block layer
   * reuses one cached timestamp for a whole batch (seen here 1.6 s old).
   * Before 6.5 (at block_rq_insert, queue_from_alloc) the stamp is the
   * allocation's: no plug cached it before 6.9, and the insert may come
   * long after, when the plug is flushed. */
  const __u64 now = bpf_ktime_get_ns();
  __u64 submitted = now;
  if (queue_from_alloc) {
    const __u64 allocated = rq->start_time_ns;
    if (allocated && allocated <= now) submitted = allocated;
  }
  /* Until issue, flags hold only the preflush: such a request waits in
   * the block layer's flush machinery for a flush request, which is the
   * one at the device (user space counts that one as unfinished at exit,
   * not both).  The load is from the request's first cache line, already
   * read for its queue. */
  const __u8 preflush =
      rq->cmd_flags &
              (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH))
          ? BIOSNOOP_FLAG_PREFLUSH
          : 0;
  /* The common case: the request's own slot, written in place. */
  bool reused = false;
  struct biosnoop_inflight_val *s = table_claim(id, &reused);
  if (s) {
    if (reused) {
      count(BIOSNOOP_CTR_MISSED_REUSE);
      forget_depth(s);
    }
    start_entry(s, dev, submitted, preflush);
    if (ops_enabled) op_tag(s, rq, now);
    return 0;
  }
  if (overflow_entries) {
    struct biosnoop_inflight_val *old = bpf_map_lookup_elem(&inflight, &id);
    if (old) forget_depth(old);
  }
  struct biosnoop_inflight_val val = {};
  val.rq = id;
  start_entry(&val, dev, submitted, preflush);
  if (ops_enabled) op_tag(&val, rq, now);
  long err = table_store(&val);
  if (err == 1)
    count(BIOSNOOP_CTR_MISSED_REUSE);
  else if (err)
    count(BIOSNOOP_CTR_MAP_FULL);
  return 0;
}

/* Linux 6.5 (commit "block: add request-level tracepoints for accounting")
 * added block_io_start, fired in the submitter's context for every request.
 * Older kernels use block_rq_insert instead (user space picks one). */
SEC("tp_btf/block_io_start")
int BPF_PROG(handle_io_start, struct request *rq) { return on_submit(rq); }

SEC("tp_btf/block_rq_insert")
int BPF_PROG(handle_rq_insert, struct request *rq) { return on_submit(rq); }

/* Before 6.5 (no block_io_start), a request never inserted (issued
 * directly): its entry, made where it is first seen in the driver's path.
 * The task there is nearly always its submitter (blk_mq_submit_bio issues
 * it in place), and rq->start_time_ns is when it was allocated, by
 * ktime_get_ns() as our clock (before 6.9 no plug cached it; 0 when the
 * queue keeps no I/O statistics). */
static __always_inline void start_unsubmitted(struct biosnoop_inflight_val *v,
                                              struct request *rq, __u32 dev,
                                              __u64 now) {
  const __u64 allocated = rq->start_time_ns;
  start_entry(v, dev, allocated <= now ? allocated : 0, 0);
  v->submit_known = 0;
  if (ops_enabled) op_tag(v, rq, now);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  __u64 id = rq_id(rq);
  __u64 now = bpf_ktime_get_ns();

  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(id, &slot);
  struct biosnoop_inflight_val fresh = {};
  /* The same request issued again after block_rq_requeue keeps what its
   * first issue recorded: a partial completion before the requeue has
   * moved __sector past, and cut __data_len to, the part that is left
   * (the loop driver requeues the rest of a short read), and the event is
   * the whole request's. */
  bool reissue = false;
  if (!v) {
    count(BIOSNOOP_CTR_ISSUE_UNSUBMITTED);
    fresh.rq = id;
    if (queue_from_alloc) {
      start_unsubmitted(&fresh, rq, dev, now);
    } else {
      fill_task(&fresh);
    }
    v = &fresh;
  } else if (v->issue_ns && v->requeued) {
    count(BIOSNOOP_CTR_REQUEUES);
    reissue = true;
  } else if (v->issue_ns) {
    /* Issued again with no requeue and no submission in between: only a
     * request the block layer issues itself (its flush request, one per
     * queue, reused for every flush) comes back so, and then its last
     * completion never reached us. */
    count(BIOSNOOP_CTR_MISSED_REUSE);
    forget_depth(v);
    if (v->op == BIOSNOOP_OP_FLUSH) flush_done(v->dev);
  }

  __u64 *depth = depth_counter(dev, true);
  __u32 qd = 1;
  if (depth) qd = __sync_fetch_and_add(depth, 1) + 1;

  v->issue_ns = now;
  v->requeued = 0;
  v->queue_depth = qd;
  if (reissue) return 0;
  v->dev = dev;
  v->sector = rq->__data_len ? rq->__sector : 0;
  v->bytes = rq->__data_len;
  decode_opf(rq->cmd_flags, &v->op, &v->flags);
  if (v == &fresh && table_store(&fresh) < 0) count(BIOSNOOP_CTR_MAP_FULL);
  return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(handle_rq_requeue, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(rq_id(rq), &slot);
  if (v && v->issue_ns && !v->requeued) {
    depth_dec(dev);
    /* Not started while it waits to be dispatched again: user space must
     * not take it for a completion it missed (Probe::FindMissedCompletions). */
    v->requeued = 1;
  }
  return 0;
}

/* A request merged into its predecessor before issue: it will never
 * complete on its own, so its entry goes now. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(handle_rq_merge, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  __u64 id = rq_id(rq);
  struct biosnoop_inflight_val *slot;
  if (table_find(id, &slot)) {
    table_remove(id, slot);
    count(BIOSNOOP_CTR_RQ_MERGES);
  }
  return 0;
}

/* The driver's layer, NVMe's tracepoints (drivers/nvme/host: every kernel
 * here).  nvme_setup_cmd fires as the driver builds the command, before
 * it starts the request (block_rq_issue); nvme_complete_rq as it ends it,
 * before block_rq_complete (for a batch of completions, each request's
 * fires as the batch is walked, and the batch is ended after).  A
 * requeued request is set up again: its latest stamp counts.  Only NVMe
 * requests pass here: other disks' I/O never runs these programs. */
SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(handle_nvme_setup, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  const __u64 id = rq_id(rq);
  const __u64 now = bpf_ktime_get_ns();
  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(id, &slot);
  if (v) {
    v->driver_setup_ns = now;
  } else if (queue_from_alloc) {
    /* Before 6.5, issued directly: the entry the issue would make, made
     * here so that it holds this stamp (the issue finds it, not issued). */
    struct biosnoop_inflight_val fresh = {};
    fresh.rq = id;
    start_unsubmitted(&fresh, rq, dev, now);
    fresh.driver_setup_ns = now;
    if (table_store(&fresh) < 0) count(BIOSNOOP_CTR_MAP_FULL);
  }
  return 0;
}

SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(handle_nvme_complete, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(rq_id(rq), &slot);
  if (v && v->issue_ns) v->driver_done_ns = bpf_ktime_get_ns();
  return 0;
}

static __always_inline bool passes_filters(
    const struct biosnoop_inflight_val *v, __u64 sector) {
  if (filter_pid && v->pid != filter_pid) return false;
  if (filter_comm_set && !comm_matches(v->comm)) return false;
  if (filter_op == BIOSNOOP_FILTER_OP_READ && v->op != BIOSNOOP_OP_READ)
    return false;
  if (filter_op == BIOSNOOP_FILTER_OP_WRITE && v->op != BIOSNOOP_OP_WRITE)
    return false;
  if (filter_partition &&
      (sector < filter_sectors.start || sector >= filter_sectors.end))
    return false;
  if (filter_cgroup_set && v->outside_cgroup) return false;
  return true;
}

/* preempt_count bits (include/linux/preempt.h): SOFTIRQ_OFFSET is set
 * while softirqs are served (a bare local_bh_disable() adds 2 << 8 and
 * leaves it clear); HARDIRQ_MASK (bits 16-19) and NMI_MASK (bits 20-23
 * now, bit 20 alone in older kernels: one mask covers both layouts, so
 * there is no version branch) while a hard interrupt or an NMI is served. */
#define PC_SOFTIRQ_OFFSET 0x100u
#define PC_HARDIRQ_NMI_MASK 0x00ff0000u

/* What this CPU is doing: the per-CPU preempt_count, found from the
 * current task's runqueue (se.cfs_rq->rq points to this CPU's
 * `runqueues`) at a load-time distance (preempt_count_from_rq), since
 * per-CPU variables are not reachable through __ksym without
 * CONFIG_KALLSYMS_ALL.  Only for an emitted event (four reads through
 * bpf_probe_read_kernel, no per-I/O cost); anything missing or not
 * matching this CPU reads as unknown. */
static __always_inline __u8 completion_context(void) {
  if (!preempt_count_from_rq) return BIOSNOOP_CTX_UNKNOWN;
  /* se.cfs_rq and cfs_rq.rq exist with CONFIG_FAIR_GROUP_SCHED only. */
  if (!bpf_core_field_exists(((struct sched_entity *)0)->cfs_rq) ||
      !bpf_core_field_exists(((struct cfs_rq *)0)->rq))
    return BIOSNOOP_CTX_UNKNOWN;
  struct task_struct *task = bpf_get_current_task_btf();
  struct rq *rq = BPF_CORE_READ(task, se.cfs_rq, rq);
  if (!rq) return BIOSNOOP_CTX_UNKNOWN;
  /* The runqueue must be this CPU's (rq->cpu: CONFIG_SMP). */
  if (bpf_core_field_exists(rq->cpu) &&
      BPF_CORE_READ(rq, cpu) != (int)bpf_get_smp_processor_id())
    return BIOSNOOP_CTX_UNKNOWN;
  __u32 pc = 0;
  if (bpf_probe_read_kernel(&pc, sizeof(pc),
                            (void *)((__u64)rq + preempt_count_from_rq)))
    return BIOSNOOP_CTX_UNKNOWN;
  if (pc & PC_HARDIRQ_NMI_MASK) return BIOSNOOP_CTX_HARDIRQ;
  if (pc & PC_SOFTIRQ_OFFSET) return BIOSNOOP_CTX_SOFTIRQ;
  return BIOSNOOP_CTX_TASK;
}

/* A record for the completion of the request in entry `v`. */
static __always_inline void fill_event(struct biosnoop_event *e,
                                       const struct biosnoop_inflight_val *v,
                                       __u64 now, __u64 device_ns,
                                       __u64 queue_ns, blk_status_t error,
                                       __u32 dev) {
  e->abi_version = BIOSNOOP_ABI_VERSION;
  e->size = sizeof(*e);
  e->kind = BIOSNOOP_REC_EVENT;
  e->op = v->op;
  e->flags = v->flags;
  e->blk_status = error;
  e->complete_ns = now;
  e->device_ns = device_ns;
  e->queue_ns = queue_ns;
  e->sector = v->sector;
  e->dev = dev;
  e->bytes = v->bytes;
  e->pid = v->pid;
  e->tid = v->tid;
  e->queue_depth = v->queue_depth;
  e->submit_known = v->submit_known;
  __builtin_memcpy(e->comm, v->comm, sizeof(e->comm));
  e->cgroup_id = v->cgroup_id;
  e->completion_context = completion_context();
  __builtin_memset(e->pad, 0, sizeof(e->pad));
  e->op_id = v->op_id;
  const __u64 setup = v->driver_setup_ns, done = v->driver_done_ns;
  e->driver_prep_ns = setup && setup <= v->issue_ns ? v->issue_ns - setup : 0;
  e->driver_done_ns =
      done && done >= v->issue_ns && done <= now ? now - done : 0;
  e->reserved[0] = 0;
}

/* `nest`: 0 for the primary completion program, 1 for the rescue, which
 * runs nested in it (each has its own record buffer). */
static __always_inline int on_complete(struct request *rq, blk_status_t error,
                                       unsigned int nr_bytes, __u32 nest) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  __u64 now = bpf_ktime_get_ns();
  __u64 id = rq_id(rq);
  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(id, &slot);
  if (!v || !v->issue_ns) {
    /* Submitted but its issue never seen: the entry goes with it.  The
     * common case is the block layer's flush machinery: an fsync's empty
     * preflush request is never issued itself; a flush request of the
     * block layer's own goes to the device for it (an event of its own)
     * and the original completes after it. */
    if (v) {
      /* A call's own empty preflush (blkdev_issue_flush's) ends so: its
       * call counts it as a flush it waited for from its submission. */
      if (ops_enabled && v->op_id && v->submit_ns && v->submit_ns <= now)
        op_complete(v, now, now - v->submit_ns, BIOSNOOP_QUEUE_UNKNOWN);
      table_remove(id, slot);
      count(BIOSNOOP_CTR_ORPHANS_UNISSUED);
    } else if ((rq->cmd_flags & 0xff) ==
               bpf_core_enum_value(enum req_op, REQ_OP_FLUSH)) {
      flush_done(dev); /* in flight when we started */
    }
    count(BIOSNOOP_CTR_COMPLETIONS);
    count(BIOSNOOP_CTR_ORPHANS);
    return 0;
  }

  /* Partial completion: the kernel advances __sector by nr_bytes after this
   * tracepoint; the entry, keyed by the request, stays for the final one. */
  if (nr_bytes > 0 && nr_bytes < rq->__data_len) {
    count(BIOSNOOP_CTR_PARTIAL);
    return 0;
  }

  /* The entry is read in place and freed last: only this completion frees
   * a live request's entry, and no one reuses it before. */
  count(BIOSNOOP_CTR_COMPLETIONS);
  depth_dec(dev);
  if (v->op == BIOSNOOP_OP_FLUSH) flush_done(dev);
  __u64 issue_ns = v->issue_ns;
  __u64 submit_ns = v->submit_ns;
  __u64 device_ns = now - issue_ns;
  __u64 queue_ns = submit_ns && submit_ns <= issue_ns ? issue_ns - submit_ns
                                                      : BIOSNOOP_QUEUE_UNKNOWN;
  /* A call's own request is also one that other calls may wait for (a
   * writer's fdatasync data that a journal commit waits for). */
  if (ops_enabled) {
    const bool owned = v->op_id && op_complete(v, now, device_ns, queue_ns);
    if ((sync_ops_active || waiting_ops_active) &&
        (v->op == BIOSNOOP_OP_WRITE || v->op == BIOSNOOP_OP_FLUSH))
      op_waited(v, rq, now, device_ns, queue_ns, nest, owned);
  }
  __u64 latency = device_ns;
  if (include_queue && queue_ns != BIOSNOOP_QUEUE_UNKNOWN) latency += queue_ns;
  if (!passes_filters(v, v->sector)) {
    count(BIOSNOOP_CTR_FILTERED);
    table_remove(id, slot);
    return 0;
  }
  bool slow = latency >= min_ns;
  if (hist_enabled)
    hist_count(biosnoop_hist_key(dev, v->op, v->flags), latency, v->bytes,
               (slow ? HIST_SLOW : 0) | (error != 0 ? HIST_FAILED : 0));
  /* A failed I/O is an event however fast it failed: a disk that answers
   * with errors at once is an incident too, and only the event says which
   * I/O failed. */
  bool wanted = slow || error != 0;
  if (!wanted || events_disabled) {
    if (!wanted) count(BIOSNOOP_CTR_BELOW_THRESHOLD);
    table_remove(id, slot);
    return 0;
  }

  if (files_enabled) {
    /* The event with what its pages hold, built in this CPU's buffer and
     * copied out at its own length. */
    struct biosnoop_record_buf *b = bpf_map_lookup_elem(&record_buf, &nest);
    if (!b) {
      count(BIOSNOOP_CTR_ATTR_LOST);
    } else {
      fill_event(&b->ev, v, now, device_ns, queue_ns, error, dev);
      attribute(b, rq, v->op);
      table_remove(id, slot);
      __u32 names = b->attr.names_len;
      if (names > BIOSNOOP_NAMES_BYTES) names = BIOSNOOP_NAMES_BYTES;
      __u32 size = sizeof(b->ev) + sizeof(b->attr) + names;
      b->ev.size = size;
      if (bpf_ringbuf_output(&events, b, size, wakeup_flags(now))) {
        count(BIOSNOOP_CTR_LOST);
        return 0;
      }
      count(BIOSNOOP_CTR_EMITTED);
      return 0;
    }
  }

  struct biosnoop_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) {
    count(BIOSNOOP_CTR_LOST);
    table_remove(id, slot);
    return 0;
  }
  fill_event(e, v, now, device_ns, queue_ns, error, dev);
  table_remove(id, slot);
  bpf_ringbuf_submit(e, wakeup_flags(now));
  count(BIOSNOOP_CTR_EMITTED);
  return 0;
}

/* The rescue program.  The kernel never runs a BPF program nested in
 * itself on one CPU: if an interrupt completes a request while our program
 * runs for another (NVMe completes in hardirq, on top of a softirq or
 * task-context completion), the nested run is skipped and only counted in
 * bpf_prog_info.recursion_misses.  So the completion hook is attached
 * twice: the primary marks itself running on this CPU; the rescue,
 * attached after it and so called after it for every completion, does the
 * work only when it finds the primary running, i.e. when the primary was
 * skipped for this completion.  A loss then needs both skipped (three
 * levels of nesting), and is counted as recursion_misses(primary) -
 * rescued.  Since every attached program costs every I/O a run, user space
 * attaches the rescue only once the primary's recursion_misses shows a
 * skip (Probe::RescueIfSkipped), or from the start with --rescue always.
 * Submission and issue have no rescue: they run in task context
 * (nesting there needs an interrupt that submits or issues I/O itself),
 * and each extra program on a hook costs every I/O a run (up to ~1.5% of
 * the reference benchmark's IOPS for an empty one, BENCHMARKS.md); their
 * rare skips are counted. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_rq_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  __u32 zero = 0;
  __u64 *running = bpf_map_lookup_elem(&complete_running, &zero);
  if (running) *running = 1;
  on_complete(rq, error, nr_bytes, 0);
  if (running) *running = 0;
  return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rescue_rq_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  __u32 zero = 0;
  __u64 *running = bpf_map_lookup_elem(&complete_running, &zero);
  if (!running || !*running) return 0;
  count(BIOSNOOP_CTR_RESCUED_COMPLETE);
  return on_complete(rq, error, nr_bytes, 1);
}

/* The files of a request still in flight (a stuck record's), run by user
 * space through BPF_PROG_TEST_RUN, never attached: args[0] is the
 * request's id (rq_id), args[1] its entry's issue_ns.  The request is no
 * trusted pointer here, so every read is a probe read (attribute_bios
 * reads through BPF_CORE_READ; its first bio is read here).  Its pages
 * are held (locked, or under writeback) until its completion, which frees
 * its entry first (on_complete): so the walk is kept only if the entry
 * still holds the same issue before and after it, and the request still
 * its first bio and its issue's size (a partial completion ends bios
 * without freeing the entry).  Otherwise it may have read a completed request's
 * pages, and is discarded.  Returns 1 with stuck_buf's attr and names
 * filled, 0 when discarded. */
SEC("raw_tp")
int attr_stuck(struct bpf_raw_tracepoint_args *ctx) {
  __u64 id = ctx->args[0];
  __u64 issue_ns = ctx->args[1];
  __u32 zero = 0;
  struct biosnoop_record_buf *b = bpf_map_lookup_elem(&stuck_buf, &zero);
  if (!b) return 0;
  b->ev.size = 0;
  struct biosnoop_inflight_val *slot;
  struct biosnoop_inflight_val *v = table_find(id, &slot);
  if (!v || v->issue_ns != issue_ns || v->requeued) return 0;
  __u8 op = v->op;
  __u32 bytes = v->bytes;
  /* The request's address: the base's as a number (a map value pointer
   * takes no unbounded offset), plus the id. */
  char *base_ptr = &rq_id_base;
  __u64 base = 0;
  if (bpf_probe_read_kernel(&base, sizeof(base), &base_ptr)) return 0;
  struct request *rq = (struct request *)(base + id);
  if (BPF_CORE_READ(rq, __data_len) != bytes) return 0;
  struct bio *first = BPF_CORE_READ(rq, bio);
  attribute_bios(b, first, op);
  barrier();
  v = table_find(id, &slot);
  if (!v || v->issue_ns != issue_ns || v->requeued) return 0;
  /* A partial completion unlinks each bio it ends from rq->bio before
   * ending it, and cuts __data_len after. */
  if (BPF_CORE_READ(rq, bio) != first) return 0;
  if (BPF_CORE_READ(rq, __data_len) != bytes) return 0;
  __u32 names = b->attr.names_len;
  if (names > BIOSNOOP_NAMES_BYTES) names = BIOSNOOP_NAMES_BYTES;
  b->ev.size = sizeof(b->ev) + sizeof(b->attr) + names;
  return 1;
}

/* The dirtied-page ledger (attribution.bpf.h): attached only with it on. */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(handle_dirty_folio, struct folio *folio,
             struct address_space *mapping) {
  __u64 op_id = ops_enabled ? op_dirtying() : 0;
  if (mapping) ledger_note(folio, mapping, op_id);
  return 0;
}

/* Calls (ops.bpf.h): attached only with --ops.  Each program that looks a
 * call's file up comes twice: with bpf_rdonly_cast (Linux 6.2+), and with
 * probe reads (`_nocast`) for older kernels; user space loads one
 * (kernel_features.h). */
static __always_inline int on_sys_enter(struct pt_regs *regs, long id,
                                        bool cast) {
  if ((unsigned long)id >= BIOSNOOP_MAX_SYSCALL_NR) return 0;
  __u8 call = syscall_calls[id];
  if (!call || call == BIOSNOOP_CALL_IO_URING_ENTER) return 0;
  return op_enter(regs, call, cast);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_sys_enter, struct pt_regs *regs, long id) {
  return on_sys_enter(regs, id, true);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_sys_enter_nocast, struct pt_regs *regs, long id) {
  return on_sys_enter(regs, id, false);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(handle_sys_exit, struct pt_regs *regs, long ret) {
  return op_exit(regs, ret);
}

/* A call's bios on their way to requests (ops.bpf.h, throttle): every
 * bio's, returning at once for a thread in no followed call.  The four
 * tracepoints take the bio alone since Linux 5.11 (commit "block: remove
 * the request_queue argument to the block_bio_* tracepoints"). */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(handle_bio_queue, struct bio *bio) {
  op_bio_queued(bio);
  return 0;
}

SEC("tp_btf/block_getrq")
int BPF_PROG(handle_getrq, struct bio *bio) {
  op_bio_request();
  return 0;
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(handle_bio_backmerge, struct bio *bio) {
  op_bio_request();
  return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(handle_bio_frontmerge, struct bio *bio) {
  op_bio_request();
  return 0;
}

/* A write call's sleeps for writeback (ops.bpf.h, op_sleep_begin).  Only
 * the first argument of balance_dirty_pages is named: the others differ
 * between Debian's 6.1 (twelve numbers) and later kernels (6.18 passes a
 * struct dirty_throttle_control in place of six of them), and none is
 * read: the sleep is timed, not taken from `pause`. */
SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(handle_balance_dirty, struct bdi_writeback *wb) {
  op_sleep_begin(NULL, NULL);
  return 0;
}

SEC("tp_btf/folio_wait_writeback")
int BPF_PROG(handle_folio_wait_writeback, struct folio *folio,
             struct address_space *mapping) {
  if (mapping) op_sleep_begin(folio, mapping->host);
  return 0;
}

/* io_uring's submission tracepoint is io_uring_submit_req since Linux 6.4
 * (commit "io_uring: rename trace_io_uring_submit_sqe() tracepoint"),
 * io_uring_submit_sqe before, with the same request first.  Kernels
 * before 6.2 have no bpf_rdonly_cast, and all of them name it _sqe: that
 * program reads with probe reads (6.2 and 6.3 lose only speed). */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(handle_uring_submit, struct io_kiocb *req) {
  return op_uring_submit(req, true);
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(handle_uring_submit_sqe, struct io_kiocb *req) {
  return op_uring_submit(req, false);
}

/* io_uring_complete's arguments: (ctx, req, cqe) since Linux 6.13, the
 * CQE's fields one by one (ctx, req, user_data, res, cflags, extra1,
 * extra2) before.  User space tells which from the tracepoint's prototype
 * in the kernel's BTF (kernel_features.cc) and loads the matching one: the
 * verifier refuses a program whose arguments do not match. */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete, struct io_ring_ctx *ring, void *req,
             struct io_uring_cqe *cqe) {
  return op_uring_complete(req, cqe ? cqe->res : 0);
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(handle_uring_complete_fields, void *ring, void *req,
             __u64 user_data, int res) {
  return op_uring_complete(req, res);
}

_Static_assert(sizeof(struct biosnoop_hist) ==
                   8 * (6 + 2 * BIOSNOOP_HIST_BUCKETS),
               "struct biosnoop_hist layout changed: change both sides");
_Static_assert(sizeof(struct biosnoop_hist_fine) ==
                   8 * (1 + BIOSNOOP_HIST_FINE_BUCKETS),
               "struct biosnoop_hist_fine layout changed: change both sides");
_Static_assert(sizeof(struct biosnoop_op_record) == 736,
               "struct biosnoop_op_record layout changed: bump "
               "BIOSNOOP_ABI_VERSION");
_Static_assert(
    sizeof(struct biosnoop_event) == 128,
    "struct biosnoop_event layout changed: bump BIOSNOOP_ABI_VERSION");
_Static_assert(sizeof(struct biosnoop_inflight_val) == 128,
               "an in-flight entry is two whole cache lines (biosnoop_abi.h)");
