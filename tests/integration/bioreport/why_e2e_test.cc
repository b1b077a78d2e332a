// The noisy neighbour (issue #39), end to end on a slow disk: a victim
// (pgwal, cgroup victim) appends 4 KiB and fdatasyncs, over and over; part
// way through, a noisy process (cgroup noisy) writes thousands of small
// files and syncs them.  biosnoop --ops must say, in the victim's op
// records, that its slowest calls waited for the noisy cgroup's writeback
// (the pages' dirtier, from the ledger) and that its steady calls waited
// for its own journal commits; bioreport why must rank the same causes
// from the file alone.

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cgroups.h"
#include "child_process.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

uint64_t U(const json& j, const char* key) { return j.value(key, uint64_t{0}); }

const char* const kLayers[] = {"block", "writeback", "journal", "flush",
                               "others_writeback"};

// The layer the call waited longest for.
std::string MainLayer(const json& op) {
  std::string best = "other";
  uint64_t most = U(op, "other_us");
  for (const char* l : kLayers) {
    if (U(op[l], "wait_us") > most) {
      most = U(op[l], "wait_us");
      best = l;
    }
  }
  return best;
}

TEST(WhyEndToEnd, TheNoisyCgroupIsTheCauseOfTheVictimsSlowFdatasyncs) {
  BIOSNOOP_REQUIRE_ROOT();
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string victim_cg = cg.Add("victim");
  const std::string noisy_cg = cg.Add("noisy");
  ASSERT_FALSE(victim_cg.empty());
  ASSERT_FALSE(noisy_cg.empty());
  SlowDisk disk({.size_mib = 256});
  ASSERT_TRUE(disk.ok()) << disk.error();
  Ext4 fs(disk.loop_path());
  ASSERT_TRUE(fs.ok()) << fs.error();
  ASSERT_EQ(mkdir(fs.Path("noise").c_str(), 0755), 0);
  ASSERT_TRUE(disk.Set("write_delay_ms=20 flush_delay_ms=10").ok());

  TempDir tmp;
  const std::string out = tmp.path() + "/why.jsonl";
  Biosnoop b({"--ops", "--min-us", "10000", "-d", disk.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  // The victim: one dot per call on its stdout, until `stop` exists.
  const std::string wal = fs.Path("wal");
  const std::string stop = tmp.path() + "/stop";
  const std::string page(4096, 'v');
  Child victim = Child::Function(
      [&] {
        prctl(PR_SET_NAME, "pgwal", 0, 0, 0);
        const int fd = open(wal.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0) return 1;
        for (int i = 0; i < 3000 && access(stop.c_str(), F_OK) != 0; ++i) {
          if (write(fd, page.data(), page.size()) != ssize_t(page.size())) {
            return 2;
          }
          if (fdatasync(fd) != 0) return 3;
          if (write(1, ".", 1) != 1) return 4;
        }
        return close(fd) == 0 ? 0 : 5;
      },
      InCgroup(cg, victim_cg).Capture(1).Named("pgwal"));
  ASSERT_TRUE(victim.started()) << victim.result().Describe();
  // Steady calls first: ten of them before the noise.
  ASSERT_TRUE(victim.WaitForOutput(std::string(10, '.'), kChildBound))
      << victim.result().Describe();

  // The noise: 3,000 files of 16 KiB, then syncfs: thousands of writes
  // queued on the disk at once.
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i)
    names.push_back(fs.Path("noise/f") + std::to_string(i));
  const std::string chunk(16384, 'n');
  const std::string noise_dir = fs.Path("noise");
  Child noisy = Child::Function(
      [&] {
        for (const std::string& n : names) {
          const int fd = open(n.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
          if (fd < 0) return 1;
          if (write(fd, chunk.data(), chunk.size()) != ssize_t(chunk.size())) {
            return 2;
          }
          if (close(fd) != 0) return 3;
        }
        const int dfd = open(noise_dir.c_str(), O_RDONLY | O_DIRECTORY);
        if (dfd < 0 || syncfs(dfd) != 0) return 4;
        return close(dfd) == 0 ? 0 : 5;
      },
      InCgroup(cg, noisy_cg).Named("noisy"));
  ASSERT_TRUE(noisy.started()) << noisy.result().Describe();
  ASSERT_TRUE(ExitedWith(noisy.Wait(), 0));
  // Steady again: ten more calls after the noise, then stop.
  const size_t calls_so_far = victim.output().size();
  ASSERT_TRUE(
      victim.WaitForOutput(std::string(calls_so_far + 10, '.'), kChildBound));
  {
    const int fd = open(stop.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  ASSERT_TRUE(ExitedWith(victim.Wait(), 0));
  const size_t calls = victim.output().size();
  ASSERT_TRUE(b.WaitForRecords("op", calls, [](const json& o) {
    return o["comm"] == "pgwal" && o["call"] == "fdatasync";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<json> ops;
  for (const json& o : b.RecordsOfType("op")) {
    if (o["comm"] == "pgwal" && o["call"] == "fdatasync") ops.push_back(o);
  }
  ASSERT_EQ(ops.size(), calls);
  std::sort(ops.begin(), ops.end(), [](const json& a, const json& c) {
    return U(a, "op_id") < U(c, "op_id");
  });
  // The first ten calls ran alone: their time is the victim's own data
  // write, its journal commit and the flushes, none of it anyone else's.
  for (size_t i = 0; i < 10; ++i) {
    SCOPED_TRACE(ops[i].dump());
    EXPECT_GT(U(ops[i]["journal"], "wait_us"), 0u);
    EXPECT_EQ(U(ops[i]["others_writeback"], "wait_us"), 0u);
    EXPECT_LE(U(ops[i], "other_us") * 10, U(ops[i], "latency_us"));
  }
  // The slowest call waited mostly for the noisy cgroup's writeback, and
  // its first culprit is the noisy process, as the pages' dirtier.
  const json& slowest = *std::max_element(
      ops.begin(), ops.end(), [](const json& a, const json& c) {
        return U(a, "latency_us") < U(c, "latency_us");
      });
  SCOPED_TRACE(slowest.dump());
  EXPECT_EQ(MainLayer(slowest), "others_writeback");
  EXPECT_LE(U(slowest, "other_us") * 10, U(slowest, "latency_us"));
  const json& culprits = slowest["others_writeback"]["culprits"];
  ASSERT_FALSE(culprits.empty());
  EXPECT_EQ(culprits[0]["cgroup"], noisy_cg);
  EXPECT_EQ(culprits[0]["role"], "dirtier");
  EXPECT_EQ(U(culprits[0], "pid"), uint64_t(noisy.pid()));
}

}  // namespace
}  // namespace biosnoop::testing
