// The metrics endpoint against clients that stall it on purpose, on
// loopback (anyone on the host may connect): a request that never ends
// is dropped at the deadline, stalled connections leave room for scrapes,
// stopping waits for none of them, a client that never reads its reply or
// sends an endless request is let go.  The figures printed are for the
// guide (docs/guide/metrics.md); the bounds asserted are the contract's
// (metrics_server.h), with room for a loaded machine.

#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hostile_clients.h"
#include "metrics_server.h"

namespace biosnoop {
namespace {

using testing::ClosedByServer;
using testing::ConnectLoopback;
using testing::Tricklers;
using Clock = std::chrono::steady_clock;

constexpr char kModule[] = BIOSNOOP_METRICS_MODULE;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Polls `done` every 10 ms until it holds or `timeout_ms` passes.
template <typename F>
bool WaitUntil(F done, int timeout_ms) {
  const auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::unique_ptr<MetricsServer> Serving() {
  absl::StatusOr<std::unique_ptr<MetricsServer>> s =
      MetricsServer::Bind("127.0.0.1", 0, kModule);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return nullptr;
  (*s)->Serve();
  return std::move(*s);
}

size_t OpenDescriptors() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n;
}

// A request that is never whole, a byte every 100 ms (cpp-httplib's own
// timeout, per recv(), never fires on it): dropped once its deadline
// passed, counted from when it was taken up.
TEST(MetricsHostileTest, ARequestThatNeverEndsIsDroppedAtTheDeadline) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("a_total 1\n");
  const auto start = Clock::now();
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const char head[] = "GET /metrics HTTP/1.1\r\nX-Slow: ";
  ASSERT_EQ(send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL),
            static_cast<ssize_t>(sizeof(head) - 1));
  bool closed = false;
  while (!closed && MsSince(start) < 30000) {
    closed = ClosedByServer(fd, 100);  // also the pace of the bytes
    if (!closed) (void)!send(fd, "x", 1, MSG_NOSIGNAL);
  }
  const double took = MsSince(start);
  close(fd);
  EXPECT_TRUE(closed) << "a request trickled for 30 s was still open";
  EXPECT_GE(took, MetricsServer::kDeadlineMs - 10);
  std::printf("trickled request dropped after %.0f ms (deadline %d ms)\n", took,
              MetricsServer::kDeadlineMs);
}

// A slow client that does finish within the deadline gets its answer:
// the deadline is for the whole request, not for each byte.
TEST(MetricsHostileTest, ASlowRequestWithinTheDeadlineIsAnswered) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("a_total 1\n");
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  const std::string request =
      "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n";
  // In ten pieces over about a quarter of the deadline.
  const size_t piece = request.size() / 10 + 1;
  for (size_t at = 0; at < request.size(); at += piece) {
    const std::string part = request.substr(at, piece);
    ASSERT_EQ(send(fd, part.data(), part.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(part.size()));
    std::this_thread::sleep_for(
        std::chrono::milliseconds(MetricsServer::kDeadlineMs / 40));
  }
  std::string reply;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) reply.append(buf, n);
  close(fd);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("\r\n\r\na_total 1\n"), std::string::npos) << reply;
}

// More tricklers than slots, replaced as soon as they are dropped: every
// scrape is answered, within half the deadline, so not by waiting for a
// stalled connection's deadline to free a slot but by taking the oldest
// one's.
TEST(MetricsHostileTest, ScrapesAreServedWhileTricklersHoldEverySlot) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("a_total 1\n");
  constexpr int kTricklers = MetricsServer::kSlots + 4;
  Tricklers tricklers(s->port(), kTricklers);
  ASSERT_TRUE(
      WaitUntil([&] { return tricklers.connected() == kTricklers; }, 30000))
      << "awaited " << kTricklers << " trickling connections; "
      << tricklers.connected() << " (" << tricklers.last_error() << ")";
  std::vector<double> took;
  for (int i = 0; i < 20; ++i) {
    httplib::Client c("127.0.0.1", s->port());
    c.set_connection_timeout(MetricsServer::kDeadlineMs / 2000, 0);
    c.set_read_timeout(MetricsServer::kDeadlineMs / 2000, 0);
    const auto start = Clock::now();
    httplib::Result r = c.Get("/metrics");
    took.push_back(MsSince(start));
    ASSERT_TRUE(r) << "scrape " << i << " with " << tricklers.connected()
                   << " tricklers: " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "a_total 1\n");
  }
  std::sort(took.begin(), took.end());
  std::printf("20 scrapes beside %d tricklers: median %.1f ms, max %.1f ms\n",
              kTricklers, took[took.size() / 2], took.back());
}

// Stopping the server ends every stalled connection at once: the
// destructor returns in milliseconds with 20 tricklers on it.
TEST(MetricsHostileTest, StoppingWaitsForNoStalledConnection) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("a_total 1\n");
  Tricklers tricklers(s->port(), 20);
  ASSERT_TRUE(WaitUntil([&] { return tricklers.connected() == 20; }, 30000))
      << tricklers.connected() << " of 20 tricklers connected ("
      << tricklers.last_error() << ")";
  std::atomic<bool> stopped{false};
  const auto start = Clock::now();
  std::thread stopper([&] {
    s.reset();
    stopped = true;
  });
  const bool done = WaitUntil([&] { return stopped.load(); }, 30000);
  const double took = MsSince(start);
  if (!done) {
    stopper.detach();  // the process ends with the test binary
    FAIL() << "the server still stopped after 30 s with 20 tricklers";
  }
  stopper.join();
  std::printf("stopped with 20 tricklers in %.1f ms\n", took);
}

// A client that asks for a reply larger than the socket buffers and never
// reads it: the server gives up at the deadline, and its descriptor for
// the connection is closed.
TEST(MetricsHostileTest, AClientThatNeverReadsItsReplyIsLetGo) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish(std::string(32 << 20, 'x'));
  const size_t before = OpenDescriptors();
  constexpr int kClients = 2;
  std::vector<int> fds;
  const char request[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  const auto start = Clock::now();
  for (int i = 0; i < kClients; ++i) {
    const int fd = ConnectLoopback(s->port());
    ASSERT_GE(fd, 0);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    ASSERT_EQ(send(fd, request, sizeof(request) - 1, MSG_NOSIGNAL),
              static_cast<ssize_t>(sizeof(request) - 1));
    fds.push_back(fd);
  }
  // Ours and the server's end of each, then ours alone.
  EXPECT_TRUE(WaitUntil(
      [&] { return OpenDescriptors() >= before + 2 * kClients; }, 30000));
  const bool let_go =
      WaitUntil([&] { return OpenDescriptors() == before + kClients; }, 30000);
  const double took = MsSince(start);
  for (int fd : fds) close(fd);
  EXPECT_TRUE(let_go) << OpenDescriptors() - before
                      << " descriptors still open for " << kClients
                      << " clients that never read";
  std::printf("clients that never read a 32 MiB reply let go after %.0f ms\n",
              took);
}

// A request larger than any scrape's (an endless stream of headers, sent
// as fast as the socket takes it) is cut off when it passes
// kMaxRequestBytes, before its deadline: it never costs the server more
// memory than that.
TEST(MetricsHostileTest, AnEndlessRequestIsCutOffAtItsSize) {
  std::unique_ptr<MetricsServer> s = Serving();
  ASSERT_NE(s, nullptr);
  s->Publish("a_total 1\n");
  const int fd = ConnectLoopback(s->port());
  ASSERT_GE(fd, 0);
  std::string flood = "GET /metrics HTTP/1.1\r\n";
  while (flood.size() < MetricsServer::kMaxRequestBytes * 2) {
    flood += "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
  }
  const auto start = Clock::now();
  (void)!send(fd, flood.data(), flood.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  const bool closed = ClosedByServer(fd, MetricsServer::kDeadlineMs / 2);
  const double took = MsSince(start);
  close(fd);
  EXPECT_TRUE(closed) << "a request of " << flood.size()
                      << " bytes was still open after half the deadline";
  std::printf("a %zu-byte request cut off after %.1f ms\n", flood.size(), took);
}

}  // namespace
}  // namespace biosnoop
