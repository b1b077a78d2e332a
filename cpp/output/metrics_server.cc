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
  std::unique_ptr<MetricsServer> server(new MetricsServer(host, port, bind));
  const int err = server->BindOnce();
  // Another process on the port is no reason to stop the events: the run
  // goes on without the endpoint and tries again (TryBind()).
  if (err != 0 && err != EADDRINUSE) return BindError(err, server->Address());
  return server;
}

MetricsServer::MetricsServer(std::string host, int port, MetricsHttpBindFn bind)
    : bind_(bind), host_(std::move(host)), port_(port) {}

int MetricsServer::BindOnce() {
  MetricsHttpSettings settings;
  // Bounds on what a client can hold (metrics_server.h).
  settings.slots = kSlots;
  settings.deadline_ms = kDeadlineMs;
  settings.max_request_bytes = kMaxRequestBytes;
  settings.backlog = kBacklog;
  int bound = -1;
  // The module sets errno when the bind fails.
  errno = 0;
  MetricsHttp* impl = bind_(
      host_, port_, settings,
      [this](const std::string& accept) { return Current(accept); }, &bound);
  const int err = errno;
  if (impl == nullptr) return err;
  impl_.reset(impl);
  port_ = bound;
  return 0;
}

absl::StatusOr<bool> MetricsServer::TryBind() {
  if (impl_ != nullptr) return true;
  const int err = BindOnce();
  if (err == 0) return true;
  if (err == EADDRINUSE) return false;
  return BindError(err, Address());
}

std::string MetricsServer::Address() const {
  return host_.find(':') != std::string::npos
             ? absl::StrCat("[", host_, "]:", port_)
             : absl::StrCat(host_, ":", port_);
}

std::string MetricsServer::InUseMessage() const {
  return absl::StrCat("--metrics-listen ", Address(),
                      ": address already in use (another process listens "
                      "there)");
}

MetricsServer::~MetricsServer() {
  if (impl_ == nullptr) return;
  if (!thread_.joinable()) {
    impl_->CloseUnserved();
    return;
  }
  // Stop() only acts once the server runs; Serve() waited for that.  It
  // drops every connection, so the join waits for no client.
  impl_->Stop();
  thread_.join();
}

void MetricsServer::Serve() {
  if (impl_ == nullptr || thread_.joinable()) return;
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
