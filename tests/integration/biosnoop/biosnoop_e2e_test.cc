// End-to-end: the real BPF program, real loop devices, real dd.

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "trace_instance.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

std::string HostName() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

// Every counter of the summary line adds up: each completion is emitted,
// lost, below the threshold, filtered or an orphan.
void ExpectSummaryConsistent(const Biosnoop& b, size_t lines) {
  std::map<std::string, double> s = b.Summary();
  ASSERT_TRUE(s.count("completions")) << b.Stderr();
  EXPECT_EQ(s["written"], lines) << b.Stderr();
  EXPECT_EQ(s["emitted"], s["written"] + s["decode_errors"] + s["dropped"])
      << b.Stderr();
  EXPECT_EQ(s["dropped"], 0) << b.Stderr();
  EXPECT_EQ(s["completions"], s["emitted"] + s["lost"] + s["below_threshold"] +
                                  s["filtered"] + s["orphans"])
      << b.Stderr();
  EXPECT_EQ(s["lost"], 0) << b.Stderr();
  EXPECT_EQ(s["decode_errors"], 0) << b.Stderr();
}

TEST(EndToEnd, EveryDirectReadAppearsExactlyOnceWithTheRightFields) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  auto before = std::chrono::system_clock::now();
  constexpr int kCount = 200;
  Workload dd = DirectDd(loop.path(), /*read=*/true, 4096, kCount);
  ASSERT_EQ(dd.exit_code, 0);
  EXPECT_EQ(b.Stop(SIGINT), 0) << b.Stderr();

  std::vector<json> all = b.Events();
  std::vector<json> mine = EventsOfPid(all, dd.pid);
  ASSERT_EQ(mine.size(), static_cast<size_t>(kCount)) << b.Stdout();
  std::set<uint64_t> sectors;
  int64_t last_seq = 0;
  for (const json& e : mine) {
    EXPECT_EQ(e["comm"], "dd");
    EXPECT_EQ(e["op"], "read");
    EXPECT_EQ(e["rwbs"].get<std::string>().substr(0, 1), "R");
    EXPECT_EQ(e["bytes"], 4096);
    EXPECT_EQ(e["disk"], loop.name());
    EXPECT_TRUE(e["partition"].is_null());
    EXPECT_EQ(e["host"], HostName());
    EXPECT_EQ(e["error_code"], 0);
    EXPECT_TRUE(e["error"].is_null());
    EXPECT_GE(e["queue_depth"].get<int>(), 1);
    EXPECT_EQ(e["tid"], dd.pid);  // dd is single-threaded
    EXPECT_EQ(e["latency_us"], e["device_us"]);
    EXPECT_FALSE(e["queue_us"].is_null());  // block_io_start saw it
    EXPECT_GT(e["seq"].get<int64_t>(), last_seq);
    last_seq = e["seq"].get<int64_t>();
    sectors.insert(e["sector"].get<uint64_t>());
  }
  // One event per 4 KiB block: sectors 0, 8, ..., 8*(kCount-1).
  ASSERT_EQ(sectors.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(*sectors.begin(), 0u);
  EXPECT_EQ(*sectors.rbegin(), 8u * (kCount - 1));

  // Wall clock of the completion, not of reading: within the test window.
  std::string ts = mine.front()["timestamp"];
  ASSERT_EQ(ts.size(), 30u) << ts;  // 2026-11-21T05:44:01.123456789Z
  EXPECT_EQ(ts.back(), 'Z');
  std::tm tm = {};
  ASSERT_NE(strptime(ts.c_str(), "%Y-%m-%dT%H:%M:%S", &tm), nullptr);
  auto t = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_GE(t, std::chrono::time_point_cast<std::chrono::seconds>(before) -
                   std::chrono::seconds(1));
  EXPECT_LE(t, std::chrono::system_clock::now());

  ExpectSummaryConsistent(b, all.size());
}

TEST(EndToEnd, StreamStartsWithHeaderAndEndsWithFinalStats) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(32);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "--stats-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(loop.path(), true, 4096, 40).exit_code, 0);
  EXPECT_TRUE(b.WaitForRecords("stats", 1));  // the first periodic one
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::vector<json> records = b.Records();
  ASSERT_GE(records.size(), 3u);
  const json& header = records.front();
  EXPECT_EQ(header["type"], "header");
  EXPECT_EQ(header["format_version"], 1);
  EXPECT_EQ(header["host"], HostName());
  EXPECT_EQ(header["disk_filter"], loop.name());
  EXPECT_EQ(header["min_us"], 0);
  EXPECT_EQ(header["boot_id"].get<std::string>().size(), 36u);
  std::vector<json> stats = b.RecordsOfType("stats");
  ASSERT_GE(stats.size(), 2u) << "a periodic and the final stats record";
  const json& last = records.back();
  EXPECT_EQ(last["type"], "stats");
  EXPECT_TRUE(last["final"].get<bool>());
  EXPECT_FALSE(stats.front()["final"].get<bool>());
  // The final record agrees with the summary line and with the file.
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(last["written"], b.Events().size());
  EXPECT_EQ(last["written"].get<double>(), s["written"]);
  EXPECT_EQ(last["completions"].get<double>(), s["completions"]);
  EXPECT_EQ(last["lost"], 0);
  EXPECT_EQ(EventsOfPid(b.Events(), 0).size(), 0u);
}

TEST(EndToEnd, DirectWritesAreWritesOfTheRightSize) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kCount = 50;
  Workload dd = DirectDd(loop.path(), /*read=*/false, 8192, kCount, 100);
  ASSERT_EQ(dd.exit_code, 0);
  EXPECT_EQ(b.Stop(SIGTERM), 0) << b.Stderr();
  std::vector<json> all = b.Events();
  std::vector<json> mine = EventsOfPid(all, dd.pid);
  ASSERT_EQ(mine.size(), static_cast<size_t>(kCount));
  std::set<uint64_t> sectors;
  for (const json& e : mine) {
    EXPECT_EQ(e["op"], "write");
    EXPECT_EQ(e["rwbs"].get<std::string>().substr(0, 1), "W");
    EXPECT_EQ(e["bytes"], 8192);
    EXPECT_EQ(e["comm"], "dd");
    sectors.insert(e["sector"].get<uint64_t>());
  }
  EXPECT_EQ(sectors.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(*sectors.begin(), 100u * 16);  // seek=100 blocks of 8 KiB
  ExpectSummaryConsistent(b, all.size());
}

// fsync on a disk with a write cache: the block layer sends a flush request
// of its own to the device (the event) and completes the fsync's empty
// preflush request after it, never issued itself: an orphan, shown apart.
TEST(EndToEnd, FsyncFlushIsAnEventAndItsOwnRequestAnUnissuedOrphan) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(16);  // write cache on ("write back")
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-v", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kFsyncs = 5;
  int fd = open(loop.path().c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < kFsyncs; ++i) ASSERT_EQ(fsync(fd), 0);
  close(fd);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  int flushes = 0;
  std::vector<json> all = b.Events();
  for (const json& e : all) {
    if (e["op"] != "flush") continue;
    ++flushes;
    EXPECT_EQ(e["rwbs"], "FF");  // a flush op carrying the preflush flag
    EXPECT_EQ(e["bytes"], 0);
    EXPECT_EQ(e["sector"], 0);
  }
  EXPECT_EQ(flushes, kFsyncs) << b.Stdout();
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["orphans"], kFsyncs) << b.Stderr();
  EXPECT_EQ(s["orphans_unissued"], kFsyncs) << b.Stderr();
  EXPECT_EQ(s["missed_issue"], 0) << b.Stderr();
  ExpectSummaryConsistent(b, all.size());
}

// A read the device completes in two parts: the loop driver completes the
// part of a short read it got, requeues the request for the rest, and
// issues it again (here it fails: the backing file ends).  The event is
// the whole request's, with the sector and size of its first issue.
TEST(EndToEnd, AReadCompletedInPartsIsOneEventOfTheWholeRequest) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  // The file ends 2 KiB into the 8 KiB read at 32 MiB.
  ASSERT_EQ(truncate(loop.backing_path().c_str(), (32 << 20) + 2048), 0);
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  Workload dd = DirectDd(loop.path(), /*read=*/true, 8192, 1,
                         /*skip_blocks=*/4096);
  EXPECT_NE(dd.exit_code, 0);  // the rest of the read failed
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  ASSERT_EQ(s["partial_completions"], 1) << b.Stderr();
  ASSERT_GE(s["requeues"], 1) << b.Stderr();
  std::vector<json> mine = EventsOfPid(b.Events(), dd.pid);
  ASSERT_EQ(mine.size(), 1u) << b.Stdout();
  EXPECT_EQ(mine[0]["sector"], 65536u);
  EXPECT_EQ(mine[0]["bytes"], 8192u);
  EXPECT_EQ(mine[0]["op"], "read");
  EXPECT_EQ(mine[0]["error"], "EIO");
  EXPECT_EQ(mine[0]["queue_depth"], 1);
}

// Discard and write-zeroes requests (blkdiscard, blkdiscard -z): their op,
// and rwbs as the kernel's own tracepoints print it (write-zeroes has no
// letter of its own there: N).
TEST(EndToEnd, DiscardAndWriteZeroesAreNamedAsTheKernelNamesThem) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(16);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(RunCommand({"blkdiscard", "-o", "0", "-l", "1048576", loop.path()}),
            0);
  // tmpfs under the loop device refuses write-zeroes (EOPNOTSUPP) and the
  // block layer writes zeroes instead: the request is an event either way.
  RunCommand(
      {"blkdiscard", "-z", "-o", "1048576", "-l", "1048576", loop.path()});
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  int discards = 0, zeroes = 0;
  for (const json& e : b.Events()) {
    if (e["op"] == "discard") {
      ++discards;
      EXPECT_EQ(e["rwbs"].get<std::string>().substr(0, 1), "D") << e;
      EXPECT_EQ(e["sector"], 0u) << e;
      EXPECT_EQ(e["bytes"], 1048576u) << e;
    } else if (e["op"] == "write_zeroes") {
      ++zeroes;
      EXPECT_EQ(e["rwbs"].get<std::string>().substr(0, 1), "N") << e;
      EXPECT_EQ(e["sector"], 2048u) << e;
    }
  }
  EXPECT_EQ(discards, 1) << b.Stdout();
  EXPECT_GE(zeroes, 1) << b.Stdout();
}

// (rwbs, sector) of every completion `trace` holds so far.
std::multiset<std::pair<std::string, uint64_t>> CompletionsIn(
    const TraceInstance& trace) {
  std::multiset<std::pair<std::string, uint64_t>> out;
  std::istringstream text(trace.trace());
  std::string rwbs;
  uint64_t sector = 0;
  for (std::string line; std::getline(text, line);) {
    if (TraceInstance::ParseCompletion(line, &rwbs, &sector)) {
      out.emplace(rwbs, sector);
    }
  }
  return out;
}

// rwbs as the kernel itself prints it, for every request of a workload
// that sets the flags a loop device sees (preflush, readahead, sync,
// metadata) and each operation it takes: the kernel's own
// block_rq_complete trace of the same requests is the reference.
TEST(EndToEnd, RwbsIsWhatTheKernelsOwnTracepointPrints) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir mnt;
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::multiset<std::pair<std::string, uint64_t>> kernel;
  {
    TraceInstance trace(loop.name(), "biosnoop-test");
    ASSERT_TRUE(trace.ok()) << "cannot trace block_rq_complete";
    const std::string dev = loop.path();
    const std::string script =
        // R, WS, RA (buffered reads of the device after dropping its cache).
        "dd if=" + dev +
        " of=/dev/null bs=4k count=2 iflag=direct status=none && "
        "dd if=/dev/zero of=" +
        dev +
        " bs=4k count=2 seek=100 "
        "oflag=direct,dsync status=none && "
        "blockdev --flushbufs " +
        dev +
        " && "
        "dd if=" +
        dev +
        " of=/dev/null bs=4k count=4 skip=1000 status=none && "
        // D, write-zeroes (N).
        "blkdiscard -o 0 -l 1048576 " +
        dev +
        " && "
        "blkdiscard -z -o 1048576 -l 1048576 " +
        dev +
        " && "
        // A file system: metadata reads (M), journal commits (preflush,
        // FUA), fsync's flush.
        "mkfs.ext4 -q -F " +
        dev +
        " && "
        "mount -o sync " +
        dev + " " + mnt.path() +
        " && "
        "dd if=/dev/zero of=" +
        mnt.path() +
        "/f bs=64k count=4 conv=fsync status=none && "
        "umount " +
        mnt.path();
    const uint64_t before = DiskCompletedRequests(loop.name());
    ASSERT_EQ(RunCommand({"bash", "-c", script}), 0);
    // Completions come in softirq: wait until the trace holds at least
    // one line for each request the disk says it completed.
    const uint64_t done = DiskCompletedRequests(loop.name()) - before;
    EXPECT_TRUE(WaitUntil(
        [&] {
          kernel = CompletionsIn(trace);
          return kernel.size() >= done;
        },
        20000))
        << kernel.size() << " traced completions, the disk says " << done;
  }
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  // The kernel traces each completion of a request (a request completed in
  // parts, or the data and flush steps of a write with preflush or FUA, is
  // traced more than once) where biosnoop has one event: every event must
  // be among the kernel's completions, and every rwbs the kernel printed
  // must be in an event.  Flush requests have no sector; the kernel prints
  // one of all ones, biosnoop 0.
  std::set<std::string> kernel_rwbs, ours;
  for (const auto& [rwbs, sector] : kernel) kernel_rwbs.insert(rwbs);
  std::multiset<std::pair<std::string, uint64_t>> left = kernel;
  for (const json& e : b.Events()) {
    const std::string rwbs = e["rwbs"];
    uint64_t sector = e["sector"];
    if (e["op"] == "flush") sector = ~uint64_t{0};
    ours.insert(rwbs);
    auto it = left.find({rwbs, sector});
    EXPECT_NE(it, left.end()) << "not traced by the kernel: " << e;
    if (it != left.end()) left.erase(it);
  }
  EXPECT_EQ(ours, kernel_rwbs);
  // The workload did what it is for: each flag and operation shows up.
  for (const char* want : {"R", "RA", "WS", "DS", "NS", "FF"}) {
    EXPECT_TRUE(ours.count(want))
        << want << " missing; have " << absl::StrJoin(ours, " ");
  }
  // A loop device has no FUA: the block layer turns a FUA write into a
  // write and a flush, so no trailing F shows here, in either trace.
  bool meta = false;
  for (const std::string& r : ours)
    meta = meta || r.find('M') != std::string::npos;
  EXPECT_TRUE(meta) << absl::StrJoin(ours, " ");
}

TEST(EndToEnd, ThresholdKeepsFastIoOut) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  // 2 s: no request on a RAM-backed loop device takes that long.
  Biosnoop b({"--min-us", "2000000", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  Workload dd = DirectDd(loop.path(), true, 4096, 100);
  ASSERT_EQ(dd.exit_code, 0);
  EXPECT_EQ(b.Stop(), 0);
  EXPECT_TRUE(b.Events().empty()) << b.Stdout();
  std::map<std::string, double> s = b.Summary();
  EXPECT_GE(s["completions"], 100);
  EXPECT_GE(s["below_threshold"], 100);
  EXPECT_EQ(s["emitted"], 0);
  ExpectSummaryConsistent(b, 0);
}

TEST(EndToEnd, DiskFilterExcludesOtherDisks) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice wanted(32), other(32);
  ASSERT_TRUE(wanted.ok() && other.ok());
  Biosnoop b({"--min-us", "0", "--disk", "/dev/" + wanted.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  Workload a = DirectDd(wanted.path(), true, 4096, 30);
  Workload o = DirectDd(other.path(), true, 4096, 30);
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_EQ(o.exit_code, 0);
  EXPECT_EQ(b.Stop(), 0);
  std::vector<json> all = b.Events();
  for (const json& e : all) EXPECT_EQ(e["disk"], wanted.name()) << e.dump();
  EXPECT_TRUE(LoggedOrMissed(EventsOfPid(all, a.pid).size(), 30, b));
  EXPECT_TRUE(EventsOfPid(all, o.pid).empty());
  ExpectSummaryConsistent(b, all.size());
}

TEST(EndToEnd, PidCommAndOpFiltersSelectInTheKernel) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(32);
  ASSERT_TRUE(loop.ok());
  {
    Biosnoop b({"--min-us", "0", "-d", loop.name(), "--op", "write"});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    Workload r = DirectDd(loop.path(), true, 4096, 20);
    Workload w = DirectDd(loop.path(), false, 4096, 10);
    ASSERT_EQ(b.Stop(), 0);
    std::vector<json> all = b.Events();
    EXPECT_TRUE(EventsOfPid(all, r.pid).empty());
    EXPECT_TRUE(LoggedOrMissed(EventsOfPid(all, w.pid).size(), 10, b));
    for (const json& e : all) EXPECT_EQ(e["op"], "write");
    EXPECT_GE(b.Summary()["filtered"], 20);
  }
  {
    Biosnoop b({"--min-us", "0", "-d", loop.name(), "--comm", "no-such-comm"});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    ASSERT_EQ(DirectDd(loop.path(), true, 4096, 20).exit_code, 0);
    ASSERT_EQ(b.Stop(), 0);
    EXPECT_TRUE(b.Events().empty());
    EXPECT_GE(b.Summary()["filtered"], 20);
  }
  {
    Biosnoop b({"--min-us", "0", "-d", loop.name(), "--comm", "dd"});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    Workload r = DirectDd(loop.path(), true, 4096, 20);
    ASSERT_EQ(b.Stop(), 0);
    std::vector<json> all = b.Events();
    EXPECT_TRUE(LoggedOrMissed(EventsOfPid(all, r.pid).size(), 20, b));
    for (const json& e : all) EXPECT_EQ(e["comm"], "dd");
  }
  {
    // The pid filter: our own pid does no I/O on the device, dd does.
    Biosnoop b(
        {"--min-us", "0", "-d", loop.name(), "-p", std::to_string(getpid())});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    ASSERT_EQ(DirectDd(loop.path(), true, 4096, 20).exit_code, 0);
    ASSERT_EQ(b.Stop(), 0);
    EXPECT_TRUE(b.Events().empty()) << b.Stdout();
    EXPECT_GE(b.Summary()["filtered"], 20);
  }
}

TEST(EndToEnd, PartitionIsNamedAndSectorsAreWholeDisk) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(32, /*partitioned=*/true);
  ASSERT_TRUE(loop.ok());
  ASSERT_EQ(access(loop.partition_path().c_str(), F_OK), 0);
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  Workload dd = DirectDd(loop.partition_path(), true, 4096, 10, 4);
  ASSERT_EQ(dd.exit_code, 0);
  ASSERT_EQ(b.Stop(), 0);
  std::vector<json> mine = EventsOfPid(b.Events(), dd.pid);
  ASSERT_TRUE(LoggedOrMissed(mine.size(), 10, b));
  ASSERT_FALSE(mine.empty());
  std::set<uint64_t> sectors;
  for (const json& e : mine) {
    EXPECT_EQ(e["disk"], loop.name());
    EXPECT_EQ(e["partition"], loop.partition_name());
    sectors.insert(e["sector"].get<uint64_t>());
  }
  if (mine.size() == 10u) {
    EXPECT_EQ(*sectors.begin(), loop.partition_start_sector() + 4 * 8);
  } else {  // the first read may be the one missed
    EXPECT_GE(*sectors.begin(), loop.partition_start_sector() + 4 * 8);
  }

  // -d with a partition name keeps only I/O inside that partition.
  Biosnoop p({"--min-us", "0", "-d", loop.partition_name()});
  ASSERT_TRUE(p.WaitAttached()) << p.Stderr();
  Workload in = DirectDd(loop.partition_path(), true, 4096, 5);
  Workload whole = DirectDd(loop.path(), true, 4096, 5);  // sectors 0..39
  ASSERT_EQ(p.Stop(), 0);
  std::vector<json> all = p.Events();
  EXPECT_TRUE(LoggedOrMissed(EventsOfPid(all, in.pid).size(), 5, p));
  EXPECT_TRUE(EventsOfPid(all, whole.pid).empty());
}

TEST(EndToEnd, DeviceAttachedAfterStartIsNamed) {
  BIOSNOOP_REQUIRE_ROOT();
  Biosnoop b({"--min-us", "0", "--comm", "dd"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  LoopDevice late(32);  // losetup after biosnoop started
  ASSERT_TRUE(late.ok());
  Workload dd = DirectDd(late.path(), true, 4096, 10);
  ASSERT_EQ(dd.exit_code, 0);
  ASSERT_EQ(b.Stop(), 0);
  // dd may also fault its own binary in from the root disk on a loaded
  // machine: count only its requests on the late device (by number).
  struct stat st;
  ASSERT_EQ(stat(late.path().c_str(), &st), 0);
  const std::string late_dev =
      absl::StrCat(major(st.st_rdev), ":", minor(st.st_rdev));
  std::vector<json> mine;
  for (const json& e : EventsOfPid(b.Events(), dd.pid)) {
    if (e.value("dev", "") == late_dev) mine.push_back(e);
  }
  ASSERT_TRUE(LoggedOrMissed(mine.size(), 10, b)) << b.Stdout();
  ASSERT_FALSE(mine.empty());
  for (const json& e : mine) EXPECT_EQ(e["disk"], late.name());
}

TEST(EndToEnd, DurationEndsTheRunWithASummary) {
  BIOSNOOP_REQUIRE_ROOT();
  auto start = std::chrono::steady_clock::now();
  Biosnoop b({"--min-us", "0", "--duration", "1"});
  EXPECT_EQ(b.Wait(20000), 0) << b.Stderr();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::seconds(1));
  EXPECT_TRUE(b.Summary().count("completions")) << b.Stderr();
}

TEST(EndToEnd, ClosedPipeEndsCleanly) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(32);
  ASSERT_TRUE(loop.ok());
  // biosnoop | head -3 while dd keeps the device busy; biosnoop's own exit
  // status is what the pipeline reports (pipefail off, so read PIPESTATUS).
  RunCommand({"rm", "-f", "/tmp/biosnoop-pipe-err", "/tmp/biosnoop-pipe-out",
              "/tmp/biosnoop-pipe-rc"});
  std::string cmd =
      "( " + std::string(BIOSNOOP_BIN) + " --min-us 0 -d " + loop.name() +
      " 2>/tmp/biosnoop-pipe-err | head -3 > /tmp/biosnoop-pipe-out; "
      "echo ${PIPESTATUS[0]} > /tmp/biosnoop-pipe-rc ) & "
      // Reads until the pipeline has ended (however long biosnoop takes
      // to attach on a loaded machine), for at most ~2 minutes.
      "for i in $(seq 1200); do [ -e /tmp/biosnoop-pipe-rc ] && break; dd if=" +
      loop.path() +
      " of=/dev/null bs=4k count=50 iflag=direct status=none; sleep 0.1; "
      "done; wait";
  ASSERT_EQ(RunCommand({"bash", "-c", cmd}), 0);
  std::optional<std::string> rc =
      CommandOutput({"cat", "/tmp/biosnoop-pipe-rc"});
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, "0");
  std::optional<std::string> out =
      CommandOutput({"wc", "-l", "/tmp/biosnoop-pipe-out"});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->substr(0, 1), "3");
  std::optional<std::string> err =
      CommandOutput({"cat", "/tmp/biosnoop-pipe-err"});
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("biosnoop: completions="), std::string::npos) << *err;
  // Two lines reached head; the events after it closed are dropped, and
  // counted as such.
  std::map<std::string, double> s = ParseSummary(*err);
  EXPECT_GE(s["written"], 2) << *err;
  EXPECT_GT(s["dropped"], 0) << *err;
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << *err;
  RunCommand({"rm", "-f", "/tmp/biosnoop-pipe-err", "/tmp/biosnoop-pipe-out",
              "/tmp/biosnoop-pipe-rc"});
}

// Started with stdout closed (`biosnoop >&-`): a clear error, not events
// written into whatever file took descriptor 1; with -o FILE it runs, and
// with stderr closed as well.
TEST(EndToEnd, ClosedStdoutIsAClearErrorUnlessThereIsAnOutputFile) {
  BIOSNOOP_REQUIRE_ROOT();
  const std::string bin = BIOSNOOP_BIN;
  const std::string err = "/tmp/biosnoop-closed-err";
  const std::string out = "/tmp/biosnoop-closed-out.jsonl";
  RunCommand({"rm", "-f", err, out});
  EXPECT_EQ(RunCommand({"bash", "-c", bin + " --duration 1 >&- 2>" + err}), 73);
  std::optional<std::string> said = CommandOutput({"cat", err});
  ASSERT_TRUE(said.has_value());
  EXPECT_EQ(*said, "biosnoop: stdout is closed: give -o FILE for the output");

  EXPECT_EQ(RunCommand({"bash", "-c",
                        bin + " --duration 1 -o " + out + " >&- 2>&- <&-"}),
            0);
  std::optional<std::string> lines = CommandOutput({"cat", out});
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(lines->rfind("{\"type\":\"header\"", 0), 0u) << *lines;
  EXPECT_NE(lines->find("\"type\":\"stats\""), std::string::npos) << *lines;
  RunCommand({"rm", "-f", err, out});
}

// --help and --version whose output cannot be written (stdout on a full
// disk, /dev/full) say so and exit 74, as a failed event write does,
// rather than exit 0 with nothing printed.  Needs no privilege.
TEST(EndToEnd, HelpAndVersionReportAWriteError) {
  for (const char* flag : {"--help", "--version"}) {
    std::optional<std::string> out =
        CommandOutput({"bash", "-c",
                       std::string(BIOSNOOP_BIN) + " " + flag +
                           " 2>&1 >/dev/full; echo rc=$?"});
    ASSERT_TRUE(out.has_value()) << flag;
    EXPECT_EQ(*out, "biosnoop: writing stdout: No space left on device\nrc=74")
        << flag;
    out = CommandOutput({"bash", "-c",
                         std::string(BIOSNOOP_BIN) + " " + flag +
                             " >/dev/null 2>&1; echo rc=$?"});
    ASSERT_TRUE(out.has_value()) << flag;
    EXPECT_EQ(*out, "rc=0") << flag;
  }
}

TEST(EndToEnd, BadUsageAndUnknownDiskExit64) {
  BIOSNOOP_REQUIRE_ROOT();
  {
    Biosnoop b({"--no-such-flag"});
    EXPECT_EQ(b.Wait(), 64);
    EXPECT_NE(b.Stderr().find("unknown option --no-such-flag"),
              std::string::npos);
  }
  {
    Biosnoop b({"--min-us", "ten"});
    EXPECT_EQ(b.Wait(), 64);
    EXPECT_NE(b.Stderr().find("--min-us"), std::string::npos);
  }
  {
    Biosnoop b({"-d", "nosuchdisk0"});
    EXPECT_EQ(b.Wait(), 64);
    EXPECT_NE(b.Stderr().find("nosuchdisk0"), std::string::npos) << b.Stderr();
  }
}

// zram is bio-based: its I/O never becomes requests, so -d zramN could
// only ever log nothing.  A new zram device (zram-control/hot_add) is a
// real one of those.
TEST(EndToEnd, DiskThatIsNotRequestBasedIsRefusedWithTheReason) {
  BIOSNOOP_REQUIRE_ROOT();
  std::optional<std::string> id =
      CommandOutput({"cat", "/sys/class/zram-control/hot_add"});
  if (!id.has_value()) {
    if (InCi()) FAIL() << "no /sys/class/zram-control: cannot make a zram disk";
    GTEST_SKIP() << "no zram in this kernel (/sys/class/zram-control)";
  }
  const std::string zram = "zram" + *id;
  {
    Biosnoop b({"-d", zram});
    EXPECT_EQ(b.Wait(), 64) << b.Stderr();
    EXPECT_NE(
        b.Stderr().find("biosnoop: disk \"" + zram + "\" is not request-based"),
        std::string::npos)
        << b.Stderr();
  }
  EXPECT_EQ(
      RunCommand({"bash", "-c",
                  "echo " + *id + " > /sys/class/zram-control/hot_remove"}),
      0);
}

// A kernel without BTF, as biosnoop sees it: in a mount namespace of its
// own, an empty tmpfs hides /sys/kernel/btf/vmlinux.  Exit 69 with what to
// do, for the event stream and for histogram mode alike, and no output
// file left behind by the failed start.
TEST(EndToEnd, KernelWithoutBtfExit69WithTheReason) {
  BIOSNOOP_REQUIRE_ROOT();
  const std::string log = "/tmp/biosnoop-nobtf.jsonl";
  for (const char* mode : {"", " --hist"}) {
    RunCommand({"rm", "-f", log});
    std::optional<std::string> out = CommandOutput(
        {"unshare", "--mount", "bash", "-c",
         "mount -t tmpfs none /sys/kernel/btf && " + std::string(BIOSNOOP_BIN) +
             " --duration 1 -o " + log + mode + " 2>&1; echo rc=$?"});
    ASSERT_TRUE(out.has_value()) << mode;
    EXPECT_NE(out->find("rc=69"), std::string::npos) << mode << *out;
    EXPECT_NE(out->find("biosnoop: this kernel exposes no BTF "
                        "(/sys/kernel/btf/vmlinux is missing)"),
              std::string::npos)
        << *out;
    EXPECT_NE(out->find("CONFIG_DEBUG_INFO_BTF=y"), std::string::npos) << *out;
    EXPECT_NE(access(log.c_str(), F_OK), 0)
        << mode << ": " << log << " created";
  }
  RunCommand({"rm", "-f", log});
}

// BTF that is there but unusable (an empty file, garbage) bind-mounted over
// /sys/kernel/btf/vmlinux in a private mount namespace: the same exit 69
// and advice, saying the file is not valid BTF (not "No such process").
TEST(EndToEnd, UnusableBtfExit69WithTheReason) {
  BIOSNOOP_REQUIRE_ROOT();
  const std::string fake = "/tmp/biosnoop-fake-btf";
  const std::string log = "/tmp/biosnoop-badbtf.jsonl";
  // Empty; random bytes; a BTF header whose sections fit the file, over
  // random types and strings (found only when it is parsed).
  for (const std::string& make :
       {": > " + fake, "head -c 4096 /dev/urandom > " + fake,
        "{ printf '\\237\\353\\001\\000\\030\\000\\000\\000"
        "\\000\\000\\000\\000\\240\\017\\000\\000"
        "\\240\\017\\000\\000\\140\\000\\000\\000'; "
        "head -c 4096 /dev/urandom; } > " +
            fake}) {
    for (const char* mode : {"", " --hist"}) {
      SCOPED_TRACE(make + mode);
      RunCommand({"rm", "-f", log});
      ASSERT_EQ(RunCommand({"bash", "-c", make}), 0);
      std::optional<std::string> out = CommandOutput(
          {"unshare", "--mount", "--propagation", "private", "bash", "-c",
           "mount --bind " + fake + " /sys/kernel/btf/vmlinux && " +
               std::string(BIOSNOOP_BIN) + " --duration 0.2 -o " + log + mode +
               " 2>&1; echo rc=$?"});
      ASSERT_TRUE(out.has_value());
      EXPECT_NE(out->find("rc=69"), std::string::npos) << *out;
      EXPECT_NE(out->find("/sys/kernel/btf/vmlinux is not valid BTF"),
                std::string::npos)
          << *out;
      EXPECT_NE(out->find("CONFIG_DEBUG_INFO_BTF=y"), std::string::npos)
          << *out;
      // One line, then the shell's (the output comes trimmed).
      EXPECT_EQ(std::count(out->begin(), out->end(), '\n'), 1) << *out;
      // A file that is not BTF at all is refused before the output is
      // created; one whose header is sound is found out only when parsed,
      // after, and the file created for the run goes again.
      EXPECT_NE(access(log.c_str(), F_OK), 0) << log << " left behind";
    }
  }
  RunCommand({"rm", "-f", fake, log});
}

// A ring buffer the kernel cannot allocate: BPF maps are charged to the
// memory cgroup, so 512 MiB of ring buffer in a cgroup limited to 100 MiB
// fails with ENOMEM.  That is the machine's memory, not a bug (70) nor a
// kernel without support (69): exit 71 (EX_OSERR), saying which buffer and
// what to do.
TEST(EndToEnd, RingBufferTooBigForTheMemoryCgroupExit71WithAdvice) {
  BIOSNOOP_REQUIRE_ROOT();
  const std::string v1 = "/sys/fs/cgroup/memory";
  if (access((v1 + "/memory.limit_in_bytes").c_str(), F_OK) != 0) {
    if (InCi()) FAIL() << "no cgroup v1 memory controller at " << v1;
    GTEST_SKIP() << "no cgroup v1 memory controller at " << v1;
  }
  char name[] = "/sys/fs/cgroup/memory/biosnoop-test-XXXXXX";
  ASSERT_NE(mkdtemp(name), nullptr) << std::strerror(errno);
  const std::string cg = name;
  ASSERT_EQ(
      RunCommand({"sh", "-c", "echo 100M > " + cg + "/memory.limit_in_bytes"}),
      0);
  std::optional<std::string> out = CommandOutput(
      {"sh", "-c",
       "echo $$ > " + cg + "/cgroup.procs && " + std::string(BIOSNOOP_BIN) +
           " --ringbuf-kib 524288 --duration 0.2 2>&1; echo rc=$?"});
  // The shell and biosnoop have exited: the cgroup is empty.
  EXPECT_EQ(rmdir(cg.c_str()), 0) << cg << ": " << std::strerror(errno);
  ASSERT_TRUE(out.has_value());
  EXPECT_NE(out->find("rc=71"), std::string::npos) << *out;
  EXPECT_NE(out->find("biosnoop: the kernel could not allocate the ring "
                      "buffer of 524288 KiB"),
            std::string::npos)
      << *out;
  EXPECT_NE(out->find("try a smaller --ringbuf-kib"), std::string::npos)
      << *out;
  EXPECT_EQ(std::count(out->begin(), out->end(), '\n'), 1) << *out;
}

// Without privilege: exit 77 with advice, and no output file left behind
// (in a directory the unprivileged user may write, so the file could be
// created).
TEST(EndToEnd, WithoutPrivilegeExit77WithAdvice) {
  BIOSNOOP_REQUIRE_ROOT();
  char tmpl[] = "/tmp/biosnoop-nopriv-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  const std::string log = dir + "/slow.jsonl";
  for (const char* mode : {"", " --hist"}) {
    // setpriv drops to an unprivileged uid with no capabilities.
    std::optional<std::string> out = CommandOutput(
        {"bash", "-c",
         "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "
         "--bounding-set=-all " +
             std::string(BIOSNOOP_BIN) + " --duration 1 -o " + log + mode +
             " 2>&1; echo rc=$?"});
    ASSERT_TRUE(out.has_value());
    EXPECT_NE(out->find("rc=77"), std::string::npos) << *out;
    EXPECT_NE(out->find("sudo"), std::string::npos) << *out;
    EXPECT_NE(access(log.c_str(), F_OK), 0)
        << mode << ": " << log << " created";
  }
  RunCommand({"rm", "-rf", dir});
}

}  // namespace
}  // namespace biosnoop::testing
