// How the metrics module bounds its connections; the contract is in
// metrics_connections.h.

#include "metrics_connections.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace biosnoop {
namespace {

void IpAndPort(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

}  // namespace

bool Connections::Add(int fd, Token* token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return false;
  *token = live_.insert(live_.end(), Entry{fd});
  return true;
}

void Connections::Remove(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(token);
}

bool Connections::DropOldest() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& e : live_) {
    if (e.dropped) continue;
    // shutdown(), not close(): the worker still owns the descriptor, and
    // wakes from its poll() to find the end of the stream.
    shutdown(e.fd, SHUT_RDWR);
    e.dropped = true;
    return true;
  }
  return false;
}

void Connections::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (Entry& e : live_) {
    if (!e.dropped) shutdown(e.fd, SHUT_RDWR);
    e.dropped = true;
  }
}

DeadlineStream::DeadlineStream(int fd, SteadyTime deadline, size_t max_read)
    : fd_(fd), deadline_(deadline), read_left_(max_read) {}

bool DeadlineStream::Wait(short events) const {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p = {fd_, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return true;  // ready, or at its end: the call says which
    if (n < 0 && errno != EINTR) return false;
  }
}

bool DeadlineStream::is_readable() const {
  return buf_off_ < buf_len_ || Wait(POLLIN);
}

bool DeadlineStream::is_writable() const { return Wait(POLLOUT); }

ssize_t DeadlineStream::read(char* ptr, size_t size) {
  if (buf_off_ == buf_len_) {
    if (read_left_ == 0) return -1;  // a request larger than any scrape's
    ssize_t n;
    do {
      if (!Wait(POLLIN)) return -1;
      n = recv(fd_, buf_, std::min(sizeof(buf_), read_left_), MSG_DONTWAIT);
    } while (n < 0 && (errno == EAGAIN || errno == EINTR));
    if (n <= 0) return n;
    read_left_ -= static_cast<size_t>(n);
    buf_off_ = 0;
    buf_len_ = static_cast<size_t>(n);
  }
  const size_t n = std::min(size, buf_len_ - buf_off_);
  std::memcpy(ptr, buf_ + buf_off_, n);
  buf_off_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t DeadlineStream::write(const char* ptr, size_t size) {
  size_t done = 0;
  while (done < size) {
    if (!Wait(POLLOUT)) return -1;
    const ssize_t n =
        send(fd_, ptr + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

void DeadlineStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a = {};
  socklen_t len = sizeof(a);
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    IpAndPort(a, ip, port);
  }
}

void DeadlineStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a = {};
  socklen_t len = sizeof(a);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    IpAndPort(a, ip, port);
  }
}

SlotPool::SlotPool(size_t max_workers, Connections* connections)
    : max_workers_(max_workers), connections_(connections) {}

void SlotPool::enqueue(std::function<void()> fn) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (threads_.size() - busy_ > jobs_.size()) break;  // a worker is free
    if (threads_.size() < max_workers_) {
      threads_.emplace_back([this] { Work(); });
      break;
    }
    // Every worker busy: the connection served longest is the one most
    // likely stalled (a scrape takes milliseconds), so it goes, and the
    // new one waits only for its worker to notice.  Another goes each
    // 100 ms its worker has not.
    connections_->DropOldest();
    room_.wait_for(lock, std::chrono::milliseconds(100));
  }
  jobs_.push_back(std::move(fn));
  work_.notify_one();
}

void SlotPool::shutdown() {
  connections_->Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void SlotPool::Work() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // shut down, nothing left
      fn = std::move(jobs_.front());
      jobs_.pop_front();
      ++busy_;
    }
    fn();
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
    room_.notify_one();
  }
}

}  // namespace biosnoop
