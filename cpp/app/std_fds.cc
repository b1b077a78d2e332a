// Closed stdin/stdout/stderr occupied by /dev/null at start, so no file
// biosnoop opens becomes fd 0-2 (std_fds.h).

#include "std_fds.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace biosnoop {
namespace {

// True when `fd` was closed and now refers to /dev/null.  open() returns
// the lowest free number, which is `fd` when it and those below it are
// open; the descriptors are handled in order, so they are.
bool Occupy(int fd, int flags) {
  if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) return false;
  int got = open("/dev/null", flags);
  if (got >= 0 && got != fd) {
    dup2(got, fd);
    close(got);
  }
  return true;
}

}  // namespace

ClosedStdFds OccupyClosedStdFds() {
  ClosedStdFds closed;
  closed.in = Occupy(STDIN_FILENO, O_RDONLY);
  closed.out = Occupy(STDOUT_FILENO, O_WRONLY);
  closed.err = Occupy(STDERR_FILENO, O_WRONLY);
  return closed;
}

}  // namespace biosnoop
