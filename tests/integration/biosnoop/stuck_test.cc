// Stuck records on a real hanging disk (tools/slowdisk behind a loop
// device): a read that takes seconds is reported while it is still in
// flight, once, with who submitted it, and is an ordinary event when it
// completes; reads faster than --stuck-after, --stuck-after 0 and the
// filters report nothing.

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// dd reading one 4 KiB block at `block` with O_DIRECT, not waited for.
Child StartDirectRead(const std::string& dev, int block) {
  return Child::Program({"dd", "if=" + dev, "of=/dev/null", "iflag=direct",
                         "bs=4096", "count=1", "skip=" + std::to_string(block),
                         "status=none"});
}

// The records after the last one `is_it` accepts (all of them if none).
std::vector<json> After(const std::vector<json>& records,
                        const std::function<bool(const json&)>& is_it) {
  std::vector<json> out;
  for (const json& r : records) {
    if (is_it(r)) {
      out.clear();
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// Waits until `b` has looked at its in-flight table after the last record
// `is_it` accepts: two stats records after it (run with --stats-interval
// 1), at least a second apart, and the once-a-second look comes before the
// stats in each step of the run, so one came between them.
::testing::AssertionResult WaitForALookAfter(
    Biosnoop& b, const std::function<bool(const json&)>& is_it) {
  const bool looked = WaitUntil([&] {
    size_t stats = 0;
    for (const json& r : After(b.Records(), is_it)) {
      stats += r.value("type", "") == "stats";
    }
    return stats >= 2;
  });
  if (looked) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "awaited two stats records after the record looked for (a look "
            "at the in-flight table after it):\n"
         << b.Stdout() << b.Stderr();
}

std::vector<json> OfPid(const std::vector<json>& records, pid_t pid) {
  std::vector<json> out;
  for (const json& r : records) {
    if (r.value("pid", 0) == pid) out.push_back(r);
  }
  return out;
}

TEST(Stuck, AHangingReadIsReportedWhileItHangs) {
  BIOSNOOP_REQUIRE_ROOT();
  constexpr int kDelayMs = 4000;
  SlowDisk slow({.size_mib = 16, .read_delay_ms = kDelayMs});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b({"--min-us", "10000", "--stuck-after", "1s", "--stats-interval",
              "1", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  const auto started = std::chrono::steady_clock::now();
  Child read = StartDirectRead(slow.loop_path(), 100);
  ASSERT_TRUE(read.started()) << read.result().Describe();
  const pid_t dd = read.pid();
  // The record must come while dd still waits for its read: within the
  // second after it is 1 s old (the table is looked at once a second),
  // long before the disk answers.
  std::vector<json> stuck;
  bool dd_running_when_seen = false;
  while (std::chrono::steady_clock::now() - started <
         std::chrono::milliseconds(kDelayMs)) {
    stuck = OfPid(b.RecordsOfType("stuck"), dd);
    if (!stuck.empty()) {
      dd_running_when_seen = read.Running();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto seen_after = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(stuck.size(), 1u) << b.Stdout() << b.Stderr();
  EXPECT_TRUE(dd_running_when_seen) << "reported only after the read completed";
  EXPECT_LT(seen_after, std::chrono::milliseconds(3000));
  const json& s = stuck[0];
  EXPECT_EQ(s["disk"], slow.loop_name());
  EXPECT_TRUE(s["partition"].is_null()) << s;
  EXPECT_EQ(s["op"], "read");
  EXPECT_EQ(s["sector"], 100 * 8);
  EXPECT_EQ(s["bytes"], 4096);
  EXPECT_EQ(s["comm"], "dd");
  EXPECT_EQ(s["tid"], dd);
  EXPECT_GE(s["queue_depth"].get<int>(), 1);
  EXPECT_FALSE(s.contains("seq")) << s;
  const uint64_t inflight_us = s["inflight_us"];
  EXPECT_GE(inflight_us, 1000000u);
  EXPECT_LT(inflight_us, static_cast<uint64_t>(kDelayMs) * 1000);

  ASSERT_TRUE(ExitedWith(read.Wait(), 0));
  // Its completion is an event as well, and the stuck record stays the
  // only one: the next looks find it in flight, already reported, and a
  // look after the completion finds nothing.
  auto its_event = [dd](const json& r) {
    return r.value("type", "") == "event" && r.value("pid", 0) == dd;
  };
  ASSERT_TRUE(b.WaitForRecords("event", 1, its_event));
  ASSERT_TRUE(WaitForALookAfter(b, its_event));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::vector<json> events = OfPid(b.Events(), dd);
  ASSERT_EQ(events.size(), 1u) << b.Stdout();
  EXPECT_EQ(events[0]["sector"], 100 * 8);
  EXPECT_EQ(events[0]["rwbs"], s["rwbs"]);  // "RS": a direct read is sync
  EXPECT_EQ(events[0]["queue_depth"], s["queue_depth"]);
  EXPECT_GE(events[0]["latency_us"].get<uint64_t>(), inflight_us);
  EXPECT_EQ(OfPid(b.RecordsOfType("stuck"), dd).size(), 1u) << b.Stdout();
  // A stuck record is no event: seq has no gap, and written counts events.
  const std::vector<json> all_events = b.Events();
  for (size_t i = 0; i < all_events.size(); ++i) {
    EXPECT_EQ(all_events[i]["seq"], i + 1);
  }
  EXPECT_EQ(b.Summary()["written"], all_events.size()) << b.Stderr();
  // The header says the setting.
  const std::vector<json> headers = b.RecordsOfType("header");
  ASSERT_FALSE(headers.empty());
  EXPECT_EQ(headers[0]["stuck_after_us"], 1000000);

  // bioreport reads the stream and names the hang apart from the events.
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  std::ofstream(log) << b.Stdout();
  std::optional<std::string> out = CommandOutput({BIOREPORT_BIN, "json", log});
  ASSERT_TRUE(out.has_value());
  const json r = json::parse(*out);
  EXPECT_EQ(r["stuck"]["requests"], 1) << r;
  ASSERT_EQ(r["stuck"]["longest"].size(), 1u) << r;
  EXPECT_EQ(r["stuck"]["longest"][0]["comm"], "dd") << r;
  EXPECT_EQ(r["stuck"]["longest"][0]["inflight_us"], inflight_us) << r;
}

// dd writing one 4 KiB block at block 0 with O_DIRECT and then fsync: the
// write, then a cache flush (the block layer's flush request), not waited
// for.
Child StartWriteAndFsync(const std::string& dev) {
  return Child::Program({"dd", "if=/dev/zero", "of=" + dev, "oflag=direct",
                         "conv=fsync", "bs=4096", "count=1", "status=none"});
}

std::vector<json> OfOp(const std::vector<json>& records,
                       const std::string& op) {
  std::vector<json> out;
  for (const json& r : records) {
    if (r.value("op", "") == op) out.push_back(r);
  }
  return out;
}

// Issue #26: the block layer's flush request is not in sysfs `inflight`,
// which gates the stuck look, so a hung cache flush was never reported,
// and at exit it counted twice as unfinished (the flush request and the
// fsync's own request waiting for it).  It is reported while it hangs, and
// counted once.
TEST(Stuck, AHangingFlushIsReportedWhileItHangsAndCountedOnce) {
  BIOSNOOP_REQUIRE_ROOT();
  constexpr int kDelayMs = 8000;
  SlowDisk slow({.size_mib = 16, .flush_delay_ms = kDelayMs});
  ASSERT_TRUE(slow.ok()) << slow.error();
  Biosnoop b({"--stuck-after", "1s", "-d", slow.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  Child dd = StartWriteAndFsync(slow.loop_path());
  ASSERT_TRUE(dd.started()) << dd.result().Describe();
  std::vector<json> stuck;
  bool dd_running_when_seen = false;
  while (dd.Running()) {
    stuck = OfOp(b.RecordsOfType("stuck"), "flush");
    if (!stuck.empty()) {
      dd_running_when_seen = dd.Running();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(stuck.size(), 1u) << "awaited a stuck flush record while dd waits "
                                 "for its fsync:\n"
                              << b.Stdout() << b.Stderr();
  EXPECT_TRUE(dd_running_when_seen)
      << "reported only after the flush completed";
  const json& s = stuck[0];
  EXPECT_EQ(s["disk"], slow.loop_name());
  EXPECT_EQ(s["sector"], 0);
  EXPECT_EQ(s["bytes"], 0);
  EXPECT_EQ(s["rwbs"].get<std::string>().front(), 'F') << s;
  EXPECT_GE(s["inflight_us"].get<uint64_t>(), 1000000u);

  // Stopped while the flush still hangs (the daemon has answered none).
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  absl::StatusOr<SlowDiskCounters> c = slow.Counters();
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->flushes, 0u) << "the flush completed before biosnoop stopped";
  EXPECT_EQ(OfOp(b.RecordsOfType("stuck"), "flush").size(), 1u) << b.Stdout();
  EXPECT_TRUE(OfOp(b.RecordsOfType("stuck"), "write").empty()) << b.Stdout();
  std::map<std::string, double> summary = b.Summary();
  EXPECT_EQ(summary["unfinished"], 1) << b.Stderr();
  EXPECT_EQ(summary["missed"], 0) << b.Stderr();
  EXPECT_TRUE(ExitedWith(dd.Wait(), 0));
}

// Nothing is stuck for a read answered before --stuck-after, nor with
// --stuck-after 0, nor for a process the filters leave out; each run still
// gets the read's event, or its filter counts it.
TEST(Stuck, FasterReadsTheOffSwitchAndFiltersReportNothing) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 16, .read_delay_ms = 2500});
  ASSERT_TRUE(slow.ok()) << slow.error();
  const std::string disk = slow.loop_name();
  Biosnoop longer({"--stuck-after", "5s", "-d", disk});
  Biosnoop off({"--stuck-after", "0", "-d", disk});
  Biosnoop other_pid({"--stuck-after", "1s", "-p", "1", "-d", disk});
  Biosnoop other_op({"--stuck-after", "1s", "--op", "write", "-d", disk});
  Biosnoop watching({"--stuck-after", "1s", "-d", disk});
  for (Biosnoop* b : {&longer, &off, &other_pid, &other_op, &watching}) {
    ASSERT_TRUE(b->WaitAttached()) << b->Stderr();
  }
  Child read = StartDirectRead(slow.loop_path(), 7);
  ASSERT_TRUE(ExitedWith(read.Wait(), 0));
  const pid_t dd = read.pid();
  // Every run that logs the read has written its event (and `watching`
  // its stuck record, made while the read was in flight); the others were
  // attached for the read's whole life, which is over.
  auto of_dd = [dd](const json& r) { return r.value("pid", 0) == dd; };
  for (Biosnoop* b : {&longer, &off, &watching}) {
    ASSERT_TRUE(b->WaitForRecords("event", 1, of_dd));
  }
  ASSERT_TRUE(watching.WaitForRecords("stuck", 1, of_dd));
  for (Biosnoop* b : {&longer, &off, &other_pid, &other_op, &watching}) {
    ASSERT_EQ(b->Stop(), 0) << b->Stderr();
  }
  // The one that does report it: the read was stuck for 1 s.
  EXPECT_EQ(OfPid(watching.RecordsOfType("stuck"), dd).size(), 1u)
      << watching.Stdout();
  for (Biosnoop* b : {&longer, &off}) {
    EXPECT_TRUE(b->RecordsOfType("stuck").empty()) << b->Stdout();
    EXPECT_EQ(OfPid(b->Events(), dd).size(), 1u) << b->Stdout();
  }
  for (Biosnoop* b : {&other_pid, &other_op}) {
    EXPECT_TRUE(b->RecordsOfType("stuck").empty()) << b->Stdout();
    EXPECT_TRUE(OfPid(b->Events(), dd).empty()) << b->Stdout();
  }
  EXPECT_EQ(off.RecordsOfType("header")[0]["stuck_after_us"], 0);
}

}  // namespace
}  // namespace biosnoop::testing
