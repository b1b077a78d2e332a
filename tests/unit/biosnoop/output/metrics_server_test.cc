// The metrics endpoint on loopback, no privilege needed: what a scrape
// gets, bind errors and their exit codes, and that scrapers that hang or
// flood neither block Publish() nor keep the server from answering once
// they are gone.

#include "metrics_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "exit_codes.h"
#include "gtest/gtest.h"
#include "metrics_proto.h"
#include "metrics_text.h"

namespace biosnoop {
namespace {

constexpr char kModule[] = BIOSNOOP_METRICS_MODULE;

// Polls `done` every 10 ms until it holds or `timeout_ms` passes.
template <typename F>
bool WaitUntil(F done, int timeout_ms) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

httplib::Result Get(int port, const std::string& path = "/metrics") {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(5);
  c.set_read_timeout(5);
  return c.Get(path.c_str());
}

// A connection that sends nothing and reads nothing; -1 if refused.
int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::unique_ptr<MetricsServer> Serving() {
  absl::StatusOr<std::unique_ptr<MetricsServer>> s =
      MetricsServer::Bind("127.0.0.1", 0, kModule);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return nullptr;
  (*s)->Serve();
  return std::move(*s);
}

TEST(MetricsServerTest, ServesTheLastPublishedText) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  EXPECT_GT(s->port(), 0);
  EXPECT_EQ(s->Url(),
            "http://127.0.0.1:" + std::to_string(s->port()) + "/metrics");
  httplib::Result r = Get(s->port());
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 503);  // nothing published yet
  s->Publish("a_total 1\n");
  s->Publish("a_total 2\n");
  r = Get(s->port());
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "a_total 2\n");
  EXPECT_EQ(r->get_header_value("Content-Type"), kMetricsContentType);
  r = Get(s->port(), "/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

// A scraper that asks for the protobuf format gets it, once published;
// any other Accept header, or none, the text.
TEST(MetricsServerTest, TheAcceptHeaderPicksTheFormat) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  const httplib::Headers proto = {
      {"Accept",
       "application/vnd.google.protobuf;proto=io.prometheus.client."
       "MetricFamily;encoding=delimited,text/plain;version=0.0.4;q=0.5"}};
  httplib::Client c("127.0.0.1", s->port());
  c.set_connection_timeout(5);
  c.set_read_timeout(5);
  httplib::Result r = c.Get("/metrics", proto);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 503);
  // Published without the protobuf bytes: the text for everyone.
  s->Publish("t_total 1\n");
  r = c.Get("/metrics", proto);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->body, "t_total 1\n");
  EXPECT_EQ(r->get_header_value("Content-Type"), kMetricsContentType);
  const std::string bytes("\x03\n\x01x\x00\xff", 6);
  s->Publish("t_total 2\n", bytes);
  r = c.Get("/metrics", proto);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, bytes);
  EXPECT_EQ(r->get_header_value("Content-Type"), kMetricsProtoContentType);
  for (const httplib::Headers& h : std::vector<httplib::Headers>{
           {},
           {{"Accept", "text/plain;version=0.0.4"}},
           {{"Accept", "application/openmetrics-text;version=1.0.0,*/*;q=0.1"}},
           {{"Accept", std::string(3000, ';')}}}) {
    r = c.Get("/metrics", h);
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "t_total 2\n");
    EXPECT_EQ(r->get_header_value("Content-Type"), kMetricsContentType);
  }
}

TEST(MetricsServerTest, IPv6Loopback) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> s =
      MetricsServer::Bind("::1", 0, kModule);
  if (!s.ok() && ExitCodeFor(s.status()) == kExitUsage) {
    GTEST_SKIP() << "no IPv6 loopback here: " << s.status();
  }
  ASSERT_TRUE(s.ok()) << s.status();
  (*s)->Serve();
  (*s)->Publish("x_total 1\n");
  EXPECT_EQ((*s)->Url(),
            "http://[::1]:" + std::to_string((*s)->port()) + "/metrics");
  httplib::Client c("::1", (*s)->port());
  httplib::Result r = c.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->body, "x_total 1\n");
}

// Another process on the port is no error: the server comes back unbound,
// says why in one line, and binds and serves once the port is free.
TEST(MetricsServerTest, APortInUseIsBoundOnceFreed) {
  std::unique_ptr<MetricsServer> first = Serving();
  ASSERT_NE(first, nullptr);
  const int port = first->port();
  absl::StatusOr<std::unique_ptr<MetricsServer>> second =
      MetricsServer::Bind("127.0.0.1", port, kModule);
  ASSERT_TRUE(second.ok()) << second.status();
  MetricsServer& s = **second;
  EXPECT_FALSE(s.bound()) << "a second server bound the same port";
  EXPECT_EQ(s.InUseMessage(),
            "--metrics-listen 127.0.0.1:" + std::to_string(port) +
                ": address already in use (another process listens there)");
  absl::StatusOr<bool> bound = s.TryBind();
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_FALSE(*bound);
  s.Serve();  // nothing to serve yet: does nothing
  s.Publish("p_total 1\n");
  first.reset();
  bound = s.TryBind();
  ASSERT_TRUE(bound.ok()) << bound.status();
  ASSERT_TRUE(*bound);
  EXPECT_EQ(s.port(), port);
  s.Serve();
  httplib::Result r = Get(port);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->body, "p_total 1\n");
}

TEST(MetricsServerTest, AnAddressNotOnThisHostIsBadUsage) {
  // 192.0.2.0/24 is TEST-NET-1: never a local address.
  absl::StatusOr<std::unique_ptr<MetricsServer>> s =
      MetricsServer::Bind("192.0.2.1", 0, kModule);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(ExitCodeFor(s.status()), kExitUsage);
  EXPECT_NE(s.status().message().find("no such address"), std::string::npos)
      << s.status();
}

// Without its module (a copy of the program alone), the endpoint cannot be
// had: one line saying what was looked for, exit 69, not a crash.
TEST(MetricsServerTest, AMissingModuleIsSaidAndUnsupported) {
  const absl::StatusOr<std::unique_ptr<MetricsServer>> s =
      MetricsServer::Bind("127.0.0.1", 0, "/nonexistent/biosnoop-metrics.so");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(ExitCodeFor(s.status()), kExitUnsupported) << s.status();
  EXPECT_NE(s.status().message().find("metrics module is not installed"),
            std::string::npos)
      << s.status();
  // A file that is not the module: refused by the loader, said.
  const absl::StatusOr<std::unique_ptr<MetricsServer>> t =
      MetricsServer::Bind("127.0.0.1", 0, "/etc/hostname");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(ExitCodeFor(t.status()), kExitUnsupported) << t.status();
  EXPECT_NE(t.status().message().find("cannot load the metrics module"),
            std::string::npos)
      << t.status();
}

TEST(MetricsServerTest, ABoundServerNeverServedFreesItsPort) {
  int port = 0;
  {
    absl::StatusOr<std::unique_ptr<MetricsServer>> s =
        MetricsServer::Bind("127.0.0.1", 0, kModule);
    ASSERT_TRUE(s.ok()) << s.status();
    port = (*s)->port();
  }  // a start that failed after the bind
  absl::StatusOr<std::unique_ptr<MetricsServer>> again =
      MetricsServer::Bind("127.0.0.1", port, kModule);
  EXPECT_TRUE(again.ok()) << again.status();
}

// Every worker and queue place taken by connections that never send, and
// more waiting in the backlog: Publish() still returns (it never waits on
// a scrape), and once they are gone a scrape gets the newest text.
TEST(MetricsServerTest, HangingScrapersBlockNeitherPublishNorLaterScrapes) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("n_total 0\n");
  std::vector<int> hung;
  for (int i = 0; i < MetricsServer::kSlots + 4; ++i) {
    const int fd = Connect(s->port());
    ASSERT_GE(fd, 0);
    hung.push_back(fd);
  }
  // A flood beside them: scrapers that give up after a second.
  std::vector<std::thread> flood;
  for (int i = 0; i < 16; ++i) {
    flood.emplace_back([port = s->port()] {
      httplib::Client c("127.0.0.1", port);
      c.set_connection_timeout(1);
      c.set_read_timeout(1);
      c.Get("/metrics");
    });
  }
  for (int i = 1; i <= 10000; ++i) {
    s->Publish("n_total " + std::to_string(i) + "\n");
  }
  for (std::thread& t : flood) t.join();
  for (int fd : hung) close(fd);
  std::string body;
  EXPECT_TRUE(WaitUntil(
      [&] {
        httplib::Result r = Get(s->port());
        if (r && r->status == 200) body = r->body;
        return body == "n_total 10000\n";
      },
      30000))
      << "awaited a scrape with the last text once the hanging connections "
         "closed; last body: \""
      << body << "\"";
}

}  // namespace
}  // namespace biosnoop
