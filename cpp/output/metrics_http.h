#pragma once

// The interface between biosnoop and its HTTP module, biosnoop-metrics.so
// (metrics_http.cc): Debian's cpp-httplib is built with OpenSSL, zlib and
// brotli, and loading them costs every run ~3.7 MiB of resident memory
// (libcrypto alone ~3 MiB), over the 16 MiB budget (BENCHMARKS.md).  So
// biosnoop does not link them: MetricsServer (metrics_server.h) loads the
// module only when --metrics-listen asks for the endpoint.  Both sides are
// built from this tree by the same compiler, so the interface is C++.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace biosnoop {

// What GET /metrics answers with: the body and its Content-Type, or no
// body (503, starting).
struct MetricsReply {
  std::shared_ptr<const std::string> body;
  std::string content_type;
};
// Called with the request's Accept header ("" without one), which picks
// the format.
using MetricsReplyFn = std::function<MetricsReply(const std::string& accept)>;

// An HTTP server bound to its address, not yet serving.
class MetricsHttp {
 public:
  virtual ~MetricsHttp() = default;
  // Serves until Stop(); marks the server running first thing.
  virtual void ListenAfterBind() = 0;
  virtual bool IsRunning() const = 0;
  // Ends ListenAfterBind() and every connection at once: none is waited
  // for.
  virtual void Stop() = 0;
  // Closes the listening socket of a server that never served.
  virtual void CloseUnserved() = 0;
};

// How the server answers, and the bounds on what clients can hold
// (metrics_server.h says why).
struct MetricsHttpSettings {
  int slots = 0;                 // connections served at once; a new one past
                                 // them drops the oldest
  int deadline_ms = 0;           // for a connection's whole request and reply
  size_t max_request_bytes = 0;  // read from a connection at most
  int backlog = 0;               // connections the kernel holds until accepted
};

// The module's one entry point, named kMetricsHttpBindSymbol: binds
// host:port (port 0: one the kernel picks) and returns the server with
// *bound_port set; or nullptr with errno set to why the bind failed.
using MetricsHttpBindFn = MetricsHttp* (*)(const std::string& host, int port,
                                           const MetricsHttpSettings& settings,
                                           MetricsReplyFn reply,
                                           int* bound_port);
inline constexpr char kMetricsHttpBindSymbol[] = "biosnoop_metrics_http_bind";

// The module's file name; metrics_server.cc looks for it beside the
// running program (the build tree) and in ../lib/biosnoop/ from it (where
// cmake --install puts it for sbin/biosnoop).
inline constexpr char kMetricsModuleName[] = "biosnoop-metrics.so";

}  // namespace biosnoop
