// End-to-end on a real slow and failing disk (tools/slowdisk behind a loop
// device): every slow I/O exactly once with the right latency, nothing
// lost in a burst, loss counted when the ring buffer is too small.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

struct FioResult {
  bool ok = false;
  uint64_t reads = 0;  // completed read I/Os, as fio counts them
  uint64_t writes = 0;
  json raw;
};

// Runs fio with JSON output; the count of I/Os comes from fio itself, not
// from biosnoop.
FioResult RunFio(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"fio", "--output-format=json", "--name=job"};
  argv.insert(argv.end(), args.begin(), args.end());
  FioResult r;
  std::optional<std::string> out = CommandOutput(argv);
  if (!out.has_value()) return r;
  try {
    r.raw = json::parse(*out);
    for (const json& job : r.raw["jobs"]) {
      r.reads += job["read"]["total_ios"].get<uint64_t>();
      r.writes += job["write"]["total_ios"].get<uint64_t>();
    }
    r.ok = true;
  } catch (const json::exception& e) {
    ADD_FAILURE() << "fio output: " << e.what() << "\n" << *out;
  }
  return r;
}

std::vector<json> OnDisk(const std::vector<json>& all,
                         const std::string& disk) {
  std::vector<json> out;
  for (const json& e : all) {
    if (e.value("disk", "") == disk) out.push_back(e);
  }
  return out;
}

// The block layer merges adjacent requests submitted together (plugging),
// so two of fio's reads can become one request and one event.  Tests that
// compare the event count with fio's I/O count turn merging off; their
// byte totals match either way.
void DisableMerges(const std::string& disk) {
  std::ofstream("/sys/block/" + disk + "/queue/nomerges") << "2\n";
}

void ExpectCountersAddUp(const Biosnoop& b) {
  std::map<std::string, double> s = b.Summary();
  ASSERT_TRUE(s.count("completions")) << b.Stderr();
  EXPECT_EQ(s["completions"], s["emitted"] + s["lost"] + s["below_threshold"] +
                                  s["filtered"] + s["orphans"])
      << b.Stderr();
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << b.Stderr();
}

TEST(SlowIo, EverySlowReadLoggedOnceWithItsLatency) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 64, .read_delay_ms = 20});
  ASSERT_TRUE(slow.ok()) << slow.error();
  DisableMerges(slow.loop_name());
  LoopDevice fast(64);
  ASSERT_TRUE(fast.ok());
  Biosnoop b({"--min-us", "10000"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  constexpr int kIos = 300;
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=randread", "--bs=4k",
              "--direct=1", "--ioengine=libaio", "--iodepth=16",
              "--size=" + std::to_string(kIos * 4) + "k"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.reads, static_cast<uint64_t>(kIos));
  // Fast I/O on another disk in the same run: below the threshold.
  FioResult f = RunFio({"--filename=" + fast.path(), "--rw=randread", "--bs=4k",
                        "--direct=1", "--ioengine=libaio", "--iodepth=16",
                        "--size=1200k"});
  ASSERT_TRUE(f.ok);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<json> all = b.Events();
  std::vector<json> slow_events = OnDisk(all, slow.loop_name());
  EXPECT_TRUE(OnDisk(all, fast.name()).empty()) << "fast I/O was logged";
  // Every slow read is an event, or counted as missed: a completion the
  // kernel ran no BPF program for (docs/reference/counters.md, "missed"),
  // found at exit because
  // the disk is idle, so none is left unfinished.  This run watches every
  // disk, so `missed` may also hold other I/O than these reads.
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  ASSERT_TRUE(LoggedOrMissed(slow_events.size(), kIos, b));
  std::set<uint64_t> sectors;
  for (const json& e : slow_events) {
    EXPECT_EQ(e["op"], "read");
    EXPECT_EQ(e["bytes"], 4096);
    EXPECT_EQ(e["comm"], "fio");
    EXPECT_GE(e["latency_us"].get<uint64_t>(), 20000u);
    EXPECT_LT(e["latency_us"].get<uint64_t>(), 2000000u);
    EXPECT_EQ(e["error_code"], 0);
    uint64_t sector = e["sector"];
    EXPECT_EQ(sector % 8, 0u);
    EXPECT_LT(sector, static_cast<uint64_t>(kIos) * 8);
    sectors.insert(sector);
  }
  // randread over the size without repeats: each 4 KiB block once.
  EXPECT_EQ(sectors.size(), slow_events.size());
  ExpectCountersAddUp(b);
  EXPECT_EQ(b.Summary()["lost"], 0);
}

TEST(SlowIo, JustUnderTheThresholdLogsNothing) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.read_delay_ms = 5});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b({"--min-us", "10000", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=read", "--bs=4k",
              "--direct=1", "--ioengine=psync", "--size=200k"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(b.Stop(), 0);
  // The disk answers in 5 ms, half the threshold; on a loaded machine its
  // FUSE daemon may wake late and make a read slower than 10 ms (seen in
  // CI: 12 and 13 ms, 2 of 50).  Such a read is rightly an event; what
  // must hold is that no faster one is, and that most reads, the ones
  // under the threshold, were counted below it, not logged.
  const std::vector<json> events = b.Events();
  for (const json& e : events) {
    EXPECT_GE(e["latency_us"].get<uint64_t>(), 10000u) << e.dump();
  }
  EXPECT_LE(events.size(), 25u) << b.Stdout();
  std::map<std::string, double> s = b.Summary();
  EXPECT_GE(s["below_threshold"], 25);
  EXPECT_GE(s["below_threshold"] + static_cast<double>(events.size()), 50);
  ExpectCountersAddUp(b);
}

TEST(SlowIo, SlowRegionYieldsEventsOnlyInsideIt) {
  BIOSNOOP_REQUIRE_ROOT();
  // Bytes [1 MiB, 1.5 MiB) are slow: sectors [2048, 3072).
  SlowDisk slow({.read_delay_ms = 20, .slow_region = "1M:512K"});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b({"--min-us", "10000", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  DisableMerges(slow.loop_name());
  // Read the first 4 MiB sequentially: 1024 reads, 128 of them slow.
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=read", "--bs=4k",
              "--direct=1", "--ioengine=libaio", "--iodepth=8", "--size=4M"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(b.Stop(), 0);
  std::vector<json> events = b.Events();
  // Every read completed, or counted as missed (docs/reference/counters.md,
  // "missed"); each
  // slow one is an event unless it was the one missed.
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["completions"] + s["missed"], 1024) << b.Stderr();
  ASSERT_TRUE(LoggedOrMissed(events.size(), 128, b));
  std::set<uint64_t> sectors;
  for (const json& e : events) {
    uint64_t sector = e["sector"];
    EXPECT_GE(sector, 2048u);
    EXPECT_LT(sector, 3072u);
    sectors.insert(sector);
  }
  EXPECT_EQ(sectors.size(), events.size());  // each read once
  if (events.size() == 128u) {
    EXPECT_EQ(*sectors.begin(), 2048u);
    EXPECT_EQ(*sectors.rbegin(), 3072u - 8);
  }
}

// 20 reads of 4 KiB across a region of the disk that fails: 16 fail with
// EIO (sectors [4096, 4224)), 2 before and 2 after succeed.  Returns how
// many of this process's events carry EIO and how many no error, each
// checked against its sector.
struct FailedReadEvents {
  int eio = 0;
  int ok = 0;
  uint64_t summary_reads = 0;   // the disk's reads in the summary records
  uint64_t summary_errors = 0;  // those of them that failed
};
FailedReadEvents ReadAcrossAFailingRegion(const std::string& min_us) {
  FailedReadEvents counts;
  // Bytes [2 MiB, 2 MiB + 64 KiB) fail at once (no delay).
  SlowDisk slow({.read_delay_ms = 0, .error_region = "2M:64K"});
  EXPECT_TRUE(slow.ok()) << slow.error();
  if (!slow.ok()) return counts;
  Biosnoop b({"--min-us", min_us, "-d", slow.loop_name()});
  EXPECT_TRUE(b.WaitAttached()) << b.Stderr();
  EXPECT_EQ(DirectReadsFailingWithEio(slow.loop_path(), (2 << 20) - 8192,
                                      (2 << 20) + 65536 + 8192),
            16);
  EXPECT_EQ(b.Stop(), 0);
  for (const json& e : EventsOfPid(b.Events(), getpid())) {
    uint64_t s = e["sector"];
    if (s >= 4096 && s < 4224) {
      EXPECT_EQ(e["error"], "EIO") << e.dump();
      EXPECT_EQ(e["error_code"], 5);
      ++counts.eio;
    } else {
      EXPECT_TRUE(e["error"].is_null()) << e.dump();
      ++counts.ok;
    }
  }
  for (const json& s : b.RecordsOfType("summary")) {
    for (const json& g : s["groups"]) {
      if (g["disk"] != slow.loop_name() || g["op"] != "read") continue;
      counts.summary_reads += g["count"].get<uint64_t>();
      counts.summary_errors += g["errors"].get<uint64_t>();
    }
  }
  return counts;
}

TEST(SlowIo, FailedReadsCarryEioAndTheirSector) {
  BIOSNOOP_REQUIRE_ROOT();
  FailedReadEvents events = ReadAcrossAFailingRegion("0");
  EXPECT_EQ(events.eio, 16);
  EXPECT_EQ(events.ok, 4);
  // The summary records count them too, as failed.
  EXPECT_EQ(events.summary_reads, 20u);
  EXPECT_EQ(events.summary_errors, 16u);
}

// A failed I/O is an event however fast it failed: a threshold no read
// here reaches (10 s) leaves out the reads that succeeded, never the
// failures.
TEST(SlowIo, FailedReadsAreEventsWhateverTheThreshold) {
  BIOSNOOP_REQUIRE_ROOT();
  FailedReadEvents events = ReadAcrossAFailingRegion("10000000");
  EXPECT_EQ(events.eio, 16);
  EXPECT_EQ(events.ok, 0);
  EXPECT_EQ(events.summary_reads, 20u);
  EXPECT_EQ(events.summary_errors, 16u);
}

TEST(SlowIo, SlowFlushesFromFsyncAreLogged) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 64});
  ASSERT_TRUE(slow.ok()) << slow.error();
  // Ext4 zeroes the inode tables and journal now: otherwise ext4lazyinit
  // zeroes them after the mount with write-zeroes requests, which
  // slowdisk's FUSE file fails at once (EOPNOTSUPP) and biosnoop rightly
  // reports as fast failed events beside the flushes (seen in CI: 17.6 ms).
  // Unmounted when the test ends, also when it fails.
  Ext4 fs(slow.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  ASSERT_TRUE(slow.Set("flush_delay_ms=30").ok());

  Biosnoop b({"--min-us", "20000", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string file = fs.Path("f");
  for (int i = 0; i < 5; ++i) {
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "0123456789abcdef", 16), 16);
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  ASSERT_EQ(b.Stop(), 0);

  std::vector<json> events = b.Events();
  int flushes = 0;
  for (const json& e : events) {
    // A flush is a data-less flush request or a write with a preflush:
    // either way its rwbs starts with F.
    EXPECT_EQ(e["error_code"], 0) << e.dump();
    EXPECT_GE(e["latency_us"].get<uint64_t>(), 20000u) << e.dump();
    if (e["rwbs"].get<std::string>().front() == 'F') ++flushes;
  }
  EXPECT_GE(flushes, 5) << b.Stdout();
  ExpectCountersAddUp(b);
}

// With merging on, adjacent writes submitted together become one request
// (the block layer merges bios into a queued request, in front or behind).
// Each request is one event with its merged size, so the events match the
// disk's own count of completed writes and their bytes the bytes written.
TEST(SlowIo, MergedWritesAreOneEventEachWithTheMergedSize) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 16, .write_delay_ms = 5});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b({"-d", slow.loop_name(), "-v"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  auto writes_completed = [&] {
    std::ifstream stat("/sys/block/" + slow.loop_name() + "/stat");
    uint64_t f[5] = {};
    for (uint64_t& v : f) stat >> v;
    return f[4];  // writes completed (requests, after merging)
  };
  const uint64_t before = writes_completed();
  constexpr int kWrites = 1024;
  FioResult r = RunFio({"--filename=" + slow.loop_path(), "--rw=write",
                        "--bs=4k", "--direct=1", "--ioengine=io_uring",
                        "--iodepth=32", "--iodepth_batch_submit=32",
                        "--size=" + std::to_string(kWrites * 4) + "k"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.writes, static_cast<uint64_t>(kWrites));
  const uint64_t requests = writes_completed() - before;
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<json> events = OnDisk(b.Events(), slow.loop_name());
  std::map<std::string, double> s = b.Summary();
  EXPECT_LT(requests, static_cast<uint64_t>(kWrites)) << "nothing merged";
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  EXPECT_EQ(s["orphans"], 0) << b.Stderr();
  ASSERT_EQ(events.size() + s["missed"], requests) << b.Stderr();
  uint64_t bytes = 0;
  std::set<uint64_t> sectors;
  for (const json& e : events) {
    EXPECT_EQ(e["op"], "write");
    EXPECT_EQ(e["comm"], "fio");
    EXPECT_EQ(e["bytes"].get<uint64_t>() % 4096, 0u);
    bytes += e["bytes"].get<uint64_t>();
    sectors.insert(e["sector"].get<uint64_t>());
  }
  EXPECT_EQ(sectors.size(), events.size()) << "a request logged twice";
  if (s["missed"] == 0) {
    EXPECT_EQ(bytes, static_cast<uint64_t>(kWrites) * 4096);
  }
  ExpectCountersAddUp(b);
}

// With an I/O scheduler (mq-deadline, bfq, kyber: what rotational and
// many single-queue disks run in production) a request waits in the
// scheduler after submission and is issued by whichever task or kworker
// runs the queue next: here dd and fio issue some of each other's
// requests.  Each event must still name the task that submitted it, every
// request appear once, and its queue time be known.
TEST(SlowIo, SchedulersDoNotChangeWhoSubmittedARequest) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 128, .read_delay_ms = 2, .write_delay_ms = 1});
  ASSERT_TRUE(slow.ok()) << slow.error();
  DisableMerges(slow.loop_name());
  const std::string queue = "/sys/block/" + slow.loop_name() + "/queue/";
  for (const char* sched : {"mq-deadline", "bfq", "kyber"}) {
    SCOPED_TRACE(sched);
    std::ofstream(queue + "scheduler") << sched << "\n";
    std::optional<std::string> now =
        CommandOutput({"cat", queue + "scheduler"});
    ASSERT_TRUE(now.has_value());
    ASSERT_NE(now->find(std::string("[") + sched + "]"), std::string::npos)
        << "the kernel did not take the scheduler: " << *now;

    Biosnoop b({"--min-us", "0", "-d", slow.loop_name(), "-v"});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    constexpr int kReads = 1024;
    constexpr int kWrites = 600;
    Workload dd;
    std::thread writer(
        [&] { dd = DirectDd(slow.loop_path(), false, 4096, kWrites, 20000); });
    FioResult r =
        RunFio({"--filename=" + slow.loop_path(), "--rw=randread", "--bs=4k",
                "--direct=1", "--ioengine=libaio", "--iodepth=16",
                "--size=" + std::to_string(kReads * 4) + "k"});
    writer.join();
    ASSERT_TRUE(r.ok);
    ASSERT_EQ(r.reads, static_cast<uint64_t>(kReads));
    ASSERT_EQ(dd.exit_code, 0);
    ASSERT_EQ(b.Stop(), 0) << b.Stderr();

    std::vector<json> events = OnDisk(b.Events(), slow.loop_name());
    size_t reads = 0, writes = 0;
    for (const json& e : events) {
      ASSERT_TRUE(e["queue_us"].is_number()) << e.dump();
      if (e["op"] == "read") {
        ++reads;
        EXPECT_EQ(e["comm"], "fio") << e.dump();
      } else {
        ++writes;
        EXPECT_EQ(e["op"], "write") << e.dump();
        EXPECT_EQ(e["comm"], "dd") << e.dump();
        EXPECT_EQ(e["pid"], dd.pid) << e.dump();
      }
    }
    EXPECT_TRUE(LoggedOrMissed(reads, kReads, b));
    EXPECT_TRUE(LoggedOrMissed(writes, kWrites, b));
    std::map<std::string, double> s = b.Summary();
    EXPECT_EQ(s["issued_unsubmitted"], 0) << b.Stderr();
    EXPECT_EQ(s["orphans"], 0) << b.Stderr();
    ExpectCountersAddUp(b);
  }
}

TEST(SlowIo, BurstOfThousandsLosesNothing) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 128, .read_delay_ms = 10});
  ASSERT_TRUE(slow.ok()) << slow.error();
  DisableMerges(slow.loop_name());
  Biosnoop b({"--min-us", "5000", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // 4 jobs x 1500 reads at queue depth 64: 6000 slow completions arriving
  // in waves of up to 256 at once.
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=randread", "--bs=4k",
              "--direct=1", "--ioengine=libaio", "--iodepth=64", "--numjobs=4",
              "--size=6000k", "--offset_increment=6000k"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.reads, 6000u);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::vector<json> events = b.Events();
  std::map<std::string, double> s = b.Summary();
  // Every completion biosnoop saw is written, none lost.  A completion the
  // kernel never hands to the hook is counted as missed, so fio's count is
  // exactly accounted for; such loss is a small fraction
  // (docs/reference/counters.md, "missed").
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  const double unseen = s["missed"];
  EXPECT_LE(unseen, 600) << b.Stderr();
  uint64_t bytes = 0;
  for (const json& e : events) bytes += e["bytes"].get<uint64_t>();
  EXPECT_EQ(bytes + unseen * 4096, 6000u * 4096) << "bytes logged";
  EXPECT_EQ(events.size() + unseen, 6000u);
  EXPECT_EQ(s["lost"], 0);
  EXPECT_EQ(s["emitted"], s["completions"]);
  EXPECT_EQ(s["emitted"] + unseen, 6000);
  EXPECT_EQ(s["written"], s["emitted"]);
  ExpectCountersAddUp(b);
}

TEST(SlowIo, TinyRingBufferLossIsCountedAndReported) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 128, .read_delay_ms = 10});
  ASSERT_TRUE(slow.ok()) << slow.error();
  DisableMerges(slow.loop_name());
  // 4 KiB of ring buffer holds about 30 records; 256 completions land
  // within a millisecond or two.
  Biosnoop b(
      {"--min-us", "5000", "-d", slow.loop_name(), "--ringbuf-kib", "4"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=randread", "--bs=4k",
              "--direct=1", "--ioengine=libaio", "--iodepth=64", "--numjobs=4",
              "--size=6000k", "--offset_increment=6000k"});
  ASSERT_TRUE(r.ok);
  // The once-a-second loss report, while biosnoop is still going.
  EXPECT_TRUE(b.WaitForStderr("events (kernel ring buffer full)"));
  std::string running = b.Stderr();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::map<std::string, double> s = b.Summary();
  EXPECT_GT(s["lost"], 0) << b.Stderr();
  // Every slow completion is either written or counted as lost.
  EXPECT_EQ(s["emitted"] + s["lost"] + s["missed"], 6000) << b.Stderr();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  EXPECT_EQ(b.Events().size(), s["written"]);
  EXPECT_NE(running.find("events (kernel ring buffer full)"), std::string::npos)
      << "no loss report while running:\n"
      << running;
  // The output (a file) never blocked: the loss is the ring buffer's.
  EXPECT_EQ(running.find("blocked"), std::string::npos) << running;
  ExpectCountersAddUp(b);
}

TEST(SlowIo, HotpluggedAndPartitionedSlowDisksAreNamed) {
  BIOSNOOP_REQUIRE_ROOT();
  Biosnoop b({"--min-us", "10000", "--comm", "fio"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // Both disks appear after biosnoop started.
  SlowDisk plain({.read_delay_ms = 15});
  SlowDisk parted({.read_delay_ms = 15, .partitioned = true, .partitions = 2});
  ASSERT_TRUE(plain.ok()) << plain.error();
  ASSERT_TRUE(parted.ok()) << parted.error();
  for (const std::string& dev : {plain.loop_path(), parted.partition_path(1),
                                 parted.partition_path(2)}) {
    FioResult r = RunFio({"--filename=" + dev, "--rw=read", "--bs=4k",
                          "--direct=1", "--ioengine=psync", "--size=40k"});
    ASSERT_TRUE(r.ok) << dev;
  }
  ASSERT_EQ(b.Stop(), 0);
  std::vector<json> events = b.Events();
  std::vector<json> p = OnDisk(events, plain.loop_name());
  ASSERT_EQ(p.size(), 10u);
  for (const json& e : p) EXPECT_TRUE(e["partition"].is_null());
  std::vector<json> q = OnDisk(events, parted.loop_name());
  ASSERT_EQ(q.size(), 20u);
  int in1 = 0, in2 = 0;
  for (const json& e : q) {
    uint64_t s = e["sector"];
    if (e["partition"] == parted.partition_name(1)) {
      EXPECT_GE(s, parted.partition_start_sector(1));
      ++in1;
    } else if (e["partition"] == parted.partition_name(2)) {
      EXPECT_GE(s, parted.partition_start_sector(2));
      ++in2;
    } else {
      ADD_FAILURE() << e.dump();
    }
  }
  EXPECT_EQ(in1, 10);
  EXPECT_EQ(in2, 10);
}

TEST(SlowIo, StuckRequestIsExpiredAndItsLateCompletionCounted) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.read_delay_ms = 3500});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b(
      {"--min-us", "0", "-d", slow.loop_name(), "--max-inflight-age", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  FioResult r =
      RunFio({"--filename=" + slow.loop_path(), "--rw=read", "--bs=4k",
              "--direct=1", "--ioengine=psync", "--size=4k"});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(b.Stop(), 0);
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["expired"], 1) << b.Stderr();
  EXPECT_EQ(s["orphans"], 1) << b.Stderr();
  EXPECT_TRUE(b.Events().empty());
  ExpectCountersAddUp(b);
}

}  // namespace
}  // namespace biosnoop::testing

namespace biosnoop::testing {
namespace {

// Events are batched under load, but a lone slow event must reach the
// output promptly (the kernel wakes the consumer for it at once; the output
// is flushed within about 10 ms), not at the next batch or at exit.
TEST(SlowIo, LoneSlowEventReachesTheFilePromptly) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.read_delay_ms = 15});
  ASSERT_TRUE(slow.ok()) << slow.error();
  char dir[] = "/tmp/biosnoop-lone-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string log = std::string(dir) + "/slow.jsonl";
  Biosnoop b({"--min-us", "10000", "-d", slow.loop_name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::vector<double> delays_ms;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(DirectDd(slow.loop_path(), true, 4096, 1, i).exit_code, 0);
    auto done = std::chrono::steady_clock::now();
    // Wait for line i+1 to appear.
    for (;;) {
      std::ifstream in(log);
      std::string text((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
      size_t events = 0;
      for (size_t at = text.find("\"type\":\"event\""); at != std::string::npos;
           at = text.find("\"type\":\"event\"", at + 1)) {
        ++events;
      }
      if (events >= static_cast<size_t>(i + 1)) break;
      ASSERT_LT(std::chrono::steady_clock::now() - done,
                std::chrono::seconds(2))
          << "event " << i << " not written within 2 s";
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    delays_ms.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - done)
                            .count());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(b.Stop(), 0);
  RunCommand({"rm", "-rf", dir});
  std::sort(delays_ms.begin(), delays_ms.end());
  // The design bound is ~20 ms (poll + flush interval); allow scheduling
  // noise on a loaded CI machine, but not batching until exit.
  EXPECT_LT(delays_ms.back(), 250.0);
  std::printf(
      "lone event: completion to line in file, ms: min %.1f median %.1f max "
      "%.1f\n",
      delays_ms.front(), delays_ms[delays_ms.size() / 2], delays_ms.back());
}

}  // namespace
}  // namespace biosnoop::testing
