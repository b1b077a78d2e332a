#pragma once

// Files on a real ext4 file system, for the privileged tests: a file
// system made and mounted on a test's disk (Ext4), and the file operations
// the tests drive through it.  Header-only, like the rest is small.

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

// An ext4 file system made on `dev` (its inode tables and journal zeroed
// now: no ext4lazyinit I/O later) and mounted noatime on a new directory
// under /tmp; unmounted and removed at the end, also after a failure.
class Ext4 {
 public:
  explicit Ext4(const std::string& dev) {
    if (RunCommand({"mkfs.ext4", "-q", "-F", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0", dev}) != 0) {
      error_ = "mkfs.ext4 " + dev + " failed";
      return;
    }
    char tmpl[] = "/tmp/biosnoop-attr-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = std::string("mkdtemp: ") + strerror(errno);
      return;
    }
    dir_ = tmpl;
    if (mount(dev.c_str(), dir_.c_str(), "ext4", MS_NOATIME, nullptr) != 0) {
      error_ = "mount " + dev + ": " + strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~Ext4() {
    if (mounted_ && umount2(dir_.c_str(), 0) != 0) {
      ADD_FAILURE() << "umount " << dir_ << ": " << strerror(errno)
                    << "; detaching it";
      umount2(dir_.c_str(), MNT_DETACH);
    }
    if (!dir_.empty()) rmdir(dir_.c_str());
  }
  Ext4(const Ext4&) = delete;
  Ext4& operator=(const Ext4&) = delete;

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
  std::string dir_;
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
