#pragma once

// The --metrics-listen endpoint: an HTTP server (Debian's cpp-httplib, in
// the module biosnoop-metrics.so that Bind() loads: metrics_http.h) on
// threads of its own that answers GET /metrics with the last metrics the
// run published, in the format the scraper's Accept header asks for
// (AcceptsMetricsProto: the protobuf format, else the text).  The run
// never waits for a scraper: Publish() only swaps a
// pointer under a lock that a scrape holds just long enough to copy that
// pointer, and the text is sent from the server's threads.  Scrapers are
// bounded: kWorkers connections served at once, kQueued more accepted and
// waiting, the rest in the kernel's listen backlog; each connection
// serves one request and is closed, and one that sends nothing, or
// takes nothing, for kIoTimeoutS is dropped.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "metrics_http.h"

namespace biosnoop {

class MetricsServer {
 public:
  static constexpr int kWorkers = 2;
  static constexpr int kQueued = 8;
  static constexpr int kIoTimeoutS = 2;

  // Binds host:port (a numeric IPv4 or IPv6 address; port 0: one the
  // kernel picks, see port()) and listens, but serves nothing until
  // Serve(): bind while privileged (a port below 1024), serve from
  // threads started after privileges are dropped.  Errors, tagged with
  // their exit code (exit_codes.h): the address in use or not on this
  // host, 64; no permission (a low port without CAP_NET_BIND_SERVICE), 77;
  // anything else, 71; the module missing or not loadable, 69.  `module`
  // names the module's file; empty: looked for beside the running program
  // and in ../lib/biosnoop/ from it (metrics_http.h).
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Bind(
      const std::string& host, int port, const std::string& module = "");

  // Stops serving: waits for the connections being served, at most
  // about kIoTimeoutS.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Starts the server's threads, with every signal blocked in them.
  void Serve();
  // What every scrape gets from now on (until one is published, 503):
  // the text, or `proto` (the protobuf format) for a scraper that asks for
  // it, when not empty.  Never waits on a scrape.
  void Publish(std::string text, std::string proto = "");

  int port() const { return port_; }
  // "http://127.0.0.1:9100/metrics" ("[::1]" for IPv6).
  std::string Url() const;

 private:
  MetricsServer(std::string host, int port);
  MetricsReply Current(const std::string& accept) const;

  std::unique_ptr<MetricsHttp> impl_;
  const std::string host_;
  int port_;  // the bound one
  struct Bodies {
    std::string text, proto;
  };
  mutable std::mutex mu_;
  std::shared_ptr<const Bodies> bodies_;  // guarded by mu_
  std::atomic<bool> listen_ended_{false};
  std::thread thread_;
};

}  // namespace biosnoop
