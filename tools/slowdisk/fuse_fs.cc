#include "fuse_fs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "absl/strings/string_view.h"

// Why the disk is concurrent, and why every read reaches us (measured on
// Linux 6.18, libfuse 3.14, 64 threads each doing one 4 KiB O_DIRECT pread
// on the loop device, read delay 20 ms):
//
//   loop mode         FOPEN_DIRECT_IO  max_background  wall     held at once
//   buffered          yes              1024            1300 ms  1
//   --direct-io=on    yes              1024            28 ms    64
//   --direct-io=on    yes              12 (kernel's)   122 ms   12
//   --direct-io=on    no               1024            28 ms    64
//   buffered          no               1024            1300 ms  1, and
//                          repeated reads hit the page cache (no delay)
//
// - Buffered loop mode serves its requests one at a time: the loop worker
//   calls the backing file's read_iter synchronously.  With
//   `losetup --direct-io=on` it submits each request as an async O_DIRECT
//   kiocb; FUSE (fuse_direct_IO with async_dio, which we request in Init)
//   turns it into a background FUSE request and returns -EIOCBQUEUED, so
//   all 64 reach the daemon together.  FUSE on 6.18 accepts O_DIRECT and
//   loop's dio on a FOPEN_DIRECT_IO file (/sys/block/loopN/loop/dio = 1).
// - Background requests are capped by max_background, 12 by default:
//   hence kMaxBackground.
// - A worker sleeping per request would cap concurrency at the thread
//   count (libfuse's default max_threads is 10): delayed replies park in
//   the DelayQueue instead, and fuse_reply_* is sent from its thread.
// - FOPEN_DIRECT_IO keeps the page cache out even when the loop device is
//   buffered (then a repeated read would be answered without us); with
//   loop dio on, IOCB_DIRECT bypasses the cache either way.
// Enabling loop dio fsyncs the backing file once (one FSYNC at attach).
// Large block requests arrive split (a 4 MiB read came as 8 FUSE reads),
// and the pieces are held concurrently.

namespace biosnoop::slowdisk {
namespace {

constexpr fuse_ino_t kRootIno = FUSE_ROOT_ID;
constexpr fuse_ino_t kImageIno = 2;
constexpr fuse_ino_t kControlIno = 3;
// The tree never changes: let the kernel cache names and attributes.
constexpr double kCacheSeconds = 3600.0;

// How many FUSE background requests (async direct I/O) the kernel may
// have outstanding.  The kernel default is 12: with it, 64 concurrent
// delayed reads are answered in ceil(64/12) rounds of the delay.  The
// kernel caps it for unprivileged mounts (fs.fuse.max_user_bgreq).
constexpr unsigned kMaxBackground = 1024;

const time_t kStartTime = time(nullptr);

FsContext& Ctx(fuse_req_t req) {
  return *static_cast<FsContext*>(fuse_req_userdata(req));
}

bool FillAttr(const FsContext& ctx, fuse_ino_t ino, struct stat* st) {
  *st = {};
  st->st_ino = ino;
  st->st_uid = getuid();
  st->st_gid = getgid();
  st->st_atim.tv_sec = st->st_mtim.tv_sec = st->st_ctim.tv_sec = kStartTime;
  switch (ino) {
    case kRootIno:
      st->st_mode = S_IFDIR | 0755;
      st->st_nlink = 2;
      return true;
    case kImageIno:
      st->st_mode = S_IFREG | 0600;
      st->st_nlink = 1;
      st->st_size = static_cast<off_t>(ctx.disk->size());
      st->st_blocks = (st->st_size + 511) / 512;
      return true;
    case kControlIno:
      // Size 0 like a /proc file: with direct I/O, readers read to EOF.
      st->st_mode = S_IFREG | 0600;
      st->st_nlink = 1;
      return true;
    default:
      return false;
  }
}

void Init(void* userdata, fuse_conn_info* conn) {
  // Async direct I/O lets one kernel submitter (the loop device's worker)
  // have many FUSE reads in flight instead of waiting for each in turn.
  if (conn->capable & FUSE_CAP_ASYNC_DIO) {
    conn->want |= FUSE_CAP_ASYNC_DIO;
  } else {
    std::fputs(
        "slowdisk: kernel lacks FUSE async direct I/O: concurrent "
        "requests will be served one at a time\n",
        stderr);
  }
  conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  conn->max_background = kMaxBackground;
  conn->congestion_threshold = kMaxBackground * 3 / 4;
}

void Lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  fuse_ino_t ino = 0;
  if (parent == kRootIno && std::strcmp(name, kImageName) == 0) {
    ino = kImageIno;
  } else if (parent == kRootIno && std::strcmp(name, kControlName) == 0) {
    ino = kControlIno;
  }
  fuse_entry_param e{};
  if (ino == 0 || !FillAttr(Ctx(req), ino, &e.attr)) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  e.ino = ino;
  e.attr_timeout = kCacheSeconds;
  e.entry_timeout = kCacheSeconds;
  fuse_reply_entry(req, &e);
}

void GetAttr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  struct stat st;
  if (!FillAttr(Ctx(req), ino, &st)) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_reply_attr(req, &st, kCacheSeconds);
}

// The disk has a fixed size and both files fixed modes; a shell's O_TRUNC
// on `control` lands here and is harmless, so attribute changes other
// than resizing disk.img are accepted and ignored.
void SetAttr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set,
             fuse_file_info*) {
  struct stat st;
  if (!FillAttr(Ctx(req), ino, &st)) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  if (ino == kImageIno && (to_set & FUSE_SET_ATTR_SIZE) &&
      attr->st_size != st.st_size) {
    fuse_reply_err(req, EPERM);
    return;
  }
  fuse_reply_attr(req, &st, kCacheSeconds);
}

void Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (ino == kRootIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  if (ino != kImageIno && ino != kControlIno) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  // FOPEN_DIRECT_IO: no page cache for either file.  For disk.img this is
  // the guarantee that a read is never answered without the delay, even
  // when the loop device runs in buffered mode; for control, that a read
  // always shows fresh values.
  fi->direct_io = 1;
  fi->keep_cache = 0;
  fi->noflush = 1;
  fuse_reply_open(req, fi);
}

void ReadImage(fuse_req_t req, size_t size, off_t off) {
  FsContext& ctx = Ctx(req);
  uint64_t disk_size = ctx.disk->size();
  uint64_t start = std::min<uint64_t>(static_cast<uint64_t>(off), disk_size);
  uint64_t n = std::min<uint64_t>(size, disk_size - start);
  Plan plan = ctx.disk->Admit(Op::kRead, start, n);
  Disk* disk = ctx.disk;
  ctx.queue->RunAfter(std::chrono::microseconds(plan.delay_us),
                      [req, disk, plan, start, n] {
                        disk->Complete(plan, n);
                        if (plan.fail) {
                          fuse_reply_err(req, EIO);
                        } else {
                          fuse_reply_buf(req, disk->Data(start), n);
                        }
                      });
}

void Read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
          fuse_file_info*) {
  if (ino == kImageIno) {
    ReadImage(req, size, off);
    return;
  }
  if (ino != kControlIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  std::string text = Ctx(req).disk->ControlText();
  size_t start = std::min(static_cast<size_t>(off), text.size());
  fuse_reply_buf(req, text.data() + start, std::min(size, text.size() - start));
}

void WriteImage(fuse_req_t req, const char* buf, size_t size, off_t off) {
  FsContext& ctx = Ctx(req);
  uint64_t start = static_cast<uint64_t>(off);
  if (start > ctx.disk->size() || size > ctx.disk->size() - start) {
    fuse_reply_err(req, ENOSPC);
    return;
  }
  Plan plan = ctx.disk->Admit(Op::kWrite, start, size);
  // buf lives only until this handler returns, so the data is stored now;
  // only the answer waits.  A failed write stores nothing.
  if (!plan.fail) ctx.disk->Store(start, buf, size);
  Disk* disk = ctx.disk;
  ctx.queue->RunAfter(std::chrono::microseconds(plan.delay_us),
                      [req, disk, plan, size] {
                        disk->Complete(plan, size);
                        if (plan.fail) {
                          fuse_reply_err(req, EIO);
                        } else {
                          fuse_reply_write(req, size);
                        }
                      });
}

void Write(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size,
           off_t off, fuse_file_info*) {
  if (ino == kImageIno) {
    WriteImage(req, buf, size, off);
    return;
  }
  if (ino != kControlIno) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  absl::Status status =
      Ctx(req).disk->ApplyControl(absl::string_view(buf, size));
  if (!status.ok()) {
    // The writer only sees EINVAL; the daemon's log says which word.
    std::fprintf(stderr, "slowdisk: control: %.*s\n",
                 static_cast<int>(status.message().size()),
                 status.message().data());
    fuse_reply_err(req, EINVAL);
    return;
  }
  fuse_reply_write(req, size);
}

// The loop device turns REQ_OP_FLUSH into vfs_fsync() on disk.img, which
// arrives here as FUSE_FSYNC.
void Fsync(fuse_req_t req, fuse_ino_t ino, int, fuse_file_info*) {
  if (ino != kImageIno) {
    fuse_reply_err(req, 0);
    return;
  }
  FsContext& ctx = Ctx(req);
  Plan plan = ctx.disk->Admit(Op::kFlush, 0, 0);
  Disk* disk = ctx.disk;
  ctx.queue->RunAfter(std::chrono::microseconds(plan.delay_us),
                      [req, disk, plan] {
                        disk->Complete(plan, 0);
                        fuse_reply_err(req, 0);
                      });
}

void Flush(fuse_req_t req, fuse_ino_t, fuse_file_info*) {
  fuse_reply_err(req, 0);
}

void Release(fuse_req_t req, fuse_ino_t, fuse_file_info*) {
  fuse_reply_err(req, 0);
}

void ReadDir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
             fuse_file_info*) {
  if (ino != kRootIno) {
    fuse_reply_err(req, ENOTDIR);
    return;
  }
  struct Entry {
    const char* name;
    fuse_ino_t ino;
  };
  static constexpr Entry kEntries[] = {{".", kRootIno},
                                       {"..", kRootIno},
                                       {kImageName, kImageIno},
                                       {kControlName, kControlIno}};
  constexpr off_t kCount = sizeof(kEntries) / sizeof(kEntries[0]);
  std::string buf(size, '\0');
  size_t used = 0;
  for (off_t i = std::max<off_t>(off, 0); i < kCount; ++i) {
    struct stat st {};
    FillAttr(Ctx(req), kEntries[i].ino, &st);
    // The offset stored with an entry is where the next readdir resumes.
    size_t len = fuse_add_direntry(req, buf.data() + used, size - used,
                                   kEntries[i].name, &st, i + 1);
    if (len > size - used) break;
    used += len;
  }
  fuse_reply_buf(req, buf.data(), used);
}

fuse_lowlevel_ops MakeOps() {
  fuse_lowlevel_ops ops{};
  ops.init = Init;
  ops.lookup = Lookup;
  ops.getattr = GetAttr;
  ops.setattr = SetAttr;
  ops.open = Open;
  ops.read = Read;
  ops.write = Write;
  ops.fsync = Fsync;
  ops.flush = Flush;
  ops.release = Release;
  ops.readdir = ReadDir;
  return ops;
}

}  // namespace

const fuse_lowlevel_ops& SlowDiskOps() {
  static const fuse_lowlevel_ops ops = MakeOps();
  return ops;
}

}  // namespace biosnoop::slowdisk
