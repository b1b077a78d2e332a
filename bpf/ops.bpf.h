/* Calls (--ops, issue #29): the application calls on files that waited
 * for block I/O, each with its latency split into layers.
 *
 * A call is followed from sys_enter to sys_exit (tp_btf on the raw
 * syscall tracepoints, one program each, attached only with --ops: they
 * run for every syscall of the machine, and return at once unless its
 * number is one of the followed calls, syscall_calls[]).  At entry, the
 * descriptor's file must be a regular file of a file system on a tracked
 * disk, and the thread must pass -p/--comm/--cgroup; else nothing is kept.
 * A followed call gets an op_id and an entry in `ops` under its thread id.
 *
 * Its block requests: block_io_start runs in the submitting thread, so a
 * request submitted while its thread is in a followed call is tagged with
 * the call (op_tag: the entry's op_id and op_key); its completion adds to
 * the call's layer (op_complete).  A request of an fsync-family call that
 * carries the synced file's pages is writeback (the call forced dirty data
 * out; its first page's dirtying time comes from the ledger); any other is
 * the block layer's.  While an fsync-family call runs, its file is in
 * `syncing`: a write of that file's pages that another thread (the
 * flusher) submitted and that completes meanwhile is writeback the call
 * waited for (op_waited).  Waits: the time during which the call had at least
 * one request in flight, block taking precedence over writeback, measured
 * by segments between changes of the in-flight counts (op_segment); each
 * segment is counted once (an atomic exchange of its start), even when two
 * CPUs change the counts at once.  The rest of the call is "other".
 *
 * io_uring: io_uring_submit_req fires in the submitting thread before the
 * request is issued (and its bios submitted, inline when the file allows
 * it); the call's entry is keyed by the request's address, and a marker
 * under the thread's id names it while io_uring_enter runs, so op_tag
 * finds it.  io_uring_complete ends it.  Requests punted to io-wq workers
 * submit their bios from the worker: those are not tied to the call.
 */
#ifndef BIOSNOOP_BPF_OPS_BPF_H_
#define BIOSNOOP_BPF_OPS_BPF_H_

// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
// clang-format on

#include "attribution.bpf.h"
#include "biosnoop_abi.h"
#include "counters.bpf.h"
#include "filters.bpf.h"
#include "maps.bpf.h"
#include "op_file.bpf.h"

static __always_inline bool op_call_is_sync(__u8 call) {
  return call == BIOSNOOP_CALL_FSYNC || call == BIOSNOOP_CALL_FDATASYNC ||
         call == BIOSNOOP_CALL_SYNC_FILE_RANGE ||
         call == BIOSNOOP_CALL_URING_FSYNC;
}

static __always_inline bool op_call_is_write(__u8 call) {
  return call == BIOSNOOP_CALL_WRITE || call == BIOSNOOP_CALL_PWRITE64 ||
         call == BIOSNOOP_CALL_WRITEV || call == BIOSNOOP_CALL_PWRITEV ||
         call == BIOSNOOP_CALL_URING_WRITE;
}

/* The call the current thread is in (an io_uring request being issued
 * through its marker), with its key in `ops`; NULL when none. */
static __always_inline struct biosnoop_op_state *op_current(__u64 *key) {
  struct task_struct *task = bpf_get_current_task_btf();
  __u64 k = (__u32)task->pid;
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&ops, &k);
  if (st && st->marker) {
    k = st->uring_key;
    st = bpf_map_lookup_elem(&ops, &k);
  }
  *key = k;
  /* A thread's entry stays between its calls, ended (op_id 0). */
  if (st && !st->op_id) return NULL;
  return st;
}

/* The layer of a call that requests of class `cls` (BIOSNOOP_OPCLASS_*)
 * count in. */
static __always_inline struct biosnoop_op_layer *op_layer_of(
    struct biosnoop_op_state *st, __u8 cls) {
  switch (cls) {
    case BIOSNOOP_OPCLASS_WRITEBACK:
      return &st->writeback;
    case BIOSNOOP_OPCLASS_JOURNAL:
      return &st->journal;
    case BIOSNOOP_OPCLASS_FLUSH:
      return &st->flush;
    case BIOSNOOP_OPCLASS_OTHERS:
      return &st->others;
    default:
      return &st->block;
  }
}

/* The count of the call's own requests of class `cls` in flight. */
static __always_inline __u64 *op_count_of(struct biosnoop_op_state *st,
                                          __u8 cls) {
  switch (cls) {
    case BIOSNOOP_OPCLASS_WRITEBACK:
      return &st->n_wb;
    case BIOSNOOP_OPCLASS_JOURNAL:
      return &st->n_journal;
    case BIOSNOOP_OPCLASS_FLUSH:
      return &st->n_flush;
    default:
      return &st->n_block;
  }
}

/* A segment of the call's time ends now.  While one of its own requests
 * was in flight it counts for the first such layer in the order block,
 * writeback, journal, flush (a call's own requests of two layers at once
 * are rare: a flush it issued after its data); else, while one of its
 * bios waited to become a request, for throttle; else, while a write call
 * slept for writeback (op_sleep_begin), for that sleep's layer.
 * Otherwise it counts for
 * layer `waited` (a request of class `waited` the call waited for but did
 * not submit, op_waited: from the request's submission `since`, if later
 * than the segment's start); with `waited` BIOSNOOP_OPCLASS_COUNT, for none.
 * The exchange hands each segment's start to exactly one caller.  Returns
 * the time given to `waited`. */
static __always_inline __u64 op_segment_waited(struct biosnoop_op_state *st,
                                               __u64 now, __u8 waited,
                                               __u64 since) {
  __u64 prev = __sync_lock_test_and_set(&st->last_change, now);
  if (now <= prev) return 0;
  if (st->n_block) {
    __sync_fetch_and_add(&st->block.wait_ns, now - prev);
  } else if (st->n_wb) {
    __sync_fetch_and_add(&st->writeback.wait_ns, now - prev);
  } else if (st->n_journal) {
    __sync_fetch_and_add(&st->journal.wait_ns, now - prev);
  } else if (st->n_flush) {
    __sync_fetch_and_add(&st->flush.wait_ns, now - prev);
  } else if (st->n_throttle) {
    __sync_fetch_and_add(&st->throttle.wait_ns, now - prev);
  } else if (st->n_sleep) {
    __sync_fetch_and_add(&op_layer_of(st, st->sleep_layer)->wait_ns,
                         now - prev);
  } else if (waited < BIOSNOOP_OPCLASS_COUNT) {
    __u64 from = since > prev ? since : prev;
    if (now <= from) return 0;
    __sync_fetch_and_add(&op_layer_of(st, waited)->wait_ns, now - from);
    return now - from;
  }
  return 0;
}

static __always_inline void op_segment(struct biosnoop_op_state *st,
                                       __u64 now) {
  op_segment_waited(st, now, BIOSNOOP_OPCLASS_COUNT, 0);
}

/* Whether the thread passes -p, --comm and --cgroup. */
static __always_inline bool op_task_wanted(struct task_struct *task) {
  if (filter_pid && task->tgid != filter_pid) return false;
  if (filter_comm_set) {
    char comm[16];
    copy_comm(comm, task);
    if (!comm_matches(comm)) return false;
  }
  if (filter_cgroup_set && bpf_get_current_ancestor_cgroup_id(
                               filter_cgroup_level) != filter_cgroup_id)
    return false;
  return true;
}

/* Bytes asked by a vector of `n` iovecs at `iov` (user memory). */
static __always_inline __u64 op_iov_bytes(const struct iovec *iov,
                                          unsigned long n, __u8 *flags) {
  if (n > BIOSNOOP_MAX_IOVECS) {
    *flags |= BIOSNOOP_OPF_ASKED_PARTIAL;
    n = BIOSNOOP_MAX_IOVECS;
  }
  __u64 total = 0;
#pragma unroll
  for (int i = 0; i < BIOSNOOP_MAX_IOVECS; i++) {
    if (i >= n) break;
    struct iovec v;
    if (bpf_probe_read_user(&v, sizeof(v), iov + i)) {
      *flags |= BIOSNOOP_OPF_ASKED_PARTIAL;
      break;
    }
    total += v.iov_len;
  }
  return total;
}

/* A new call's state in this CPU's scratch, for the current thread and
 * `f`; NULL when the file or the thread is not followed. */
static __always_inline struct biosnoop_op_state *op_begin(
    struct task_struct *task, struct file *f, __u8 call, __u64 now, bool cast) {
  /* The file first: most calls (sockets, pipes, other disks) end here,
   * before the state is cleared. */
  struct op_file_id id;
  if (!op_file_wanted(f, cast, &id)) return NULL;
  __u32 zero = 0;
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&op_scratch, &zero);
  if (!st) return NULL;
  __builtin_memset(st, 0, sizeof(*st));
  st->ino = id.ino;
  st->s_dev = id.s_dev;
  st->disk_dev = id.disk_dev;
  st->part_dev = id.part_dev;
  st->op_id = __sync_fetch_and_add(&last_op_id, 1) + 1;
  st->start_ns = now;
  st->last_change = now;
  st->call = call;
  st->file = (__u64)f;
  st->pid = task->tgid;
  st->tid = task->pid;
  copy_comm(st->comm, task);
  st->cgroup_id = bpf_get_current_cgroup_id();
  st->offset = BIOSNOOP_OFFSET_NONE;
  return st;
}

/* Registers call `key` as waiting on disk `dev`; its place plus 1, or 0
 * when the disk's places are all taken. */
static __always_inline __u8 op_wait_register(__u32 dev, __u64 key) {
  struct biosnoop_op_waiters *w = bpf_map_lookup_elem(&op_waiters, &dev);
  if (!w) {
    struct biosnoop_op_waiters zero = {};
    bpf_map_update_elem(&op_waiters, &dev, &zero, BPF_NOEXIST);
    w = bpf_map_lookup_elem(&op_waiters, &dev);
    if (!w) return 0;
  }
#pragma unroll
  for (int i = 0; i < BIOSNOOP_OP_WAITERS; i++) {
    if (__sync_val_compare_and_swap(&w->keys[i], 0, key) == 0) {
      __sync_fetch_and_add(&waiting_ops_active, 1);
      return i + 1;
    }
  }
  return 0;
}

/* op_wait_register as a global function, verified once: op_lower_register
 * calls it for each disk below. */
__noinline int op_wait_register_at(__u32 dev, __u64 key) {
  return op_wait_register(dev, key);
}

/* A call on a stacked disk (device-mapper, md: bio-based, its requests
 * are on the disks below) registers under each disk below it too, so that
 * the journal commits, flushes and writeback there that it waits for find
 * it.  Global functions, verified once: they are called where calls start
 * and end, in most of the ops programs. */
__noinline int op_lower_register(struct biosnoop_op_state *st, __u64 key) {
  if (!st) return 0;
  __u32 dev = st->disk_dev;
  struct biosnoop_op_lower *lower = bpf_map_lookup_elem(&op_lower_disks, &dev);
  if (!lower) return 0;
  for (int i = 0; i < BIOSNOOP_OP_LOWER; i++) {
    __u32 below = lower->devs[i];
    st->lower_dev[i] = below;
    st->lower_waiter[i] = below ? op_wait_register_at(below, key) : 0;
  }
  return 0;
}

__noinline int op_lower_unregister(struct biosnoop_op_state *st, __u64 key) {
  if (!st) return 0;
  for (int i = 0; i < BIOSNOOP_OP_LOWER; i++) {
    __u32 place = st->lower_waiter[i];
    st->lower_waiter[i] = 0;
    if (!place || place > BIOSNOOP_OP_WAITERS) continue;
    __u32 below = st->lower_dev[i];
    struct biosnoop_op_waiters *w = bpf_map_lookup_elem(&op_waiters, &below);
    if (w &&
        __sync_val_compare_and_swap(
            &w->keys[(place - 1) & (BIOSNOOP_OP_WAITERS - 1)], key, 0) == key)
      __sync_fetch_and_add(&waiting_ops_active, -1);
  }
  return 0;
}

/* The call under `key` waits no more. */
static __always_inline void op_wait_unregister(struct biosnoop_op_state *st,
                                               __u64 key) {
  /* Inline, so that a call on a disk stacked on nothing (most) pays a
   * load and a branch, not a call. */
  if (st->lower_dev[0]) op_lower_unregister(st, key);
  if (!st->waiter) return;
  __u32 dev = st->disk_dev;
  struct biosnoop_op_waiters *w = bpf_map_lookup_elem(&op_waiters, &dev);
  __u32 i = st->waiter - 1;
  st->waiter = 0;
  if (!w || i >= BIOSNOOP_OP_WAITERS) return;
  if (__sync_val_compare_and_swap(&w->keys[i], key, 0) == key)
    __sync_fetch_and_add(&waiting_ops_active, -1);
}

/* Returns whether the call is followed (its state stored). */
static __always_inline bool op_store(__u64 key, struct biosnoop_op_state *st) {
  /* An fsync-family call's file goes in `syncing` first (marked in the
   * state it stores), so that completions find the call through it. */
  __u64 file = biosnoop_ledger_file(st->ino, st->s_dev);
  if (op_call_is_sync(st->call) && !st->marker &&
      bpf_map_update_elem(&syncing, &file, &key, BPF_ANY) == 0) {
    st->registered = 1;
    __sync_fetch_and_add(&sync_ops_active, 1);
  }
  /* The fsync family waits for others' requests on its disk (a journal
   * commit, a flush, others' writeback): registered in op_waiters, so that
   * those requests' completions find it.  Writes are not: a buffered write
   * runs on the CPU, and what completes meanwhile is not what it waits
   * for (it waits only when throttled or on a page under writeback, which
   * takes hooks of their own: not done); registered, they cost every
   * write completion ~700 ns under a buffered-write load. */
  struct biosnoop_op_state *old = bpf_map_lookup_elem(&ops, &key);
  /* A call whose return was never seen (its thread killed in it) gives
   * its place up first. */
  if (old) op_wait_unregister(old, key);
  if (!st->marker && st->disk_dev && op_call_is_sync(st->call)) {
    st->waiter = op_wait_register(st->disk_dev, key);
    op_lower_register(st, key);
  }
  /* The thread's entry of its last call, when still there, is reused in
   * place: an update and a delete per call cost more than the rest of
   * the call's two programs. */
  if (old) {
    __builtin_memcpy(old, st, sizeof(*st));
    count(BIOSNOOP_CTR_OPS_STARTED);
    return true;
  }
  if (bpf_map_update_elem(&ops, &key, st, BPF_ANY)) {
    count(BIOSNOOP_CTR_OPS_UNTRACKED);
    if (st->registered) {
      bpf_map_delete_elem(&syncing, &file);
      __sync_fetch_and_add(&sync_ops_active, -1);
      st->registered = 0;
    }
    op_wait_unregister(st, key);
    return false;
  }
  count(BIOSNOOP_CTR_OPS_STARTED);
  return true;
}

/* The call under `key` is over: its file leaves `syncing` (unless a later
 * call on the same file took its place). */
static __always_inline void op_unregister(struct biosnoop_op_state *st,
                                          __u64 key) {
  op_wait_unregister(st, key);
  if (!st->registered) return;
  __u64 file = biosnoop_ledger_file(st->ino, st->s_dev);
  __u64 *owner = bpf_map_lookup_elem(&syncing, &file);
  if (owner && *owner == key) bpf_map_delete_elem(&syncing, &file);
  __sync_fetch_and_add(&sync_ops_active, -1);
  st->registered = 0;
}

/* sys_enter of a followed call. */
static __always_inline int op_enter(struct pt_regs *regs, __u8 call,
                                    bool cast) {
  struct task_struct *task = bpf_get_current_task_btf();
  if (!op_task_wanted(task)) return 0;
  int fd = (int)PT_REGS_PARM1_SYSCALL(regs);
  struct file *f = op_fd_file(task, fd);
  if (!f) return 0;
  struct biosnoop_op_state *st =
      op_begin(task, f, call, bpf_ktime_get_ns(), cast);
  if (!st) return 0;
  st->fd = fd;
  __u64 arg2 = PT_REGS_PARM2_SYSCALL(regs);
  __u64 arg3 = PT_REGS_PARM3_SYSCALL(regs);
  switch (call) {
    case BIOSNOOP_CALL_READ:
    case BIOSNOOP_CALL_WRITE:
      st->offset = BPF_CORE_READ(f, f_pos);
      st->bytes_requested = arg3;
      break;
    case BIOSNOOP_CALL_PREAD64:
    case BIOSNOOP_CALL_PWRITE64:
      st->offset = PT_REGS_PARM4_SYSCALL(regs);
      st->bytes_requested = arg3;
      break;
    case BIOSNOOP_CALL_READV:
    case BIOSNOOP_CALL_WRITEV:
      st->offset = BPF_CORE_READ(f, f_pos);
      st->bytes_requested =
          op_iov_bytes((const struct iovec *)arg2, arg3, &st->flags);
      break;
    case BIOSNOOP_CALL_PREADV:
    case BIOSNOOP_CALL_PWRITEV:
      /* pos_l holds the whole offset on a 64-bit kernel; preadv2 and
       * pwritev2 (followed as these) take -1 for the file position. */
      st->offset = PT_REGS_PARM4_SYSCALL(regs);
      if (st->offset == ~0ULL) st->offset = BPF_CORE_READ(f, f_pos);
      st->bytes_requested =
          op_iov_bytes((const struct iovec *)arg2, arg3, &st->flags);
      break;
    case BIOSNOOP_CALL_SYNC_FILE_RANGE:
      st->offset = arg2;
      st->bytes_requested = arg3;
      break;
    default: /* fsync, fdatasync */
      break;
  }
  op_store((__u32)task->pid, st);
  return 0;
}

/* O_DIRECT (uapi asm/fcntl.h: arm64 and arm have their own). */
#if defined(__TARGET_ARCH_arm64) || defined(__TARGET_ARCH_arm)
#define OP_O_DIRECT 0200000
#else
#define OP_O_DIRECT 040000
#endif

/* The call ends at `now` with result `ret`: its op record when it took
 * at least op_min_ns.  `f`: its file if still known to be the call's
 * (names are read from it), else NULL. */
static __always_inline void op_sleep_end(struct biosnoop_op_state *st,
                                         __u64 now);

static __always_inline void op_finish(struct biosnoop_op_state *st, __s64 ret,
                                      __u64 now, struct file *f) {
  op_sleep_end(st, now);
  op_segment(st, now);
  if (now - st->start_ns < op_min_ns) return;
  __u32 zero = 0;
  struct biosnoop_op_buf *b = bpf_map_lookup_elem(&op_buf, &zero);
  if (!b) return;
  struct biosnoop_op_record *r = &b->rec;
  r->abi_version = BIOSNOOP_ABI_VERSION;
  r->kind = BIOSNOOP_REC_OP;
  r->call = st->call;
  r->flags = st->flags;
  r->pad0 = 0;
  r->op_id = st->op_id;
  r->start_ns = st->start_ns;
  r->end_ns = now;
  r->result = ret;
  r->offset = st->offset;
  r->bytes_requested = st->bytes_requested;
  r->pid = st->pid;
  r->tid = st->tid;
  __builtin_memcpy(r->comm, st->comm, sizeof(r->comm));
  r->cgroup_id = st->cgroup_id;
  r->disk_dev = st->disk_dev;
  r->part_dev = st->part_dev;
  __builtin_memcpy(r->block_devs, st->block_devs, sizeof(r->block_devs));
  r->block_dev_count = st->block_dev_count;
  r->dirty_known = st->dirty_known;
  __builtin_memcpy(&r->block, &st->block, sizeof(r->block));
  __builtin_memcpy(&r->writeback, &st->writeback, sizeof(r->writeback));
  r->dirty_age_max_ns = st->dirty_age_max_ns;
  r->dirty_age_min_ns = st->dirty_age_min_ns;
  __builtin_memcpy(&r->journal, &st->journal, sizeof(r->journal));
  __builtin_memcpy(&r->flush, &st->flush, sizeof(r->flush));
  __builtin_memcpy(&r->others, &st->others, sizeof(r->others));
  __builtin_memcpy(r->culprits, st->culprits, sizeof(r->culprits));
  __builtin_memcpy(&r->throttle, &st->throttle, sizeof(r->throttle));
  r->file.ino = st->ino;
  r->file.dev = op_file_name_dev(f, st->s_dev);
  r->file.names_off = 0;
  r->file.depth = 0;
  r->file.flags = 0;
  r->names_len = 0;
  r->pad1 = 0;
  if (f) {
    attr_names_into(b->names, &r->names_len, &r->file,
                    BPF_CORE_READ(f, f_path.dentry));
    r->flags |= BIOSNOOP_OPF_NAMED;
    /* "direct" as an event's file says it: the call's I/O bypasses the
     * page cache (opened, or fcntl'd since, with O_DIRECT). */
    if (BPF_CORE_READ(f, f_flags) & OP_O_DIRECT)
      r->file.flags |= BIOSNOOP_FILE_DIRECT;
  }
  op_name_real_file((__u64)f);
  __u32 names = r->names_len;
  if (names > BIOSNOOP_NAMES_BYTES) names = BIOSNOOP_NAMES_BYTES;
  r->names_len = names;
  __u32 size = sizeof(*r) + names;
  r->size = size;
  if (bpf_ringbuf_output(&events, b, size, wakeup_flags(now))) {
    count(BIOSNOOP_CTR_OPS_LOST);
    return;
  }
  count(BIOSNOOP_CTR_OPS_EMITTED);
}

/* The syscall number of the call returning (sys_exit has no id argument
 * that is the number on every architecture: it is in the registers). */
static __always_inline long op_syscall_nr(struct pt_regs *regs) {
#if defined(__TARGET_ARCH_x86)
  return regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
  return BPF_CORE_READ((struct user_pt_regs *)regs, regs[8]);
#else
  return -1;
#endif
}

/* sys_exit of a followed call (or of io_uring_enter: its marker goes). */
static __always_inline int op_exit(struct pt_regs *regs, long ret) {
  long nr = op_syscall_nr(regs);
  if ((unsigned long)nr >= BIOSNOOP_MAX_SYSCALL_NR) return 0;
  __u8 call = syscall_calls[nr];
  if (!call) return 0;
  struct task_struct *task = bpf_get_current_task_btf();
  __u64 key = (__u32)task->pid;
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&ops, &key);
  /* None, or its last call's entry, ended. */
  if (!st || (!st->op_id && !st->marker)) return 0;
  __u64 now = bpf_ktime_get_ns();
  /* A fast call (the common case) ends here, its file not looked up. */
  if (call != BIOSNOOP_CALL_IO_URING_ENTER && st->op_id && !st->marker &&
      st->call == call && now - st->start_ns >= op_min_ns) {
    /* The descriptor names the call's file still, unless another thread
     * closed or replaced it meanwhile. */
    struct file *f = op_fd_file(task, st->fd);
    if ((__u64)f != st->file) f = NULL;
    op_finish(st, ret, now, f);
  }
  op_unregister(st, key);
  /* Ended, kept for the thread's next call (LRU: a thread that is gone
   * gives its entry up when room is needed). */
  st->op_id = 0;
  st->marker = 0;
  return 0;
}

/* A kernel address as a number (a pointer argument cannot be turned into
 * one by the verifier's rules; a copy of it through the helper can). */
static __always_inline __u64 op_addr(void *p) {
  __u64 v = 0;
  bpf_probe_read_kernel(&v, sizeof(v), &p);
  return v;
}

/* The io_uring operation an opcode is, when followed. */
static __always_inline __u8 op_uring_call(__u8 opcode) {
  if (opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_READ) ||
      opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_READV) ||
      opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_READ_FIXED))
    return BIOSNOOP_CALL_URING_READ;
  if (opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITE) ||
      opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITEV) ||
      opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITE_FIXED))
    return BIOSNOOP_CALL_URING_WRITE;
  if (opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_FSYNC))
    return BIOSNOOP_CALL_URING_FSYNC;
  return BIOSNOOP_CALL_NONE;
}

/* IOSQE_FIXED_FILE's bit, which REQ_F_FIXED_FILE keeps in req->flags. */
#define OP_REQ_F_FIXED_FILE 1ULL

/* io_uring_submit_req: a request of the current thread, before it is
 * issued.  Its file is named by the descriptor in cqe.fd (io_init_req;
 * req->file is assigned only at issue); fixed files (registered) are not
 * followed. */
static __always_inline int op_uring_submit(struct io_kiocb *req, bool cast) {
  __u8 call = op_uring_call(req->opcode);
  if (!call) return 0;
  if (req->flags & OP_REQ_F_FIXED_FILE) return 0;
  struct task_struct *task = bpf_get_current_task_btf();
  if (!op_task_wanted(task)) return 0;
  struct file *f = op_fd_file(task, req->cqe.fd);
  if (!f) return 0;
  struct biosnoop_op_state *st =
      op_begin(task, f, call, bpf_ktime_get_ns(), cast);
  if (!st) return 0;
  st->flags |= BIOSNOOP_OPF_URING;
  st->fd = req->cqe.fd;
  /* Read and write share struct io_rw, overlaid on the request's first
   * bytes (io_kiocb_to_cmd), prepared from the SQE already. */
  if (call != BIOSNOOP_CALL_URING_FSYNC) {
    struct io_rw *rw = (struct io_rw *)req;
    st->offset = BPF_CORE_READ(rw, kiocb.ki_pos);
    __u32 len = BPF_CORE_READ(rw, len);
    __u8 opcode = req->opcode;
    if (opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_READV) ||
        opcode == bpf_core_enum_value(enum io_uring_op, IORING_OP_WRITEV))
      st->bytes_requested = op_iov_bytes(
          (const struct iovec *)BPF_CORE_READ(rw, addr), len, &st->flags);
    else
      st->bytes_requested = len;
  }
  __u64 key = op_addr(req);
  if (op_store(key, st)) __sync_fetch_and_add(&uring_ops_live, 1);
  /* The marker: this thread is issuing that request (in place when the
   * thread has an entry: no allocation per request). */
  __u64 tid = (__u32)task->pid;
  struct biosnoop_op_state *m = bpf_map_lookup_elem(&ops, &tid);
  if (!m) {
    bpf_map_update_elem(&ops, &tid, st, BPF_ANY);
    m = bpf_map_lookup_elem(&ops, &tid);
    if (!m) return 0;
  }
  m->marker = 1;
  m->registered = 0;
  m->waiter = 0;
  m->uring_key = key;
  m->op_id = 0;
  return 0;
}

/* io_uring_complete: the request's result is posted. */
static __always_inline int op_uring_complete(void *req, __s32 res) {
  /* Most completions (sockets, raw devices) are of no followed request. */
  if (!uring_ops_live) return 0;
  __u64 key = op_addr(req);
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&ops, &key);
  if (!st) return 0;
  /* The request holds its file until it is freed, after this. */
  op_finish(st, res, bpf_ktime_get_ns(), (struct file *)st->file);
  op_unregister(st, key);
  if (bpf_map_delete_elem(&ops, &key) == 0)
    __sync_fetch_and_add(&uring_ops_live, -1);
  return 0;
}

/* How long the first page `folio` of a writeback request of the call,
 * submitted at `submitted`, had been dirty: from the ledger. */
static __always_inline void op_dirty_age(struct biosnoop_op_state *st,
                                         struct folio *folio, __u64 submitted) {
  if (!ledger_enabled) return;
  struct biosnoop_dirtier who;
  struct inode *inode = attr_folio_inode(folio);
  if (!ledger_read(biosnoop_ledger_file(st->ino, st->s_dev),
                   BPF_CORE_READ(inode, i_generation),
                   BPF_CORE_READ(folio, index), &who) ||
      who.dirtied_ns > submitted)
    return;
  __u64 age = submitted - who.dirtied_ns;
  if (age > st->dirty_age_max_ns) st->dirty_age_max_ns = age;
  if (!st->dirty_known || age < st->dirty_age_min_ns)
    st->dirty_age_min_ns = age;
  st->dirty_known++;
}

/* The first page's folio of a request's first bio; NULL when none. */
static __always_inline struct folio *op_first_folio(struct request *rq) {
  struct bio *bio = BPF_CORE_READ(rq, bio);
  if (!bio) return NULL;
  struct bio_vec *vecs = BPF_CORE_READ(bio, bi_io_vec);
  if (!vecs) return NULL;
  __u32 idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
  return attr_folio(BPF_CORE_READ(vecs + idx, bv_page));
}

/* The class of a write or flush request by what it carries: a cache flush
 * (REQ_OP_FLUSH, or an empty write with REQ_PREFLUSH: blkdev_issue_flush's
 * bio), a metadata write (REQ_META: jbd2 submits its journal writes
 * with JBD2_JOURNAL_REQ_FLAGS, REQ_META among them, in every kernel Debian
 * 12 ships, as xfs its log and btrfs its tree blocks; rwbs shows them as
 * "WSM"), else BIOSNOOP_OPCLASS_COUNT (data).  `bytes` is the request's
 * size. */
static __always_inline __u8 op_rq_class(__u32 cmd_flags, __u32 bytes) {
  __u32 op = cmd_flags & 0xff;
  if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
    return BIOSNOOP_OPCLASS_FLUSH;
  if (op != bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
    return BIOSNOOP_OPCLASS_COUNT;
  if (!bytes && (cmd_flags & (1u << bpf_core_enum_value(enum req_flag_bits,
                                                        __REQ_PREFLUSH))))
    return BIOSNOOP_OPCLASS_FLUSH;
  if (cmd_flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
    return BIOSNOOP_OPCLASS_JOURNAL;
  return BIOSNOOP_OPCLASS_COUNT;
}

/* Submission of request `rq` (block_io_start), its entry `v` just filled:
 * tie it to the call its thread is in. */
static __always_inline void op_tag(struct biosnoop_inflight_val *v,
                                   struct request *rq, __u64 now) {
  __u64 key;
  struct biosnoop_op_state *st = op_current(&key);
  if (!st || st->marker) return;
  v->op_id = st->op_id;
  v->op_key = key;
  __u8 cls = op_rq_class(rq->cmd_flags, rq->__data_len);
  if (cls == BIOSNOOP_OPCLASS_COUNT) {
    cls = BIOSNOOP_OPCLASS_BLOCK;
    if (op_call_is_sync(st->call) &&
        (rq->cmd_flags & 0xff) ==
            bpf_core_enum_value(enum req_op, REQ_OP_WRITE)) {
      struct bio *bio = rq->bio;
      struct bio_vec *vecs = BPF_CORE_READ(bio, bi_io_vec);
      __u32 idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
      struct folio *folio =
          vecs ? attr_folio(BPF_CORE_READ(vecs + idx, bv_page)) : NULL;
      struct inode *inode = folio ? attr_folio_inode(folio) : NULL;
      if (inode && BPF_CORE_READ(inode, i_ino) == st->ino &&
          BPF_CORE_READ(inode, i_sb, s_dev) == st->s_dev) {
        cls = BIOSNOOP_OPCLASS_WRITEBACK;
        op_dirty_age(st, folio, now);
      }
    }
  }
  v->op_class = cls;
  if (cls == BIOSNOOP_OPCLASS_BLOCK) {
    __u32 dev = v->dev;
    __u32 n = st->block_dev_count;
    bool seen = false;
#pragma unroll
    for (int i = 0; i < BIOSNOOP_OP_DISKS; i++)
      if (i < n && st->block_devs[i] == dev) seen = true;
    if (!seen) {
      if (n < BIOSNOOP_OP_DISKS)
        st->block_devs[n & (BIOSNOOP_OP_DISKS - 1)] = dev;
      st->block_dev_count = n + 1;
    }
  }
  op_segment(st, now);
  __sync_fetch_and_add(op_count_of(st, cls), 1);
}

static __always_inline void op_max(__u64 *m, __u64 v) {
  if (v > *m) *m = v; /* two completions at once may keep the smaller */
}

/* A completed request of `bytes` into layer `l`. */
static __always_inline void op_layer_add(struct biosnoop_op_layer *l,
                                         __u32 bytes, __u64 device_ns,
                                         __u64 queue_ns) {
  __sync_fetch_and_add(&l->requests, 1);
  __sync_fetch_and_add(&l->bytes, bytes);
  if (queue_ns != BIOSNOOP_QUEUE_UNKNOWN) {
    __sync_fetch_and_add(&l->queue_ns_sum, queue_ns);
    op_max(&l->queue_ns_max, queue_ns);
  }
  __sync_fetch_and_add(&l->device_ns_sum, device_ns);
  op_max(&l->device_ns_max, device_ns);
}

/* Completion of a request tied to a call (v->op_id): into its layer.
 * False when the call has returned already (an asynchronous write-out,
 * sync_file_range's): then it is like the flusher's for the calls that
 * wait for it (op_waited). */
static __always_inline bool op_complete(const struct biosnoop_inflight_val *v,
                                        __u64 now, __u64 device_ns,
                                        __u64 queue_ns) {
  __u64 key = v->op_key;
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&ops, &key);
  if (!st || st->marker || st->op_id != v->op_id) return false;
  op_segment(st, now);
  __u64 *n = op_count_of(st, v->op_class);
  if (*n) __sync_fetch_and_add(n, -1);
  op_layer_add(op_layer_of(st, v->op_class), v->bytes, device_ns, queue_ns);
  return true;
}

/* A request no running call submitted, completed (op_waited), with whose
 * it was: the task that dirtied its first page when the ledger knew it,
 * else its submitter.  Built in a per-CPU scratch (op_wait_scratch), not
 * on the stack: the completion program's stack is near the kernel's
 * limit, and the waiters' loop (a bpf_loop callback, verified once)
 * reads it from there. */
static __always_inline void op_culprit_note(struct biosnoop_op_state *st,
                                            __u8 cls, __u64 cgroup_id,
                                            __u32 pid, const char *comm,
                                            __u8 dirtier, __u32 bytes,
                                            __u64 wait_ns);

/* A request of class `cls` that call `st` waited for but did not submit
 * completed: the part of its time the call spent on nothing of its own
 * goes to that layer, with the request and its culprit. */
static __always_inline void op_waited_for(struct biosnoop_op_state *st,
                                          __u8 cls,
                                          const struct biosnoop_op_wait *w) {
  __u64 waited = op_segment_waited(st, w->now, cls, w->since);
  if (!waited) return;
  op_layer_add(op_layer_of(st, cls), w->bytes, w->device_ns, w->queue_ns);
  op_culprit_note(st, cls, w->cgroup_id, w->pid, w->comm, w->dirtier, w->bytes,
                  waited);
}

/* Adds one request (or a write's wait on a page under writeback) of task
 * `pid_in` in `cgroup_id`, of `bytes`, that the call waited `wait_ns` for,
 * to the call's culprits of layer `cls`: into the slot of the same task, cgroup
 * and layer, or a free one; when all are taken by others, it is left out of the
 * list (the layer's totals have it).  A slot is claimed by its cgroup id (never
 * 0 for a task: the root's is 1) with a compare-and-swap, 64 bits wide as the
 * BPF instruction set has it: of two CPUs claiming one slot at once, one gets
 * it and the other looks on (at worst one task in two slots). */
static __always_inline void op_culprit_note(struct biosnoop_op_state *st,
                                            __u8 cls, __u64 cgroup_id,
                                            __u32 pid_in, const char *comm,
                                            __u8 dirtier, __u32 bytes,
                                            __u64 wait_ns) {
  __u64 cg = cgroup_id ? cgroup_id : 1;
  __u32 pid = pid_in ? pid_in : ~0u; /* 0 marks a free slot */
  for (int i = 0; i < BIOSNOOP_OP_CULPRITS; i++) {
    struct biosnoop_op_culprit *c = &st->culprits[i];
    if (!c->cgroup_id &&
        __sync_val_compare_and_swap(&c->cgroup_id, 0, cg) == 0) {
      c->layer = cls;
      c->dirtier = dirtier;
      __builtin_memcpy(c->comm, comm, sizeof(c->comm));
      c->pid = pid;
    }
    if (c->cgroup_id == cg && c->pid == pid && c->layer == cls) {
      __sync_fetch_and_add(&c->requests, 1);
      __sync_fetch_and_add(&c->bytes, bytes);
      __sync_fetch_and_add(&c->wait_ns, wait_ns);
      return;
    }
  }
}

/* One place of the disk's waiters (op_waited's loop); `ctx` holds the
 * index of the scratch op_waited filled (bpf_loop's context is stack). */
static long op_waiter_step(__u32 i, void *ctx) {
  struct biosnoop_op_wait *w = bpf_map_lookup_elem(&op_wait_scratch, ctx);
  if (!w) return 1;
  __u32 dev = w->dev;
  struct biosnoop_op_waiters *ws = bpf_map_lookup_elem(&op_waiters, &dev);
  if (!ws) return 1;
  i &= BIOSNOOP_OP_WAITERS - 1; /* a power of two: the verifier's bound */
  __u64 key = ws->keys[i];
  if (!key || key == w->taken) return 0;
  struct biosnoop_op_state *st = bpf_map_lookup_elem(&ops, &key);
  if (!st) {
    /* Its entry gone (evicted, or the call ended on a path that did not
     * unregister it): the place is freed. */
    if (__sync_val_compare_and_swap(&ws->keys[i], key, 0) == key)
      __sync_fetch_and_add(&waiting_ops_active, -1);
    return 0;
  }
  /* The call that submitted it counted it as its own (op_complete). */
  if (st->marker || !st->op_id || (key == w->owner && st->op_id == w->owner_op))
    return 0;
  __u8 c = w->cls;
  if (c == BIOSNOOP_OPCLASS_COUNT)
    c = w->file == biosnoop_ledger_file(st->ino, st->s_dev)
            ? BIOSNOOP_OPCLASS_WRITEBACK
            : BIOSNOOP_OPCLASS_OTHERS;
  op_waited_for(st, c, w);
  return 0;
}

/* Completion of a write or flush `rq` (entry `v`) that followed calls may
 * have waited for without submitting it (the flusher's, a journal
 * thread's, a flush worker's, a call's that returned, or a running
 * call's, which took it as its own already: `owned`).
 *  - It carries pages of a file an fsync-family call syncs (`syncing`):
 *    that call's writeback.
 *  - Every call registered as waiting on the request's disk (op_waiters)
 *    that did not take it above: a flush is its flush layer, a metadata
 *    write its journal, its own file's data its writeback, another file's
 *    data its others_writeback.
 * `nest`: as on_complete's (the rescue program has its own scratch). */
/* The rest of op_waited, from what it left in op_wait_scratch[nest]: a
 * global function, so that the verifier walks it once, not once for every
 * path of the completion program that reaches it (38,000 instructions
 * each in the two completion programs when it was inlined).  Its request
 * is an address (w->rq), read through CO-RE. */
__noinline int op_waited_run(__u32 nest) {
  struct biosnoop_op_wait *w = bpf_map_lookup_elem(&op_wait_scratch, &nest);
  if (!w) return 0;
  /* A call's own request, and no other call waiting on its disk: the
   * common case (an fsync writing its own data out), done. */
  if (w->owner_op) {
    __u32 dev = w->dev;
    struct biosnoop_op_waiters *ws = bpf_map_lookup_elem(&op_waiters, &dev);
    bool others = false;
    for (int i = 0; ws && i < BIOSNOOP_OP_WAITERS; i++) {
      __u64 k = ws->keys[i];
      if (k && k != w->owner) others = true;
    }
    if (!others) return 0;
  }
  struct request *rq = (struct request *)w->rq;
  __u8 cls = op_rq_class(BPF_CORE_READ(rq, cmd_flags), w->bytes);
  if (cls == BIOSNOOP_OPCLASS_COUNT && !w->write) return 0;
  w->cls = cls;
  struct folio *folio = NULL;
  if (cls == BIOSNOOP_OPCLASS_COUNT) {
    folio = op_first_folio(rq);
    struct inode *inode = folio ? attr_folio_inode(folio) : NULL;
    if (inode)
      w->file = biosnoop_ledger_file(BPF_CORE_READ(inode, i_ino),
                                     BPF_CORE_READ(inode, i_sb, s_dev));
    if (w->file && ledger_enabled) {
      struct biosnoop_ledger_entry *e =
          ledger_entry(w->file, BPF_CORE_READ(inode, i_generation),
                       BPF_CORE_READ(folio, index));
      if (e) {
        w->cgroup_id = e->who.cgroup_id;
        w->pid = e->who.pid;
        __builtin_memcpy(w->comm, e->who.comm, sizeof(w->comm));
        w->dirtier = 1;
      }
    }
  }
  if (w->file && sync_ops_active) {
    __u64 file = w->file;
    __u64 *key = bpf_map_lookup_elem(&syncing, &file);
    struct biosnoop_op_state *st = key ? bpf_map_lookup_elem(&ops, key) : NULL;
    if (st && !st->marker && st->op_id &&
        !(*key == w->owner && st->op_id == w->owner_op) &&
        biosnoop_ledger_file(st->ino, st->s_dev) == file) {
      w->taken = *key;
      op_waited_for(st, BIOSNOOP_OPCLASS_WRITEBACK, w);
      if (w->submit_ns && folio) op_dirty_age(st, folio, w->submit_ns);
    }
  }
  if (waiting_ops_active)
    bpf_loop(BIOSNOOP_OP_WAITERS, op_waiter_step, &nest, 0);
  return 0;
}

/* Throttle: the time a call's bio waited between block_bio_queue and
 * becoming a request (block_getrq) or joining one (block_bio_backmerge,
 * _frontmerge).  In between, blk_mq_submit_bio sleeps in rq_qos_throttle
 * (writeback throttling, io.latency, io.cost) and for a free tag, in the
 * submitting thread, which therefore has one such bio at a time.  Only
 * request-based queues: a bio-based one (device-mapper, md) turns no bio
 * into a request; its bios go on to the disks below, which do.  io.max
 * (blk-throttle) holds a bio before block_bio_queue, which its dispatch
 * worker fires: that wait is not seen here. */
static __always_inline void op_bio_queued(struct bio *bio) {
  __u64 key;
  struct biosnoop_op_state *st = op_current(&key);
  if (!st || st->marker) return;
  struct block_device *bd = bio->bi_bdev;
  if (!bd) return;
  struct gendisk *disk = bd->bd_disk;
  if (!disk) return;
  struct request_queue *q = disk->queue;
  if (!q || !q->mq_ops) return;
  __u64 now = bpf_ktime_get_ns();
  op_sleep_end(st, now);
  op_segment(st, now);
  st->n_throttle = 1;
  st->held_bytes = bio->bi_iter.bi_size;
  st->held_queue = op_addr(q);
}

/* The controllers on queue `q` (BIOSNOOP_QOS_*): its rq_qos list, at most
 * one of each kind.  Writeback throttling counts when enabled
 * (min_lat_nsec, 0 when wbt_lat_usec is 0). */
static __always_inline __u32 op_qos_of(__u64 q) {
  struct rq_qos *r = BPF_CORE_READ((struct request_queue *)q, rq_qos);
  __u32 mask = 0;
  for (int i = 0; i < 3; i++) {
    if (!r) break;
    int id = BPF_CORE_READ(r, id);
    if (id == bpf_core_enum_value(enum rq_qos_id, RQ_QOS_WBT)) {
      struct rq_wb *rwb = (struct rq_wb *)((char *)r - bpf_core_field_offset(
                                                           struct rq_wb, rqos));
      if (BPF_CORE_READ(rwb, min_lat_nsec)) mask |= BIOSNOOP_QOS_WBT;
    } else if (id == bpf_core_enum_value(enum rq_qos_id, RQ_QOS_LATENCY)) {
      mask |= BIOSNOOP_QOS_IOLATENCY;
    } else if (id == bpf_core_enum_value(enum rq_qos_id, RQ_QOS_COST)) {
      mask |= BIOSNOOP_QOS_IOCOST;
    }
    r = BPF_CORE_READ(r, next);
  }
  return mask;
}

/* A wait shorter than this is the submission path's own time, not a
 * throttle: the queue's controllers are not read for it. */
#define OP_THROTTLE_NOTED_NS 20000

/* The thread's held bio became a request or joined one. */
static __always_inline void op_bio_request(void) {
  __u64 key;
  struct biosnoop_op_state *st = op_current(&key);
  if (!st || st->marker || !st->n_throttle) return;
  __u64 before = st->throttle.wait_ns;
  op_segment(st, bpf_ktime_get_ns());
  st->n_throttle = 0;
  __u64 waited = st->throttle.wait_ns - before;
  st->throttle.requests++;
  st->throttle.bytes += st->held_bytes;
  if (waited >= OP_THROTTLE_NOTED_NS)
    st->throttle.qos |= op_qos_of(st->held_queue);
}

/* A write call's sleeps for writeback (issue #39): in balance_dirty_pages
 * (the disk's, or its cgroup's, dirty pages over their limit: it waits
 * for writeback to clean some, whoever's they are) and in
 * folio_wait_writeback (a page it writes is being written out).  Each
 * tracepoint fires in the thread before it sleeps; none fires when it
 * wakes, so the sleep ends at the thread's next event: a page it dirties
 * (the ledger's hook), a bio it queues, another such sleep, or its
 * return.  That adds the CPU time from its wake-up to that event, a few
 * microseconds of copying.  A balance_dirty_pages sleep is
 * others_writeback with no culprit (no one request is waited for); a page
 * under writeback is writeback when it is the call's file's, else
 * others_writeback, its culprit who dirtied it (the ledger's entry for
 * the page) when known. */
static __always_inline void op_sleep_end(struct biosnoop_op_state *st,
                                         __u64 now) {
  if (!st->n_sleep) return;
  struct biosnoop_op_layer *l = op_layer_of(st, st->sleep_layer);
  __u64 before = l->wait_ns;
  op_segment(st, now);
  st->n_sleep = 0;
  __u64 waited = l->wait_ns - before;
  if (waited && st->sleep_pid)
    op_culprit_note(st, st->sleep_layer, st->sleep_cgroup, st->sleep_pid,
                    st->sleep_comm, 1, 4096, waited);
}

/* The write call the current thread is in; NULL when none. */
static __always_inline struct biosnoop_op_state *op_current_writer(void) {
  __u64 key;
  struct biosnoop_op_state *st = op_current(&key);
  if (!st || st->marker || !op_call_is_write(st->call)) return NULL;
  return st;
}

/* balance_dirty_pages, or folio_wait_writeback of `folio` (of `inode`,
 * NULL for the former): the thread's write call goes to sleep. */
static __always_inline void op_sleep_begin(struct folio *folio,
                                           struct inode *inode) {
  struct biosnoop_op_state *st = op_current_writer();
  if (!st) return;
  __u64 now = bpf_ktime_get_ns();
  op_sleep_end(st, now);
  op_segment(st, now);
  st->sleep_layer = BIOSNOOP_OPCLASS_OTHERS;
  st->sleep_pid = 0;
  if (inode) {
    __u64 ino = inode->i_ino;
    __u32 dev = 0;
    struct super_block *sb = inode->i_sb;
    if (sb) dev = sb->s_dev;
    __u64 file = biosnoop_ledger_file(ino, dev);
    if (ino == st->ino && dev == st->s_dev)
      st->sleep_layer = BIOSNOOP_OPCLASS_WRITEBACK;
    struct biosnoop_dirtier who;
    if (ledger_enabled &&
        ledger_read(file, inode->i_generation, folio->index, &who)) {
      st->sleep_pid = who.pid;
      st->sleep_cgroup = who.cgroup_id;
      __builtin_memcpy(st->sleep_comm, who.comm, sizeof(st->sleep_comm));
    }
  }
  st->n_sleep = 1;
}

/* A page the current thread dirties (the ledger's hook): the op_id of
 * the write call it is in (0: none), whose sleep, if any, is over. */
static __always_inline __u64 op_dirtying(void) {
  struct biosnoop_op_state *st = op_current_writer();
  if (!st) return 0;
  if (st->n_sleep) op_sleep_end(st, bpf_ktime_get_ns());
  return st->op_id;
}

static __always_inline void op_waited(const struct biosnoop_inflight_val *v,
                                      struct request *rq, __u64 now,
                                      __u64 device_ns, __u64 queue_ns,
                                      __u32 nest, bool owned) {
  struct biosnoop_op_wait *w = bpf_map_lookup_elem(&op_wait_scratch, &nest);
  if (!w) return;
  w->rq = op_addr(rq);
  w->now = now;
  w->submit_ns = v->submit_ns;
  w->since = v->submit_ns ? v->submit_ns : v->issue_ns;
  w->device_ns = device_ns;
  w->queue_ns = queue_ns;
  w->bytes = v->bytes;
  w->dev = v->dev;
  w->write = v->op == BIOSNOOP_OP_WRITE;
  w->file = 0;
  w->taken = 0;
  w->owner = owned ? v->op_key : 0;
  w->owner_op = owned ? v->op_id : 0;
  w->cgroup_id = v->cgroup_id;
  w->pid = v->pid;
  w->dirtier = 0;
  __builtin_memcpy(w->comm, v->comm, sizeof(w->comm));
  op_waited_run(nest);
}

#endif /* BIOSNOOP_BPF_OPS_BPF_H_ */
