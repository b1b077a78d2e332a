/* Calls (--ops): which file a call is on, and whether it is followed:
 * a regular file of a file system on a tracked disk. */
#ifndef BIOSNOOP_BPF_OP_FILE_BPF_H_
#define BIOSNOOP_BPF_OP_FILE_BPF_H_

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

#define S_IFREG_ 0100000

/* A kernel object's address read as a number, made a read-only pointer
 * again: its fields are then plain loads (a fault reads as zero) instead of
 * a helper call each.  The kfunc came in Linux 6.2 (commit "bpf: Add a
 * kfunc for generic type cast"); weak, because Debian 12's libbpf 1.1
 * resolves every kfunc extern at load, even in programs not loaded.  Only
 * the programs built with `cast` true call it, and user space loads them
 * only where the kernel's BTF has it (kernel_features.h); the others read
 * the same fields with bpf_probe_read_kernel. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* The file open as descriptor `fd` in the current thread, or NULL. */
static __always_inline struct file *op_fd_file(struct task_struct *task,
                                               int fd) {
  if (fd < 0) return NULL;
  struct files_struct *files = task->files;
  if (!files) return NULL;
  struct fdtable *fdt = files->fdt;
  if (!fdt) return NULL;
  if ((unsigned int)fd >= fdt->max_fds) return NULL;
  struct file **table = fdt->fd;
  struct file *f = NULL;
  if (bpf_probe_read_kernel(&f, sizeof(f), table + fd)) return NULL;
  return f;
}

/* A followed call's file, as op_file_wanted finds it: for a call on an
 * overlayfs file, the real file's (ino and s_dev are then what stat() of
 * the merged path gives, and what the pages written carry). */
struct op_file_id {
  __u64 ino;
  __u32 s_dev;
  __u32 disk_dev;
  __u32 part_dev;
};

/* The file systems, by s_magic, whose block device is not s_bdev. */
#define OP_BTRFS_MAGIC 0x9123683e
#define OP_OVERLAYFS_MAGIC 0x794c7630

/* File systems biosnoop cannot follow (no block device, e.g. FUSE, NFS)
 * on which calls were made, by s_dev: user space names each once on
 * stderr.  The value is unused; LRU so a machine with many such mounts
 * cannot fill it for good. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, __u8);
} ops_unfollowed_devs SEC(".maps");

/* btrfs and overlayfs are modules on Debian's kernels: their types are in
 * the module's BTF, found only when the module is loaded when biosnoop
 * starts.  These flavours (the ___bs suffix is dropped when matching) are
 * read only under bpf_core_type_exists / bpf_core_field_exists, so where
 * the type is absent the branch is dead code and the program loads. */
struct btrfs_device___bs {
  struct block_device *bdev;
} __attribute__((preserve_access_index));
struct btrfs_fs_devices___bs {
  /* The device of the latest generation, since Linux 5.16 ("btrfs:
   * replace latest_bdev with pointer to device"); 6.1, 6.12 and 6.18
   * all have it. */
  struct btrfs_device___bs *latest_dev;
} __attribute__((preserve_access_index));
struct btrfs_fs_devices___bs_old {
  struct block_device *latest_bdev; /* before 5.16 */
} __attribute__((preserve_access_index));
struct btrfs_fs_info___bs {
  struct btrfs_fs_devices___bs *fs_devices;
} __attribute__((preserve_access_index));
/* An overlayfs file's private_data from Linux 6.13 ("ovl: allocate a
 * container struct ovl_file"); before, private_data is the real file. */
struct ovl_file___bs {
  struct file *realfile;
} __attribute__((preserve_access_index));

extern unsigned int LINUX_KERNEL_VERSION __kconfig;

/* The block device btrfs `sb` lives on (its latest device; a file system
 * over several disks is named by that one), or NULL. */
static __always_inline struct block_device *op_btrfs_bdev(
    struct super_block *sb) {
  if (!bpf_core_type_exists(struct btrfs_fs_info___bs)) return NULL;
  struct btrfs_fs_info___bs *info = BPF_CORE_READ(sb, s_fs_info);
  if (!info) return NULL;
  if (bpf_core_field_exists(struct btrfs_fs_devices___bs, latest_dev))
    return BPF_CORE_READ(info, fs_devices, latest_dev, bdev);
  if (bpf_core_field_exists(struct btrfs_fs_devices___bs_old, latest_bdev)) {
    struct btrfs_fs_devices___bs_old *devs =
        (void *)BPF_CORE_READ(info, fs_devices);
    return BPF_CORE_READ(devs, latest_bdev);
  }
  return NULL;
}

/* The real (upper or lower) file behind overlayfs file `file`, or NULL. */
static __always_inline struct file *op_ovl_real_file(struct file *file) {
  void *priv = BPF_CORE_READ(file, private_data);
  if (!priv) return NULL;
  if (bpf_core_type_exists(struct ovl_file___bs))
    return BPF_CORE_READ((struct ovl_file___bs *)priv, realfile);
  /* The module not loaded when biosnoop started: the kernel's version
   * says which layout it has (realfile is struct ovl_file's first field). */
  if (LINUX_KERNEL_VERSION >= KERNEL_VERSION(6, 13, 0)) {
    struct file *real = NULL;
    bpf_probe_read_kernel(&real, sizeof(real), priv);
    return real;
  }
  return priv;
}

/* A regular file on a file system whose block device biosnoop cannot
 * find: counted, and its s_dev noted for user space.  Memory file systems
 * (tmpfs, proc, sysfs...) are left out silently: their super block has
 * the kernel's unregistered no-op backing device (no `dev`), while FUSE,
 * NFS, CIFS, ceph... register one of their own (super_setup_bdi). */
static __always_inline void op_file_unfollowed(struct super_block *sb) {
  if (!BPF_CORE_READ(sb, s_bdi, dev)) return;
  count(BIOSNOOP_CTR_OPS_UNFOLLOWED);
  __u32 dev = BPF_CORE_READ(sb, s_dev);
  if (!bpf_map_lookup_elem(&ops_unfollowed_devs, &dev)) {
    __u8 one = 1;
    bpf_map_update_elem(&ops_unfollowed_devs, &dev, &one, BPF_NOEXIST);
  }
}

/* The fields op_file_wanted needs, through bpf_rdonly_cast (`cast`: plain
 * loads) or bpf_probe_read_kernel (kernels before 6.2).  Returns false
 * when a pointer on the way is NULL; leaves id->disk_dev 0 when the
 * super block has no s_bdev (btrfs, overlayfs, FUSE, NFS, memory). */
static __always_inline bool op_file_fields(struct file *file, bool cast,
                                           struct op_file_id *id, __u16 *mode) {
  struct inode *inode;
  struct super_block *sb;
  struct block_device *bd;
  struct gendisk *disk;
  if (cast) {
    struct file *f =
        bpf_rdonly_cast(file, bpf_core_type_id_kernel(struct file));
    inode = f->f_inode;
    if (!inode) return false;
    *mode = inode->i_mode;
    sb = inode->i_sb;
    if (!sb) return false;
    bd = sb->s_bdev;
    if (!bd) return true;
    disk = bd->bd_disk;
    if (!disk) return false;
    id->disk_dev = ((__u32)disk->major << 20) | (__u32)disk->first_minor;
    id->part_dev = bd->bd_dev;
    id->ino = inode->i_ino;
    id->s_dev = sb->s_dev;
    return true;
  }
  inode = BPF_CORE_READ(file, f_inode);
  if (!inode) return false;
  *mode = BPF_CORE_READ(inode, i_mode);
  sb = BPF_CORE_READ(inode, i_sb);
  if (!sb) return false;
  bd = BPF_CORE_READ(sb, s_bdev);
  if (!bd) return true;
  disk = BPF_CORE_READ(bd, bd_disk);
  if (!disk) return false;
  id->disk_dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
                 (__u32)BPF_CORE_READ(disk, first_minor);
  id->part_dev = BPF_CORE_READ(bd, bd_dev);
  id->ino = BPF_CORE_READ(inode, i_ino);
  id->s_dev = BPF_CORE_READ(sb, s_dev);
  return true;
}

/* A regular file whose super block has no s_bdev: btrfs (its device from
 * its own structures), overlayfs (its real file's), else unfollowed. */
static __always_inline bool op_file_no_bdev(struct file *file,
                                            struct op_file_id *id) {
  struct inode *inode = BPF_CORE_READ(file, f_inode);
  struct super_block *sb = BPF_CORE_READ(inode, i_sb);
  if (BPF_CORE_READ(sb, s_magic) == OP_OVERLAYFS_MAGIC) {
    struct file *real = op_ovl_real_file(file);
    if (!real) return false;
    inode = BPF_CORE_READ(real, f_inode);
    if (!inode) return false;
    if ((BPF_CORE_READ(inode, i_mode) & S_IFMT_) != S_IFREG_) return false;
    sb = BPF_CORE_READ(inode, i_sb);
    if (!sb) return false;
  }
  struct block_device *bd = BPF_CORE_READ(sb, s_bdev);
  if (!bd && BPF_CORE_READ(sb, s_magic) == OP_BTRFS_MAGIC)
    bd = op_btrfs_bdev(sb);
  struct gendisk *disk = bd ? BPF_CORE_READ(bd, bd_disk) : NULL;
  if (!disk) {
    op_file_unfollowed(sb);
    return false;
  }
  id->disk_dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
                 (__u32)BPF_CORE_READ(disk, first_minor);
  id->part_dev = BPF_CORE_READ(bd, bd_dev);
  id->ino = BPF_CORE_READ(inode, i_ino);
  id->s_dev = BPF_CORE_READ(sb, s_dev);
  return true;
}

/* Whether `file` is a regular file of a file system on a tracked disk;
 * fills `id` when it is.  Files with s_bdev (ext4, xfs...) take the first
 * branch only: op_begin runs for every read and write of the machine. */
static __always_inline bool op_file_wanted(struct file *file, bool cast,
                                           struct op_file_id *id) {
  if (!file) return false;
  __u16 mode = 0;
  id->disk_dev = 0;
  if (!op_file_fields(file, cast, id, &mode)) return false;
  if ((mode & S_IFMT_) != S_IFREG_) return false;
  if (!id->disk_dev && !op_file_no_bdev(file, id)) return false;
  if (filter_dev && id->disk_dev != filter_dev) return false;
  if (filter_bdev && id->part_dev != filter_bdev) return false;
  return true;
}

/* The dev stat() gives for the file the application opened, which also
 * finds the mount that names it: for an overlayfs file the overlay's (the
 * merged path), not the real file's; on btrfs its subvolume's, as events'
 * files carry. */
static __always_inline __u32 op_file_name_dev(struct file *f, __u32 s_dev) {
  return f ? attr_file_dev(BPF_CORE_READ(f, f_inode)) : s_dev;
}

/* For an op record of a call on overlayfs file `file_addr` (the buffer's
 * record, its names written up to names_len): the real file's ino, dev
 * and names after the others, and BIOSNOOP_OPF_REAL.  A global function,
 * verified once rather than in each program that ends a call; the file
 * comes as an address, read through CO-RE. */
__noinline int op_name_real_file(__u64 file_addr) {
  __u32 zero = 0;
  struct biosnoop_op_buf *b = bpf_map_lookup_elem(&op_buf, &zero);
  if (!b) return 0;
  struct biosnoop_op_record *r = &b->rec;
  __builtin_memset(&r->real_file, 0, sizeof(r->real_file));
  struct file *f = (struct file *)file_addr;
  if (!f || BPF_CORE_READ(f, f_inode, i_sb, s_magic) != OP_OVERLAYFS_MAGIC)
    return 0;
  struct file *real = op_ovl_real_file(f);
  struct inode *inode = real ? BPF_CORE_READ(real, f_inode) : NULL;
  if (!inode) return 0;
  r->real_file.ino = BPF_CORE_READ(inode, i_ino);
  r->real_file.dev = attr_file_dev(inode);
  /* overlayfs opens the real file with the flags of its own. */
  r->real_file.flags = r->file.flags & BIOSNOOP_FILE_DIRECT;
  __u32 len = r->names_len;
  attr_names_into(b->names, &len, &r->real_file,
                  BPF_CORE_READ(real, f_path.dentry));
  r->names_len = len;
  r->flags |= BIOSNOOP_OPF_REAL;
  return 0;
}

#endif /* BIOSNOOP_BPF_OP_FILE_BPF_H_ */
