// stderr as a stream that gives up once a stop is requested and it cannot
// write (diag_stream.h).

#include "diag_stream.h"

#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "stop_grace.h"

namespace biosnoop {
namespace {

constexpr int kPollStepMs = 100;

struct DiagCookie {
  int fd;
  StopGrace stop_grace;
};

// Whether `fd` has room, waiting up to `timeout_ms`.  An error condition
// counts as room: write(2) then reports it (EPIPE for a closed reader).
bool Room(int fd, int timeout_ms) {
  struct pollfd pfd = {fd, POLLOUT, 0};
  return poll(&pfd, 1, timeout_ms) == 1 &&
         (pfd.revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)) != 0;
}

ssize_t DiagWrite(void* cookie, const char* buf, size_t size) {
  DiagCookie& d = *static_cast<DiagCookie*>(cookie);
  size_t done = 0;
  while (done < size && !d.stop_grace.Expired()) {
    if (!Room(d.fd, kPollStepMs)) {
      d.stop_grace.NoteWaited();
      continue;
    }
    const size_t chunk = std::min<size_t>(size - done, PIPE_BUF);
    const ssize_t n = write(d.fd, buf + done, chunk);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
      // stdio marks the stream in error, as it would for stderr.
      return done > 0 ? static_cast<ssize_t>(done) : -1;
    }
  }
  // Given up: what was not written is dropped, as if said.
  return static_cast<ssize_t>(size);
}

int DiagClose(void* cookie) {
  delete static_cast<DiagCookie*>(cookie);
  return 0;
}

}  // namespace

std::FILE* OpenDiagStream(int fd, bool (*stopping)(), absl::Duration grace) {
  auto* cookie = new DiagCookie{fd, StopGrace(stopping, grace)};
  cookie_io_functions_t io = {};
  io.write = DiagWrite;
  io.close = DiagClose;
  std::FILE* f = fopencookie(cookie, "w", io);
  if (f == nullptr) {
    delete cookie;
    return nullptr;
  }
  // Each message is one line: out as soon as it ends.
  setvbuf(f, nullptr, _IOLBF, 4096);
  return f;
}

}  // namespace biosnoop
