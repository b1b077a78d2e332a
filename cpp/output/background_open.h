#pragma once

// OpenOutputPath() on a helper thread, for SIGHUP's reopen: on a file
// system that does not answer (a hung NFS server, a stopped FUSE daemon)
// even lstat(2) blocks, and the writer thread must go on reading events,
// writing them to the old file and seeing stop requests meanwhile.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "output_open.h"

namespace biosnoop {

class BackgroundOpen {
 public:
  // Starts opening `name` in the directory `dir_fd` (OpenOutputAt, verb
  // "reopen"; `path` for messages) on a new thread, which blocks every
  // signal: stop requests and SIGHUP stay with the caller's thread.  The
  // thread holds its own duplicate of `dir_fd` (AT_FDCWD: none).
  // The thread has the caller's privileges (capabilities are per thread).
  BackgroundOpen(int dir_fd, std::string name, std::string path);
  // Abandons an open still under way: the thread, once its open returns,
  // closes what it opened and ends.  Never waits for it.
  ~BackgroundOpen();
  BackgroundOpen(const BackgroundOpen&) = delete;
  BackgroundOpen& operator=(const BackgroundOpen&) = delete;

  // Without waiting: the open's result once it has returned (once; then
  // nullopt again), else nullopt.
  std::optional<absl::StatusOr<OpenedOutput>> Take();

  // When the open began (CLOCK_MONOTONIC ns).
  uint64_t started_ns() const { return started_ns_; }
  const std::string& path() const { return path_; }

 private:
  struct Shared;
  std::string path_;
  uint64_t started_ns_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace biosnoop
