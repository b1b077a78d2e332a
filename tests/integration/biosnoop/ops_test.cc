// Calls (--ops, issue #29) on the real kernel: real ext4 file systems on
// slow disks, real processes making the calls, and each op record checked
// against the injected delays and against the events that carry its
// op_id: a call's block and writeback layers must be exactly the events
// it submitted.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "op_records.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

uint64_t MonotonicUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

// What every op record must hold: its layers within its latency, never
// overlapping, other the rest, and a unique op_id in its run.
void ExpectConsistent(const Biosnoop& b) {
  std::set<uint64_t> ids;
  for (const json& o : b.RecordsOfType("op")) {
    SCOPED_TRACE(o.dump());
    const uint64_t id = U(o, "op_id");
    EXPECT_GT(id, 0u);
    EXPECT_TRUE(ids.insert(id).second) << "op_id " << id << " twice";
    const uint64_t total = U(o, "latency_us");
    uint64_t waited = 0;
    for (const char* layer : {"block", "writeback", "journal", "flush",
                              "others_writeback", "throttle"}) {
      EXPECT_LE(U(o[layer], "wait_us"), total) << layer;
      waited += U(o[layer], "wait_us");
    }
    EXPECT_LE(waited, total);
    EXPECT_EQ(U(o, "other_us"), total - waited);
  }
}

class OpsTest : public ::testing::Test {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// pwrite + fsync on a disk that delays writes and flushes: one fsync op
// whose total is at least the delay of the data it forced out, whose
// block and writeback waits each fit in the total, and whose requests are
// exactly the events carrying its op_id.
TEST_F(OpsTest, FsyncIsSplitIntoWritebackBlockAndTheRest) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("wal");
  ASSERT_TRUE(WriteFile(path, 64 << 10, true));  // allocated, on the disk
  constexpr uint64_t kWriteDelayUs = 150'000;
  ASSERT_TRUE(disk.Set("write_delay_ms=150 flush_delay_ms=100").ok());

  Biosnoop b({"--ops", "--min-us", "0", "-d", disk.loop_name(), "--comm",
              "ops-fsync"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string data(16 << 10, 'w');
  const pid_t child = RunChildIn(nullptr, "", "ops-fsync", [&] {
    const int fd = open(path.c_str(), O_WRONLY);
    if (fd < 0) return 1;
    if (pwrite(fd, data.data(), data.size(), 0) != ssize_t(data.size())) {
      return 2;
    }
    return fsync(fd) == 0 && close(fd) == 0 ? 0 : 3;
  });
  ASSERT_GT(child, 0);
  ASSERT_TRUE(b.WaitForRecords("op", 1, [](const json& o) {
    return o["call"] == "fsync" && o["comm"] == "ops-fsync";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> fsyncs = OpsOf(b, "fsync", "ops-fsync");
  ASSERT_EQ(fsyncs.size(), 1u) << b.Stdout();
  const json& op = fsyncs[0];
  SCOPED_TRACE(op.dump());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(op["file"]["path"], path);
  EXPECT_EQ(U(op["file"], "inode"), st.st_ino);
  EXPECT_EQ(U(op, "pid"), uint64_t(child));
  EXPECT_EQ(U(op, "error_code"), 0u);
  EXPECT_TRUE(op["offset"].is_null());
  EXPECT_GE(U(op, "latency_us"), kWriteDelayUs);
  // The data it forced out: writeback, each request delayed.
  EXPECT_GE(U(op["writeback"], "requests"), 1u);
  EXPECT_GE(U(op["writeback"], "wait_us"), kWriteDelayUs);
  EXPECT_GE(U(op["writeback"], "device_us_max"), kWriteDelayUs);
  const std::vector<json> mine = EventsOf(b.Events(), U(op, "op_id"));
  ASSERT_FALSE(mine.empty()) << b.Stdout();
  for (const json& e : mine) {
    EXPECT_EQ(e["comm"], "ops-fsync") << e;
    EXPECT_EQ(U(e, "pid"), uint64_t(child)) << e;
  }
  ExpectLayersAre(op, mine);
  ExpectConsistent(b);
}

// A buffered write returns at once (an op only under a low --op-min-us);
// the fsync that follows forces its pages out: those events carry the
// fsync's op_id and name the write's as the call that dirtied them, and
// the fsync says how long its data had been dirty: at least the gap the
// test left between the two calls.
TEST_F(OpsTest, BufferedWriteIsNamedByItsWritebackAndTheFsyncKnowsItsAge) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("log");
  ASSERT_TRUE(WriteFile(path, 64 << 10, true));
  ASSERT_TRUE(disk.Set("write_delay_ms=120").ok());

  Biosnoop low({"--ops", "--op-min-us", "0", "--min-us", "0", "-d",
                disk.loop_name(), "--comm", "ops-writer"});
  Biosnoop high({"--ops", "--op-min-us", "100000", "--min-us", "0", "-d",
                 disk.loop_name(), "--comm", "ops-writer"});
  ASSERT_TRUE(low.WaitAttached()) << low.Stderr();
  ASSERT_TRUE(high.WaitAttached()) << high.Stderr();
  // The child's times, in memory it shares with the test.
  auto* times =
      static_cast<uint64_t*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(times, MAP_FAILED);
  const std::string data(32 << 10, 'd');
  const pid_t child = RunChildIn(nullptr, "", "ops-writer", [&] {
    const int fd = open(path.c_str(), O_WRONLY);
    if (fd < 0) return 1;
    if (write(fd, data.data(), data.size()) != ssize_t(data.size())) return 2;
    times[0] = MonotonicUs();  // the pages are dirty by now
    // The gap whose length the fsync must report, at least.
    struct timespec gap = {0, 300'000'000};
    nanosleep(&gap, nullptr);
    times[1] = MonotonicUs();  // before the fsync submits anything
    return fsync(fd) == 0 && close(fd) == 0 ? 0 : 3;
  });
  ASSERT_GT(child, 0);
  const uint64_t gap_us = times[1] - times[0];
  munmap(times, 4096);
  auto is_fsync = [](const json& o) {
    return o["call"] == "fsync" && o["comm"] == "ops-writer";
  };
  ASSERT_TRUE(low.WaitForRecords("op", 1, is_fsync));
  ASSERT_TRUE(high.WaitForRecords("op", 1, is_fsync));
  ASSERT_EQ(low.Stop(), 0) << low.Stderr();
  ASSERT_EQ(high.Stop(), 0) << high.Stderr();

  const std::vector<json> writes = OpsOf(low, "write", "ops-writer");
  ASSERT_EQ(writes.size(), 1u) << low.Stdout();
  const json& w = writes[0];
  EXPECT_EQ(U(w, "bytes_done"), data.size()) << w;
  EXPECT_EQ(U(w["block"], "requests"), 0u) << w;  // nothing waited for
  EXPECT_TRUE(OpsOf(high, "write", "ops-writer").empty())
      << "a fast write is no op above --op-min-us:\n"
      << high.Stdout();

  const std::vector<json> fsyncs = OpsOf(low, "fsync", "ops-writer");
  ASSERT_EQ(fsyncs.size(), 1u);
  const json& f = fsyncs[0];
  SCOPED_TRACE(f.dump());
  EXPECT_GE(U(f["writeback"], "dirty_known"), 1u);
  EXPECT_GE(U(f["writeback"], "dirty_age_us_max"), gap_us);
  EXPECT_LE(U(f["writeback"], "dirty_age_us_min"),
            U(f["writeback"], "dirty_age_us_max"));
  EXPECT_EQ(OpsOf(high, "fsync", "ops-writer").at(0)["op_id"].is_number(),
            true);

  // Its data requests: forced out by the fsync, dirtied by the write.
  const std::vector<json> mine = EventsOf(low.Events(), U(f, "op_id"));
  ExpectLayersAre(f, mine);
  size_t data_events = 0;
  for (const json& e : mine) {
    if (e["op"] != "write" || e.value("content", "") != "file") continue;
    SCOPED_TRACE(e.dump());
    ++data_events;
    ASSERT_TRUE(e["dirtier_op_ids"].is_array());
    const std::vector<uint64_t> ids = e["dirtier_op_ids"];
    EXPECT_NE(std::find(ids.begin(), ids.end(), U(w, "op_id")), ids.end());
    EXPECT_EQ(U(e["dirtied_by"], "op_id"), U(w, "op_id"));
  }
  EXPECT_GE(data_events, 1u) << low.Stdout();
  EXPECT_EQ(data_events, U(f["writeback"], "requests"));
  ExpectConsistent(low);
  ExpectConsistent(high);
}

// An fsync that finds its file's pages already under writeback (started
// by sync_file_range, which returns once they are submitted) waits for
// them: those writes are its writeback, though it did not submit them;
// they carry the op_id of the call that did.
TEST_F(OpsTest, FsyncCountsTheWritebackItWaitedForButDidNotSubmit) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("data");
  ASSERT_TRUE(WriteFile(path, 256 << 10, true));
  ASSERT_TRUE(disk.Set("write_delay_ms=200").ok());

  Biosnoop b({"--ops", "--min-us", "0", "-d", disk.loop_name(), "--comm",
              "ops-waiter"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string data(128 << 10, 's');
  ASSERT_GT(
      RunChildIn(nullptr, "", "ops-waiter",
                 [&] {
                   const int fd = open(path.c_str(), O_WRONLY);
                   if (fd < 0) return 1;
                   if (pwrite(fd, data.data(), data.size(), 0) !=
                       ssize_t(data.size())) {
                     return 2;
                   }
                   if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
                     return 3;
                   }
                   return fsync(fd) == 0 && close(fd) == 0 ? 0 : 4;
                 }),
      0);
  ASSERT_TRUE(b.WaitForRecords("op", 1, [](const json& o) {
    return o["call"] == "fsync" && o["comm"] == "ops-waiter";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> ranges = OpsOf(b, "sync_file_range", "ops-waiter");
  const std::vector<json> fsyncs = OpsOf(b, "fsync", "ops-waiter");
  ASSERT_EQ(ranges.size(), 1u) << b.Stdout();
  ASSERT_EQ(fsyncs.size(), 1u) << b.Stdout();
  const json& f = fsyncs[0];
  SCOPED_TRACE(f.dump());
  // The writes sync_file_range submitted and the fsync saw complete.
  const std::vector<json> submitted =
      EventsOf(b.Events(), U(ranges[0], "op_id"));
  ASSERT_FALSE(submitted.empty()) << b.Stdout();
  size_t during = 0;
  for (const json& e : submitted) {
    if (e["op"] == "write" &&
        ParseRfc3339Ns(e["timestamp"]) > ParseRfc3339Ns(f["start_time"])) {
      ++during;
    }
  }
  EXPECT_GE(during, 1u) << "the writes ended before the fsync began";
  EXPECT_EQ(U(f["writeback"], "requests"), during);
  EXPECT_GT(U(f["writeback"], "wait_us"), 0u);
  ExpectConsistent(b);
}

// A direct pread of the slow disk: the op's total is at least its one
// request's device time, both at least the delay.  A pread of cached
// data: an op with no request at all.
TEST_F(OpsTest, DirectPreadWaitsForItsRequestAndACachedOneForNone) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("table");
  ASSERT_TRUE(WriteFile(path, 256 << 10, true));
  ASSERT_TRUE(DropCache(path));
  constexpr uint64_t kReadDelayUs = 100'000;
  ASSERT_TRUE(disk.Set("read_delay_ms=100").ok());

  Biosnoop b({"--ops", "--op-min-us", "0", "--min-us", "0", "-d",
              disk.loop_name(), "--comm", "ops-reader"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  AlignedBuffer buf;
  ASSERT_NE(buf.get(), nullptr);
  const pid_t child = RunChildIn(nullptr, "", "ops-reader", [&] {
    const int direct = open(path.c_str(), O_RDONLY | O_DIRECT);
    if (direct < 0) return 1;
    if (pread(direct, buf.get(), 4096, 0) != 4096) return 2;
    close(direct);
    const int cached = open(path.c_str(), O_RDONLY);
    if (cached < 0) return 3;
    // The first brings the page in (its readahead too); the second finds
    // it cached.
    if (pread(cached, buf.get(), 4096, 65536) != 4096) return 4;
    if (pread(cached, buf.get(), 4096, 65536) != 4096) return 5;
    return close(cached) == 0 ? 0 : 6;
  });
  ASSERT_GT(child, 0);
  ASSERT_TRUE(b.WaitForRecords("op", 3, [](const json& o) {
    return o["call"] == "pread64" && o["comm"] == "ops-reader";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> preads = OpsOf(b, "pread64", "ops-reader");
  ASSERT_EQ(preads.size(), 3u) << b.Stdout();
  const std::vector<json> events = b.Events();
  {
    const json& d = preads[0];
    SCOPED_TRACE(d.dump());
    EXPECT_EQ(U(d, "offset"), 0u);
    EXPECT_EQ(U(d, "bytes_requested"), 4096u);
    EXPECT_EQ(U(d, "bytes_done"), 4096u);
    EXPECT_EQ(U(d["block"], "requests"), 1u);
    // Its file says O_DIRECT, as the event of its request does.
    EXPECT_EQ(d["file"]["direct"], true);
    const std::vector<json> mine = EventsOf(events, U(d, "op_id"));
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0]["files"][0]["direct"], true);
    const uint64_t device = U(mine[0], "device_us");
    EXPECT_GE(device, kReadDelayUs);
    EXPECT_GE(U(d, "latency_us"), device);
    EXPECT_GE(U(d["block"], "wait_us"), device);
    ExpectLayersAre(d, mine);
  }
  {
    const json& c = preads[2];
    SCOPED_TRACE(c.dump());
    EXPECT_EQ(U(c, "offset"), 65536u);
    EXPECT_EQ(c["file"]["direct"], false);
    EXPECT_EQ(U(c["block"], "requests"), 0u);
    EXPECT_EQ(U(c["block"], "wait_us"), 0u);
    EXPECT_EQ(U(c["writeback"], "requests"), 0u);
    EXPECT_TRUE(EventsOf(events, U(c, "op_id")).empty());
    EXPECT_EQ(U(c, "other_us"), U(c, "latency_us"));
  }
  ExpectConsistent(b);
}

// io_uring reads through fio's io_uring engine (direct, so the kernel
// issues each read inline from io_uring_enter): every read is an op of
// call io_uring_read with exactly its one request.
TEST_F(OpsTest, IoUringReadsThroughFioAreOpsWithTheirRequests) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  const std::string path = fs.Path("ring.dat");
  ASSERT_TRUE(WriteFile(path, 1 << 20, true));
  ASSERT_TRUE(DropCache(path));
  constexpr uint64_t kReadDelayUs = 20'000;
  ASSERT_TRUE(disk.Set("read_delay_ms=20").ok());

  Biosnoop b({"--ops", "--op-min-us", "0", "--min-us", "0", "-d",
              disk.loop_name(), "--comm", "fio"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kIos = 8;
  ASSERT_EQ(
      RunCommand({"fio", "--name=ring", "--filename=" + path, "--size=1M",
                  "--rw=randread", "--bs=4k", "--direct=1",
                  "--ioengine=io_uring", "--iodepth=4",
                  absl::StrCat("--number_ios=", kIos), "--output=/dev/null"}),
      0);
  ASSERT_TRUE(b.WaitForRecords(
      "op", kIos, [](const json& o) { return o["call"] == "io_uring_read"; }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> reads = OpsOf(b, "io_uring_read", "fio");
  ASSERT_EQ(reads.size(), size_t{kIos}) << b.Stdout();
  const std::vector<json> events = b.Events();
  for (const json& r : reads) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["file"]["path"], path);
    EXPECT_EQ(U(r, "bytes_requested"), 4096u);
    EXPECT_EQ(U(r, "bytes_done"), 4096u);
    EXPECT_EQ(U(r["block"], "requests"), 1u);
    const std::vector<json> mine = EventsOf(events, U(r, "op_id"));
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_GE(U(mine[0], "device_us"), kReadDelayUs);
    EXPECT_GE(U(r, "latency_us"), U(mine[0], "device_us"));
    ExpectLayersAre(r, mine);
  }
  ExpectConsistent(b);
}

// Only the calls asked for: a file call of the followed process on the
// tracked disk is an op; its calls on a pipe, a socket and a file of
// another disk are not, nor another process's call on the tracked disk.
TEST_F(OpsTest, NoOpForPipesSocketsOtherDisksOrOtherProcesses) {
  SlowDisk tracked({.size_mib = 64});
  ASSERT_TRUE(tracked.ok()) << tracked.error();
  LoopDevice other(64);
  ASSERT_TRUE(other.ok());
  Ext4 fs(tracked.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Ext4 other_fs(other.path());
  ASSERT_TRUE(other_fs.ok()) << other_fs.error();
  const std::string mine = fs.Path("mine");
  const std::string elsewhere = other_fs.Path("elsewhere");
  ASSERT_TRUE(WriteFile(mine, 64 << 10, true));
  ASSERT_TRUE(WriteFile(elsewhere, 64 << 10, true));

  Biosnoop b({"--ops", "--op-min-us", "0", "--min-us", "0", "-d",
              tracked.loop_name(), "--comm", "ops-mine"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  char buf[4096];
  ASSERT_GT(
      RunChildIn(nullptr, "", "ops-other",
                 [&] {
                   const int fd = open(mine.c_str(), O_RDONLY);
                   return fd >= 0 && pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : 1;
                 }),
      0);
  ASSERT_GT(
      RunChildIn(nullptr, "", "ops-mine",
                 [&] {
                   int p[2], s[2];
                   if (pipe(p) != 0) return 1;
                   if (write(p[1], "x", 1) != 1 || read(p[0], buf, 1) != 1) {
                     return 2;
                   }
                   if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) return 3;
                   if (write(s[0], "y", 1) != 1 || read(s[1], buf, 1) != 1) {
                     return 4;
                   }
                   const int o = open(elsewhere.c_str(), O_RDONLY);
                   if (o < 0 || pread(o, buf, sizeof(buf), 0) <= 0) return 5;
                   fsync(o);
                   const int fd = open(mine.c_str(), O_RDONLY);
                   return fd >= 0 && pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : 6;
                 }),
      0);
  ASSERT_TRUE(b.WaitForRecords("op", 1));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> ops = b.RecordsOfType("op");
  ASSERT_EQ(ops.size(), 1u) << b.Stdout();
  EXPECT_EQ(ops[0]["call"], "pread64");
  EXPECT_EQ(ops[0]["comm"], "ops-mine");
  EXPECT_EQ(ops[0]["file"]["path"], mine);
  ExpectConsistent(b);
}

}  // namespace
}  // namespace biosnoop::testing
