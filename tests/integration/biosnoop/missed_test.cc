// Completions the kernel never hands to biosnoop's BPF programs
// (docs/reference/counters.md, "missed") leave their request in the
// in-flight table.  These tests put such a request into the real table of a
// running biosnoop, as the kernel would leave it, and check it is found and
// counted once the disk is idle;
// and that a request really in flight on a slow disk is never taken for one.

#include <dirent.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "biosnoop_abi.h"
#include "disk_names.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "session.h"
#include "slowdisk_fixture.h"
#include "wall_clock.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// The kernel dev_t of a disk, as biosnoop's -d resolves it.
uint32_t KernelDev(const std::string& disk) {
  DiskNames names;
  absl::StatusOr<ResolvedDisk> d = names.Resolve(disk);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? (d->major << 20) | d->minor : 0;
}

template <typename T>
std::vector<std::string> HexWords(const T& value) {
  std::vector<std::string> words;
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  for (size_t i = 0; i < sizeof(T); ++i) {
    char buf[3];
    std::snprintf(buf, sizeof(buf), "%02x", p[i]);
    words.emplace_back(buf);
  }
  return words;
}

// The id of the BPF map named `name` that process `pid` holds (from its
// file descriptors' fdinfo), as a string for bpftool; "" if none.  By the
// process, not by name alone: another biosnoop running on the machine has
// maps of the same names.
std::string MapIdOf(pid_t pid, const std::string& name) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return "";
  std::set<std::string> ids;
  while (dirent* e = readdir(d)) {
    std::ifstream in(dir + "/" + e->d_name);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("map_id:", 0) == 0)
        ids.insert(line.substr(line.find_first_not_of(" \t", 7)));
    }
  }
  closedir(d);
  for (const std::string& id : ids) {
    std::optional<std::string> show =
        CommandOutput({"bpftool", "map", "show", "id", id, "-j"});
    if (show.has_value() && json::parse(*show).value("name", "") == name)
      return id;
  }
  return "";
}

// The process whose maps UpdateMap() and DumpMap() change: the test's
// biosnoop.
pid_t g_biosnoop_pid = -1;

// bpftool map update id ID key hex ... value hex ...
int UpdateMap(const std::string& map, const std::vector<std::string>& key,
              const std::vector<std::string>& value) {
  const std::string id = MapIdOf(g_biosnoop_pid, map);
  if (id.empty()) return -1;
  std::vector<std::string> argv = {"bpftool", "map", "update", "id",
                                   id,        "key", "hex"};
  argv.insert(argv.end(), key.begin(), key.end());
  argv.push_back("value");
  argv.push_back("hex");
  argv.insert(argv.end(), value.begin(), value.end());
  return RunCommand(argv);
}

// Puts into the running biosnoop's in-flight table a read issued on `dev`
// a second ago whose completion never reached the hook: its entry and its
// share of the depth counter, as the kernel would have left them.
void InjectHiddenCompletion(uint32_t dev) {
  biosnoop_inflight_val slot{};
  slot.rq = 0x7700001000ull;
  slot.dev = dev;
  slot.submit_ns = MonotonicNs() - 1000000000ull;
  slot.issue_ns = slot.submit_ns + 1000;
  slot.sector = 1234;
  slot.bytes = 4096;
  slot.queue_depth = 1;
  slot.op = BIOSNOOP_OP_READ;
  slot.submit_known = 1;
  const uint32_t index = biosnoop_slot_index(slot.rq);
  ASSERT_EQ(UpdateMap("slots", HexWords(index), HexWords(slot)), 0);
  biosnoop_depth_slot depth{dev, 1};
  const uint32_t depth_index = biosnoop_depth_slot_index(dev);
  ASSERT_EQ(UpdateMap("depth_slots", HexWords(depth_index), HexWords(depth)),
            0);
}

TEST(Missed, ACompletionNeverDeliveredIsCountedWhileRunning) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  const uint32_t dev = KernelDev(disk.name());
  Biosnoop b({"-d", disk.name(), "--stats-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();
  // Real I/O first: the disk gets its queue-depth counter.
  ASSERT_EQ(DirectDd(disk.path(), true, 4096, 4).exit_code, 0);

  InjectHiddenCompletion(dev);

  // Two idle observations (one a second) confirm it; a stats record
  // written while running says so.
  EXPECT_TRUE(b.WaitForRecords("stats", 1, [](const json& s) {
    return !s.value("final", false) && s.value("missed", 0) == 1;
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["missed"], 1) << b.Stderr();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  EXPECT_EQ(s["completions"], 4) << b.Stderr();
  EXPECT_EQ(s["expired"], 0) << b.Stderr();
}

// A flush request is never in the kernel's `inflight`, so a flush whose
// completion never reached the hook is told from a hung one by the
// kernel's count of completed flushes (sysfs stat): a real flush
// completes, and biosnoop's own count of the flushes it saw complete is
// taken back while the flush's entry is put back, as the kernel would
// leave them.  It is counted as missed, never reported stuck, and not
// unfinished at exit.
TEST(Missed, AFlushCompletionNeverDeliveredIsMissedNotStuck) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  const uint32_t dev = KernelDev(disk.name());
  Biosnoop b(
      {"-d", disk.name(), "--stats-interval", "1", "--stuck-after", "1s"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();
  ASSERT_EQ(
      RunCommand({"dd", "if=/dev/zero", "of=" + disk.path(), "bs=4096",
                  "count=1", "oflag=direct", "conv=fsync", "status=none"}),
      0);
  auto flush_events = [&] {
    size_t n = 0;
    for (const json& e : b.Events()) n += e["op"] == "flush";
    return n;
  };
  for (int i = 0; i < 1000 && flush_events() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(flush_events(), 1u) << "awaited the fsync's flush event:\n"
                                << b.Stdout();

  ASSERT_EQ(UpdateMap("flushes_done", HexWords(dev), HexWords(uint64_t{0})), 0);
  biosnoop_inflight_val slot{};
  slot.rq = 0x7700002000ull;
  slot.dev = dev;
  slot.issue_ns = MonotonicNs() - 2000000000ull;
  slot.queue_depth = 1;
  slot.op = BIOSNOOP_OP_FLUSH;
  ASSERT_EQ(UpdateMap("slots", HexWords(biosnoop_slot_index(slot.rq)),
                      HexWords(slot)),
            0);
  biosnoop_depth_slot depth{dev, 1};
  ASSERT_EQ(UpdateMap("depth_slots", HexWords(biosnoop_depth_slot_index(dev)),
                      HexWords(depth)),
            0);

  auto missed_while_running = [&] {
    for (const json& s : b.RecordsOfType("stats")) {
      if (s.value("missed", 0) == 1) return true;
    }
    return false;
  };
  for (int i = 0; i < 1000 && !missed_while_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(missed_while_running())
      << "awaited a stats record with missed=1:\n"
      << b.Stdout();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_TRUE(b.RecordsOfType("stuck").empty()) << b.Stdout();
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["missed"], 1) << b.Stderr();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
}

// Histogram mode counts such a completion too: it is in no histogram, so
// its summary reports it as missed (found at exit here: stopped at once).
TEST(Missed, HistogramModeCountsACompletionNeverDelivered) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  const uint32_t dev = KernelDev(disk.name());
  Biosnoop b({"--hist", "--json", "-d", disk.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();
  ASSERT_EQ(DirectDd(disk.path(), true, 4096, 4).exit_code, 0);
  InjectHiddenCompletion(dev);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["missed"], 1) << b.Stderr();
  EXPECT_EQ(s["completions"], 4) << b.Stderr();
}

// The block layer hands a request out again only after freeing it, so a
// request that comes back while biosnoop still holds its previous use had
// that completion hidden from biosnoop.  A real request's entry, taken from
// the table while it was in flight on the slow disk, is put back after it
// completed, as the kernel would leave it had the completion never reached
// the hook; the next reads on the disk reuse that request.
//
// Which request a read gets: its tag comes from a per-CPU hint that cycles
// through one 64-tag word of the tag bitmap, and each CPU's hint may sit in
// a different word.  So every read here runs on one CPU: then the fast
// reads cycle through the word the slow read's tag came from.
class PinnedToOneCpu {
 public:
  PinnedToOneCpu() {
    ok_ = sched_getaffinity(0, sizeof(saved_), &saved_) == 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (ok_ && CPU_ISSET(cpu, &saved_)) {
        CPU_SET(cpu, &one);
        break;
      }
    }
    ok_ = ok_ && sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~PinnedToOneCpu() { sched_setaffinity(0, sizeof(saved_), &saved_); }
  bool ok() const { return ok_; }

 private:
  cpu_set_t saved_;
  bool ok_ = false;
};

TEST(Missed, ARequestHandedOutAgainIsCountedAsMissed) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.read_delay_ms = 1500});
  ASSERT_TRUE(slow.ok()) << slow.error();
  const uint32_t dev = KernelDev(slow.loop_name());
  Biosnoop b({"-d", slow.loop_name(), "-v"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();

  PinnedToOneCpu pinned;  // this thread, and the threads and dd it starts
  ASSERT_TRUE(pinned.ok());
  std::atomic<bool> read_done{false};
  std::thread slow_read([&] {
    DirectDd(slow.loop_path(), true, 4096, 1);
    read_done = true;
  });
  // The slow read's entry in the table, looked for while it is in flight.
  json held;
  WaitUntil([&] {
    const bool last_look = read_done;
    std::optional<std::string> dump =
        CommandOutput({"bpftool", "map", "dump", "id",
                       MapIdOf(g_biosnoop_pid, "slots"), "-j"});
    if (!dump.has_value()) return true;
    for (const json& e : json::parse(*dump)) {
      const json& v = e["formatted"]["value"];
      if (v["rq"].get<uint64_t>() != 0 && v["dev"].get<uint32_t>() == dev &&
          v["issue_ns"].get<uint64_t>() != 0) {
        held = e;
      }
    }
    return !held.is_null() || last_look;
  });
  slow_read.join();
  ASSERT_FALSE(held.is_null())
      << "the slow read was not in the table while it was in flight";
  auto bytes = [](const json& hex) {
    std::vector<std::string> out;
    for (const json& h : hex) out.push_back(h.get<std::string>().substr(2));
    return out;
  };
  ASSERT_EQ(UpdateMap("slots", bytes(held["key"]), bytes(held["value"])), 0);
  // And its share of the disk's in-flight count, which its completion took
  // back (the disk is idle now: 0 + 1).
  biosnoop_depth_slot depth{dev, 1};
  ASSERT_EQ(UpdateMap("depth_slots", HexWords(biosnoop_depth_slot_index(dev)),
                      HexWords(depth)),
            0);

  // Fast reads now: a few hundred allocations cycle through every tag.
  ASSERT_TRUE(slow.Set("read_delay_ms=0").ok());
  ASSERT_EQ(DirectDd(slow.loop_path(), true, 4096, 600).exit_code, 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  // dd reads one block at a time: depth 1, but 2 (the hidden completion's
  // share) until the reuse finds it, which gives that share back.  Without
  // that, depth would stay 2 until user space next finds the disk idle,
  // after these fast reads have ended.
  const std::vector<json> events = b.Events();
  size_t one_too_many = 0;
  for (const json& e : events) {
    if (e["queue_depth"].get<int>() > 1) ++one_too_many;
  }
  EXPECT_LT(one_too_many, 200u) << "of " << events.size();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["queue_depth"], 1);
  std::map<std::string, double> s = b.Summary();
  // Found by the reuse.  A real read's completion the kernel ran no
  // program for (docs/reference/counters.md, "missed": a few in a million
  // here, in bursts)
  // adds to both counts and takes its event away; the
  // planted one is never an event.
  EXPECT_GE(s["missed_reuse"], 1) << b.Stderr();
  EXPECT_GE(s["missed"], s["missed_reuse"]) << b.Stderr();
  const double natural = s["missed"] - 1;
  EXPECT_LE(natural, 2) << b.Stderr();
  EXPECT_EQ(static_cast<double>(b.Events().size()) + natural, 601)
      << b.Stderr();
  EXPECT_EQ(s["unfinished"], 0) << b.Stderr();
  EXPECT_EQ(s["orphans"], 0) << b.Stderr();
}

// A slow request really in flight: the disk is busy, so it is not judged,
// and its event comes when it completes.  With I/O accounting off the
// kernel's in-flight count stays 0, so such a disk is never judged at all.
void SlowRequestIsNotTakenForMissed(bool iostats) {
  SlowDisk slow({.read_delay_ms = 2600});
  ASSERT_TRUE(slow.ok()) << slow.error();
  if (!iostats) {
    std::ofstream("/sys/block/" + slow.loop_name() + "/queue/iostats") << "0\n";
  }
  Biosnoop b({"-d", slow.loop_name(), "--min-us", "1000000"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();
  ASSERT_EQ(DirectDd(slow.loop_path(), true, 4096, 1).exit_code, 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  std::vector<json> events = b.Events();
  ASSERT_EQ(events.size(), 1u) << b.Stderr();
  EXPECT_GE(events[0]["latency_us"].get<uint64_t>(), 2600000u);
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["missed"], 0) << b.Stderr();
  EXPECT_EQ(s["orphans"], 0) << b.Stderr();
}

// A read still in flight on a slow disk when biosnoop stops is neither a
// completion nor missed: it is counted as unfinished, in both modes.
// `args` make the run write `periodic` records, `every` apart.
void ReadInFlightAtExitIsUnfinished(std::vector<std::string> args,
                                    const std::string& periodic,
                                    absl::Duration every) {
  SlowDisk slow({.read_delay_ms = 4000});
  ASSERT_TRUE(slow.ok()) << slow.error();
  args.insert(args.end(), {"-d", slow.loop_name()});
  Biosnoop b(args);
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  g_biosnoop_pid = b.pid();
  std::thread read([&] { DirectDd(slow.loop_path(), true, 4096, 1); });
  // Issued over a second before the stop (biosnoop counts those), and
  // completed after it (at 4 s).  Once the disk counts it in flight, the
  // run's own periodic records prove its clock has gone a second further:
  // consecutive ones are `every` apart at least, so the n-th after this
  // moment comes at least (n - 1) * `every` later.
  const std::string inflight = "/sys/block/" + slow.loop_name() + "/inflight";
  EXPECT_TRUE(WaitUntil([&] {
    unsigned reads = 0;
    std::ifstream(inflight) >> reads;
    return reads > 0;
  })) << "the read never reached the disk";
  const size_t before = b.RecordsOfType(periodic).size();
  const size_t after = 1 + absl::Ceil(absl::Seconds(1), every) / every;
  EXPECT_TRUE(b.WaitForRecords(periodic, before + after));
  const int status = b.Stop();
  read.join();
  ASSERT_EQ(status, 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["unfinished"], 1) << b.Stderr();
  EXPECT_EQ(s["missed"], 0) << b.Stderr();
  EXPECT_EQ(s["completions"], 0) << b.Stderr();
}

TEST(Missed, AReadInFlightAtExitIsUnfinished) {
  BIOSNOOP_REQUIRE_ROOT();
  ReadInFlightAtExitIsUnfinished({"--min-us", "0", "--stats-interval", "250ms"},
                                 "stats", absl::Milliseconds(250));
}

TEST(Missed, HistogramModeCountsAReadInFlightAtExitAsUnfinished) {
  BIOSNOOP_REQUIRE_ROOT();
  ReadInFlightAtExitIsUnfinished({"--hist", "--json", "--interval", "250ms"},
                                 "histogram", absl::Milliseconds(250));
}

TEST(Missed, ASlowRequestInFlightIsNotTakenForMissed) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowRequestIsNotTakenForMissed(true);
}

TEST(Missed, ADiskWithoutIoAccountingIsNeverJudged) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowRequestIsNotTakenForMissed(false);
}

}  // namespace
}  // namespace biosnoop::testing
