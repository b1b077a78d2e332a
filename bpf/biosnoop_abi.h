/* The one definition of what crosses the kernel/user boundary.
 *
 * Included by bpf/biosnoop.bpf.c (after vmlinux.h) and by the C++ decoder.
 * Every struct uses fixed-width types and explicit padding; its size is
 * asserted on both sides.  Bump BIOSNOOP_ABI_VERSION on any change to a
 * record layout or to the meaning of a field.
 */
#ifndef BIOSNOOP_BPF_BIOSNOOP_ABI_H_
#define BIOSNOOP_BPF_BIOSNOOP_ABI_H_

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define BIOSNOOP_ABI_VERSION 7

/* Record kinds written to the ring buffer. */
#define BIOSNOOP_REC_EVENT 1
#define BIOSNOOP_REC_OP 2 /* struct biosnoop_op_record (--ops) */

/* queue_ns when the request was never seen queued (issued directly, or the
 * tracer started after it was queued). */
#define BIOSNOOP_QUEUE_UNKNOWN (~0ULL)

/* Operation, normalised from the kernel's enum req_op (whose values differ
 * between kernel versions) so that user space never sees kernel numbers. */
enum biosnoop_op {
  BIOSNOOP_OP_READ = 0,
  BIOSNOOP_OP_WRITE = 1,
  BIOSNOOP_OP_FLUSH = 2,
  BIOSNOOP_OP_DISCARD = 3,
  BIOSNOOP_OP_SECURE_ERASE = 4,
  BIOSNOOP_OP_WRITE_ZEROES = 5,
  BIOSNOOP_OP_ZONE_APPEND = 6,
  BIOSNOOP_OP_OTHER = 7,
};

/* Request flags that the kernel's rwbs string shows, normalised from
 * enum req_flag_bits (bit numbers move between kernel versions). */
#define BIOSNOOP_FLAG_PREFLUSH (1u << 0) /* leading 'F' */
#define BIOSNOOP_FLAG_FUA (1u << 1)      /* trailing 'F' */
#define BIOSNOOP_FLAG_RAHEAD (1u << 2)   /* 'A' */
#define BIOSNOOP_FLAG_SYNC (1u << 3)     /* 'S' */
#define BIOSNOOP_FLAG_META (1u << 4)     /* 'M' */

/* Operation filter, set before load. */
#define BIOSNOOP_FILTER_OP_ANY 0
#define BIOSNOOP_FILTER_OP_READ 1
#define BIOSNOOP_FILTER_OP_WRITE 2

/* What the CPU was doing when a request completed
 * (biosnoop_event.completion_context), from its preempt_count: serving a
 * hard interrupt (or an NMI), serving a soft interrupt, or neither (a
 * task: a polled or threaded completion).  0 when it could not be read. */
#define BIOSNOOP_CTX_UNKNOWN 0
#define BIOSNOOP_CTX_TASK 1
#define BIOSNOOP_CTX_SOFTIRQ 2
#define BIOSNOOP_CTX_HARDIRQ 3

/* One slow completion: 128 bytes, followed, when the kernel side looked at
 * the request's pages (files on), by a struct biosnoop_attr and its names:
 * `size` covers all of it. */
struct biosnoop_event {
  __u16 abi_version;  /* BIOSNOOP_ABI_VERSION */
  __u16 size;         /* the whole record: sizeof(struct biosnoop_event),
                         plus the attribution when present */
  __u8 kind;          /* BIOSNOOP_REC_EVENT */
  __u8 op;            /* enum biosnoop_op */
  __u8 flags;         /* BIOSNOOP_FLAG_* */
  __u8 blk_status;    /* the kernel's blk_status_t of the completion; 0 = ok */
  __u64 complete_ns;  /* completion time, CLOCK_MONOTONIC (bpf_ktime_get_ns) */
  __u64 device_ns;    /* issue -> completion */
  __u64 queue_ns;     /* queued -> issue, or BIOSNOOP_QUEUE_UNKNOWN */
  __u64 sector;       /* first sector (512 bytes) of the request, whole disk */
  __u32 dev;          /* kernel dev_t of the whole disk: major << 20 | minor */
  __u32 bytes;        /* request size at issue */
  __u32 pid;          /* tgid of the submitting task, 0 if unknown */
  __u32 tid;          /* thread id of the submitting task, 0 if unknown */
  __u32 queue_depth;  /* requests in flight on dev when this one was issued */
  __u32 submit_known; /* 1 when pid/comm come from submission, 0 when from issue
                       */
  char comm[16];      /* submitting task's comm: raw bytes, NUL-padded */
  /* Taken from reserved room: zero, as a record of an earlier build holds
   * there, reads as unknown, so the ABI version stays. */
  __u64 cgroup_id; /* the submitting task's cgroup v2 id (the inode of its
                      directory in cgroupfs); 0 if unknown */
  __u8 completion_context; /* BIOSNOOP_CTX_* */
  __u8 pad[7];             /* zero */
  __u64 op_id; /* --ops: the call the request was submitted under; 0:
                  none (or --ops off) */
  /* The driver's own layer, where its tracepoints are (NVMe:
   * nvme_setup_cmd and nvme_complete_rq), else 0 (unknown: two stamps of
   * a nanosecond clock in different programs never coincide): prep, the
   * driver building the command and mapping its data before issue (inside
   * queue_ns); done, the driver ending it after the device answered
   * (inside device_ns). */
  __u64 driver_prep_ns;
  __u64 driver_done_ns;
  __u64 reserved[1]; /* zero; room for a field without an ABI bump */
};

/* What a request's first page holds (biosnoop_attr.content). */
#define BIOSNOOP_CONTENT_NONE 1    /* no data pages (flush, discard, ...) */
#define BIOSNOOP_CONTENT_FILE 2    /* a file's page cache or direct I/O */
#define BIOSNOOP_CONTENT_BDEV 3    /* the block device's own page cache */
#define BIOSNOOP_CONTENT_UNKNOWN 4 /* anonymous pages, or unreadable */
/* File system metadata outside the device's page cache: btrfs's btree
 * inode, xfs's buffers and log, a REQ_META write of the device's cache
 * (btrfs's superblock). */
#define BIOSNOOP_CONTENT_METADATA 5

#define BIOSNOOP_MAX_FILES 8       /* files listed per event */
#define BIOSNOOP_MAX_SEEN_FILES 64 /* distinct files counted per event */
#define BIOSNOOP_MAX_BVECS 256     /* bio vectors examined per event */
#define BIOSNOOP_MAX_PATH_DEPTH 32 /* names followed up from a file */
#define BIOSNOOP_NAMES_BYTES 2048  /* names of all listed files */
#define BIOSNOOP_NAME_MAX 256      /* one name with its NUL (NAME_MAX + 1) */
#define BIOSNOOP_MAX_DIRTIERS 16   /* distinct dirtiers counted per event */
#define BIOSNOOP_MAX_OP_IDS 8      /* dirtying calls listed per event */

/* biosnoop_file.flags */
#define BIOSNOOP_FILE_ROOT 1   /* names reach its file system's root */
#define BIOSNOOP_FILE_DIRECT 2 /* direct I/O: the file of the call */

/* A file whose pages a request carries. */
struct biosnoop_file {
  __u64 ino;
  __u32 dev;       /* its file system's kernel dev_t (s_dev) */
  __u16 names_off; /* its first name in biosnoop_attr.names */
  __u8 depth;      /* names stored, the file's own first, then each parent
                      up to (not including) the root */
  __u8 flags;      /* BIOSNOOP_FILE_* */
};

/* The task that dirtied a page, from the dirtied-page ledger. */
struct biosnoop_dirtier {
  __u64 dirtied_ns; /* CLOCK_MONOTONIC */
  __u64 cgroup_id;  /* its cgroup v2 id */
  __u32 pid;
  __u32 tid;
  char comm[16];
  __u64 op_id; /* --ops: the write call that dirtied it; 0: none */
};

/* What the request's pages hold: after the event when present. */
struct biosnoop_attr {
  __u8 content;        /* BIOSNOOP_CONTENT_* */
  __u8 listed;         /* files[] used */
  __u8 incomplete;     /* 1: pages left unexamined (BIOSNOOP_MAX_BVECS) */
  __u8 has_dirtier;    /* 1: dirtier is the first page's */
  __u16 file_count;    /* distinct files (at least `listed`) */
  __u16 dirtier_count; /* distinct dirtying threads the ledger knew */
  __u32 bdev;          /* CONTENT_BDEV: the device's dev_t (i_rdev) */
  __u32 names_len;     /* bytes of names[] used */
  struct biosnoop_dirtier dirtier;
  /* --ops: the distinct write calls (op_id) that dirtied the request's
   * pages, the first op_ids_listed of op_id_count (BIOSNOOP_MAX_OP_IDS). */
  __u16 op_id_count;
  __u8 op_ids_listed;
  __u8 pad[5];
  __u64 op_ids[BIOSNOOP_MAX_OP_IDS];
  struct biosnoop_file files[BIOSNOOP_MAX_FILES];
  /* Followed by names_len bytes: NUL-terminated names, per file. */
};

/* The dirtied-page ledger (--writeback-owner): one entry per slot, the
 * slot chosen by a hash of the page's file (its inode number and file
 * system) and the folio's index in it; an entry for another
 * page is replaced (counted).  An inode number is reused once its inode
 * is deleted, so an entry also keeps the inode's generation (i_generation:
 * ext4, xfs and btrfs give each new inode its own; 0 where a file system
 * sets none): an entry of the same number and index but another
 * generation is a deleted file's, never the new file's (counted, dropped).
 * 64 bytes, one cache line: the index is kept in 32 bits, so pages past
 * index 2^32 - 1 (16 TiB into a file with 4 KiB pages) are not noted. */
struct biosnoop_ledger_entry {
  __u64 file;       /* i_ino ^ (s_dev << 40) of the page's inode; 0: free */
  __u32 index;      /* the folio's index in its file */
  __u32 generation; /* the inode's i_generation */
  struct biosnoop_dirtier who;
};

/* A page's file as the ledger keys it: inode numbers are unique within a
 * file system, and s_dev (20-bit minor, 12-bit major) names it. */
static inline __u64 biosnoop_ledger_file(__u64 ino, __u32 s_dev) {
  return ino ^ ((__u64)s_dev << 40);
}

static inline __u32 biosnoop_ledger_slot(__u64 file, __u64 index, __u32 mask) {
  return (__u32)(((file ^ (index * 0x9E3779B97F4A7C15ULL)) *
                  0x9E3779B97F4A7C15ULL) >>
                 32) &
         mask;
}

/* In-flight table: one entry per request between submission and
 * completion, keyed by the request's address (struct request is
 * preallocated per queue and owned by one I/O from allocation until it is
 * freed after completion).  User space reads it to find completions the
 * kernel never showed us (InflightUpkeep::FindMissedCompletions) and to
 * expire entries (InflightTable::Expire).  BIOSNOOP_SLOTS entries live in an
 * array indexed by a hash of the address (no allocation, no lock: claimed
 * with compare-and-swap on rq); an address whose slot holds another live
 * request goes to an overflow hash map of BIOSNOOP_INFLIGHT_MAX entries,
 * keyed by the address (__u64).
 *
 * An entry is two whole cache lines (the array's values start on a page:
 * it is mappable): the first holds what every hook reads or writes, the
 * second what only submission writes and only an event reads.  At its
 * natural 104 bytes most entries straddled three lines and shared two with
 * their neighbours: ~80 ns more per I/O here (BENCHMARKS.md, What was
 * tried, 2026-11-27). */
#define BIOSNOOP_SLOTS 16384 /* power of two */
#define BIOSNOOP_INFLIGHT_MAX 32768

struct biosnoop_inflight_val {
  /* First cache line: what every hook reads or writes. */
  __u64 rq;        /* request address; 0 marks a free slot */
  __u64 submit_ns; /* 0 when submission was not seen */
  __u64 issue_ns;  /* 0 until issued */
  __u64 sector;    /* start sector at issue */
  __u32 dev;       /* kernel dev_t of the whole disk */
  __u32 bytes;
  __u32 queue_depth;
  __u8 op;
  __u8 flags;
  __u8 submit_known;
  __u8 requeued;       /* 1 between block_rq_requeue and the next issue */
  __u8 outside_cgroup; /* 1: submitted outside the --cgroup subtree */
  __u8 op_class;       /* BIOSNOOP_OPCLASS_*: which layer of its call */
  __u8 pad[2];
  __u32 pid;
  __u64 op_id; /* --ops: the call it was submitted under; 0: none */
  /* Second cache line: written at submission, read for an event. */
  __u32 tid;
  __u32 pad2;
  char comm[16];
  __u64 cgroup_id; /* the submitting task's cgroup v2 id */
  __u64 op_key;    /* that call's key in the ops map */
  /* The driver's stamps (NVMe's tracepoints), 0 when not seen: it took
   * the command (before issue), it saw the device's answer. */
  __u64 driver_setup_ns;
  __u64 driver_done_ns;
  __u8 pad3[8];
};

static inline __u32 biosnoop_slot_index(__u64 rq) {
  /* Fibonacci hashing: requests of one queue lie a fixed stride apart. */
  return (__u32)((rq * 0x9E3779B97F4A7C15ULL) >> 50) & (BIOSNOOP_SLOTS - 1);
}

/* Requests in flight per device, as biosnoop counts them (the queue depth
 * an event reports): an array of BIOSNOOP_DEPTH_SLOTS claimed by
 * compare-and-swap on dev, with a hash map keyed by dev for the rest. */
#define BIOSNOOP_DEPTH_SLOTS 256
/* The sectors of a partition filter, [start, end) of the whole disk. */
struct biosnoop_sector_range {
  __u64 start;
  __u64 end;
};

struct biosnoop_depth_slot {
  __u64 dev; /* 64-bit: BPF's compare-and-swap before -mcpu=v3 is 64-bit only */
  __u64 inflight;
};

static inline __u32 biosnoop_depth_slot_index(__u32 dev) {
  return (dev * 0x9E3779B1u) >> 24; /* BIOSNOOP_DEPTH_SLOTS == 256 */
}

/* Latency and size histograms, counted in the kernel for every completion
 * that passes the filters (no per-event message).  Per CPU, keyed by
 * (dev, op, flags); user space sums CPUs and keys as the user asks. */
#define BIOSNOOP_HIST_BUCKETS 32 /* log2 buckets: [2^i, 2^(i+1)), 0 in 0 */
#define BIOSNOOP_HIST_SLOTS 256  /* power of two */

/* 1 when v > limit, else 0, for v below 2^62, as arithmetic: (limit - v)
 * wraps around exactly then.  The empty asm hides the difference from the
 * compiler, which would otherwise turn the shift back into a branch. */
static inline __u64 biosnoop_above(__u64 v, __u64 limit) {
  __u64 d = limit - v;
  __asm__ __volatile__("" : "+r"(d));
  return d >> 63;
}

/* floor(log2(v)) for 0 < v < 2^62 (larger v count as 2^62 - 1), 0 for 0.
 * Branch-free on purpose: with a branch per step, twice per completion,
 * the verifier walked each combination (245,000 instructions, ~170 ms of
 * CPU at every start, per completion program). */
static inline __u32 biosnoop_msb(__u64 v) {
  __u64 r, s;
  v -= biosnoop_above(v >> 62, 0) * (v - ((1ULL << 62) - 1));
  r = biosnoop_above(v, 0xFFFFFFFFULL) << 5;
  v >>= r;
  s = biosnoop_above(v, 0xFFFFULL) << 4;
  v >>= s;
  r |= s;
  s = biosnoop_above(v, 0xFFULL) << 3;
  v >>= s;
  r |= s;
  s = biosnoop_above(v, 0xFULL) << 2;
  v >>= s;
  r |= s;
  s = biosnoop_above(v, 0x3ULL) << 1;
  v >>= s;
  r |= s;
  r |= v >> 1;
  return (__u32)r;
}

/* The histogram bucket of v: floor(log2(v)) for v > 0, 0 for 0, capped
 * at the last bucket, again without a branch. */
static inline __u32 biosnoop_log2_bucket(__u64 v) {
  __u64 r = biosnoop_msb(v);
  r -= biosnoop_above(r, BIOSNOOP_HIST_BUCKETS - 1) *
       (r - (BIOSNOOP_HIST_BUCKETS - 1));
  return (__u32)r;
}

/* Fine latency buckets: 16 per power of two, on the grid of Prometheus's
 * native histograms at schema 4 (boundaries 2^(k/16) seconds, bucket k
 * holding (2^((k-1)/16), 2^(k/16)] s), so that one bucket here is one
 * bucket there and hosts' histograms add up exactly.  16 per octave: a
 * bucket is 4.43% wide, so any estimate inside it (Prometheus 2.42
 * interpolates linearly) is within 4.43% of the truth; at 8 per octave
 * (9.05%) a narrow 20 ms mode read 5-6% high at p99.  Element n of
 * biosnoop_hist_fine.latency is bucket k = n + FINE_FIRST; element 0 also
 * holds everything at most 2^-20 s (~954 ns: the native histogram's zero
 * bucket), the last one (k = 191: up to 2^(191/16) s, ~65 min) everything
 * above as well. */
#define BIOSNOOP_HIST_FINE_BUCKETS 512
#define BIOSNOOP_HIST_FINE_FIRST (-320)
#define BIOSNOOP_HIST_FINE_SLOTS 64 /* keys (dev, op): power of two */

/* The fine bucket element of a latency in ns.  With e = floor(log2(ns))
 * and m = ns / 2^e, bucket k = ceil(16 log2(ns / 1e9)) =
 * 16e - 478 + #{j in 0..15 : m > 2^((j + c) / 16)}, c = 16 log2(1e9) - 478
 * = 0.357645663780178...: m scaled to [2^61, 2^62) is compared with those
 * sixteen thresholds, 2^61 2^((j + c) / 16) rounded down (the fifteenth is
 * exactly 1e9 * 2^32; histogram_test.cc has all sixteen).  Not sixteen
 * compares (~64 instructions, +26 ns a
 * completion on the bench's machine): m's five bits below its top one
 * name one of 32 equal cells of the octave, each narrower (at most 3.1%)
 * than a bucket (4.43%), so a cell holds at most one threshold, and the
 * count is the cell's thresholds below it plus one compare with the one
 * inside it (BIOSNOOP_FINE_NO_THRESHOLD: none).  Element n = k + 320 =
 * 16e + count - 158, clamped to [0, 511]. */
#define BIOSNOOP_FINE_NO_THRESHOLD (1ULL << 62) /* above every m */
/* Cell q covers m in [2^61 + q 2^56, 2^61 + (q + 1) 2^56): the threshold
 * inside it, and the number below it.  At file scope, not static in the
 * function: BTF names such a variable "function.name", which the kernel
 * refuses (the whole .BTF, and with it every global function).  The
 * counts are __u32, not __u8: clang puts a constant of 32 bytes in a
 * mergeable section (.rodata.cst32) that BTF's .rodata does not describe,
 * also refused. */
static const __u64 biosnoop_fine_cell_threshold[32] = {
    2341847523916196280ULL,     2445529971668239784ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, 2553802833553598966ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, 2666869344568863968ULL,
    2784941737692645604ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    2908241642260273621ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    3037000499976049692ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    3171459999343936368ULL,     3311872529332135848ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, 3458501653123115592ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, BIOSNOOP_FINE_NO_THRESHOLD,
    3611622602838339504ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    3771522796166334215ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    3938502375863833974ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
    BIOSNOOP_FINE_NO_THRESHOLD, 4112874773142681847ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, 4294967296000000000ULL,
    BIOSNOOP_FINE_NO_THRESHOLD, BIOSNOOP_FINE_NO_THRESHOLD,
    4485121743595961938ULL,     BIOSNOOP_FINE_NO_THRESHOLD,
};
static const __u32 biosnoop_fine_cell_below[32] = {
    0,  1,  2,  2,  3,  3,  4,  5,  5,  6,  6,  7,  7,  8,  9,  9,
    10, 10, 10, 11, 11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 15, 16};
static inline __u32 biosnoop_fine_bucket(__u64 ns) {
  ns -= biosnoop_above(ns >> 62, 0) * (ns - ((1ULL << 62) - 1));
  __u64 e = biosnoop_msb(ns);
  __u64 m = ns << (61 - e);
  __u32 q = (__u32)(m >> 56) & 31;
  __u64 s = 16 * e + biosnoop_fine_cell_below[q] +
            biosnoop_above(m, biosnoop_fine_cell_threshold[q]);
  __u64 n = biosnoop_above(s, 158) * (s - 158);
  n -= biosnoop_above(n, BIOSNOOP_HIST_FINE_BUCKETS - 1) *
       (n - (BIOSNOOP_HIST_FINE_BUCKETS - 1));
  return (__u32)n;
}

/* (dev << 16) | (op << 8) | flags; 0 marks a free slot (dev is never 0). */
static inline __u64 biosnoop_hist_key(__u32 dev, __u8 op, __u8 flags) {
  return ((__u64)dev << 16) | ((__u64)op << 8) | flags;
}

/* The hist_slots element a key lives in first (Fibonacci hashing); a key
 * whose element holds another key on that CPU goes to hist_overflow. */
static inline __u32 biosnoop_hist_slot_index(__u64 key) {
  return (__u32)((key * 0x9E3779B97F4A7C15ULL) >> 56) &
         (BIOSNOOP_HIST_SLOTS - 1);
}

/* The hist_fine_slots element of a fine key (dev, op, flags 0). */
static inline __u32 biosnoop_hist_fine_slot_index(__u64 key) {
  return (__u32)((key * 0x9E3779B97F4A7C15ULL) >> 58) &
         (BIOSNOOP_HIST_FINE_SLOTS - 1);
}

/* Fine latency counts per (dev, op) (biosnoop_fine_bucket), beside the
 * log2 ones per (dev, op, flags): kept per disk and op only, what
 * summaries and metrics group by, so that 4 KiB per key stays few keys. */
struct biosnoop_hist_fine {
  __u64 key; /* biosnoop_hist_key(dev, op, 0) */
  __u64 latency[BIOSNOOP_HIST_FINE_BUCKETS];
};

struct biosnoop_hist {
  __u64 key;
  __u64 count;      /* completions */
  __u64 bytes;      /* their bytes */
  __u64 slow;       /* completions at least as slow as the threshold */
  __u64 errors;     /* completions that failed (a nonzero blk_status_t) */
  __u64 latency_ns; /* their latencies summed, in ns (a histogram's sum) */
  __u64 latency[BIOSNOOP_HIST_BUCKETS]; /* log2 of latency in hist_unit_ns */
  __u64 size[BIOSNOOP_HIST_BUCKETS];    /* log2 of bytes */
};

/* ---- Calls (--ops, issue #29) ---- */

/* The calls followed (biosnoop_op_record.call); 0: not followed. */
enum biosnoop_call {
  BIOSNOOP_CALL_NONE = 0,
  BIOSNOOP_CALL_READ = 1,
  BIOSNOOP_CALL_WRITE = 2,
  BIOSNOOP_CALL_PREAD64 = 3,
  BIOSNOOP_CALL_PWRITE64 = 4,
  BIOSNOOP_CALL_READV = 5,
  BIOSNOOP_CALL_WRITEV = 6,
  BIOSNOOP_CALL_PREADV = 7,
  BIOSNOOP_CALL_PWRITEV = 8,
  BIOSNOOP_CALL_FSYNC = 9,
  BIOSNOOP_CALL_FDATASYNC = 10,
  BIOSNOOP_CALL_SYNC_FILE_RANGE = 11,
  BIOSNOOP_CALL_URING_READ = 12,     /* io_uring: IORING_OP_READ(V), _FIXED */
  BIOSNOOP_CALL_URING_WRITE = 13,    /* IORING_OP_WRITE(V), _FIXED */
  BIOSNOOP_CALL_URING_FSYNC = 14,    /* IORING_OP_FSYNC */
  BIOSNOOP_CALL_IO_URING_ENTER = 15, /* internal: never in a record */
  BIOSNOOP_CALL_MAX,
};

/* syscall_calls[] (maps.bpf.h) size: syscall numbers below it. */
#define BIOSNOOP_MAX_SYSCALL_NR 512

/* Which layer of its call a request counts in (inflight op_class). */
#define BIOSNOOP_OPCLASS_BLOCK 0     /* submitted by the call itself */
#define BIOSNOOP_OPCLASS_WRITEBACK 1 /* fsync family: the file's dirty data */
#define BIOSNOOP_OPCLASS_JOURNAL 2   /* a metadata write: journal, log */
#define BIOSNOOP_OPCLASS_FLUSH 3     /* a cache flush */
#define BIOSNOOP_OPCLASS_OTHERS 4    /* another file's data (never own) */
#define BIOSNOOP_OPCLASS_COUNT 5

/* biosnoop_op_record.offset when the call has none (fsync). */
#define BIOSNOOP_OFFSET_NONE (~0ULL)

/* biosnoop_op_record.flags */
#define BIOSNOOP_OPF_NAMED 1 /* file.* and names are the call's file */
#define BIOSNOOP_OPF_ASKED_PARTIAL                                     \
  2                          /* readv/writev: more vectors than summed \
                                (BIOSNOOP_MAX_IOVECS): bytes_requested \
                                is a lower bound */
#define BIOSNOOP_OPF_URING 4 /* an io_uring request, not a syscall */
/* real_file is the real file under the call's overlayfs file; its names
 * follow file's. */
#define BIOSNOOP_OPF_REAL 8

#define BIOSNOOP_MAX_IOVECS 8 /* vectors of readv/writev summed */
#define BIOSNOOP_OP_DISKS 4   /* disks listed per call */

/* The disks under a stacked (device-mapper, md) disk, user space's
 * `op_lower_disks` map: its key the stacked disk's dev_t, its value the
 * whole disks below it (requests reach those, never the stacked disk),
 * the disks with nothing under them first; 0 ends the list. */
#define BIOSNOOP_OP_LOWER 4
struct biosnoop_op_lower {
  __u32 devs[BIOSNOOP_OP_LOWER];
};
#define BIOSNOOP_OP_CULPRITS 4 /* culprits kept per call */

/* The request-queue controllers (rq_qos) a throttled bio's queue had on
 * when it waited (the kernel says not which of them, nor a tag, held it). */
#define BIOSNOOP_QOS_WBT 1       /* writeback throttling, enabled */
#define BIOSNOOP_QOS_IOLATENCY 2 /* cgroup v2 io.latency */
#define BIOSNOOP_QOS_IOCOST 4    /* cgroup v2 io.cost */

/* One layer of a call: its requests, their times, and how long the call
 * had at least one of them in flight (wait_ns). */
struct biosnoop_op_layer {
  __u32 requests; /* throttle: the bios that waited */
  __u32 qos;      /* throttle only: BIOSNOOP_QOS_* on their queues */
  __u64 bytes;
  __u64 queue_ns_sum; /* of the requests whose queue time is known */
  __u64 queue_ns_max;
  __u64 device_ns_sum;
  __u64 device_ns_max;
  __u64 wait_ns;
};

/* Whose requests a call waited for but did not submit (a journal write,
 * a flush, another file's writeback): one task in one layer, with the
 * time the call waited for its requests. */
struct biosnoop_op_culprit {
  __u64 cgroup_id; /* its cgroup v2 id */
  __u64 bytes;
  __u64 wait_ns;
  __u32 pid; /* 0: a free slot (the kernel side claims it by cgroup_id) */
  __u32 requests;
  __u8 layer;   /* BIOSNOOP_OPCLASS_JOURNAL, _FLUSH, _WRITEBACK or _OTHERS */
  __u8 dirtier; /* 1: the task that dirtied the pages (the ledger's);
                   0: the task that submitted the requests */
  __u8 pad[6];
  char comm[16];
};

/* One call that took at least --op-min-us: 736 bytes, followed by the
 * file's names (names_len bytes, as in struct biosnoop_attr), then, for a
 * file on overlayfs, the real file's. */
struct biosnoop_op_record {
  __u16 abi_version; /* BIOSNOOP_ABI_VERSION */
  __u16 size;        /* the whole record, names included */
  __u8 kind;         /* BIOSNOOP_REC_OP */
  __u8 call;         /* enum biosnoop_call */
  __u8 flags;        /* BIOSNOOP_OPF_* */
  __u8 pad0;
  __u64 op_id;    /* unique in this run, from 1 */
  __u64 start_ns; /* CLOCK_MONOTONIC: the call's entry (io_uring: submission) */
  __u64 end_ns;   /* its return (io_uring: completion) */
  __s64 result;   /* the return value: bytes, 0, or -errno */
  __u64 offset;   /* file offset at entry; BIOSNOOP_OFFSET_NONE: none */
  __u64 bytes_requested;
  __u32 pid;
  __u32 tid;
  char comm[16];
  __u64 cgroup_id;
  __u32 disk_dev; /* the whole disk of the file's file system */
  __u32 part_dev; /* the block device it is on (a partition, or the disk) */
  __u32 block_devs[BIOSNOOP_OP_DISKS]; /* the disks of its block requests */
  __u32 block_dev_count;               /* distinct (may exceed the list) */
  __u32 dirty_known; /* writeback requests whose first page the ledger knew */
  struct biosnoop_op_layer block;
  struct biosnoop_op_layer writeback;
  __u64 dirty_age_max_ns; /* submission - dirtying, of the first pages */
  __u64 dirty_age_min_ns;
  /* What the call waited for but did not submit, or submitted as
   * metadata or flushes (issue #39). */
  struct biosnoop_op_layer journal;
  struct biosnoop_op_layer flush;
  struct biosnoop_op_layer others;
  struct biosnoop_op_culprit culprits[BIOSNOOP_OP_CULPRITS];
  struct biosnoop_file file;
  __u32 names_len;
  __u32 pad1;
  /* Its bios' waits to become requests (rq_qos throttling, a free tag;
   * issue #39): requests counts bios, device and queue times are 0. */
  struct biosnoop_op_layer throttle;
  /* BIOSNOOP_OPF_REAL: the file an overlayfs file stands for (the upper
   * one once written, else the lower), on the file system that holds it;
   * its ino and dev are what its own stat() gives. */
  struct biosnoop_file real_file;
};

/* Per-CPU counters: index into the counters array map. */
enum biosnoop_counter {
  BIOSNOOP_CTR_COMPLETIONS = 0,   /* completions on tracked disks */
  BIOSNOOP_CTR_EMITTED,           /* records submitted to the ring buffer */
  BIOSNOOP_CTR_LOST,              /* ring buffer reservations that failed */
  BIOSNOOP_CTR_ORPHANS,           /* completions with no issue recorded */
  BIOSNOOP_CTR_MISSED_REUSE,      /* request submitted again while its last
                                     use was still held: that completion was
                                     never seen (part of `missed`) */
  BIOSNOOP_CTR_MAP_FULL,          /* in-flight insert failed: map full */
  BIOSNOOP_CTR_FILTERED,          /* completions dropped by pid/comm/op/
                                     partition/cgroup */
  BIOSNOOP_CTR_BELOW_THRESHOLD,   /* completions faster than the threshold */
  BIOSNOOP_CTR_RQ_MERGES,         /* requests merged away before issue */
  BIOSNOOP_CTR_PARTIAL,           /* partial completions (event at the last) */
  BIOSNOOP_CTR_REQUEUES,          /* requests requeued and issued again */
  BIOSNOOP_CTR_ISSUE_UNSUBMITTED, /* issued with no submission seen */
  BIOSNOOP_CTR_HIST_FULL,         /* histogram key found no room */
  BIOSNOOP_CTR_RESCUED_COMPLETE,  /* completions seen by the rescue program */
  BIOSNOOP_CTR_ORPHANS_UNISSUED,  /* of the orphans: submission seen, no issue
                                     (a request the block layer completed
                                     without issuing it, e.g. the one behind
                                     a flush; or a skipped issue hook) */
  BIOSNOOP_CTR_LEDGER_MISSES,     /* emitted writes of a file's cached pages
                                     whose first page the ledger did not
                                     know */
  BIOSNOOP_CTR_LEDGER_REPLACED,   /* ledger entries replaced by another
                                     page's */
  BIOSNOOP_CTR_ATTR_LOST,         /* attribution left out of a record:
                                     no scratch room (never expected) */
  BIOSNOOP_CTR_OPS_STARTED,       /* calls followed (--ops) */
  BIOSNOOP_CTR_OPS_EMITTED,       /* op records queued for user space */
  BIOSNOOP_CTR_OPS_LOST,          /* op records lost: ring buffer full */
  BIOSNOOP_CTR_OPS_UNTRACKED,     /* calls not followed: no room in ops */
  BIOSNOOP_CTR_OPS_UNFOLLOWED,    /* calls on regular files of a file system
                                     with no block device biosnoop can find
                                     (FUSE, NFS...): not followed */
  BIOSNOOP_CTR_LEDGER_STALE,      /* ledger entries of a deleted inode whose
                                     number a new file got (same number and
                                     index, another generation): dropped
                                     when a lookup found them or the new
                                     file's page was dirtied over them */
  BIOSNOOP_CTR_MAX,
};

#endif /* BIOSNOOP_BPF_BIOSNOOP_ABI_H_ */
