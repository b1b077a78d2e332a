// Hostile clients; the contract is in hostile_clients.h.

#include "hostile_clients.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace biosnoop::testing {

int ConnectLoopback(int port, int timeout_ms) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    pollfd p = {fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof(err);
    if (errno != EINPROGRESS || poll(&p, 1, timeout_ms) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      const int why = err != 0 ? err : errno;
      close(fd);
      errno = why;
      return -1;
    }
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool ClosedByServer(int fd, int timeout_ms) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <=
        0) {
      return false;
    }
    const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
  }
}

Tricklers::Tricklers(int port, int count, std::chrono::milliseconds every)
    : thread_([this, port, count, every] { Run(port, count, every); }) {}

Tricklers::~Tricklers() {
  stop_ = true;
  thread_.join();
}

std::string Tricklers::last_error() const {
  const int err = last_errno_;
  return err == 0 ? "" : std::strerror(err);
}

void Tricklers::Run(int port, int count, std::chrono::milliseconds every) {
  static constexpr char kStart[] = "GET /metrics HTTP/1.1\r\nX-Slow: ";
  std::vector<int> fds;
  while (!stop_) {
    std::vector<int> alive;
    for (int fd : fds) {
      pollfd p = {fd, POLLIN, 0};
      // Readable: the end, a reset, or a refusal the server sent before
      // closing; either way the server let go of it.
      if (poll(&p, 1, 0) > 0 || send(fd, "x", 1, MSG_NOSIGNAL) != 1) {
        ++dropped_;
        close(fd);
      } else {
        alive.push_back(fd);
      }
    }
    fds.swap(alive);
    while (!stop_ && static_cast<int>(fds.size()) < count) {
      const int fd = ConnectLoopback(port, 200);
      if (fd < 0) {
        last_errno_ = errno;
        break;
      }
      ++made_;
      (void)!send(fd, kStart, sizeof(kStart) - 1, MSG_NOSIGNAL);
      fds.push_back(fd);
    }
    connected_ = static_cast<int>(fds.size());
    // A pace, not a wait for something to happen.
    std::this_thread::sleep_for(every);
  }
  for (int fd : fds) close(fd);
  connected_ = 0;
}

}  // namespace biosnoop::testing
