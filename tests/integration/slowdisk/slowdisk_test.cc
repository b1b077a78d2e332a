// Proves the SlowDisk fixture (tools/slowdisk + loop device) with real I/O
// and no biosnoop: the injected delays are real lower bounds, regions
// select which I/O is slow or fails, concurrent requests overlap, and
// teardown leaves nothing behind.  Lower time bounds are exact (the daemon
// holds each request at least the delay); upper bounds are generous.

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

constexpr size_t kBlock = 4096;
constexpr uint64_t kMiB = uint64_t{1} << 20;

double NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// A descriptor closed on scope exit, so a failed assertion cannot leave
// the loop device open (which would keep it attached).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

Fd OpenDirect(const std::string& path, int flags = O_RDONLY) {
  return Fd(open(path.c_str(), flags | O_DIRECT | O_CLOEXEC));
}

// O_DIRECT needs an aligned buffer.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t n, char fill = 0)
      : data(static_cast<char*>(aligned_alloc(kBlock, n))), size(n) {
    memset(data, fill, n);
  }
  ~AlignedBuffer() { free(data); }
  char* data;
  size_t size;
};

struct Timed {
  ssize_t result = -1;
  int error = 0;     // errno when result < 0
  double start = 0;  // NowMs() when the call began
  double ms = 0;     // how long it took
};

Timed TimedPread(int fd, uint64_t offset, size_t len = kBlock) {
  AlignedBuffer buf(len);
  Timed t;
  t.start = NowMs();
  t.result = pread(fd, buf.data, len, static_cast<off_t>(offset));
  t.error = t.result < 0 ? errno : 0;
  t.ms = NowMs() - t.start;
  return t;
}

Timed TimedPwrite(int fd, uint64_t offset, char fill, size_t len = kBlock) {
  AlignedBuffer buf(len, fill);
  Timed t;
  t.start = NowMs();
  t.result = pwrite(fd, buf.data, len, static_cast<off_t>(offset));
  t.error = t.result < 0 ? errno : 0;
  t.ms = NowMs() - t.start;
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Loop devices whose backing file lies under `dir`, per losetup.
std::string LoopsBackedUnder(const std::string& dir) {
  std::optional<std::string> list = CommandOutput(
      {"losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"});
  std::string found;
  if (!list.has_value()) return found;
  std::istringstream in(*list);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(dir) != std::string::npos)
      absl::StrAppend(&found, line, "\n");
  }
  return found;
}

std::string DirOf(const std::string& mountpoint) {
  return mountpoint.substr(0, mountpoint.find_last_of('/'));
}

#define ASSERT_DISK_OK(disk) ASSERT_TRUE((disk).ok()) << (disk).error()

TEST(SlowDiskTest, DirectReadsTakeAtLeastTheReadDelayAndAllReachTheDaemon) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 20});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path());
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  // Distinct offsets, then the same block again and again: a page-cache
  // hit anywhere would show up as a fast read and a missing count.
  const uint64_t offsets[] = {0, 4 * kMiB, 9 * kMiB, 9 * kMiB, 9 * kMiB};
  for (uint64_t off : offsets) {
    Timed t = TimedPread(fd.get(), off);
    ASSERT_EQ(t.result, static_cast<ssize_t>(kBlock)) << strerror(t.error);
    EXPECT_GE(t.ms, 20.0) << "read at " << off;
    EXPECT_LT(t.ms, 2000.0) << "read at " << off;
  }
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->reads, 5u);
  EXPECT_EQ(c->read_bytes, 5 * kBlock);
  EXPECT_EQ(c->errors, 0u);
  EXPECT_EQ(c->in_flight, 0u);
}

TEST(SlowDiskTest, ZeroDelayReadsAreFastAndDelaysChangeWhileRunning) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.read_delay_ms = 30});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path());
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  EXPECT_GE(TimedPread(fd.get(), 0).ms, 30.0);

  ASSERT_TRUE(disk.Set("read_delay_ms=0").ok());
  std::vector<double> fast;
  for (int i = 0; i < 20; ++i) {
    Timed t = TimedPread(fd.get(), i * kMiB);
    ASSERT_EQ(t.result, static_cast<ssize_t>(kBlock)) << strerror(t.error);
    fast.push_back(t.ms);
  }
  EXPECT_LT(Median(fast), 10.0);

  ASSERT_TRUE(disk.Set("read_delay_ms=30").ok());
  EXPECT_GE(TimedPread(fd.get(), 0).ms, 30.0);
}

TEST(SlowDiskTest, WritesTakeAtLeastTheWriteDelayAndKeepTheirData) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.write_delay_ms = 25});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path(), O_RDWR);
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  Timed w = TimedPwrite(fd.get(), 3 * kMiB, 'x');
  ASSERT_EQ(w.result, static_cast<ssize_t>(kBlock)) << strerror(w.error);
  EXPECT_GE(w.ms, 25.0);

  AlignedBuffer back(kBlock);
  ASSERT_EQ(pread(fd.get(), back.data, kBlock, 3 * kMiB),
            static_cast<ssize_t>(kBlock));
  EXPECT_EQ(std::string(back.data, kBlock), std::string(kBlock, 'x'));
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->writes, 1u);
  EXPECT_EQ(c->write_bytes, kBlock);
  EXPECT_EQ(c->reads, 1u);
}

TEST(SlowDiskTest, SlowRegionDelaysOnlyIoThatOverlapsIt) {
  BIOSNOOP_REQUIRE_ROOT();
  constexpr double kDelay = 100;
  SlowDisk disk({.read_delay_ms = 100, .slow_region = "1M:1M"});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path());
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  // Inside, and straddling either edge by one sector.
  for (uint64_t off : {kMiB, kMiB + 512 * 1024, 2 * kMiB - kBlock,
                       kMiB - kBlock + 512, 2 * kMiB - 512}) {
    EXPECT_GE(TimedPread(fd.get(), off).ms, kDelay) << "inside, at " << off;
  }
  // Outside, including blocks that end exactly where it starts and start
  // exactly where it ends.
  for (uint64_t off : {uint64_t{0}, kMiB - kBlock, 2 * kMiB, 8 * kMiB}) {
    EXPECT_LT(TimedPread(fd.get(), off).ms, kDelay) << "outside, at " << off;
  }
  // Cleared: the delay applies everywhere again.
  ASSERT_TRUE(disk.Set("slow_region=").ok());
  EXPECT_GE(TimedPread(fd.get(), 8 * kMiB).ms, kDelay);
}

// Two latency modes: outside the slow region the fast delay (in
// microseconds) holds reads and writes, inside it the read or write delay;
// without a region the fast delay does nothing.
TEST(SlowDiskTest, FastDelayHoldsIoOutsideTheSlowRegion) {
  BIOSNOOP_REQUIRE_ROOT();
  constexpr double kSlowMs = 100;
  constexpr double kFastMs = 2.5;
  SlowDisk disk({.read_delay_ms = 100,
                 .write_delay_ms = 100,
                 .slow_region = "1M:1M",
                 .fast_delay_us = 2500});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path(), O_RDWR);
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  for (uint64_t off : {uint64_t{0}, kMiB - kBlock, 2 * kMiB, 8 * kMiB}) {
    const Timed r = TimedPread(fd.get(), off);
    ASSERT_EQ(r.result, static_cast<ssize_t>(kBlock)) << strerror(r.error);
    EXPECT_GE(r.ms, kFastMs) << "read outside, at " << off;
    EXPECT_LT(r.ms, kSlowMs) << "read outside, at " << off;
    const Timed w = TimedPwrite(fd.get(), off, 'f');
    ASSERT_EQ(w.result, static_cast<ssize_t>(kBlock)) << strerror(w.error);
    EXPECT_GE(w.ms, kFastMs) << "write outside, at " << off;
    EXPECT_LT(w.ms, kSlowMs) << "write outside, at " << off;
  }
  EXPECT_GE(TimedPread(fd.get(), kMiB).ms, kSlowMs) << "read inside";
  EXPECT_GE(TimedPwrite(fd.get(), kMiB, 's').ms, kSlowMs) << "write inside";

  // No region: every request is slow, and with no delay none is held.
  ASSERT_TRUE(
      disk.Set("slow_region= read_delay_ms=0 fast_delay_us=1000000").ok());
  std::vector<double> reads;
  for (int i = 0; i < 5; ++i) reads.push_back(TimedPread(fd.get(), 0).ms);
  EXPECT_LT(Median(reads), 1000.0) << "the fast delay held a read";
}

TEST(SlowDiskTest, IoInTheErrorRegionFailsWithEioOthersSucceed) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.error_region = "2M:64K"});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path(), O_RDWR);
  ASSERT_TRUE(fd.ok()) << strerror(errno);

  for (uint64_t off : {2 * kMiB, 2 * kMiB + 60 * 1024, 2 * kMiB - 512}) {
    Timed t = TimedPread(fd.get(), off);
    EXPECT_EQ(t.result, -1) << "read at " << off;
    EXPECT_EQ(t.error, EIO) << "read at " << off << ": " << strerror(t.error);
  }
  Timed w = TimedPwrite(fd.get(), 2 * kMiB + kBlock, 'e');
  EXPECT_EQ(w.result, -1);
  EXPECT_EQ(w.error, EIO) << strerror(w.error);

  for (uint64_t off : {2 * kMiB - kBlock, 2 * kMiB + 64 * 1024, uint64_t{0}}) {
    Timed t = TimedPread(fd.get(), off);
    EXPECT_EQ(t.result, static_cast<ssize_t>(kBlock))
        << "read at " << off << ": " << strerror(t.error);
  }
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->errors, 4u);
  EXPECT_EQ(c->reads, 6u);
  EXPECT_EQ(c->writes, 1u);
  EXPECT_EQ(c->write_bytes, 0u);

  ASSERT_TRUE(disk.Set("error_region=").ok());
  EXPECT_EQ(TimedPread(fd.get(), 2 * kMiB).result,
            static_cast<ssize_t>(kBlock));
}

TEST(SlowDiskTest, FsyncOnTheDeviceIsDelayedByTheFlushDelay) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk({.flush_delay_ms = 40});
  ASSERT_DISK_OK(disk);
  Fd fd = OpenDirect(disk.loop_path(), O_RDWR);
  ASSERT_TRUE(fd.ok()) << strerror(errno);
  Timed w = TimedPwrite(fd.get(), 0, 'f');
  ASSERT_EQ(w.result, static_cast<ssize_t>(kBlock)) << strerror(w.error);
  EXPECT_LT(w.ms, 40.0) << "the write itself is not delayed";

  double start = NowMs();
  ASSERT_EQ(fsync(fd.get()), 0) << strerror(errno);
  double ms = NowMs() - start;
  EXPECT_GE(ms, 40.0);
  EXPECT_LT(ms, 2000.0);
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->flushes, 1u);
  EXPECT_EQ(c->writes, 1u);
}

// 64 threads each issue one O_DIRECT request of kDelay ms at once.
void ExpectServedConcurrently(bool write) {
  constexpr int kThreads = 64;
  constexpr double kDelay = 20;
  SlowDiskOptions options;
  (write ? options.write_delay_ms : options.read_delay_ms) = 20;
  SlowDisk disk(options);
  ASSERT_DISK_OK(disk);

  std::vector<std::unique_ptr<Fd>> fds;
  for (int i = 0; i < kThreads; ++i) {
    fds.push_back(std::make_unique<Fd>(
        open(disk.loop_path().c_str(),
             (write ? O_WRONLY : O_RDONLY) | O_DIRECT | O_CLOEXEC)));
    ASSERT_TRUE(fds.back()->ok()) << strerror(errno);
  }
  std::barrier start(kThreads + 1);
  std::vector<Timed> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      uint64_t offset = i * kMiB / 2;
      results[i] = write ? TimedPwrite(fds[i]->get(), offset, 'c')
                         : TimedPread(fds[i]->get(), offset);
    });
  }
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();

  // From the first request's start to the last one's end.
  double first = results[0].start, last = 0, slowest = 0;
  for (const Timed& r : results) {
    EXPECT_EQ(r.result, static_cast<ssize_t>(kBlock)) << strerror(r.error);
    EXPECT_GE(r.ms, kDelay);
    first = std::min(first, r.start);
    last = std::max(last, r.start + r.ms);
    slowest = std::max(slowest, r.ms);
  }
  double total = last - first;
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  std::printf(
      "[   INFO   ] %d %s of %.0f ms: all done in %.1f ms, "
      "slowest %.1f ms, daemon held %llu at once\n",
      kThreads, write ? "writes" : "reads", kDelay, total, slowest,
      static_cast<unsigned long long>(c->max_in_flight));
  EXPECT_EQ(write ? c->writes : c->reads, static_cast<uint64_t>(kThreads));
  // Served one at a time this takes 64 x 20 = 1280 ms; with the kernel's
  // default of 12 FUSE background requests, 6 rounds = 120 ms.
  EXPECT_LT(total, kThreads * kDelay / 4);
  EXPECT_GE(c->max_in_flight, 48u);
}

TEST(SlowDiskTest, ConcurrentDelayedReadsAreServedConcurrently) {
  BIOSNOOP_REQUIRE_ROOT();
  ExpectServedConcurrently(/*write=*/false);
}

TEST(SlowDiskTest, ConcurrentDelayedWritesAreServedConcurrently) {
  BIOSNOOP_REQUIRE_ROOT();
  ExpectServedConcurrently(/*write=*/true);
}

TEST(SlowDiskTest, PartitionedDiskHasPartitionsAtDiskOffsets) {
  BIOSNOOP_REQUIRE_ROOT();
  // Partition 1 starts at sector 2048 = 1 MiB: a slow region on the first
  // 4K of partition 1, in whole-disk bytes.
  SlowDisk disk({.read_delay_ms = 50,
                 .slow_region = "1M:4K",
                 .partitioned = true,
                 .partitions = 2});
  ASSERT_DISK_OK(disk);
  struct stat st;
  for (int n = 1; n <= 2; ++n) {
    ASSERT_EQ(stat(disk.partition_path(n).c_str(), &st), 0)
        << disk.partition_path(n) << ": " << strerror(errno);
    EXPECT_TRUE(S_ISBLK(st.st_mode)) << disk.partition_path(n);
  }
  EXPECT_EQ(disk.partition_path(1), disk.loop_path() + "p1");
  EXPECT_EQ(disk.partition_name(1), disk.loop_name() + "p1");
  EXPECT_EQ(disk.partition_start_sector(1), 2048u);
  EXPECT_GT(disk.partition_start_sector(2), disk.partition_start_sector(1));

  Fd p1 = OpenDirect(disk.partition_path(1));
  Fd p2 = OpenDirect(disk.partition_path(2));
  ASSERT_TRUE(p1.ok() && p2.ok()) << strerror(errno);
  EXPECT_GE(TimedPread(p1.get(), 0).ms, 50.0);
  EXPECT_LT(TimedPread(p1.get(), kBlock).ms, 50.0);
  EXPECT_LT(TimedPread(p2.get(), 0).ms, 50.0);
  absl::StatusOr<SlowDiskCounters> c = disk.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->reads, 3u);
}

TEST(SlowDiskTest, TwoDisksAreIndependent) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk fast_disk;
  SlowDisk slow_disk({.read_delay_ms = 60});
  ASSERT_DISK_OK(fast_disk);
  ASSERT_DISK_OK(slow_disk);
  EXPECT_NE(fast_disk.loop_path(), slow_disk.loop_path());
  EXPECT_NE(fast_disk.mountpoint(), slow_disk.mountpoint());
  Fd a = OpenDirect(fast_disk.loop_path());
  Fd b = OpenDirect(slow_disk.loop_path());
  ASSERT_TRUE(a.ok() && b.ok()) << strerror(errno);
  EXPECT_LT(TimedPread(a.get(), 0).ms, 60.0);
  EXPECT_GE(TimedPread(b.get(), 0).ms, 60.0);
  absl::StatusOr<SlowDiskCounters> fast_counters = fast_disk.Counters();
  absl::StatusOr<SlowDiskCounters> slow_counters = slow_disk.Counters();
  ASSERT_TRUE(fast_counters.ok() && slow_counters.ok());
  EXPECT_EQ(fast_counters->reads, 1u);
  EXPECT_EQ(slow_counters->reads, 1u);
}

TEST(SlowDiskTest, ControlFileIsScriptableFromAShell) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk disk;
  ASSERT_DISK_OK(disk);
  const std::string control = disk.control_path();
  ASSERT_EQ(
      RunCommand({"sh", "-c",
                  "echo 'read_delay_ms=20 slow_region=1M:64K' > " + control}),
      0);
  std::string text = ReadText(control);
  EXPECT_NE(text.find("read_delay_ms=20\n"), std::string::npos) << text;
  EXPECT_NE(text.find("slow_region=1048576:65536\n"), std::string::npos)
      << text;

  // A bad word fails the write and changes nothing, not even the good
  // words before it.
  EXPECT_NE(RunCommand({"sh", "-c",
                        "echo 'read_delay_ms=5 no_such_key=1' > " + control}),
            0);
  EXPECT_NE(RunCommand({"sh", "-c", "echo read_delay_ms=abc > " + control}), 0);
  EXPECT_FALSE(disk.Set("error_region=1M").ok());
  EXPECT_EQ(ReadText(control), text);
  EXPECT_NE(disk.DaemonLog().find("no_such_key"), std::string::npos)
      << disk.DaemonLog();
}

// Where the SlowDisk of a failing test lived, checked after it is gone.
std::string g_failed_mountpoint;
std::string g_failed_loop;
pid_t g_failed_pid = -1;

void UseDiskThenFailMidway() {
  SlowDisk disk({.read_delay_ms = 5, .partitioned = true});
  ASSERT_TRUE(disk.ok()) << disk.error();
  g_failed_mountpoint = disk.mountpoint();
  g_failed_loop = disk.loop_name();
  g_failed_pid = disk.daemon_pid();
  FAIL() << "deliberate failure with the disk in use";
}

// What must hold once a SlowDisk is destroyed.
void ExpectNothingLeft(const std::string& mountpoint, const std::string& loop,
                       pid_t pid) {
  EXPECT_FALSE(IsMounted(mountpoint));
  EXPECT_EQ(LoopsBackedUnder(DirOf(mountpoint)), "");
  EXPECT_EQ(ReadText("/sys/block/" + loop + "/loop/backing_file")
                .find(DirOf(mountpoint)),
            std::string::npos);
  EXPECT_NE(access(("/sys/class/block/" + loop + "p1").c_str(), F_OK), 0)
      << "partition left behind";
  EXPECT_NE(access(DirOf(mountpoint).c_str(), F_OK), 0) << "dir left behind";
  EXPECT_EQ(kill(pid, 0), -1) << "daemon still running";
}

TEST(SlowDiskTest, DestructorLeavesNoLoopDeviceMountOrDaemon) {
  BIOSNOOP_REQUIRE_ROOT();
  std::string mountpoint, loop, image;
  pid_t pid = -1;
  {
    SlowDisk disk({.read_delay_ms = 5, .partitioned = true});
    ASSERT_DISK_OK(disk);
    mountpoint = disk.mountpoint();
    loop = disk.loop_name();
    image = disk.image_path();
    pid = disk.daemon_pid();
    // The checks below can see what they look for.
    EXPECT_TRUE(IsMounted(mountpoint));
    std::optional<std::string> attached =
        CommandOutput({"losetup", "-j", image});
    ASSERT_TRUE(attached.has_value());
    EXPECT_NE(attached->find(disk.loop_path()), std::string::npos) << *attached;
    EXPECT_NE(LoopsBackedUnder(DirOf(mountpoint)), "");
    Fd fd = OpenDirect(disk.partition_path(1));
    ASSERT_TRUE(fd.ok());
    EXPECT_EQ(TimedPread(fd.get(), 0).result, static_cast<ssize_t>(kBlock));
  }
  ExpectNothingLeft(mountpoint, loop, pid);
}

TEST(SlowDiskTest, TeardownAlsoRunsWhenATestFailsMidway) {
  BIOSNOOP_REQUIRE_ROOT();
  EXPECT_FATAL_FAILURE(UseDiskThenFailMidway(), "deliberate failure");
  ASSERT_FALSE(g_failed_mountpoint.empty());
  ExpectNothingLeft(g_failed_mountpoint, g_failed_loop, g_failed_pid);
}

TEST(SlowDiskCliTest, BadUsageExits64) {
  const std::string bin = SlowDiskBinary();
  ASSERT_EQ(access(bin.c_str(), X_OK), 0) << bin << " not built";
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--no-such-flag", "/tmp"},
      {"--read-delay-ms=abc", "/tmp"},
      {"--read-delay-ms=-5", "/tmp"},
      {"--flush-delay-ms=99999999", "/tmp"},
      {"--slow-region=1M", "/tmp"},
      {"--error-region=1M:0", "/tmp"},
      {"--size-mib=0", "/tmp"},
      {"--size-mib"},
      {"/tmp", "/extra"},
      {"/no/such/directory"},
  };
  for (const std::vector<std::string>& args : bad) {
    std::vector<std::string> argv = {bin};
    argv.insert(argv.end(), args.begin(), args.end());
    EXPECT_EQ(RunCommand(argv), 64) << absl::StrJoin(args, " ");
  }
  EXPECT_EQ(RunCommand({bin, "--help"}), 0);
}

// The flags set the initial settings, and either signal unmounts cleanly.
TEST(SlowDiskCliTest, FlagsSetInitialSettingsAndSignalsUnmount) {
  BIOSNOOP_REQUIRE_ROOT();
  for (int sig : {SIGTERM, SIGINT}) {
    char tmpl[] = "/tmp/slowdisk-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    const std::string mnt = dir + "/mnt";
    ASSERT_EQ(mkdir(mnt.c_str(), 0755), 0);
    Child daemon = StartSlowDiskDaemon(
        {"--size-mib=8", "--read-delay-ms=7", "--write-delay-ms=8",
         "--flush-delay-ms=9", "--slow-region=1M:4K", "--fast-delay-us=90",
         "--error-region=2M:8K"},
        mnt, dir + "/log");
    ASSERT_TRUE(daemon.started()) << daemon.result().Describe();
    absl::Status mounted = WaitSlowDiskMounted(daemon, mnt);
    EXPECT_TRUE(mounted.ok()) << mounted << "\n" << ReadText(dir + "/log");
    if (mounted.ok()) {
      std::string text = ReadText(mnt + "/control");
      EXPECT_TRUE(absl::StartsWith(
          text,
          "read_delay_ms=7\nwrite_delay_ms=8\nflush_delay_ms=9\n"
          "slow_region=1048576:4096\nfast_delay_us=90\n"
          "error_region=2097152:8192\n"
          "size_bytes=8388608\nreads=0\n"))
          << text;
      struct stat st;
      ASSERT_EQ(stat((mnt + "/disk.img").c_str(), &st), 0);
      EXPECT_EQ(st.st_size, 8 << 20);
    }
    EXPECT_TRUE(ExitedWith(daemon.Stop(sig), 0)) << "signal " << sig;
    EXPECT_FALSE(IsMounted(mnt)) << "signal " << sig;
    if (IsMounted(mnt)) umount2(mnt.c_str(), MNT_DETACH);
    unlink((dir + "/log").c_str());
    EXPECT_EQ(rmdir(mnt.c_str()), 0);
    EXPECT_EQ(rmdir(dir.c_str()), 0);
  }
}

}  // namespace
}  // namespace biosnoop::testing
