/* Every map and every global of the kernel side, in one place (the model:
 * Falco's modern_bpf maps.h): the settings user space writes before load
 * (.rodata) or while running (.data), the state the programs keep in
 * globals (.bss), and the maps proper.  The helpers that use them live in
 * their own headers (counters.bpf.h, hist.bpf.h, inflight_table.bpf.h);
 * user space reaches them through the generated skeleton, by name.
 *
 * Types: __u64-style only, and the ABI header's structs (the generated
 * skeleton header does not see vmlinux.h).
 */
#ifndef BIOSNOOP_BPF_MAPS_BPF_H_
#define BIOSNOOP_BPF_MAPS_BPF_H_

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "biosnoop_abi.h"

/* ---- Load-time settings (.rodata: constants to the verifier, which
 * drops the code of a disabled filter) ---- */

const volatile __u64 min_ns = 0;
const volatile __u32 include_queue = 0;
const volatile __u32 filter_dev = 0; /* 0 = every disk */
/* -d PART: only I/O starting in filter_sectors (below). */
const volatile __u32 filter_partition = 0;
const volatile __u32 filter_pid = 0; /* 0 = every process */
const volatile __u32 filter_comm_set = 0;
const volatile char filter_comm[16] = {};
const volatile __u32 filter_op = BIOSNOOP_FILTER_OP_ANY;
/* --cgroup (set: 1; 0 = every cgroup): only I/O submitted by tasks in
 * that cgroup v2 subtree, whose root is at this depth below the v2 root
 * (the root is level 0) and has the id filter_cgroup_id (below).  The rest
 * counts as filtered.  Its depth stays: a cgroup made again at the same
 * path has the same one. */
const volatile __u32 filter_cgroup_set = 0;
const volatile __u32 filter_cgroup_level = 0;
/* Completion context (biosnoop.bpf.c, completion_context): the distance
 * from this CPU's `runqueues` to its `__preempt_count`, both static
 * per-CPU variables, from the offsets in vmlinux BTF's .data..percpu
 * section (user space: kernel/preempt_count.h); 0 = unknown. */
const volatile __s64 preempt_count_from_rq = 0;
/* Files and dirtiers (attribution.bpf.h): look at a reported request's
 * pages (--no-files: 0); the address of iomap_dio_bio_end_io (0: unknown,
 * direct I/O is then not followed) and of bio_chain_endio (0: unknown, the
 * split parts of direct I/O are then not followed); the dirtied-page
 * ledger's use and its slot mask (entries - 1, a power of two). */
const volatile __u32 files_enabled = 0;
const volatile __u64 iomap_dio_end_io = 0;
const volatile __u64 bio_chain_end_io = 0;
/* device-mapper's clone_endio (module dm_mod; 0: not loaded at start, or
 * hidden): a member disk's request of a dm device carries clones. */
const volatile __u64 dm_clone_end_io = 0;
/* ... and where a clone lies in its struct dm_target_io, that struct's
 * io, and struct dm_io's orig_bio (dm_mod's BTF; 0: unknown). */
const volatile __u64 dm_tio_clone_off = 0;
const volatile __u64 dm_tio_io_off = 0;
const volatile __u64 dm_io_orig_bio_off = 0;
/* btrfs (built in, or a module loaded at start; 0: absent): the block
 * layer end_io of its single-device bios (btrfs_simple_end_io), each the
 * `bio` of a struct btrfs_bio, and the btrfs_bio end_io of direct I/O
 * (btrfs_dio_end_io). */
const volatile __u64 btrfs_simple_end_io = 0;
const volatile __u64 btrfs_dio_end_io = 0;
const volatile __u32 ledger_enabled = 0;
const volatile __u32 ledger_mask = 0;
/* Calls (--ops, ops.bpf.h): follow them; write an op record for each
 * that takes at least op_min_ns; the call each syscall number is
 * (enum biosnoop_call, 0: not followed), set by user space from its
 * <sys/syscall.h>; -d PART: the partition's dev_t (a call's file must be
 * on it; 0: any block device of the tracked disks). */
const volatile __u32 ops_enabled = 0;
const volatile __u64 op_min_ns = 0;
const volatile __u8 syscall_calls[BIOSNOOP_MAX_SYSCALL_NR] = {};
const volatile __u32 filter_bdev = 0;
/* Kernels before 6.5 have no block_io_start: submission is seen at
 * block_rq_insert, which a request issued directly to the driver (no
 * scheduler, or a plug flushed straight to it) never passes, and which a
 * plugged request passes only when the plug is flushed.  Set there: a
 * request's queue time runs from its allocation stamp
 * (rq->start_time_ns), as block_io_start's does from its allocation, and
 * a request never inserted gets its entry at issue.  Measured on Debian's
 * 6.1 in qemu (TCG) against the kernel's blk tracer, 100 direct 4 KiB
 * reads per scheduler: queue time from the stamp is the trace's
 * allocation-to-issue (G to D) plus 7-181 us (median 11 with none, 13
 * with mq-deadline: our issue stamp is read after the tracer's); from the
 * insert's own time it was 35 us to 13.5 ms short of it (median 60). */
const volatile __u32 queue_from_alloc = 0;
/* Histogram-only mode (--hist): count, never emit. */
const volatile __u32 events_disabled = 0;
/* Histograms of every completion (hist.bpf.h). */
const volatile __u32 hist_enabled = 0;
const volatile __u64 hist_unit_ns = 1000; /* 1000: us buckets; 1000000: ms */
/* Consumer wakeups (biosnoop.bpf.c, wakeup_flags): a record wakes user
 * space once this many bytes wait, or when nothing woke it for this long. */
const volatile __u64 wakeup_batch_bytes = 256 * 1024;
const volatile __u64 wakeup_delay_ns = 5000000;

/* ---- Run-time settings (.data: user space writes them while we run) ---- */

/* The sectors of the -d PART filter.  Not a load-time constant: user space
 * follows the partition while it runs (resized, moved, deleted:
 * Probe::SetSectorRange).  Without a partition filter the verifier removes
 * the check. */
struct biosnoop_sector_range filter_sectors = {0, ~0ULL};
/* The --cgroup subtree's root: its id (the inode of its directory).  Not a
 * load-time constant: user space follows the path while it runs (the
 * cgroup removed and made again, as systemd does at a service's restart:
 * Probe::SetCgroupId); ~0 while it does not exist, which no cgroup has.
 * Read only when filter_cgroup_set. */
__u64 filter_cgroup_id SEC(".data") = 0;

/* ---- State kept in globals (.bss) ---- */

/* When a record last woke the consumer (wakeup_flags). */
__u64 last_wakeup_ns = 0;
/* Entries currently in the `inflight` overflow map (approximate under
 * races, never negative for long: only a hint to skip lookups). */
__u64 overflow_entries = 0;
/* The last op_id handed out (ops.bpf.h). */
__u64 last_op_id = 0;
/* fsync-family calls in progress that registered their file in
 * `syncing` (ops.bpf.h): while 0, completions look no further. */
__u64 sync_ops_active = 0;
/* io_uring requests followed now (ops.bpf.h): while 0, io_uring
 * completions look no further.  A hint: an entry the LRU evicted keeps it
 * high, which costs lookups, never a wrong answer. */
__u64 uring_ops_live = 0;
/* Calls registered in `op_waiters` now (ops.bpf.h): while 0, completions
 * of other tasks' writes and flushes look no further. */
__u64 waiting_ops_active = 0;
/* Never written: the initial value of a hist_overflow entry. */
struct biosnoop_hist hist_zero = {};
struct biosnoop_hist_fine hist_fine_zero = {};
/* Only its address matters: requests are named relative to it (rq_id in
 * biosnoop.bpf.c). */
static char rq_id_base;

/* ---- Maps ---- */

/* Records for user space, one per slow or failed completion. */
struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 * 1024 * 1024); /* resized by user space */
} events SEC(".maps");

/* Counters, per CPU, indexed by enum biosnoop_counter (counters.bpf.h). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, BIOSNOOP_CTR_MAX);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

/* The in-flight table (inflight_table.bpf.h): request -> submission and
 * issue metadata.  First an array indexed by a hash of the request,
 * mappable, so that user space can look over the whole table once a second
 * (stuck requests) by reading memory rather than copying 1.3 MB through
 * the bpf syscall (the programs' lookups are the same inlined address
 * computation either way); then an overflow hash map keyed by the request. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, BIOSNOOP_SLOTS);
  __type(key, __u32);
  __type(value, struct biosnoop_inflight_val);
} slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, BIOSNOOP_INFLIGHT_MAX);
  __type(key, __u64);
  __type(value, struct biosnoop_inflight_val);
} inflight SEC(".maps");

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

/* Flush requests seen completing, per disk (dev -> count): user space
 * compares them with the kernel's own count of completed flushes (sysfs
 * stat) to tell a flush whose completion never reached us from one that
 * hangs (the kernel's `inflight`, which settles that for reads and
 * writes, leaves flushes out).  Touched only when a flush completes. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32);
  __type(value, __u64);
} flushes_done SEC(".maps");

/* Latency and size histograms (hist.bpf.h), per CPU: an array indexed by
 * a hash of the key first, a hash map for keys whose slot is taken. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, BIOSNOOP_HIST_SLOTS);
  __type(key, __u32);
  __type(value, struct biosnoop_hist);
} hist_slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 1024);
  __type(key, __u64);
  __type(value, struct biosnoop_hist);
} hist_overflow SEC(".maps");

/* Fine latency counts per (dev, op), the same way (hist.bpf.h): room for
 * 64 + 64 keys, 4 KiB each per CPU (the overflow is preallocated). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, BIOSNOOP_HIST_FINE_SLOTS);
  __type(key, __u32);
  __type(value, struct biosnoop_hist_fine);
} hist_fine_slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 64);
  __type(key, __u64);
  __type(value, struct biosnoop_hist_fine);
} hist_fine_overflow SEC(".maps");

/* Where a record with attribution is built (attribution.bpf.h), per CPU:
 * the event, its attribution and names (written to the ring buffer as one
 * record of sizeof(ev) + sizeof(attr) + attr.names_len bytes), then the
 * walk's own sets. */
struct biosnoop_record_buf {
  struct biosnoop_event ev;
  struct biosnoop_attr attr;
  char names[BIOSNOOP_NAMES_BYTES + BIOSNOOP_NAME_MAX];
  __u64 seen[BIOSNOOP_MAX_SEEN_FILES]; /* inodes counted */
  /* dirtier tids counted (BIOSNOOP_MAX_DIRTIERS used; sized as seen[]
   * for attr_find_step's index mask) */
  __u64 dirtiers[BIOSNOOP_MAX_SEEN_FILES];
  /* dirtying calls counted (BIOSNOOP_MAX_DIRTIERS used, as dirtiers[]) */
  __u64 op_seen[BIOSNOOP_MAX_SEEN_FILES];
  __u32 seen_n;
  __u32 dirtiers_n;
  __u32 op_seen_n;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2); /* the primary's, the rescue's (it runs nested) */
  __type(key, __u32);
  __type(value, struct biosnoop_record_buf);
} record_buf SEC(".maps");

/* A stuck request's files (attr_stuck in biosnoop.bpf.c, run by user
 * space through BPF_PROG_TEST_RUN, one run at a time): its attribution and
 * names, read by user space after the run.  Not per CPU: user space does
 * not pick the CPU the run is on. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct biosnoop_record_buf);
} stuck_buf SEC(".maps");

/* The dirtied-page ledger (attribution.bpf.h); resized by user space
 * (--ledger-entries), 1 entry when off. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, struct biosnoop_ledger_entry);
} ledger SEC(".maps");

/* A call in progress (--ops, ops.bpf.h), in the `ops` map: keyed by its
 * thread id for a syscall, by the request's address for an io_uring
 * request.  A thread inside io_uring_enter has a marker under its id
 * instead, naming the io_uring request being issued (uring_key), so that
 * the block requests it submits are tied to that request. */
struct biosnoop_op_state {
  __u64 op_id;
  __u64 start_ns;
  __u64 offset;
  __u64 bytes_requested;
  __u64 file;      /* its struct file's address, to know it again at return */
  __u64 ino;       /* its inode */
  __u64 uring_key; /* marker: the io_uring request being issued */
  __u64 cgroup_id;
  /* Waits (ops.bpf.h, op_segment): when the count of requests in flight
   * last changed, and the requests in flight per layer. */
  __u64 last_change;
  __u64 n_block;
  __u64 n_wb;
  __u64 dirty_age_max_ns;
  __u64 dirty_age_min_ns;
  __u32 s_dev;    /* its file system */
  __u32 disk_dev; /* the whole disk the file system is on */
  __u32 part_dev; /* the block device it is on */
  __s32 fd;
  __u32 pid;
  __u32 tid;
  char comm[16];
  __u32 block_devs[BIOSNOOP_OP_DISKS];
  __u32 block_dev_count;
  __u32 dirty_known;
  __u8 call;       /* enum biosnoop_call */
  __u8 flags;      /* BIOSNOOP_OPF_* */
  __u8 marker;     /* 1: only uring_key is meaningful */
  __u8 registered; /* an fsync-family call with its file in `syncing` */
  __u8 waiter;     /* its place in op_waiters for disk_dev, plus 1; 0: none */
  /* Its places under the disks below a stacked disk_dev (op_lower_register):
   * lower_dev[i] and its place plus 1; 0: none. */
  __u8 lower_waiter[BIOSNOOP_OP_LOWER];
  __u8 pad[7];
  __u32 lower_dev[BIOSNOOP_OP_LOWER];
  struct biosnoop_op_layer block;
  struct biosnoop_op_layer writeback;
  struct biosnoop_op_layer journal;
  struct biosnoop_op_layer flush;
  struct biosnoop_op_layer others;
  struct biosnoop_op_culprit culprits[BIOSNOOP_OP_CULPRITS];
  /* Its own requests in flight that are journal or flush (op_segment). */
  __u64 n_journal;
  __u64 n_flush;
  /* A bio of the thread between block_bio_queue and its request (1 or 0:
   * the thread sleeps in submit_bio while it waits), its size and queue. */
  __u64 n_throttle;
  __u64 held_bytes;
  __u64 held_queue;
  struct biosnoop_op_layer throttle;
  /* A write call asleep for writeback (op_sleep_begin), 1 or 0, the
   * layer it counts in, and its culprit (the page's dirtier; pid 0:
   * none). */
  __u64 n_sleep;
  __u64 sleep_cgroup;
  __u32 sleep_pid;
  __u8 sleep_layer;
  __u8 pad2[3];
  char sleep_comm[16];
};

/* LRU: a call whose return was never seen (its thread killed in it) must
 * not hold its entry for ever.  Resized by user space (--ops), 1 when
 * off. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 1);
  __type(key, __u64);
  __type(value, struct biosnoop_op_state);
} ops SEC(".maps");

/* The files fsync-family calls are syncing now: the ledger's key of the
 * file (biosnoop_ledger_file) -> the call's key in `ops`.  A write the
 * flusher submitted completes into the call that waits for it. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u64);
  __type(value, __u64);
} syncing SEC(".maps");

/* The calls that may wait for other tasks' requests on a disk (the
 * fsync family, ops.bpf.h op_wait_register): the disk's dev_t ->
 * up to BIOSNOOP_OP_WAITERS keys in `ops` (0: a free place).  A ninth call
 * at once on one disk is not registered: what it waits for of others'
 * stays in its `other`. */
#define BIOSNOOP_OP_WAITERS 8 /* a power of two */
struct biosnoop_op_waiters {
  __u64 keys[BIOSNOOP_OP_WAITERS];
};
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, struct biosnoop_op_waiters);
} op_waiters SEC(".maps");

/* A stacked disk's dev_t -> the whole disks below it (biosnoop_abi.h),
 * kept by user space from sysfs (slaves/): a call on a file system over
 * device-mapper or md waits for requests on those. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, struct biosnoop_op_lower);
} op_lower_disks SEC(".maps");

/* A completed request that followed calls may have waited for, as
 * op_waited sees it, per CPU: [0] the completion program's, [1] the
 * rescue's (it runs nested in it). */
struct biosnoop_op_wait {
  __u64 rq;        /* the request's address */
  __u64 submit_ns; /* its submission; 0: not seen */
  __u64 now;
  __u64 since; /* its submission, or issue when that was not seen */
  __u64 device_ns;
  __u64 queue_ns;
  __u64 file;      /* its first page's file (ledger key); 0: none */
  __u64 taken;     /* the key of the syncing call that took it; 0: none */
  __u64 owner;     /* the key of the call that submitted it, and */
  __u64 owner_op;  /* that call's op_id (0: none) */
  __u64 cgroup_id; /* whose: the dirtier (ledger) or the submitter */
  __u32 pid;
  __u32 bytes;
  __u32 dev;
  __u8 cls;     /* BIOSNOOP_OPCLASS_*; _COUNT: data */
  __u8 dirtier; /* whose is the pages' dirtier */
  __u8 write;   /* a write (else a flush) */
  __u8 pad;
  char comm[16];
};
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, struct biosnoop_op_wait);
} op_wait_scratch SEC(".maps");

/* Where a call's state is built before it goes into `ops`, per CPU. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct biosnoop_op_state);
} op_scratch SEC(".maps");

/* Where an op record is built, per CPU: the record, then its file's
 * names (written as sizeof(rec) + rec.names_len bytes). */
struct biosnoop_op_buf {
  struct biosnoop_op_record rec;
  char names[BIOSNOOP_NAMES_BYTES + BIOSNOOP_NAME_MAX];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct biosnoop_op_buf);
} op_buf SEC(".maps");

/* 1 on a CPU while the primary completion program runs there: the rescue
 * program (biosnoop.bpf.c) works only when it finds it set. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} complete_running SEC(".maps");

#endif /* BIOSNOOP_BPF_MAPS_BPF_H_ */
