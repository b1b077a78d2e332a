// --metrics-listen end to end: a real biosnoop on a slow disk, scraped by
// Debian's own Prometheus tools (promtool's checker, a Prometheus server
// answering histogram_quantile), and by clients that stall it on purpose
// (hostile_clients.h) while the event stream, the scrapes and a stop must
// go on; a port another process took at start.

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
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
#include "hostile_clients.h"
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

// A socket listening on 127.0.0.1:port (0: a port the kernel picks),
// with *bound set to its port; -1 if it cannot be had.
int Listening(int port, int* bound) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      listen(fd, 1) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return -1;
  }
  *bound = ntohs(a.sin_port);
  return fd;
}

// Another process on the port at start (any process on the host can take
// a port from 1024 up; with hostNetwork, any pod on the node): the events
// go on, a warning says so, and the port is tried again until it is free,
// then served.
TEST(Metrics, APortInUseAtStartIsTriedAgainWhileTheEventsGoOn) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_TRUE(disk.ok()) << disk.error();
  int port = 0;
  int holder = Listening(0, &port);
  ASSERT_GE(holder, 0);
  const std::string where = "127.0.0.1:" + std::to_string(port);
  Biosnoop b(
      {"--min-us", "10000", "-d", disk.loop_name(), "--metrics-listen", where});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_TRUE(b.WaitForStderr(
      "biosnoop: warning: --metrics-listen " + where +
      ": address already in use (another process listens there); the "
      "events go on without the metrics endpoint, and biosnoop tries the "
      "port again every 5 s\n"));
  const Workload dd = DirectDd(disk.loop_path(), true, 4096, 10);
  ASSERT_EQ(dd.exit_code, 0);
  EXPECT_TRUE(b.WaitForRecords("event", 10, [&](const json& e) {
    return e.value("pid", -1) == dd.pid;
  })) << "the events while the port was taken";
  EXPECT_EQ(b.Stderr().find("serving metrics"), std::string::npos)
      << b.Stderr();
  close(holder);
  EXPECT_TRUE(b.WaitForStderr("is free after", 30000));
  ASSERT_EQ(MetricsPort(b), port) << b.Stderr();
  std::string text;
  EXPECT_TRUE(WaitUntil(
      [&] {
        text = Scrape(port);
        return Sample(text, "biosnoop_io_total" +
                                Labels(disk.loop_name(), "read") + "}")
                   .value_or(0) >= 10;
      },
      30000))
      << "awaited a scrape counting the 10 reads; last:\n"
      << text;
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
}

// A port below 1024 in use at start cannot be tried again once biosnoop
// has dropped its privileges: the warning says so, and the events go on.
TEST(Metrics, ALowPortInUseIsNotTriedAgain) {
  BIOSNOOP_REQUIRE_ROOT();
  int port = 0;
  int holder = -1;
  for (int p = 1023; p > 900 && holder < 0; --p) holder = Listening(p, &port);
  ASSERT_GE(holder, 0) << "no free port below 1024 on 127.0.0.1";
  const std::string where = "127.0.0.1:" + std::to_string(port);
  Biosnoop b({"--metrics-listen", where});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_TRUE(b.WaitForStderr(
      "biosnoop: warning: --metrics-listen " + where +
      ": address already in use (another process listens there); the "
      "events go on without the metrics endpoint, which is not tried "
      "again: a port below 1024 needs the privileges biosnoop drops once "
      "it is loaded (give a port from 1024 up to have it tried again)\n"));
  close(holder);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_EQ(b.Stderr().find("serving metrics"), std::string::npos)
      << b.Stderr();
}

// The stop: connections that each send a header byte every 100 ms
// (a read timeout per recv() never fires on them) kept biosnoop from
// exiting after SIGTERM for as long as they trickled.  With 20 of them
// connected, biosnoop exits within the 2 s the guarantees promise.
TEST(Metrics, SigtermExitsWithinTwoSecondsBesideTwentyStalledClients) {
  BIOSNOOP_REQUIRE_ROOT();
  Biosnoop b({"--metrics-listen", "0"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const int port = MetricsPort(b);
  ASSERT_GT(port, 0) << b.Stderr();
  Tricklers tricklers(port, 20);
  ASSERT_TRUE(WaitUntil([&] { return tricklers.connected() == 20; }, 30000))
      << tricklers.connected() << " of 20 stalled clients connected ("
      << tricklers.last_error() << ")";
  const auto start = std::chrono::steady_clock::now();
  const int code = b.Stop(SIGTERM, 20000);
  const double took_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  EXPECT_EQ(code, 0) << "-2: still running 20 s after SIGTERM\n" << b.Stderr();
  EXPECT_LT(took_ms, 2000) << b.Stderr();
  std::printf("SIGTERM to exit beside 20 stalled clients: %.0f ms\n", took_ms);
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

// Stalled clients beside the run: 20 connections that never finish a
// request (a header byte every 100 ms, replaced when the server drops
// them), beside scrapers that flood the port.  The slow events still
// reach the stream, and every scrape of ours is answered within half the
// endpoint's 2 s deadline: not by waiting for a stalled connection to
// time out, but by taking the slot of the one served longest.  Before
// (two workers, a timeout per recv()), two such connections left every
// scrape unanswered for as long as they trickled.
TEST(Metrics, StalledClientsHoldNeitherTheEventsNorTheScrapes) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Biosnoop b({"--min-us", "10000", "-d", disk.loop_name(), "--metrics-listen",
              "0", "--stats-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const int port = MetricsPort(b);
  ASSERT_GT(port, 0) << b.Stderr();
  Tricklers tricklers(port, 20);
  ASSERT_TRUE(WaitUntil([&] { return tricklers.connected() == 20; }, 30000))
      << tricklers.connected() << " of 20 stalled clients connected ("
      << tricklers.last_error() << ")";
  std::atomic<bool> stop{false};
  std::atomic<int> flooded{0}, answered{0};
  std::vector<std::thread> flood;
  for (int i = 0; i < 4; ++i) {
    flood.emplace_back([&] {
      while (!stop) {
        if (!Scrape(port, 1).empty()) ++answered;
        ++flooded;
      }
    });
  }
  const Workload dd = DirectDd(disk.loop_path(), true, 4096, 50);
  // Each read is an event, or a completion the kernel ran no program for,
  // which biosnoop counts as missed (its stats record every second).
  auto in = [&] {
    const size_t events = EventsOfPid(b.Events(), dd.pid).size();
    return events >= 50 || events + MissedSoFar(b) >= 50;
  };
  const bool all_in = WaitUntil(in, 60000);
  // Our scrapes, one after another, while the tricklers stall: each within
  // half the deadline (1 s), counting the reads.
  std::vector<double> took;
  std::string failed;
  const std::string reads =
      "biosnoop_io_total" + Labels(disk.loop_name(), "read") + "}";
  for (int i = 0; i < 20 && failed.empty(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::string text = Scrape(port, 1);
    took.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
    if (text.empty()) {
      failed = absl::StrCat("scrape ", i, " unanswered within 1 s with ",
                            tricklers.connected(), " stalled clients");
    } else if (!Sample(text, reads)) {
      failed = absl::StrCat("scrape ", i, " without ", reads, ":\n", text);
    }
  }
  const int still_stalled = tricklers.connected();
  stop = true;
  for (std::thread& t : flood) t.join();
  const size_t seen = EventsOfPid(b.Events(), dd.pid).size();
  EXPECT_EQ(dd.exit_code, 0);
  EXPECT_TRUE(all_in) << seen << " of the 50 events came beside the stalled "
                      << "clients\n"
                      << b.Stderr();
  EXPECT_EQ(failed, "");
  EXPECT_EQ(still_stalled, 20) << "the stalled clients were not all there";
  EXPECT_GT(answered, 0);
  std::sort(took.begin(), took.end());
  std::printf(
      "%zu scrapes beside 20 stalled clients (%d dropped, %d replaced) and a "
      "flood (%d of %d answered): median %.1f ms, max %.1f ms\n",
      took.size(), tricklers.dropped(), tricklers.made() - 20, answered.load(),
      flooded.load(), took[took.size() / 2], took.back());
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_TRUE(LoggedOrMissed(seen, 50, b));
  for (const json& e : EventsOfPid(b.Events(), dd.pid)) {
    EXPECT_GE(e["latency_us"].get<int64_t>(), 20000) << e.dump();
  }
}

}  // namespace
}  // namespace biosnoop::testing
