/* Who and what an I/O is for (issue #28): the files whose pages a request
 * carries, read at completion and only for a request that is reported, and
 * the dirtied-page ledger that names the task that dirtied a written page.
 *
 * Files.  At block_rq_complete the request's bios are still attached (the
 * kernel ends them after the tracepoint), their pages locked (reads) or
 * under writeback (writes), so each page's folio, mapping and inode are
 * stable while we look.  Per bio, its file is:
 *  - direct I/O through iomap (ext4, xfs, btrfs...): the bio's end_io is
 *    iomap_dio_bio_end_io (its address from /proc/kallsyms, set by user
 *    space) and bi_private the iomap_dio, whose iocb names the file; the
 *    front part the block layer split off a bio too large for the device
 *    (bio_split) is a clone whose end_io is bio_chain_endio and bi_private
 *    the rest, the bio with the dio; a device-mapper device's member
 *    disk gets clones (end_io dm's clone_endio), each the `clone` of a
 *    struct dm_target_io whose io's orig_bio is the file system's bio;
 *  - btrfs's direct I/O: its own bios (attr_btrfs_dio);
 *  - metadata, not a file: btrfs's btree inode, a REQ_META bio's pages
 *    in no file (xfs's buffers and log) or in the device's cache;
 *  - else its first page's folio: mapping (low bits set: anonymous or
 *    movable, not a file), mapping->host the inode; a block device inode
 *    (S_IFBLK) means the device's own page cache: file system metadata and
 *    journal, or raw buffered I/O of the device.
 * A bio's pages are its vectors from bi_iter.bi_idx, as many as
 * bi_iter.bi_size covers: a clone (a split's front part) shares the vector
 * table of the bio it was split from, and its bi_vcnt is 0.
 * A file's names are its first alias dentry's and its parents' up to the
 * file system's root; user space joins them and prefixes the mount point.
 *
 * Ledger.  writeback_dirty_folio fires once per folio that becomes dirty,
 * in the dirtying task's context (a write(), a page fault on a shared
 * mapping, jbd2 for metadata); the ledger keeps, per slot of a hash of
 * (inode, folio index), who that was.  A written request's pages are
 * looked up in it at completion: the first page's entry is the event's
 * dirtier.  A slot holding another page is replaced (counted), so a lookup
 * that finds another page's entry is a miss, never a wrong name.
 * A deleted file's entries stay (its dirty pages are dropped, unwritten),
 * and a new file may get its inode number: entries keep the inode's
 * generation, and one of the same number and index but another
 * generation is the dead inode's, dropped when found (counted as stale).
 */
#ifndef BIOSNOOP_BPF_ATTRIBUTION_BPF_H_
#define BIOSNOOP_BPF_ATTRIBUTION_BPF_H_

// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
// clang-format on

#include "biosnoop_abi.h"
#include "counters.bpf.h"
#include "filters.bpf.h"
#include "maps.bpf.h"

#define S_IFMT_ 00170000
#define S_IFBLK_ 0060000
/* btrfs: its super block's magic, and the inode whose page cache holds the
 * metadata btree (BTRFS_BTREE_INODE_OBJECTID). */
#define BTRFS_SUPER_MAGIC_ 0x9123683E
#define BTRFS_BTREE_INODE_ 1
#define BIOSNOOP_MAX_BIOS 128
/* A compiler barrier: the ledger's stores and loads stay in program
 * order, which the JIT keeps.  On x86 (TSO) another CPU then sees them in
 * that order too; on a weakly ordered CPU the key's recheck in
 * attr_dirtier narrows, but does not close, the window for a copy torn
 * between two dirtiers. */
#ifndef barrier
#define barrier() __asm__ __volatile__("" ::: "memory")
#endif

/* The folio a page belongs to (page_folio()): a tail page's compound_head
 * holds its head's address with bit 0 set. */
static __always_inline struct folio *attr_folio(struct page *page) {
  unsigned long head = BPF_CORE_READ(page, compound_head);
  if (head & 1) return (struct folio *)(head - 1);
  return (struct folio *)page;
}

/* The page-cache inode of a folio; NULL for anonymous or movable pages. */
static __always_inline struct inode *attr_folio_inode(struct folio *folio) {
  unsigned long mapping = (unsigned long)BPF_CORE_READ(folio, mapping);
  if (!mapping || (mapping & 3)) return NULL;
  return BPF_CORE_READ((struct address_space *)mapping, host);
}

/* Records who dirtied a folio (the writeback_dirty_folio hook), once per
 * page that becomes dirty, so every load here is a plain one through the
 * tracepoint's trusted pointers (a bpf_probe_read_kernel chain cost 580 ns
 * per page in the harness's buffered-write workload). */
static __always_inline void ledger_note(struct folio *folio,
                                        struct address_space *mapping,
                                        __u64 op_id) {
  struct inode *host = mapping->host;
  if (!host) return;
  struct super_block *sb = host->i_sb;
  if (!sb) return;
  /* Only pages of file systems on a tracked disk, and the devices' own
   * pages (whose superblock is the bdev pseudo file system's). */
  if (filter_dev && (host->i_mode & S_IFMT_) != S_IFBLK_) {
    struct block_device *bd = sb->s_bdev;
    if (!bd) return;
    struct gendisk *disk = bd->bd_disk;
    if (!disk) return;
    if ((((__u32)disk->major << 20) | (__u32)disk->first_minor) != filter_dev)
      return;
  }
  __u64 file = biosnoop_ledger_file(host->i_ino, sb->s_dev);
  __u64 index = folio->index;
  /* The entry keeps 32 bits of it (biosnoop_ledger_entry). */
  if (index >> 32) return;
  __u32 gen = host->i_generation;
  __u32 slot = biosnoop_ledger_slot(file, index, ledger_mask);
  struct biosnoop_ledger_entry *e = bpf_map_lookup_elem(&ledger, &slot);
  if (!e) return;
  if (e->file) {
    if (e->file != file || e->index != index)
      count(BIOSNOOP_CTR_LEDGER_REPLACED);
    else if (e->generation != gen)
      count(BIOSNOOP_CTR_LEDGER_STALE);
  }
  struct task_struct *task = bpf_get_current_task_btf();
  /* The key goes last, after a cleared one: a reader on another CPU
   * (attr_dirtier) that sees the same key before and after its copy
   * copied one page's dirtier, never another page's. */
  e->file = 0;
  barrier();
  e->index = index;
  e->generation = gen;
  e->who.dirtied_ns = bpf_ktime_get_ns();
  e->who.cgroup_id = bpf_get_current_cgroup_id();
  e->who.pid = task->tgid;
  e->who.tid = task->pid;
  copy_comm(e->who.comm, task);
  e->who.op_id = op_id;
  barrier();
  e->file = file;
}

/* State of one walk over a request's bios (attr_bio, by bpf_loop). */
struct attr_walk {
  struct biosnoop_record_buf *buf;
  struct bio *bio; /* the next bio to look at */
  __u32 bvecs;     /* bio vectors examined so far */
  __u8 write;      /* a write: look its pages up in the ledger */
  __u8 first;      /* still at the request's first page */
};

/* One step of a walk up a file's dentries (attr_names, by bpf_loop). */
struct attr_name_walk {
  char *names; /* BIOSNOOP_NAMES_BYTES + BIOSNOOP_NAME_MAX bytes */
  struct biosnoop_file *file;
  struct dentry *dentry;
  __u32 off;
};

static int attr_name_step(__u32 i, struct attr_name_walk *w) {
  struct dentry *dentry = w->dentry;
  if (!dentry) return 1;
  struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
  if (parent == dentry) {
    w->file->flags |= BIOSNOOP_FILE_ROOT;
    return 1;
  }
  __u32 off = w->off;
  if (off > BIOSNOOP_NAMES_BYTES - BIOSNOOP_NAME_MAX) return 1;
  const unsigned char *name = BPF_CORE_READ(dentry, d_name.name);
  long n = bpf_probe_read_kernel_str(
      &w->names[off & (BIOSNOOP_NAMES_BYTES - 1)], BIOSNOOP_NAME_MAX, name);
  if (n <= 0) return 1;
  w->off = off + n;
  w->file->depth++;
  w->dentry = parent;
  return 0;
}

/* Stores `dentry`'s name and its parents' up to the root, for file `f`,
 * into `names` from *len on (BIOSNOOP_NAMES_BYTES + BIOSNOOP_NAME_MAX
 * bytes), and moves *len past them.  Loops run through bpf_loop: their
 * bodies are verified once, where a bounded loop is verified per
 * iteration and per path into it (550,000 instructions at load instead of
 * 20,000, Operations test). */
static __always_inline void attr_names_into(char *names, __u32 *len,
                                            struct biosnoop_file *f,
                                            struct dentry *dentry) {
  struct attr_name_walk w = {
      .names = names, .file = f, .dentry = dentry, .off = *len};
  f->names_off = w.off;
  f->depth = 0;
  bpf_loop(BIOSNOOP_MAX_PATH_DEPTH, attr_name_step, &w, 0);
  *len = w.off;
}

static __always_inline void attr_names(struct biosnoop_record_buf *b,
                                       struct biosnoop_file *f,
                                       struct dentry *dentry) {
  attr_names_into(b->names, &b->attr.names_len, f, dentry);
}

/* Whether `key` is among the first `n` of `set` (bpf_loop). */
struct attr_find {
  __u64 *set;
  __u64 key;
  __u32 n;
  __u32 found;
};

static int attr_find_step(__u32 i, struct attr_find *f) {
  if (i >= f->n) return 1;
  if (f->set[i & (BIOSNOOP_MAX_SEEN_FILES - 1)] == f->key) {
    f->found = 1;
    return 1;
  }
  return 0;
}

/* The dev stat() gives a file: its super block's, except on btrfs, where
 * each subvolume has an anonymous dev of its own (btrfs_getattr reports
 * BTRFS_I(inode)->root->anon_dev).  btrfs is a module on Debian's kernels,
 * perhaps not loaded: every btrfs type is behind bpf_core_type_exists, so
 * the program loads without it. */
static __always_inline __u32 attr_file_dev(struct inode *inode) {
  __u32 dev = BPF_CORE_READ(inode, i_sb, s_dev);
  if (!bpf_core_type_exists(struct btrfs_inode) ||
      !bpf_core_field_exists(struct btrfs_root, anon_dev) ||
      BPF_CORE_READ(inode, i_sb, s_magic) != BTRFS_SUPER_MAGIC_)
    return dev;
  struct btrfs_inode *bi =
      (struct btrfs_inode *)((char *)inode -
                             bpf_core_field_offset(struct btrfs_inode,
                                                   vfs_inode));
  __u32 anon = BPF_CORE_READ(bi, root, anon_dev);
  return anon ? anon : dev;
}

/* Counts `inode` once per request, and lists it while there is room. */
static __always_inline void attr_file(struct biosnoop_record_buf *b,
                                      struct inode *inode,
                                      struct dentry *dentry, __u8 direct) {
  __u32 n = b->seen_n;
  struct attr_find find = {
      .set = b->seen, .key = (__u64)inode, .n = n, .found = 0};
  bpf_loop(BIOSNOOP_MAX_SEEN_FILES, attr_find_step, &find, 0);
  if (find.found) return;
  if (n >= BIOSNOOP_MAX_SEEN_FILES) {
    b->attr.incomplete = 1;
    return;
  }
  b->seen[n & (BIOSNOOP_MAX_SEEN_FILES - 1)] = (__u64)inode;
  b->seen_n = n + 1;
  b->attr.file_count++;
  __u32 l = b->attr.listed;
  if (l >= BIOSNOOP_MAX_FILES) return;
  struct biosnoop_file *f = &b->attr.files[l & (BIOSNOOP_MAX_FILES - 1)];
  f->ino = BPF_CORE_READ(inode, i_ino);
  f->dev = attr_file_dev(inode);
  f->flags = direct ? BIOSNOOP_FILE_DIRECT : 0;
  if (!dentry) {
    struct hlist_node *alias = BPF_CORE_READ(inode, i_dentry.first);
    if (alias)
      dentry =
          (struct dentry *)((char *)alias -
                            bpf_core_field_offset(struct dentry, d_u.d_alias));
  }
  attr_names(b, f, dentry);
  b->attr.listed = l + 1;
}

/* The ledger's entry of page `index` of `file` (biosnoop_ledger_file),
 * whose inode has generation `gen`; NULL when it has none.  An entry of
 * the same file and index but another generation is a deleted inode's
 * whose number the file got: dropped (its key cleared) and counted, once.
 * A dirtier rewriting the slot at that instant may lose its entry: a
 * miss, never a wrong name. */
static __always_inline struct biosnoop_ledger_entry *ledger_entry(__u64 file,
                                                                  __u32 gen,
                                                                  __u64 index) {
  __u32 slot = biosnoop_ledger_slot(file, index, ledger_mask);
  struct biosnoop_ledger_entry *e = bpf_map_lookup_elem(&ledger, &slot);
  if (!e || e->file != file || e->index != index) return NULL;
  if (e->generation == gen) return e;
  if (__sync_val_compare_and_swap(&e->file, file, 0) == file)
    count(BIOSNOOP_CTR_LEDGER_STALE);
  return NULL;
}

/* Who dirtied page `index` of `file` (biosnoop_ledger_file), of an inode
 * of generation `gen` (i_generation), into *who; false when the ledger
 * has no entry for that page.  Copied, then the key checked again:
 * ledger_note writes it last. */
static __always_inline bool ledger_read(__u64 file, __u32 gen, __u64 index,
                                        struct biosnoop_dirtier *who) {
  struct biosnoop_ledger_entry *e = ledger_entry(file, gen, index);
  if (!e) return false;
  __builtin_memcpy(who, &e->who, sizeof(*who));
  barrier();
  return e->file == file && e->index == index && e->generation == gen;
}

/* Counts a dirtying call (--ops) once per request, and lists it while
 * there is room. */
static __always_inline void attr_dirtier_op(struct biosnoop_record_buf *b,
                                            __u64 op_id) {
  __u32 n = b->op_seen_n;
  struct attr_find find = {.set = b->op_seen, .key = op_id, .n = n, .found = 0};
  bpf_loop(BIOSNOOP_MAX_DIRTIERS, attr_find_step, &find, 0);
  if (find.found) return;
  if (n >= BIOSNOOP_MAX_DIRTIERS) {
    b->attr.incomplete = 1;
    return;
  }
  b->op_seen[n & (BIOSNOOP_MAX_DIRTIERS - 1)] = op_id;
  b->op_seen_n = n + 1;
  b->attr.op_id_count++;
  __u32 l = b->attr.op_ids_listed;
  if (l >= BIOSNOOP_MAX_OP_IDS) return;
  b->attr.op_ids[l & (BIOSNOOP_MAX_OP_IDS - 1)] = op_id;
  b->attr.op_ids_listed = l + 1;
}

/* Looks one written page up in the ledger. */
/* A miss is counted for a file's first page only: the device's own pages
 * include the journal's, which jbd2 writes without dirtying them. */
static __always_inline void attr_dirtier(struct biosnoop_record_buf *b,
                                         struct inode *inode,
                                         struct folio *folio, bool first,
                                         bool file) {
  struct biosnoop_dirtier who;
  if (!ledger_read(biosnoop_ledger_file(BPF_CORE_READ(inode, i_ino),
                                        BPF_CORE_READ(inode, i_sb, s_dev)),
                   BPF_CORE_READ(inode, i_generation),
                   BPF_CORE_READ(folio, index), &who)) {
    if (first && file) count(BIOSNOOP_CTR_LEDGER_MISSES);
    return;
  }
  __u32 tid = who.tid;
  if (first) {
    __builtin_memcpy(&b->attr.dirtier, &who, sizeof(who));
    b->attr.has_dirtier = 1;
  }
  if (who.op_id) attr_dirtier_op(b, who.op_id);
  __u32 n = b->dirtiers_n;
  struct attr_find find = {.set = b->dirtiers, .key = tid, .n = n, .found = 0};
  bpf_loop(BIOSNOOP_MAX_DIRTIERS, attr_find_step, &find, 0);
  if (find.found) return;
  if (n >= BIOSNOOP_MAX_DIRTIERS) {
    b->attr.incomplete = 1;
    return;
  }
  b->dirtiers[n & (BIOSNOOP_MAX_DIRTIERS - 1)] = tid;
  b->dirtiers_n = n + 1;
  b->attr.dirtier_count++;
}

/* The written pages of one bio, each looked up in the ledger (bpf_loop). */
struct attr_vec_walk {
  struct attr_walk *walk;
  struct bio_vec *vecs;
  struct inode *inode;
  struct folio *folio; /* the first page's, already found */
  __u32 idx;
  __u32 end;  /* bi_vcnt, or no bound (a clone): `left` ends the walk */
  __u32 left; /* bytes of the bio not walked yet */
  __u32 done; /* bytes of the first vector before the bio's start */
  bool file;
  bool finished; /* reached the bio's last page */
};

static int attr_vec_step(__u32 k, struct attr_vec_walk *vw) {
  struct attr_walk *w = vw->walk;
  struct biosnoop_record_buf *b = w->buf;
  __u32 v = vw->idx + k;
  if (vw->finished) return 1;
  if (w->bvecs >= BIOSNOOP_MAX_BVECS) {
    b->attr.incomplete = 1;
    return 1;
  }
  w->bvecs++;
  /* Out of the macro: it would relocate vw->vecs too. */
  struct bio_vec *bv = vw->vecs + v;
  __u32 len = BPF_CORE_READ(bv, bv_len);
  if (k == 0) len = len > vw->done ? len - vw->done : 0;
  vw->left = len < vw->left ? vw->left - len : 0;
  if (!vw->left || v + 1 >= vw->end) vw->finished = 1;
  struct folio *folio = vw->folio;
  if (k > 0) {
    folio = attr_folio(BPF_CORE_READ(bv, bv_page));
    if (attr_folio_inode(folio) != vw->inode) return 0;
  }
  attr_dirtier(b, vw->inode, folio, w->first, vw->file);
  w->first = 0;
  return 0;
}

/* Whether a bio carries file system metadata by its submitter's word
 * (REQ_META: btrfs's tree blocks and superblock, xfs's buffers and log,
 * ext4's directory and inode-table reads). */
static __always_inline bool attr_bio_meta(struct bio *bio) {
  __u32 opf = BPF_CORE_READ(bio, bi_opf);
  return opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META));
}

/* btrfs's metadata btree lives in the page cache of an inode of its own
 * (number 1, on the file system's super block), not a file. */
static __always_inline bool attr_btrfs_btree(struct inode *inode) {
  return BPF_CORE_READ(inode, i_ino) == BTRFS_BTREE_INODE_ &&
         BPF_CORE_READ(inode, i_sb, s_magic) == BTRFS_SUPER_MAGIC_;
}

/* The pages of one bio that is not direct I/O: its first page's file, and
 * for a write, the dirtier of each page (up to BIOSNOOP_MAX_BVECS per
 * request).  Pages in no file (xfs's buffers, its log) are metadata when
 * the bio says REQ_META, else unknown (anonymous: swap). */
static __always_inline void attr_pages(struct attr_walk *w, struct bio *bio) {
  struct biosnoop_record_buf *b = w->buf;
  __u32 vcnt = BPF_CORE_READ(bio, bi_vcnt);
  __u32 idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
  __u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);
  struct bio_vec *vecs = BPF_CORE_READ(bio, bi_io_vec);
  /* bi_vcnt is 0 for a clone: its vectors are its parent's. */
  if (!vecs || !size || (vcnt && idx >= vcnt)) {
    if (w->first) b->attr.content = BIOSNOOP_CONTENT_NONE;
    return;
  }
  struct page *page = BPF_CORE_READ(vecs + idx, bv_page);
  struct folio *folio = attr_folio(page);
  struct inode *inode = attr_folio_inode(folio);
  if (!inode) {
    if (w->first)
      b->attr.content = attr_bio_meta(bio) ? BIOSNOOP_CONTENT_METADATA
                                           : BIOSNOOP_CONTENT_UNKNOWN;
    w->first = 0;
    return;
  }
  bool file = (BPF_CORE_READ(inode, i_mode) & S_IFMT_) != S_IFBLK_;
  if (!file) {
    /* The device's cache: user space tells a mounted file system's
     * metadata from raw I/O by the mount table, which does not list the
     * device of a btrfs (its s_dev is anonymous): REQ_META says so. */
    if (w->first) {
      b->attr.content = attr_bio_meta(bio) ? BIOSNOOP_CONTENT_METADATA
                                           : BIOSNOOP_CONTENT_BDEV;
      b->attr.bdev = BPF_CORE_READ(inode, i_rdev);
    }
  } else if (attr_btrfs_btree(inode)) {
    /* Not a file: no files[] entry, and no ledger miss counted. */
    if (w->first) b->attr.content = BIOSNOOP_CONTENT_METADATA;
    file = false;
  } else {
    if (w->first) b->attr.content = BIOSNOOP_CONTENT_FILE;
    attr_file(b, inode, NULL, 0);
  }
  if (!w->write || !ledger_enabled) {
    w->first = 0;
    return;
  }
  struct attr_vec_walk vw = {.walk = w,
                             .vecs = vecs,
                             .inode = inode,
                             .folio = folio,
                             .idx = idx,
                             .end = vcnt ? vcnt : ~0U,
                             .left = size,
                             .done = BPF_CORE_READ(bio, bi_iter.bi_bvec_done),
                             .file = file,
                             .finished = 0};
  bpf_loop(32, attr_vec_step, &vw, 0);
  if (!vw.finished) b->attr.incomplete = 1;
  w->first = 0;
}

/* device-mapper's clone of a bio (drivers/md/dm-core.h, module dm_mod)
 * is the `clone` member of its struct dm_target_io, whose io holds the
 * bio the file system submitted (orig_bio).  The offsets come from
 * dm_mod's BTF, read by user space (kernel_features.h: not by CO-RE, whose
 * search of module BTF needs CAP_SYS_ADMIN).  Returns the bio the clone
 * `bio` was made from, or `bio` itself. */
static __always_inline struct bio *attr_dm_origin(struct bio *bio) {
  if (!dm_tio_clone_off) return bio;
  char *tio = (char *)bio - dm_tio_clone_off;
  char *io = NULL;
  if (bpf_probe_read_kernel(&io, sizeof(io), tio + dm_tio_io_off) || !io)
    return bio;
  struct bio *orig = NULL;
  if (bpf_probe_read_kernel(&orig, sizeof(orig), io + dm_io_orig_bio_off))
    return bio;
  return orig ? orig : bio;
}

/* btrfs's direct I/O: a bio btrfs submitted to one device (end_io
 * btrfs_simple_end_io) is the `bio` of a struct btrfs_bio, whose end_io is
 * btrfs_dio_end_io for direct I/O; a part btrfs split off has no end_io
 * and its original as `private`.  Its inode is the btrfs_bio's (since
 * Linux 6.3; before, direct I/O of btrfs reads as unknown).  btrfs may be
 * absent or a module: every type behind bpf_core_type_exists.  Returns
 * the file's inode, or NULL when `bio` is no btrfs direct I/O. */
static __always_inline struct inode *attr_btrfs_dio(struct bio *bio,
                                                    __u64 end_io) {
  if (!btrfs_simple_end_io || !btrfs_dio_end_io ||
      end_io != btrfs_simple_end_io ||
      !bpf_core_type_exists(struct btrfs_bio) ||
      !bpf_core_field_exists(struct btrfs_bio, inode) ||
      !bpf_core_field_exists(struct btrfs_bio, end_io) ||
      !bpf_core_field_exists(struct btrfs_bio, private) ||
      !bpf_core_type_exists(struct btrfs_inode))
    return NULL;
  struct btrfs_bio *bbio =
      (struct btrfs_bio *)((char *)bio -
                           bpf_core_field_offset(struct btrfs_bio, bio));
  __u64 bbio_end = (__u64)BPF_CORE_READ(bbio, end_io);
  if (!bbio_end) {
    bbio = BPF_CORE_READ(bbio, private);
    bbio_end = (__u64)BPF_CORE_READ(bbio, end_io);
  }
  if (bbio_end != btrfs_dio_end_io) return NULL;
  struct btrfs_inode *bi = BPF_CORE_READ(bbio, inode);
  if (!bi) return NULL;
  return (struct inode *)((char *)bi +
                          bpf_core_field_offset(struct btrfs_inode, vfs_inode));
}

static int attr_bio(__u32 i, struct attr_walk *w) {
  struct bio *bio = w->bio;
  if (!bio) return 1;
  struct biosnoop_record_buf *b = w->buf;
  __u64 end_io = (__u64)BPF_CORE_READ(bio, bi_end_io);
  /* A split's front part: the dio is the rest's, the bio it chains to
   * (always the one split from: bio_split chains each part to it). */
  struct bio *origin = bio;
  struct inode *inode;
  /* A dm device's clone (dm-linear: LVM): the file system's bio is the
   * one with the dio. */
  if (dm_clone_end_io && end_io == dm_clone_end_io) {
    origin = attr_dm_origin(bio);
    end_io = (__u64)BPF_CORE_READ(origin, bi_end_io);
  }
  if (bio_chain_end_io && end_io == bio_chain_end_io) {
    origin = BPF_CORE_READ(origin, bi_private);
    end_io = (__u64)BPF_CORE_READ(origin, bi_end_io);
  }
  if (iomap_dio_end_io && end_io == iomap_dio_end_io) {
    struct iomap_dio *dio = BPF_CORE_READ(origin, bi_private);
    struct file *file = BPF_CORE_READ(dio, iocb, ki_filp);
    inode = BPF_CORE_READ(file, f_inode);
    if (w->first)
      b->attr.content =
          inode ? BIOSNOOP_CONTENT_FILE : BIOSNOOP_CONTENT_UNKNOWN;
    w->first = 0;
    if (inode) attr_file(b, inode, BPF_CORE_READ(file, f_path.dentry), 1);
  } else if ((inode = attr_btrfs_dio(origin, end_io))) {
    if (w->first) b->attr.content = BIOSNOOP_CONTENT_FILE;
    w->first = 0;
    attr_file(b, inode, NULL, 1);
  } else {
    attr_pages(w, bio);
  }
  w->bio = BPF_CORE_READ(bio, bi_next);
  return 0;
}

/* Fills b->attr (and its names) from a request's bios, `first` its first
 * (rq->bio: read by the caller, a plain load from a trusted pointer at
 * completion, a probe read for a stuck request's, attr_stuck). */
static __always_inline void attribute_bios(struct biosnoop_record_buf *b,
                                           struct bio *first, __u8 op) {
  __builtin_memset(&b->attr, 0, sizeof(b->attr));
  b->seen_n = 0;
  b->dirtiers_n = 0;
  b->op_seen_n = 0;
  struct attr_walk w = {
      .buf = b,
      .bio = first,
      .bvecs = 0,
      .write = op == BIOSNOOP_OP_WRITE,
      .first = 1,
  };
  b->attr.content = BIOSNOOP_CONTENT_NONE;
  if (!w.bio) return;
  bpf_loop(BIOSNOOP_MAX_BIOS, attr_bio, &w, 0);
  if (w.bio) b->attr.incomplete = 1;
  if (b->attr.names_len > BIOSNOOP_NAMES_BYTES)
    b->attr.names_len = BIOSNOOP_NAMES_BYTES;
}

static __always_inline void attribute(struct biosnoop_record_buf *b,
                                      struct request *rq, __u8 op) {
  attribute_bios(b, rq->bio, op);
}

#endif /* BIOSNOOP_BPF_ATTRIBUTION_BPF_H_ */
