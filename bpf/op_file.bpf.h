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

/* A followed call's file, as op_file_wanted finds it. */
struct op_file_id {
  __u64 ino;
  __u32 s_dev;
  __u32 disk_dev;
  __u32 part_dev;
};

/* Whether `file` is a regular file of a file system on a tracked disk;
 * fills `id` when it is. */
/* The fields op_file_wanted needs, through bpf_rdonly_cast (`cast`: plain
 * loads) or bpf_probe_read_kernel (kernels before 6.2).  Returns false
 * when a pointer on the way is NULL. */
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
    if (!bd) return false;
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
  if (!bd) return false;
  disk = BPF_CORE_READ(bd, bd_disk);
  if (!disk) return false;
  id->disk_dev = ((__u32)BPF_CORE_READ(disk, major) << 20) |
                 (__u32)BPF_CORE_READ(disk, first_minor);
  id->part_dev = BPF_CORE_READ(bd, bd_dev);
  id->ino = BPF_CORE_READ(inode, i_ino);
  id->s_dev = BPF_CORE_READ(sb, s_dev);
  return true;
}

static __always_inline bool op_file_wanted(struct file *file, bool cast,
                                           struct op_file_id *id) {
  if (!file) return false;
  __u16 mode = 0;
  if (!op_file_fields(file, cast, id, &mode)) return false;
  if ((mode & S_IFMT_) != S_IFREG_) return false;
  if (filter_dev && id->disk_dev != filter_dev) return false;
  if (filter_bdev && id->part_dev != filter_bdev) return false;
  return true;
}

#endif /* BIOSNOOP_BPF_OP_FILE_BPF_H_ */
