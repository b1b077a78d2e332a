#pragma once

// The metrics endpoint from the outside, for the tests of --metrics-listen
// (metrics_test.cc, metrics_quantiles_test.cc): biosnoop's port, a scrape,
// the text's samples, and a real Prometheus server (Debian's) scraping it.

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "harness.h"
#include "nlohmann/json.hpp"

namespace biosnoop::testing {

// The port of biosnoop's "serving metrics at http://127.0.0.1:PORT/metrics"
// line, once it is there; 0 if it never came.
inline int MetricsPort(Biosnoop& b) {
  if (!b.WaitForStderr("/metrics\n", 15000)) return 0;
  const std::string err = b.Stderr();
  const std::string lead = "serving metrics at http://127.0.0.1:";
  const size_t at = err.find(lead);
  if (at == std::string::npos) return 0;
  int port = 0;
  const size_t from = at + lead.size();
  if (!absl::SimpleAtoi(err.substr(from, err.find('/', from) - from), &port))
    return 0;
  return port;
}

// One scrape's body; "" when it failed or did not answer 200.  With
// `accept`, sent as the Accept header; *content_type, if given, gets the
// answer's.
inline std::string Scrape(int port, int timeout_s = 5,
                          const std::string& accept = "",
                          std::string* content_type = nullptr) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(timeout_s);
  c.set_read_timeout(timeout_s);
  httplib::Headers headers;
  if (!accept.empty()) headers.emplace("Accept", accept);
  httplib::Result r = c.Get("/metrics", headers);
  if (content_type != nullptr && r) {
    *content_type = r->get_header_value("Content-Type");
  }
  return r && r->status == 200 ? r->body : "";
}

// The value of the sample written exactly `key` ("name{labels}"), if any.
inline std::optional<double> Sample(const std::string& text,
                                    const std::string& key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.size() > key.size() && line.substr(0, key.size()) == key &&
        line[key.size()] == ' ') {
      double v = 0;
      if (absl::SimpleAtod(line.substr(key.size() + 1), &v)) return v;
    }
  }
  return std::nullopt;
}

// A port nobody listens on now (another process could take it before it
// is used: a start that fails on it says so).
inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

// `promtool check metrics` (Debian's) over a scrape's text: its result,
// with what it said (nothing when the text passes without a lint) in
// output.
inline ChildResult PromtoolCheckMetrics(const std::string& text) {
  TempDir dir;
  const std::string path = dir.path() + "/scrape.txt";
  std::ofstream(path) << text;
  return RunProgram({"promtool", "check", "metrics"},
                    ChildSetup().Open(0, path, O_RDONLY).Capture(1).Capture(2));
}

// A Prometheus server (Debian's `prometheus`) on a free loopback port
// with its own config and storage in a temporary directory, scraping
// 127.0.0.1:target_port every second, with `flags` added to its command
// line (--enable-feature=native-histograms); stopped when this goes.
class Prometheus {
 public:
  explicit Prometheus(int target_port, std::vector<std::string> flags = {}) {
    if (dir_.path().empty()) return;
    const std::string config = dir_.path() + "/prometheus.yml";
    std::ofstream(config) << "global:\n"
                             "  scrape_interval: 1s\n"
                             "  scrape_timeout: 1s\n"
                             "scrape_configs:\n"
                             "  - job_name: biosnoop\n"
                             "    static_configs:\n"
                             "      - targets: ['127.0.0.1:"
                          << target_port << "']\n";
    port_ = FreePort();
    std::vector<std::string> argv = {
        "prometheus", "--config.file=" + config,
        "--storage.tsdb.path=" + dir_.path() + "/data",
        "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const int log = open(log_path().c_str(),
                         O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    server_ = Child::Program(
        argv, ChildSetup().Null(STDIN_FILENO).Dup(1, log).Dup(2, log));
    if (log >= 0) close(log);
  }

  // SIGTERM; past 20 s killed, and a failure.
  ~Prometheus() {
    if (server_.Running()) server_.Stop(SIGTERM, absl::Seconds(20));
  }

  bool started() const { return server_.started(); }
  std::string log_path() const { return dir_.path() + "/prometheus.log"; }
  std::string Log() const { return ReadFile(log_path()); }

  // GET path?params from its HTTP API: the body, or "" with *error set.
  std::string Api(const std::string& path, const httplib::Params& params,
                  std::string* error) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    httplib::Result r = c.Get(path.c_str(), params, httplib::Headers{});
    if (!r) {
      *error = httplib::to_string(r.error());
      return "";
    }
    if (r->status != 200) {
      *error = absl::StrCat("HTTP ", r->status, ": ", r->body);
      return "";
    }
    return r->body;
  }

  // The value of an instant query that yields one number; nullopt while
  // it yields none (no data yet, or NaN), *answer what it said.
  std::optional<double> Query(const std::string& expr, std::string* answer) {
    std::string error;
    const std::string body = Api("/api/v1/query", {{"query", expr}}, &error);
    *answer = body.empty() ? error : body;
    if (body.empty()) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || j["status"] != "success") return std::nullopt;
    const nlohmann::json& result = j["data"]["result"];
    if (!result.is_array() || result.size() != 1) return std::nullopt;
    double v = 0;
    if (!absl::SimpleAtod(result[0]["value"][1].get<std::string>(), &v) ||
        !std::isfinite(v)) {
      return std::nullopt;
    }
    return v;
  }

  // The targets page, for a failure's message.
  std::string Targets() const {
    std::string error;
    const std::string body = Api("/api/v1/targets", {}, &error);
    return body.empty() ? error : body;
  }

 private:
  TempDir dir_;
  int port_ = 0;
  Child server_;
};

}  // namespace biosnoop::testing
