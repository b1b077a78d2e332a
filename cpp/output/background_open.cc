// The rotation's open of the output path on a helper thread
// (background_open.h).

#include "background_open.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <mutex>
#include <thread>
#include <utility>

#include "wall_clock.h"

namespace biosnoop {

// Owned by both threads: the opener may outlive the BackgroundOpen.
struct BackgroundOpen::Shared {
  std::mutex mu;
  bool abandoned = false;
  std::optional<absl::StatusOr<OpenedOutput>> result;
};

BackgroundOpen::BackgroundOpen(int dir_fd, std::string name, std::string path)
    : path_(std::move(path)),
      started_ns_(MonotonicNs()),
      shared_(std::make_shared<Shared>()) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // inherited by the thread
  // Detached: a thread blocked in a hung file system cannot be joined.
  // Process exit ends it (the kernel's waits on NFS and FUSE are killable).
  // Its own descriptor: the output file (and its directory) may be gone
  // before a hung open returns.
  const int dir = dir_fd >= 0 ? fcntl(dir_fd, F_DUPFD_CLOEXEC, 0) : dir_fd;
  const int dup_errno = dir == -1 ? errno : 0;
  std::thread([shared = shared_, dir, dup_errno, name = std::move(name),
               path = path_] {
    absl::StatusOr<OpenedOutput> opened =
        dir == -1
            ? absl::ErrnoToStatus(dup_errno, "reopen: duplicating a descriptor")
            : OpenOutputAt(dir, name, path, "reopen", geteuid());
    if (dir >= 0) close(dir);
    std::lock_guard<std::mutex> lock(shared->mu);
    // Abandoned: `opened` closes its descriptor as it goes.
    if (!shared->abandoned) shared->result = std::move(opened);
  }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

BackgroundOpen::~BackgroundOpen() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->abandoned = true;
  shared_->result.reset();  // a result not taken: closed here
}

std::optional<absl::StatusOr<OpenedOutput>> BackgroundOpen::Take() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return std::exchange(shared_->result, std::nullopt);
}

}  // namespace biosnoop
