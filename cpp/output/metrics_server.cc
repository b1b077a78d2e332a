// Why the metrics server is set up as it is; the contract is in
// metrics_server.h.

#include "metrics_server.h"

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "exit_codes.h"
#include "metrics_proto.h"
#include "metrics_text.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

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

// The module's entry point, from `module` or, when empty, from the first
// of its usual places that exists.  Loaded once and never unloaded: its
// code runs on the server's threads until they are joined.
absl::StatusOr<MetricsHttpBindFn> LoadModule(const std::string& module) {
  std::vector<std::string> places;
  if (!module.empty()) {
    places.push_back(module);
  } else {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    std::string dir = ".";
    if (n > 0) {
      const std::string path(exe, static_cast<size_t>(n));
      dir = path.substr(0, path.rfind('/'));
    }
    places.push_back(absl::StrCat(dir, "/", kMetricsModuleName));
    places.push_back(
        absl::StrCat(dir, "/../lib/biosnoop/", kMetricsModuleName));
  }
  for (const std::string& place : places) {
    if (access(place.c_str(), F_OK) != 0) continue;
    void* handle = dlopen(place.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return WithExitCode(
          absl::UnavailableError(
              absl::StrCat("--metrics-listen: cannot load the metrics module ",
                           place, ": ", why != nullptr ? why : "unknown error",
                           " (are cpp-httplib and its libraries installed?)")),
          kExitUnsupported);
    }
    auto bind = reinterpret_cast<MetricsHttpBindFn>(
        dlsym(handle, kMetricsHttpBindSymbol));
    if (bind == nullptr) {
      return WithExitCode(absl::UnavailableError(absl::StrCat(
                              "--metrics-listen: ", place,
                              " is not biosnoop's metrics module (no ",
                              kMetricsHttpBindSymbol, ")")),
                          kExitUnsupported);
    }
    return bind;
  }
  return WithExitCode(
      absl::UnavailableError(absl::StrCat(
          "--metrics-listen: the metrics module is not installed (looked for ",
          absl::StrJoin(places, " and "),
          "; cmake --install puts it in PREFIX/lib/biosnoop/)")),
      kExitUnsupported);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Bind(
    const std::string& host, int port, const std::string& module) {
  ASSIGN_OR_RETURN(MetricsHttpBindFn bind, LoadModule(module));
  const std::string where = host.find(':') != std::string::npos
                                ? absl::StrCat("[", host, "]:", port)
                                : absl::StrCat(host, ":", port);
  std::unique_ptr<MetricsServer> server(new MetricsServer(host, port));
  MetricsServer* self = server.get();
  MetricsHttpSettings settings;
  // Bounds on what a scraper can hold (metrics_server.h).
  settings.workers = kWorkers;
  settings.queued = kQueued;
  settings.io_timeout_s = kIoTimeoutS;
  int bound = -1;
  // The module sets errno when the bind fails.
  server->impl_.reset(bind(
      host, port, settings,
      [self](const std::string& accept) { return self->Current(accept); },
      &bound));
  if (server->impl_ == nullptr) return BindError(errno, where);
  server->port_ = bound;
  return server;
}

MetricsServer::MetricsServer(std::string host, int port)
    : host_(std::move(host)), port_(port) {}

MetricsServer::~MetricsServer() {
  if (impl_ == nullptr) return;
  if (!thread_.joinable()) {
    impl_->CloseUnserved();
    return;
  }
  // Stop() only acts once the server runs; Serve() waited for that.
  impl_->Stop();
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
    impl_->ListenAfterBind();
    listen_ended_ = true;
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  // ListenAfterBind() marks the server running first thing; until then
  // stop() would do nothing and the destructor's join would wait forever.
  while (!impl_->IsRunning() && !listen_ended_) std::this_thread::yield();
}

void MetricsServer::Publish(std::string text, std::string proto) {
  auto next =
      std::make_shared<const Bodies>(Bodies{std::move(text), std::move(proto)});
  std::lock_guard<std::mutex> lock(mu_);
  bodies_.swap(next);
  // The old bodies are freed here unless a scrape still sends one.
}

MetricsReply MetricsServer::Current(const std::string& accept) const {
  std::shared_ptr<const Bodies> now;
  {
    std::lock_guard<std::mutex> lock(mu_);
    now = bodies_;
  }
  if (now == nullptr) return {};
  // The body shares the ownership of what was published with it.
  if (!now->proto.empty() && AcceptsMetricsProto(accept)) {
    return {std::shared_ptr<const std::string>(now, &now->proto),
            kMetricsProtoContentType};
  }
  return {std::shared_ptr<const std::string>(now, &now->text),
          kMetricsContentType};
}

std::string MetricsServer::Url() const {
  return host_.find(':') != std::string::npos
             ? absl::StrCat("http://[", host_, "]:", port_, "/metrics")
             : absl::StrCat("http://", host_, ":", port_, "/metrics");
}

}  // namespace biosnoop
