#pragma once

// Files on real file systems, for the privileged tests: ext4, xfs or btrfs
// made and mounted on a test's disk (FileSystem, Ext4), overlayfs over one
// (Overlay), and the file operations the tests drive through them.
// Header-only, like the rest is small.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cgroups.h"
#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {

// Pages of the file at `path` in the page cache (mincore), -1 on error.
inline long CachedPages(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    close(fd);
    return -1;
  }
  void* p = mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return -1;
  const long page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec((st.st_size + page - 1) / page);
  long n = -1;
  if (mincore(p, st.st_size, vec.data()) == 0) {
    n = std::count_if(vec.begin(), vec.end(),
                      [](unsigned char c) { return c & 1; });
  }
  munmap(p, st.st_size);
  return n;
}

// Writes `bytes` of a pattern to `path` (created), buffered, `chunk` bytes
// a write, and fsyncs it when `sync`, from this process.  (The size of a
// write is the size of the page-cache folio it makes, on file systems with
// large folios: 4 KiB writes dirty one ledger entry per page.)
inline bool WriteFile(const std::string& path, size_t bytes, bool sync,
                      size_t chunk_size = 65536) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const std::string chunk(chunk_size, 'x');
  bool ok = true;
  for (size_t done = 0; ok && done < bytes;) {
    const size_t n = std::min(chunk.size(), bytes - done);
    ok = write(fd, chunk.data(), n) == static_cast<ssize_t>(n);
    done += n;
  }
  if (ok && sync) ok = fsync(fd) == 0;
  return close(fd) == 0 && ok;
}

// Drops the (clean) cached pages of the file at `path`.
inline bool DropCache(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  close(fd);
  return ok && CachedPages(path) == 0;
}

// The file systems the tests make: ext4, xfs and btrfs.
enum class FsType { kExt4, kXfs, kBtrfs };

inline const char* FsName(FsType t) {
  switch (t) {
    case FsType::kXfs:
      return "xfs";
    case FsType::kBtrfs:
      return "btrfs";
    default:
      return "ext4";
  }
}

// mkfs for `type` on `dev`, quiet and forced.  ext4's inode tables and
// journal are zeroed now (no ext4lazyinit I/O later); btrfs is made with
// one device's profiles (single data, dup metadata).
inline std::vector<std::string> MkfsCommand(FsType type,
                                            const std::string& dev) {
  switch (type) {
    case FsType::kXfs:
      return {"mkfs.xfs", "-q", "-f", dev};
    case FsType::kBtrfs:
      return {"mkfs.btrfs", "-q", "-f", dev};
    default:
      return {"mkfs.ext4",
              "-q",
              "-F",
              "-E",
              "lazy_itable_init=0,lazy_journal_init=0",
              dev};
  }
}

// A file system of `type` made on `dev` and mounted noatime on a new
// directory under /tmp; unmounted and removed at the end, also after a
// failure.
class FileSystem {
 public:
  FileSystem(const std::string& dev, FsType type) : type_(type) {
    if (RunCommand(MkfsCommand(type, dev)) != 0) {
      error_ = std::string(FsName(type)) + " mkfs on " + dev + " failed";
      return;
    }
    char tmpl[] = "/tmp/biosnoop-attr-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = std::string("mkdtemp: ") + strerror(errno);
      return;
    }
    dir_ = tmpl;
    if (mount(dev.c_str(), dir_.c_str(), FsName(type), MS_NOATIME, nullptr) !=
        0) {
      error_ = "mount " + dev + ": " + strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~FileSystem() {
    if (mounted_ && umount2(dir_.c_str(), 0) != 0) {
      ADD_FAILURE() << "umount " << dir_ << ": " << strerror(errno)
                    << "; detaching it";
      umount2(dir_.c_str(), MNT_DETACH);
    }
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  FileSystem(const FileSystem&) = delete;
  FileSystem& operator=(const FileSystem&) = delete;

  FsType type() const { return type_; }
  bool ok() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // syncfs() of this file system, by a process in cgroup `rel` of `cg`
  // (none: this process); its pid, or -1.
  pid_t Sync(const Cgroups* cg = nullptr, const std::string& rel = "") const {
    const std::string dir = dir_;
    auto body = [dir] {
      const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
      if (fd < 0) return 1;
      const int rc = syncfs(fd);
      close(fd);
      return rc == 0 ? 0 : 1;
    };
    if (cg == nullptr) return body() == 0 ? getpid() : -1;
    return RunChildIn(cg, rel, "attr-syncer", body);
  }

 private:
  FsType type_;
  std::string dir_;
  std::string error_;
  bool mounted_ = false;
};

// An ext4 file system, the tests' usual one.
class Ext4 : public FileSystem {
 public:
  explicit Ext4(const std::string& dev) : FileSystem(dev, FsType::kExt4) {}
};

// An overlayfs mount, as a container's root is: lower/ and upper/ (with
// its work/) on `base`, merged on a new directory under /tmp.  Files made
// through the merged directory live in upper/.
class Overlay {
 public:
  explicit Overlay(const FileSystem& base)
      : lower_(base.Path("lower")),
        upper_(base.Path("upper")),
        work_(base.Path("work")) {
    for (const std::string* d : {&lower_, &upper_, &work_}) {
      if (mkdir(d->c_str(), 0755) != 0 && errno != EEXIST) {
        error_ = "mkdir " + *d + ": " + strerror(errno);
        return;
      }
    }
    char tmpl[] = "/tmp/biosnoop-merged-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = std::string("mkdtemp: ") + strerror(errno);
      return;
    }
    merged_ = tmpl;
    const std::string opts =
        "lowerdir=" + lower_ + ",upperdir=" + upper_ + ",workdir=" + work_;
    if (mount("overlay", merged_.c_str(), "overlay", 0, opts.c_str()) != 0) {
      error_ = "mount overlay on " + merged_ + ": " + strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~Overlay() {
    if (mounted_ && umount2(merged_.c_str(), 0) != 0) {
      ADD_FAILURE() << "umount " << merged_ << ": " << strerror(errno)
                    << "; detaching it";
      umount2(merged_.c_str(), MNT_DETACH);
    }
    if (!merged_.empty()) rmdir(merged_.c_str());
  }
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  bool ok() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& merged() const { return merged_; }
  // A file through the merged directory, and where its data lives.
  std::string Path(const std::string& name) const {
    return merged_ + "/" + name;
  }
  std::string UpperPath(const std::string& name) const {
    return upper_ + "/" + name;
  }
  const std::string& lower() const { return lower_; }

 private:
  std::string lower_, upper_, work_, merged_;
  std::string error_;
  bool mounted_ = false;
};

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes = 65536) {
    if (posix_memalign(&p, 4096, bytes) != 0) p = nullptr;
  }
  ~AlignedBuffer() { free(p); }
  char* get() const { return static_cast<char*>(p); }
  void* p = nullptr;
};

}  // namespace biosnoop::testing
