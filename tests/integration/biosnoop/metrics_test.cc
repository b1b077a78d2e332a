// --metrics-listen end to end: a real biosnoop on a slow disk, scraped by
// Debian's own Prometheus tools (promtool's checker, a Prometheus server
// answering histogram_quantile), and by scrapers that hang or flood while
// the event stream must go on.

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "prometheus_server.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// Bucket 14 of the log2 microsecond histogram holds 20 ms: 16.384 ms to
// 32.768 ms.
constexpr double kBucketLow = 0.016384;
constexpr double kBucketHigh = 0.032768;

std::string Labels(const std::string& disk, const std::string& op) {
  return absl::StrCat("{disk=\"", disk, "\",op=\"", op, "\"");
}

// A connection to 127.0.0.1:port that sends nothing, made within
// `timeout_ms` (a full listen backlog makes connect() wait); -1 if not.
int Connect(int port, int timeout_ms = 100) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    pollfd p = {fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof(err);
    if (errno != EINPROGRESS || poll(&p, 1, timeout_ms) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

TEST(Metrics, PromtoolAcceptsARealScrape) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Biosnoop b(
      {"--min-us", "10000", "-d", disk.loop_name(), "--metrics-listen", "0"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const int port = MetricsPort(b);
  ASSERT_GT(port, 0) << b.Stderr();
  ASSERT_EQ(DirectDd(disk.loop_path(), true, 4096, 10).exit_code, 0);
  ASSERT_EQ(DirectDd(disk.loop_path(), false, 4096, 10, 100).exit_code, 0);
  const std::string reads = Labels(disk.loop_name(), "read");
  const std::string writes = Labels(disk.loop_name(), "write");
  std::string text;
  ASSERT_TRUE(WaitUntil(
      [&] {
        text = Scrape(port);
        return Sample(text, "biosnoop_io_total" + reads + "}").value_or(0) >=
                   10 &&
               Sample(text, "biosnoop_io_total" + writes + "}").value_or(0) >=
                   10;
      },
      30000))
      << "awaited a scrape counting the 10 reads and 10 writes; last:\n"
      << text;

  const ChildResult checked = PromtoolCheckMetrics(text);
  const std::string& said = checked.output;
  EXPECT_TRUE(ExitedWith(checked, 0)) << text;
  EXPECT_EQ(said, "") << "promtool's lint:\n" << said;

  // The 20 ms reads in the bucket that holds 20 ms, none below it.
  const std::string bucket = "biosnoop_io_latency_seconds_bucket" + reads;
  EXPECT_EQ(Sample(text, bucket + ",le=\"0.016384\"}"), 0.0) << text;
  const double count =
      Sample(text, "biosnoop_io_latency_seconds_count" + reads + "}")
          .value_or(-1);
  EXPECT_GE(count, 10) << text;
  EXPECT_EQ(Sample(text, bucket + ",le=\"0.032768\"}"), count) << text;
  EXPECT_EQ(Sample(text, bucket + ",le=\"+Inf\"}"), count) << text;
  const double sum =
      Sample(text, "biosnoop_io_latency_seconds_sum" + reads + "}")
          .value_or(-1);
  EXPECT_GE(sum / count, 0.020) << text;
  EXPECT_LT(sum / count, kBucketHigh) << text;
  EXPECT_EQ(Sample(text, "biosnoop_io_bytes_total" + reads + "}"), count * 4096)
      << text;
  EXPECT_GE(Sample(text, "biosnoop_io_slow_total" + reads + "}").value_or(0),
            10)
      << text;
  EXPECT_EQ(Sample(text, "biosnoop_io_slow_total" + writes + "}"), 0.0) << text;
  // Every counter of the stats record, the loss counters among them.
  for (const char* c :
       {"completions", "emitted", "written", "lost", "orphans",
        "below_threshold", "filtered", "decode_errors", "expired", "dropped",
        "missed", "unfinished", "stuck"}) {
    EXPECT_TRUE(Sample(text, absl::StrCat("biosnoop_", c, "_total")))
        << c << "\n"
        << text;
  }
  EXPECT_EQ(Sample(text, "biosnoop_lost_total"), 0.0) << text;
  EXPECT_GE(Sample(text, "biosnoop_emitted_total").value_or(0), 10) << text;
  // What every exporter serves, read from /proc after biosnoop dropped
  // its privileges: its build, and its process's own figures.
  EXPECT_EQ(Sample(text, "biosnoop_build_info{version=\"" +
                             std::string(BIOSNOOP_VERSION) + "\"}"),
            1.0)
      << text;
  const double fds = Sample(text, "process_open_fds").value_or(0);
  EXPECT_GE(fds, 4) << text;  // stdio, the program's maps, the listener
  EXPECT_GE(Sample(text, "process_max_fds").value_or(0), fds) << text;
  EXPECT_GT(Sample(text, "process_resident_memory_bytes").value_or(0), 1 << 20)
      << text;
  EXPECT_GE(Sample(text, "process_virtual_memory_bytes").value_or(0),
            Sample(text, "process_resident_memory_bytes").value_or(1e18))
      << text;
  EXPECT_GE(Sample(text, "process_cpu_seconds_total").value_or(-1), 0) << text;
  const double started = Sample(text, "process_start_time_seconds").value_or(0);
  EXPECT_LE(started, static_cast<double>(time(nullptr)) + 1) << text;
  EXPECT_GT(started, static_cast<double>(time(nullptr)) - 600) << text;
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  // The events the scrape counted reached the stream.
  EXPECT_GE(b.Summary()["written"],
            Sample(text, "biosnoop_written_total").value_or(1e9));
}

// A port another process listens on stops the start with bad usage,
// before the program is loaded or the output created.
TEST(Metrics, APortInUseStopsTheStartBeforeAnythingIsLoadedOrCreated) {
  BIOSNOOP_REQUIRE_ROOT();
  int holder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  ASSERT_EQ(getsockname(holder, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string port = std::to_string(ntohs(a.sin_port));
  TempDir dir;
  const std::string out = dir.path() + "/out.jsonl";
  Biosnoop b({"--metrics-listen", "127.0.0.1:" + port, "-o", out});
  EXPECT_EQ(b.Wait(), 64) << b.Stderr();
  close(holder);
  EXPECT_EQ(b.Stderr(),
            "biosnoop: --metrics-listen 127.0.0.1:" + port +
                ": address already in use (another process listens there): "
                "give another port\n");
  EXPECT_NE(access(out.c_str(), F_OK), 0) << "the output was created";
}

// The check: Prometheus itself scrapes biosnoop while the disk
// serves 20 ms reads, and its median over them falls in the bucket that
// holds 20 ms.
TEST(Metrics, PrometheusFindsTheMedianOfTwentyMsReadsInTheirBucket) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Biosnoop b(
      {"--min-us", "10000", "-d", disk.loop_name(), "--metrics-listen", "0"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const int port = MetricsPort(b);
  ASSERT_GT(port, 0) << b.Stderr();
  Prometheus prom(port);
  ASSERT_TRUE(prom.started()) << "could not start prometheus";

  std::atomic<bool> stop{false};
  std::thread reader([&] {
    for (int i = 0; !stop; i = (i + 1) % 100) {
      DirectDd(disk.loop_path(), true, 4096, 25, i * 25);
    }
  });
  const std::string expr = absl::StrCat(
      "histogram_quantile(0.5, sum by (le) "
      "(rate(biosnoop_io_latency_seconds_bucket",
      Labels(disk.loop_name(), "read"), "}[10s])))");
  std::optional<double> median;
  std::string answer;
  const bool answered = WaitUntil(
      [&] {
        median = prom.Query(expr, &answer);
        return median.has_value();
      },
      120000);
  stop = true;
  reader.join();
  std::string targets_error;
  ASSERT_TRUE(answered) << "awaited a value for " << expr
                        << " from Prometheus; it last said: " << answer
                        << "\ntargets: "
                        << prom.Api("/api/v1/targets", {}, &targets_error)
                        << targets_error << "\nprometheus log:\n"
                        << prom.Log() << "\nbiosnoop:\n"
                        << b.Stderr();
  EXPECT_GE(*median, kBucketLow) << expr;
  EXPECT_LE(*median, kBucketHigh) << expr;
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
}

// Connections that hold every worker of the endpoint and every place in
// its queue for as long as the test wants, beside a flood of scrapers: the
// slow events still reach the stream while the server is held, and the
// endpoint answers again once they are gone.  Structural, not timed: each
// held connection has sent the start of a request and adds a byte to a
// header line that never ends every 200 ms, so the server's idle timeout
// (MetricsServer::kIoTimeoutS, 2 s) never drops it, and the test holds
// them until the events are in.  A run whose events waited on its
// scrapers would have none before the test gave up (60 s).
TEST(Metrics, ScrapersHoldingTheServerDoNotHoldTheEvents) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Biosnoop b({"--min-us", "10000", "-d", disk.loop_name(), "--metrics-listen",
              "0", "--stats-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const int port = MetricsPort(b);
  ASSERT_GT(port, 0) << b.Stderr();

  // Every worker, every queue place, and some waiting in the backlog.
  constexpr int kHeld = 14;
  static_assert(kHeld > 2 + 8, "MetricsServer's kWorkers + kQueued");
  std::atomic<bool> stop{false};
  std::atomic<int> held{0};     // connections open and trickling
  std::atomic<int> dropped{0};  // closed by the server while held
  std::thread holders([&] {
    std::vector<int> fds;
    const char start[] = "GET /metrics HTTP/1.1\r\nX-Slow: ";
    while (!stop) {
      std::vector<int> alive;
      for (int fd : fds) {
        pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 0) > 0 || send(fd, "x", 1, MSG_NOSIGNAL) != 1) {
          ++dropped;  // EOF or reset: the server let go of it
          close(fd);
        } else {
          alive.push_back(fd);
        }
      }
      fds = alive;
      while (!stop && fds.size() < kHeld) {
        const int fd = Connect(port, 1000);
        if (fd < 0) break;
        (void)!send(fd, start, sizeof(start) - 1, MSG_NOSIGNAL);
        fds.push_back(fd);
      }
      held = static_cast<int>(fds.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    for (int fd : fds) close(fd);
  });
  std::atomic<int> scrapes{0};
  std::vector<std::thread> flood;
  auto end_scrapers = [&] {
    stop = true;
    for (std::thread& t : flood) t.join();
    holders.join();
  };
  // Held before the flood comes (which then fills the listen backlog) and
  // before the I/O starts: a scrape gets no answer.
  if (!WaitUntil([&] { return held == kHeld; }, 60000)) {
    end_scrapers();
    FAIL() << "awaited " << kHeld << " held connections; " << held
           << " were held";
  }
  for (int i = 0; i < 16; ++i) {
    flood.emplace_back([&] {
      while (!stop) {
        Scrape(port, 1);
        ++scrapes;
      }
    });
  }
  std::string answered;
  if (!WaitUntil([&] { return (answered = Scrape(port, 1)).empty(); }, 60000)) {
    end_scrapers();
    FAIL() << "awaited a scrape left unanswered with " << held
           << " connections held; it said:\n"
           << answered;
  }
  const int dropped_before = dropped;
  const Workload dd = DirectDd(disk.loop_path(), true, 4096, 50);
  // Each read is an event, or a completion the kernel ran no program for,
  // which biosnoop counts as missed (its stats record every second).
  auto in = [&] {
    const size_t events = EventsOfPid(b.Events(), dd.pid).size();
    return events >= 50 || events + MissedSoFar(b) >= 50;
  };
  const bool all_in = WaitUntil(in, 60000);
  const int held_then = held;
  const int dropped_during = dropped - dropped_before;
  const size_t seen = EventsOfPid(b.Events(), dd.pid).size();
  end_scrapers();
  EXPECT_EQ(dd.exit_code, 0);
  EXPECT_TRUE(all_in) << seen << " of the 50 events came while scrapers "
                      << "held the endpoint\n"
                      << b.Stderr();
  // The server was held the whole time the events came.
  EXPECT_EQ(held_then, kHeld);
  EXPECT_EQ(dropped_during, 0)
      << "the server let go of held connections while the reads ran";
  EXPECT_GT(scrapes, 0);
  // With the scrapers gone, the endpoint answers again, with the reads.
  std::string text;
  EXPECT_TRUE(WaitUntil(
      [&] {
        text = Scrape(port);
        return Sample(text, "biosnoop_io_total" +
                                Labels(disk.loop_name(), "read") + "}")
                   .value_or(0) >= static_cast<double>(seen);
      },
      30000))
      << "awaited a scrape counting the " << seen
      << " reads logged once the scrapers left; "
         "last:\n"
      << text << "\nbiosnoop:\n"
      << b.Stderr();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_TRUE(LoggedOrMissed(seen, 50, b));
  for (const json& e : EventsOfPid(b.Events(), dd.pid)) {
    EXPECT_GE(e["latency_us"].get<int64_t>(), 20000) << e.dump();
  }
}

}  // namespace
}  // namespace biosnoop::testing
