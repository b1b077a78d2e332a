// biosnoop-metrics.so: the --metrics-listen HTTP server on Debian's
// cpp-httplib, loaded by metrics_server.cc only when the endpoint is asked
// for (metrics_http.h says why it is a module).  It sends what the run
// published and knows nothing else of biosnoop.

#include "metrics_http.h"

#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace biosnoop {
namespace {

// httplib's own pool queues every accepted connection without bound, so a
// flood of connections would hold as many descriptors as it opens (and
// starve the run's own opens: sysfs, /proc, a rotated output).  This one
// keeps at most kQueued waiting: past that, accepting waits, and new
// connections wait in the kernel's listen backlog.
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(int workers, size_t max_queued) : max_queued_(max_queued) {
    for (int i = 0; i < workers; ++i) {
      threads_.emplace_back([this] { Work(); });
    }
  }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [this] { return jobs_.size() < max_queued_; });
    jobs_.push_back(std::move(fn));
    work_.notify_one();
  }

  // After the server stopped: what is queued closes at once (the server's
  // socket is gone, so no request is read), what is served ends within
  // its timeouts.
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_.wait(lock, [this] { return shutdown_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // shut down, nothing left
        fn = std::move(jobs_.front());
        jobs_.pop_front();
        room_.notify_one();
      }
      fn();
    }
  }

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable work_, room_;
  std::deque<std::function<void()>> jobs_;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

// Only SO_REUSEADDR (a restart binds at once over the last run's
// TIME_WAIT connections): httplib's default adds SO_REUSEPORT, which
// would let a second biosnoop bind the same port without an error and
// take half of the scrapes.
void ListenSocketOptions(int fd) {
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// httplib's server with access to its listening socket, which it closes
// only when it has served (stop()): one bound but never served closes
// here.
class HttplibServer : public httplib::Server, public MetricsHttp {
 public:
  void ListenAfterBind() override { listen_after_bind(); }
  bool IsRunning() const override { return is_running(); }
  void Stop() override { stop(); }
  void CloseUnserved() override {
    const socket_t fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) close(fd);
  }
};

}  // namespace
}  // namespace biosnoop

extern "C" __attribute__((visibility("default"))) biosnoop::MetricsHttp*
biosnoop_metrics_http_bind(const std::string& host, int port,
                           const biosnoop::MetricsHttpSettings& settings,
                           biosnoop::MetricsReplyFn reply, int* bound_port) {
  using biosnoop::BoundedPool;
  auto server = std::make_unique<biosnoop::HttplibServer>();
  server->set_socket_options(biosnoop::ListenSocketOptions);
  server->set_keep_alive_max_count(1);
  server->set_keep_alive_timeout(settings.io_timeout_s);
  server->set_read_timeout(settings.io_timeout_s, 0);
  server->set_write_timeout(settings.io_timeout_s, 0);
  server->set_payload_max_length(4096);
  server->new_task_queue = [workers = settings.workers,
                            queued = settings.queued] {
    return new BoundedPool(workers, queued);
  };
  errno = 0;
  const int bound = port == 0 ? server->bind_to_any_port(host)
                    : server->bind_to_port(host, port) ? port
                                                       : -1;
  if (bound < 0) {
    const int err = errno;
    server.reset();
    errno = err;
    return nullptr;
  }
  *bound_port = bound;
  server->Get("/metrics", [reply = std::move(reply)](
                              const httplib::Request& req,
                              httplib::Response& res) {
    const biosnoop::MetricsReply now = reply(req.get_header_value("Accept"));
    if (now.body == nullptr) {
      res.status = 503;
      res.set_content("biosnoop is starting\n", "text/plain");
      return;
    }
    res.set_content(*now.body, now.content_type.c_str());
  });
  return server.release();
}
