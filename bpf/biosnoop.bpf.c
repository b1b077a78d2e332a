// SPDX-License-Identifier: GPL-2.0
/* biosnoop kernel side: follow each block request from submission to
 * completion and emit one ring-buffer record per completion slower than the
 * threshold.
 *
 * Hooks are tp_btf only (no kprobes: the target kernel has none; no tracefs
 * needed).  Every kernel structure is read through CO-RE relocations; no
 * tracepoint record offsets are hard-coded.
 *
 * In-flight state is keyed by (dev, sector).  The traps of that key and what
 * we do about each (all counted, see enum biosnoop_counter):
 *  - flush requests carry no sector and several may be in flight: data-less
 *    requests are keyed by (dev, request address) instead (kind = 1);
 *  - a front merge moves the start sector after submission: the entry is
 *    moved to the new key on block_bio_frontmerge;
 *  - a partial completion advances the sector: the entry is moved to the
 *    advanced sector and the record is emitted at the final completion;
 *  - a completion with no recorded issue (tracer started mid-flight) is an
 *    orphan: counted, never emitted with made-up data;
 *  - a second issue on an existing key is either a requeue of the same
 *    request (same request address: counted as a requeue) or a different
 *    request (counted as a duplicate and replaces the entry).  Every entry
 *    stores the request address, and a completion whose address does not
 *    match the entry is an orphan, so one request's metadata is never
 *    reported for another.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "biosnoop_abi.h"

char LICENSE[] SEC("license") = "GPL";


/* Set by user space before load.  __u64-style types only: the generated
 * skeleton header does not see vmlinux.h. */
const volatile __u64 min_ns = 0;
const volatile __u32 include_queue = 0;
const volatile __u32 filter_dev = 0; /* 0 = every disk */
const volatile __u64 filter_sector_start = 0;
const volatile __u64 filter_sector_end = ~0ULL; /* exclusive */
const volatile __u32 filter_pid = 0;            /* 0 = every process */
const volatile __u32 filter_comm_set = 0;
const volatile char filter_comm[16] = {};
const volatile __u32 filter_op = BIOSNOOP_FILTER_OP_ANY;
/* Histogram-only mode (--hist): count, never emit. */
const volatile __u32 events_disabled = 0;


/* Requests issued and not yet completed, per disk: a small array indexed
 * by a hash of dev (an inlined lookup, no hash-map bucket walk), each slot
 * claimed by one disk; disks whose slot is taken use the hash map. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, BIOSNOOP_DEPTH_SLOTS);
  __type(key, __u32);
  __type(value, struct biosnoop_depth_slot);
} depth_slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32);
  __type(value, __u64);
} dev_inflight SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, BIOSNOOP_CTR_MAX);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 * 1024 * 1024); /* resized by user space */
} events SEC(".maps");

static __always_inline void count(__u32 idx) {
  __u64 *v = bpf_map_lookup_elem(&counters, &idx);
  if (v) *v += 1;
}

#include "hist.bpf.h"
#include "inflight_table.bpf.h"

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

/* The request's address as a number: it names the request while it is in
 * flight.  The verifier allows no arithmetic on a trusted pointer, so the
 * value is copied out through the stack. */
static __always_inline __u64 rq_id(struct request *rq) {
  __u64 id = 0;
  bpf_probe_read_kernel(&id, sizeof(id), &rq);
  return id;
}

static __always_inline bool dev_wanted(__u32 dev) {
  return dev != 0 && (filter_dev == 0 || dev == filter_dev);
}

static __always_inline void make_key(struct biosnoop_inflight_key *key, __u32 dev,
                                     struct request *rq, __u64 id) {
  key->dev = dev;
  if (rq->__data_len == 0) {
    key->kind = BIOSNOOP_KEY_DATALESS;
    key->sector = id;
  } else {
    key->kind = BIOSNOOP_KEY_SECTOR;
    key->sector = rq->__sector;
  }
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

/* comm is read with two plain loads from the trusted task pointer: about
 * 100 ns cheaper per I/O than bpf_get_current_comm()'s strscpy, and as racy
 * as the kernel's own readers against a concurrent prctl(PR_SET_NAME). */
static __always_inline void fill_task(struct biosnoop_inflight_val *v) {
  __u64 id = bpf_get_current_pid_tgid();
  v->pid = id >> 32;
  v->tid = (__u32)id;
  struct task_struct *task = bpf_get_current_task_btf();
  __u64 *dst = (__u64 *)v->comm;
  dst[0] = *(__u64 *)&task->comm[0];
  dst[1] = *(__u64 *)&task->comm[8];
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

/* Submission: the task that turned its bio into this request is current. */
static __always_inline int on_submit(struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  struct biosnoop_inflight_key key = {};
  __u64 id = rq_id(rq);
  make_key(&key, dev, rq, id);
  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *old = table_find(&key, &slot);
  if (old && old->rq != id) count(BIOSNOOP_CTR_DUP_ISSUE);
  struct biosnoop_inflight_val val = {};
  val.rq = id;
  val.submit_ns = bpf_ktime_get_ns();
  val.submit_known = 1;
  fill_task(&val);
  long err = table_store(&key, &val);
  if (err) count(BIOSNOOP_CTR_MAP_FULL);
  return 0;
}

/* Linux 6.5 (commit "block: add request-level tracepoints for accounting")
 * added block_io_start, fired in the submitter's context for every request.
 * Older kernels use block_rq_insert instead (user space picks one). */
/* Rescue programs.  The kernel never runs a BPF program nested in itself
 * on one CPU: if an interrupt completes (or issues) a request while our
 * program runs for another, the nested run is skipped and only counted in
 * bpf_prog_info.recursion_misses.  So each hot hook is attached twice: the
 * primary marks itself running on this CPU; the rescue, attached after it
 * and so called after it for every event, does the work only when it finds
 * the primary running, i.e. when the primary was skipped for this event.
 * A loss then needs both skipped (three levels of nesting), and is counted
 * as recursion_misses(primary) - rescued. */
struct hook_state {
  __u64 running[BIOSNOOP_HOOKS];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct hook_state);
} hook_states SEC(".maps");

static __always_inline struct hook_state *hook_state(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&hook_states, &zero);
}

#define PRIMARY(hook, call)                 \
  do {                                      \
    struct hook_state *st = hook_state();   \
    if (st) st->running[hook] = 1;          \
    call;                                   \
    if (st) st->running[hook] = 0;          \
  } while (0)

#define RESCUE(hook, counter, call)                 \
  do {                                              \
    struct hook_state *st = hook_state();           \
    if (!st || !st->running[hook]) return 0;        \
    count(counter);                                 \
    call;                                           \
  } while (0)

/* Linux 6.5 (commit "block: add request-level tracepoints for accounting")
 * added block_io_start, fired in the submitter's context for every request.
 * Older kernels use block_rq_insert instead (user space picks one). */
SEC("tp_btf/block_io_start")
int BPF_PROG(handle_io_start, struct request *rq) {
  PRIMARY(BIOSNOOP_HOOK_SUBMIT, on_submit(rq));
  return 0;
}

SEC("tp_btf/block_io_start")
int BPF_PROG(rescue_io_start, struct request *rq) {
  RESCUE(BIOSNOOP_HOOK_SUBMIT, BIOSNOOP_CTR_RESCUED_SUBMIT, on_submit(rq));
  return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(handle_rq_insert, struct request *rq) {
  PRIMARY(BIOSNOOP_HOOK_SUBMIT, on_submit(rq));
  return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(rescue_rq_insert, struct request *rq) {
  RESCUE(BIOSNOOP_HOOK_SUBMIT, BIOSNOOP_CTR_RESCUED_SUBMIT, on_submit(rq));
  return 0;
}

static __always_inline int on_issue(struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  struct biosnoop_inflight_key key = {};
  __u64 id = rq_id(rq);
  make_key(&key, dev, rq, id);
  __u64 now = bpf_ktime_get_ns();

  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *v = table_find(&key, &slot);
  if (v && v->rq != id) {
    /* Another request holds this key: the newer one replaces it. */
    count(BIOSNOOP_CTR_DUP_ISSUE);
    v = 0;
  } else if (v && v->issue_ns) {
    /* Same request issued again after block_rq_requeue. */
    count(BIOSNOOP_CTR_REQUEUES);
  }
  struct biosnoop_inflight_val fresh = {};
  if (!v) {
    count(BIOSNOOP_CTR_ISSUE_UNSUBMITTED);
    fresh.rq = id;
    fill_task(&fresh);
    v = &fresh;
  }

  __u64 *depth = depth_counter(dev, true);
  __u32 qd = 1;
  if (depth) qd = __sync_fetch_and_add(depth, 1) + 1;

  v->issue_ns = now;
  v->requeued = 0;
  v->sector = key.kind == BIOSNOOP_KEY_SECTOR ? key.sector : 0;
  v->bytes = rq->__data_len;
  v->queue_depth = qd;
  decode_opf(rq->cmd_flags, &v->op, &v->flags);
  if (v == &fresh && table_store(&key, &fresh))
    count(BIOSNOOP_CTR_MAP_FULL);
  return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(handle_rq_issue, struct request *rq) {
  PRIMARY(BIOSNOOP_HOOK_ISSUE, on_issue(rq));
  return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(rescue_rq_issue, struct request *rq) {
  RESCUE(BIOSNOOP_HOOK_ISSUE, BIOSNOOP_CTR_RESCUED_ISSUE, on_issue(rq));
  return 0;
}

static __always_inline void depth_dec(__u32 dev) {
  __u64 *depth = depth_counter(dev, false);
  if (depth && *depth > 0) __sync_fetch_and_add(depth, -1);
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(handle_rq_requeue, struct request *rq) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  struct biosnoop_inflight_key key = {};
  __u64 id = rq_id(rq);
  make_key(&key, dev, rq, id);
  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *v = table_find(&key, &slot);
  if (v && v->rq == id && v->issue_ns) {
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
  struct biosnoop_inflight_key key = {};
  __u64 id = rq_id(rq);
  make_key(&key, dev, rq, id);
  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *v = table_find(&key, &slot);
  if (v && v->rq == id) {
    table_remove(&key, slot, id);
    count(BIOSNOOP_CTR_RQ_MERGES);
  }
  return 0;
}

/* Fired before the kernel moves the request's start back to the bio's
 * sector: the entry sits at bio sector + bio sectors and must follow. */
SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(handle_bio_frontmerge, struct bio *bio) {
  __u32 dev = disk_dev(bio->bi_bdev->bd_disk);
  if (!dev_wanted(dev)) return 0;
  __u64 sector = bio->bi_iter.bi_sector;
  __u32 size = bio->bi_iter.bi_size;
  struct biosnoop_inflight_key old_key = {.dev = dev, .kind = BIOSNOOP_KEY_SECTOR,
                                 .sector = sector + (size >> 9)};
  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *v = table_find(&old_key, &slot);
  if (!v) return 0;
  struct biosnoop_inflight_val moved = *v;
  if (!moved.rq) return 0;
  struct biosnoop_inflight_key new_key = {.dev = dev, .kind = BIOSNOOP_KEY_SECTOR,
                                 .sector = sector};
  table_remove(&old_key, slot, moved.rq);
  if (table_store(&new_key, &moved)) count(BIOSNOOP_CTR_MAP_FULL);
  count(BIOSNOOP_CTR_FRONT_MERGES);
  return 0;
}

static __always_inline bool comm_matches(const char *comm) {
#pragma unroll
  for (int i = 0; i < 16; i++) {
    if (comm[i] != filter_comm[i]) return false;
    if (comm[i] == 0) return true;
  }
  return true;
}

static __always_inline bool passes_filters(const struct biosnoop_inflight_val *v,
                                           __u64 sector) {
  if (filter_pid && v->pid != filter_pid) return false;
  if (filter_comm_set && !comm_matches(v->comm)) return false;
  if (filter_op == BIOSNOOP_FILTER_OP_READ && v->op != BIOSNOOP_OP_READ)
    return false;
  if (filter_op == BIOSNOOP_FILTER_OP_WRITE && v->op != BIOSNOOP_OP_WRITE)
    return false;
  if (sector < filter_sector_start || sector >= filter_sector_end) return false;
  return true;
}

/* Waking the consumer costs more than writing the record (an irq_work and
 * a task wakeup per record, ~1 us).  So a record wakes it only when a
 * batch has built up (wakeup_batch_bytes) or when nothing woke it for
 * wakeup_delay_ns, which makes a lone slow event wake it at once; records
 * submitted in between wait for the next wakeup or the consumer's own poll
 * timeout (user space polls every 10 ms), which bounds their delay. */
const volatile __u64 wakeup_batch_bytes = 256 * 1024;
const volatile __u64 wakeup_delay_ns = 5000000;
__u64 last_wakeup_ns = 0;

static __always_inline __u64 wakeup_flags(__u64 now) {
  if (now - last_wakeup_ns >= wakeup_delay_ns ||
      bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_batch_bytes) {
    last_wakeup_ns = now;
    return BPF_RB_FORCE_WAKEUP;
  }
  return BPF_RB_NO_WAKEUP;
}

static __always_inline int on_complete(struct request *rq, blk_status_t error,
                                       unsigned int nr_bytes) {
  __u32 dev = rq_dev(rq);
  if (!dev_wanted(dev)) return 0;
  __u64 now = bpf_ktime_get_ns();
  struct biosnoop_inflight_key key = {};
  __u64 id = rq_id(rq);
  make_key(&key, dev, rq, id);
  struct biosnoop_slot *slot;
  struct biosnoop_inflight_val *v = table_find(&key, &slot);
  if (!v || v->rq != id || !v->issue_ns) {
    /* Submitted but its issue never seen: the entry goes with it. */
    if (v && v->rq == id) table_remove(&key, slot, id);
    count(BIOSNOOP_CTR_COMPLETIONS);
    count(BIOSNOOP_CTR_ORPHANS);
    return 0;
  }

  /* Partial completion: the kernel advances __sector by nr_bytes after this
   * tracepoint; move the entry there and report at the final completion. */
  __u32 remaining = rq->__data_len;
  if (key.kind == BIOSNOOP_KEY_SECTOR && nr_bytes > 0 && nr_bytes < remaining) {
    struct biosnoop_inflight_val moved = *v;
    struct biosnoop_inflight_key next = key;
    next.sector += nr_bytes >> 9;
    table_remove(&key, slot, id);
    if (table_store(&next, &moved)) count(BIOSNOOP_CTR_MAP_FULL);
    count(BIOSNOOP_CTR_PARTIAL);
    return 0;
  }

  /* Copy out before removing: the slot or element is reused at once.  If
   * another request took the entry over while we copied, it is not ours. */
  struct biosnoop_inflight_val val = *v;
  if (val.rq != id) {
    count(BIOSNOOP_CTR_COMPLETIONS);
    count(BIOSNOOP_CTR_ORPHANS);
    return 0;
  }
  table_remove(&key, slot, id);
  depth_dec(dev);
  count(BIOSNOOP_CTR_COMPLETIONS);

  __u64 device_ns = now - val.issue_ns;
  __u64 queue_ns = val.submit_ns && val.submit_ns <= val.issue_ns
                       ? val.issue_ns - val.submit_ns
                       : BIOSNOOP_QUEUE_UNKNOWN;
  __u64 latency = device_ns;
  if (include_queue && queue_ns != BIOSNOOP_QUEUE_UNKNOWN)
    latency += queue_ns;
  __u64 sector = val.sector;
  if (!passes_filters(&val, sector)) {
    count(BIOSNOOP_CTR_FILTERED);
    return 0;
  }
  bool slow = latency >= min_ns;
  if (hist_enabled)
    hist_count(dev, val.op, val.flags, latency, val.bytes, slow);
  if (!slow) {
    count(BIOSNOOP_CTR_BELOW_THRESHOLD);
    return 0;
  }
  if (events_disabled) return 0;

  struct biosnoop_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) {
    count(BIOSNOOP_CTR_LOST);
    return 0;
  }
  e->abi_version = BIOSNOOP_ABI_VERSION;
  e->size = sizeof(*e);
  e->kind = BIOSNOOP_REC_EVENT;
  e->op = val.op;
  e->flags = val.flags;
  e->blk_status = error;
  e->complete_ns = now;
  e->device_ns = device_ns;
  e->queue_ns = queue_ns;
  e->sector = sector;
  e->dev = dev;
  e->bytes = val.bytes;
  e->pid = val.pid;
  e->tid = val.tid;
  e->queue_depth = val.queue_depth;
  e->submit_known = val.submit_known;
  __builtin_memcpy(e->comm, val.comm, sizeof(e->comm));
  e->reserved[0] = 0;
  e->reserved[1] = 0;
  e->reserved[2] = 0;
  e->reserved[3] = 0;
  bpf_ringbuf_submit(e, wakeup_flags(now));
  count(BIOSNOOP_CTR_EMITTED);
  return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(handle_rq_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  PRIMARY(BIOSNOOP_HOOK_COMPLETE, on_complete(rq, error, nr_bytes));
  return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rescue_rq_complete, struct request *rq, blk_status_t error,
             unsigned int nr_bytes) {
  RESCUE(BIOSNOOP_HOOK_COMPLETE, BIOSNOOP_CTR_RESCUED_COMPLETE,
         on_complete(rq, error, nr_bytes));
  return 0;
}

_Static_assert(sizeof(struct biosnoop_event) == 112,
               "struct biosnoop_event layout changed: bump BIOSNOOP_ABI_VERSION");
