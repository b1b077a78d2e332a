#pragma once

// The --metrics-listen endpoint: an HTTP server (Debian's cpp-httplib, in
// the module biosnoop-metrics.so that Bind() loads: metrics_http.h) on
// threads of its own that answers GET /metrics with the last metrics the
// run published, in the format the scraper's Accept header asks for
// (AcceptsMetricsProto: the protobuf format, else the text).  The run
// never waits for a scraper: Publish() only swaps a
// pointer under a lock that a scrape holds just long enough to copy that
// pointer, and the text is sent from the server's threads.  What clients
// can hold is bounded (metrics_connections.h): kSlots connections served
// at once, each closed after one request or kDeadlineMs after it was
// taken up, whichever comes first, and a connection that finds every slot
// taken drops the one served longest (a scrape takes milliseconds: that
// one is stalled); kBacklog more wait in the kernel's listen backlog,
// taken up in turn.  Stopping
// the server drops every connection at once.

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "metrics_http.h"

namespace biosnoop {

class MetricsServer {
 public:
  static constexpr int kSlots = 16;
  static constexpr int kDeadlineMs = 2000;
  // A scrape's request is a few hundred bytes.
  static constexpr size_t kMaxRequestBytes = 16384;
  // Connections waiting in the kernel to be taken up.
  static constexpr int kBacklog = 64;
  // How often the run tries again an address that was in use.
  static constexpr int kRetryBindS = 5;

  // Binds host:port (a numeric IPv4 or IPv6 address; port 0: one the
  // kernel picks, see port()) and listens, but serves nothing until
  // Serve(): bind while privileged (a port below 1024), serve from
  // threads started after privileges are dropped.  An address in use
  // (another process listens there) is not an error: the server comes
  // back unbound (bound() false) and TryBind() tries again.  Errors,
  // tagged with their exit code (exit_codes.h): the address not on this
  // host, 64; no permission (a low port without CAP_NET_BIND_SERVICE),
  // 77; anything else, 71; the module missing or not loadable, 69.
  // `module` names the module's file; empty: looked for beside the
  // running program and in ../lib/biosnoop/ from it (metrics_http.h).
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Bind(
      const std::string& host, int port, const std::string& module = "");

  // Stops serving, and drops every connection at once: returns within
  // milliseconds whatever clients do.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  bool bound() const { return impl_ != nullptr; }
  // For an unbound server: binds again.  true once bound (Serve() then
  // serves), false while the address is still in use; other errors as
  // Bind()'s (after privileges were dropped, a port below 1024 is 77).
  absl::StatusOr<bool> TryBind();
  // "--metrics-listen 127.0.0.1:9100: address already in use (another
  // process listens there)": why an unbound server is not bound.
  std::string InUseMessage() const;

  // Starts the server's threads, with every signal blocked in them; an
  // unbound server does nothing.
  void Serve();
  // What every scrape gets from now on (until one is published, 503):
  // the text, or `proto` (the protobuf format) for a scraper that asks for
  // it, when not empty.  Never waits on a scrape.
  void Publish(std::string text, std::string proto = "");

  int port() const { return port_; }
  // "http://127.0.0.1:9100/metrics" ("[::1]" for IPv6).
  std::string Url() const;
  // "127.0.0.1:9100" ("[::1]:9100").
  std::string Address() const;

 private:
  MetricsServer(std::string host, int port, MetricsHttpBindFn bind);
  // errno of the bind that failed: 0 when bound.
  int BindOnce();
  MetricsReply Current(const std::string& accept) const;

  const MetricsHttpBindFn bind_;
  std::unique_ptr<MetricsHttp> impl_;
  const std::string host_;
  int port_;  // the bound one, or the one asked for while unbound
  struct Bodies {
    std::string text, proto;
  };
  mutable std::mutex mu_;
  std::shared_ptr<const Bodies> bodies_;  // guarded by mu_
  std::atomic<bool> listen_ended_{false};
  std::thread thread_;
};

}  // namespace biosnoop
