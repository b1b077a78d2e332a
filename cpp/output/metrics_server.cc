// Why the metrics server is set up as it is; the contract is in
// metrics_server.h.

#include "metrics_server.h"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "exit_codes.h"
#include "metrics_text.h"

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

absl::Status BindError(int err, const std::string& where) {
  switch (err) {
    case EADDRINUSE:
      return WithExitCode(
          absl::InvalidArgumentError(absl::StrCat(
              "--metrics-listen ", where,
              ": address already in use (another process listens there): "
              "give another port")),
          kExitUsage);
    case EADDRNOTAVAIL:
      return WithExitCode(
          absl::InvalidArgumentError(absl::StrCat(
              "--metrics-listen ", where,
              ": no such address on this host (give one of its addresses, "
              "127.0.0.1, or 0.0.0.0 for every interface)")),
          kExitUsage);
    case EACCES:
    case EPERM:
      return WithExitCode(
          absl::PermissionDeniedError(absl::StrCat(
              "--metrics-listen ", where,
              ": permission denied (a port below 1024 needs root or "
              "CAP_NET_BIND_SERVICE): give a port from 1024 up")),
          kExitNoPermission);
    default:
      return WithExitCode(absl::ResourceExhaustedError(absl::StrCat(
                              "--metrics-listen ", where, ": cannot listen: ",
                              err != 0 ? std::strerror(err) : "unknown error")),
                          kExitOsError);
  }
}

}  // namespace

// httplib's server with access to its listening socket, which it closes
// only when it has served (stop()): one bound but never served closes
// here.
class MetricsServer::Impl : public httplib::Server {
 public:
  void CloseUnserved() {
    const socket_t fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) close(fd);
  }
};

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Bind(
    const std::string& host, int port) {
  auto impl = std::make_unique<Impl>();
  impl->set_socket_options(ListenSocketOptions);
  // Bounds on what a scraper can hold (metrics_server.h).
  impl->set_keep_alive_max_count(1);
  impl->set_keep_alive_timeout(kIoTimeoutS);
  impl->set_read_timeout(kIoTimeoutS, 0);
  impl->set_write_timeout(kIoTimeoutS, 0);
  impl->set_payload_max_length(4096);
  impl->new_task_queue = [] { return new BoundedPool(kWorkers, kQueued); };
  const std::string where = host.find(':') != std::string::npos
                                ? absl::StrCat("[", host, "]:", port)
                                : absl::StrCat(host, ":", port);
  errno = 0;
  const int bound = port == 0 ? impl->bind_to_any_port(host)
                    : impl->bind_to_port(host, port) ? port
                                                     : -1;
  if (bound < 0) return BindError(errno, where);
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(std::move(impl), host, bound));
  MetricsServer* self = server.get();
  server->impl_->Get(
      "/metrics", [self](const httplib::Request&, httplib::Response& res) {
        std::shared_ptr<const std::string> text = self->Current();
        if (text == nullptr) {
          res.status = 503;
          res.set_content("biosnoop is starting\n", "text/plain");
          return;
        }
        res.set_content(*text, kMetricsContentType);
      });
  return server;
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl, std::string host,
                             int port)
    : impl_(std::move(impl)), host_(std::move(host)), port_(port) {}

MetricsServer::~MetricsServer() {
  if (!thread_.joinable()) {
    impl_->CloseUnserved();
    return;
  }
  // stop() only acts once the server runs; Serve() waited for that.
  impl_->stop();
  thread_.join();
}

void MetricsServer::Serve() {
  if (thread_.joinable()) return;
  // The run's signals (a stop, SIGHUP) must reach its own thread, which
  // they interrupt; these threads, and the workers they start, take none.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  thread_ = std::thread([this] {
    impl_->listen_after_bind();
    listen_ended_ = true;
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  // listen_after_bind() marks the server running first thing; until then
  // stop() would do nothing and the destructor's join would wait forever.
  while (!impl_->is_running() && !listen_ended_) std::this_thread::yield();
}

void MetricsServer::Publish(std::string text) {
  auto next = std::make_shared<const std::string>(std::move(text));
  std::lock_guard<std::mutex> lock(mu_);
  text_.swap(next);
  // The old text is freed here unless a scrape still sends it.
}

std::shared_ptr<const std::string> MetricsServer::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return text_;
}

std::string MetricsServer::Url() const {
  return host_.find(':') != std::string::npos
             ? absl::StrCat("http://[", host_, "]:", port_, "/metrics")
             : absl::StrCat("http://", host_, ":", port_, "/metrics");
}

}  // namespace biosnoop
