// The process metrics from /proc: a tree laid out like it (a command name
// with spaces and parentheses, an unlimited limit, things missing), and
// this very process, whose descriptors the test opens and closes.

#include "process_stats.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

class FakeProc {
 public:
  FakeProc() {
    char tmpl[] = "/tmp/process-stats-test-XXXXXX";
    dir_ = mkdtemp(tmpl) != nullptr ? tmpl : "";
    mkdir((dir_ + "/self").c_str(), 0755);
    mkdir((dir_ + "/self/fd").c_str(), 0755);
  }
  ~FakeProc() { std::system(("rm -rf " + dir_).c_str()); }
  const std::string& dir() const { return dir_; }
  void Write(const std::string& rel, const std::string& text) const {
    std::ofstream(dir_ + "/" + rel) << text;
  }
  // Names far above any descriptor the reader's listing may get.
  void Fds(int n) const {
    for (int i = 0; i < n; ++i) {
      Write("self/fd/" + std::to_string(100000 + i), "");
    }
  }

 private:
  std::string dir_;
};

constexpr char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           "
    "Units     \n"
    "Max cpu time              unlimited            unlimited            "
    "seconds   \n"
    "Max open files            1024                 524288               "
    "files     \n";

TEST(ProcessStatsTest, ReadsCpuMemoryStartAndDescriptors) {
  FakeProc proc;
  ASSERT_FALSE(proc.dir().empty());
  const long hz = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);
  const long start_ticks = 3 * hz + hz / 2;  // 3.5 s after the boot
  proc.Write("stat", "cpu  1 2 3\nbtime 1767225600\nprocesses 9\n");
  // utime 150 and stime 50 ticks, starttime, vsize, rss.
  proc.Write("self/stat",
             "4242 (bio snoop) (x)) S 1 4242 4242 0 -1 4194560 10 0 0 0 " +
                 std::to_string(150) + " " + std::to_string(50) +
                 " 0 0 20 0 3 0 " + std::to_string(start_ticks) +
                 " 314572800 3000 18446744073709551615 1 1 0 0 0 0 0 0 0\n");
  proc.Write("self/limits", kLimits);
  proc.Fds(5);
  absl::StatusOr<ProcessMetrics> p = ReadProcessMetrics(proc.dir());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->cpu_seconds, 200.0 / hz);
  EXPECT_DOUBLE_EQ(p->start_time_seconds,
                   1767225600 + static_cast<double>(start_ticks) / hz);
  EXPECT_EQ(p->virtual_bytes, 314572800u);
  EXPECT_EQ(p->resident_bytes, 3000u * page);
  EXPECT_EQ(p->open_fds, 5u);
  ASSERT_TRUE(p->max_fds.has_value());
  EXPECT_EQ(*p->max_fds, 1024u);

  proc.Write("self/limits",
             "Max open files            unlimited            unlimited   "
             "         files     \n");
  p = ReadProcessMetrics(proc.dir());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->max_fds.has_value());
}

TEST(ProcessStatsTest, WhatCannotBeReadIsNamed) {
  FakeProc proc;
  ASSERT_FALSE(proc.dir().empty());
  absl::StatusOr<ProcessMetrics> p = ReadProcessMetrics(proc.dir());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(proc.dir() + "/stat"), std::string::npos)
      << p.status();
  proc.Write("stat", "cpu 1\n");
  p = ReadProcessMetrics(proc.dir());
  EXPECT_NE(p.status().message().find("btime"), std::string::npos)
      << p.status();
  proc.Write("stat", "btime 5\n");
  proc.Write("self/stat", "1 (x) S 1 2 3\n");
  p = ReadProcessMetrics(proc.dir());
  EXPECT_NE(p.status().message().find("self/stat"), std::string::npos)
      << p.status();
}

// This process: its descriptors counted as it opens and closes them (the
// reader's own listing not among them), its limit as getrlimit says, its
// memory and its start around now.
TEST(ProcessStatsTest, ThisProcess) {
  absl::StatusOr<ProcessMetrics> before = ReadProcessMetrics();
  ASSERT_TRUE(before.ok()) << before.status();
  std::vector<int> fds;
  for (int i = 0; i < 7; ++i) fds.push_back(open("/dev/null", O_RDONLY));
  absl::StatusOr<ProcessMetrics> during = ReadProcessMetrics();
  for (int fd : fds) close(fd);
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_EQ(during->open_fds, before->open_fds + 7);
  // The standard three at least, and as many as fcntl finds open.
  int open_now = 0;
  for (int fd = 0; fd < 4096; ++fd) open_now += fcntl(fd, F_GETFD) != -1;
  EXPECT_EQ(before->open_fds, static_cast<uint64_t>(open_now));

  rlimit nofile;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
  ASSERT_TRUE(before->max_fds.has_value());
  EXPECT_EQ(*before->max_fds, nofile.rlim_cur);
  EXPECT_GT(before->resident_bytes, 1u << 20);
  EXPECT_GE(before->virtual_bytes, before->resident_bytes);
  EXPECT_GE(during->cpu_seconds, before->cpu_seconds);
  // Started before now, and within the test binary's run (clock ticks:
  // 10 ms; btime: whole seconds).
  const double now = static_cast<double>(time(nullptr));
  EXPECT_LE(before->start_time_seconds, now + 1);
  EXPECT_GT(before->start_time_seconds, now - 3600);
}

}  // namespace
}  // namespace biosnoop
