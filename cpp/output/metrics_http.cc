// biosnoop-metrics.so: the --metrics-listen HTTP server on Debian's
// cpp-httplib, loaded by metrics_server.cc only when the endpoint is asked
// for (metrics_http.h says why it is a module).  It sends what the run
// published and knows nothing else of biosnoop.

#include "metrics_http.h"

#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <utility>

#include "metrics_connections.h"

namespace biosnoop {
namespace {

// Only SO_REUSEADDR (a restart binds at once over the last run's
// TIME_WAIT connections): httplib's default adds SO_REUSEPORT, which
// would let a second biosnoop bind the same port without an error and
// take half of the scrapes.
void ListenSocketOptions(int fd) {
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// httplib's server, with its parsing, routing and replies, but each
// accepted connection served here (metrics_connections.h says why):
// one request under a deadline, through a DeadlineStream, registered in
// Connections so that a stop or a newer connection can end it at once.
// httplib's listening socket is closed by httplib only once it served
// (stop()): one bound but never served closes here.
class HttplibServer : public httplib::Server, public MetricsHttp {
 public:
  explicit HttplibServer(const MetricsHttpSettings& settings)
      : deadline_(settings.deadline_ms),
        max_request_bytes_(settings.max_request_bytes) {
    const size_t slots = static_cast<size_t>(settings.slots);
    new_task_queue = [this, slots] { return new SlotPool(slots, &live_); };
  }

  void ListenAfterBind() override { listen_after_bind(); }
  bool IsRunning() const override { return is_running(); }
  void Stop() override {
    // Every connection first: the accept loop may wait for a worker.
    live_.Stop();
    stop();
  }
  // httplib listens with a backlog of 5: a burst of connections past it
  // (stalled clients that come back as soon as they are dropped) has the
  // kernel drop SYNs, and a scrape among them waits a second for its
  // retry.  listen() again on a listening socket sets its backlog.
  void SetBacklog(int backlog) { ::listen(svr_sock_, backlog); }
  void CloseUnserved() override {
    const socket_t fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) close(fd);
  }

 private:
  // Called by httplib's accept loop, through the task queue, for each
  // connection (httplib's own serves keep-alive requests with a timeout
  // per recv()).
  bool process_and_close_socket(socket_t sock) override {
    bool served = false;
    Connections::Token token;
    if (live_.Add(sock, &token)) {
      DeadlineStream stream(sock, std::chrono::steady_clock::now() + deadline_,
                            max_request_bytes_);
      bool closed = false;
      served =
          process_request(stream, /*close_connection=*/true, closed, nullptr);
      live_.Remove(token);
    }
    shutdown(sock, SHUT_RDWR);
    close(sock);
    return served;
  }

  const std::chrono::milliseconds deadline_;
  const size_t max_request_bytes_;
  Connections live_;
};

}  // namespace
}  // namespace biosnoop

extern "C" __attribute__((visibility("default"))) biosnoop::MetricsHttp*
biosnoop_metrics_http_bind(const std::string& host, int port,
                           const biosnoop::MetricsHttpSettings& settings,
                           biosnoop::MetricsReplyFn reply, int* bound_port) {
  auto server = std::make_unique<biosnoop::HttplibServer>(settings);
  server->set_socket_options(biosnoop::ListenSocketOptions);
  server->set_payload_max_length(4096);
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
  server->SetBacklog(settings.backlog);
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
