#pragma once

// The connections of the metrics module (biosnoop-metrics.so, beside
// metrics_http.cc): what a scraper, or a client that only pretends to be
// one, can hold, and for how long.  cpp-httplib bounds each recv() and
// send(), not a request: a client that sends a header byte a second holds
// its worker for as long as it likes, and the server's stop waits for it.
// Here every connection has a deadline for its whole request and reply,
// the slots are bounded, a new connection that finds them full takes the
// oldest one's, and a stop drops every connection at once.

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace biosnoop {

using SteadyTime = std::chrono::steady_clock::time_point;

// The connections being served.  Thread-safe.  A connection's socket is
// only shut down (never closed) from here, under the lock, and its owner
// closes it after Remove(): a descriptor is never used after it was
// closed and reused.
class Connections {
 public:
  struct Entry {
    int fd;
    bool dropped = false;
  };
  using Token = std::list<Entry>::iterator;

  // Registers `fd`, served from now on; false once Stop() was called (the
  // caller closes it unserved).
  bool Add(int fd, Token* token);
  void Remove(Token token);
  // Shuts down the socket of the connection served longest that is not
  // dropped yet, which ends its request at once (its reads see the end,
  // its writes fail); false when there is none.
  bool DropOldest();
  // Drops every connection, and refuses new ones.
  void Stop();

 private:
  std::mutex mu_;
  std::list<Entry> live_;  // in the order they were taken up
  bool stopped_ = false;
};

// httplib's Stream over one accepted socket, with a deadline for
// everything it reads and writes, and at most `max_read` bytes read: a
// read or write that would go past either fails, and httplib gives up
// the request.  Reads are buffered (httplib reads headers a byte at a
// time).
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int fd, SteadyTime deadline, size_t max_read);

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

 private:
  // Waits for `events` on the socket until the deadline; false past it.
  bool Wait(short events) const;

  const int fd_;
  const SteadyTime deadline_;
  size_t read_left_;
  char buf_[4096];
  size_t buf_off_ = 0, buf_len_ = 0;
};

// httplib's task queue: up to `max_workers` threads, started as needed,
// each serving one connection at a time.  A connection accepted while
// every worker is busy does not wait behind them: the oldest connection
// is dropped (Connections::DropOldest) and the new one takes its worker.
class SlotPool : public httplib::TaskQueue {
 public:
  SlotPool(size_t max_workers, Connections* connections);

  void enqueue(std::function<void()> fn) override;
  // Drops every connection (the listening socket is closed by now) and
  // joins the workers, which end at once.
  void shutdown() override;

 private:
  void Work();

  const size_t max_workers_;
  Connections* const connections_;
  std::mutex mu_;
  std::condition_variable work_, room_;
  std::deque<std::function<void()>> jobs_;
  size_t busy_ = 0;  // workers serving a connection
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace biosnoop
