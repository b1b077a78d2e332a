// Cgroups on the real kernel: each event names the cgroup v2 of the task
// that submitted it (cgroups the test creates after biosnoop started,
// real processes in them, a real slow disk), --cgroup keeps exactly one
// subtree's I/O and counts the rest as filtered in the kernel, container
// and pod ids come from container-shaped cgroup names, and a removed
// cgroup keeps its id with no path.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cgroup_reads.h"
#include "cgroups.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

constexpr int kBlock = 4096;
constexpr int kReads = 6;

// Sectors of the kReads blocks from block `skip`.
std::set<uint64_t> Sectors(int skip) {
  std::set<uint64_t> out;
  for (int i = 0; i < kReads; ++i) out.insert((skip + i) * (kBlock / 512));
  return out;
}

std::set<uint64_t> SectorsOf(const std::vector<json>& events) {
  std::set<uint64_t> out;
  for (const json& e : events) out.insert(e["sector"].get<uint64_t>());
  return out;
}

std::vector<json> InCgroup(const std::vector<json>& events, uint64_t id) {
  std::vector<json> out;
  for (const json& e : events) {
    if (e.value("cgroup_id", uint64_t{0}) == id) out.push_back(e);
  }
  return out;
}

class CgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BIOSNOOP_REQUIRE_ROOT();
    SlowDiskOptions o;
    o.read_delay_ms = 15;
    disk_ = std::make_unique<SlowDisk>(o);
    ASSERT_TRUE(disk_->ok()) << disk_->error();
  }
  std::unique_ptr<SlowDisk> disk_;
};

// Two processes in two cgroups made after biosnoop started, each reading
// its own region of one slow disk: every event names its submitter's
// cgroup, path and id.
TEST_F(CgroupTest, EachEventNamesItsOwnCgroupMadeAfterStart) {
  Biosnoop b({"--min-us", "10000", "-d", disk_->loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string a = cg.Add("a.service");
  const std::string c = cg.Add("b.slice/c.scope");
  ASSERT_FALSE(a.empty() || c.empty());
  ASSERT_EQ(DirectReadInCgroup(cg, a, disk_->loop_path(), kBlock, kReads, 0),
            0);
  ASSERT_EQ(DirectReadInCgroup(cg, c, disk_->loop_path(), kBlock, kReads, 1000),
            0);
  ASSERT_TRUE(b.WaitForRecords("event", 2 * kReads));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> events = b.Events();
  const std::vector<json> in_a = InCgroup(events, cg.Id(a));
  const std::vector<json> in_c = InCgroup(events, cg.Id(c));
  EXPECT_EQ(SectorsOf(in_a), Sectors(0));
  EXPECT_EQ(SectorsOf(in_c), Sectors(1000));
  for (const json& e : in_a) {
    EXPECT_EQ(e["cgroup"], a) << e;
    EXPECT_EQ(e["comm"], "dd") << e;
    EXPECT_TRUE(e["container_id"].is_null()) << e;
  }
  for (const json& e : in_c) EXPECT_EQ(e["cgroup"], c) << e;
}

// --cgroup keeps exactly one subtree's events; the other cgroup's I/O is
// counted as filtered in the kernel and never emitted.
TEST_F(CgroupTest, CgroupFilterKeepsOneSubtreeInTheKernel) {
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string kept = cg.Add("kept");
  const std::string below = cg.Add("kept/below");
  const std::string other = cg.Add("other");
  ASSERT_FALSE(kept.empty() || below.empty() || other.empty());
  Biosnoop b({"--min-us", "10000", "-d", disk_->loop_name(), "--cgroup",
              cg.mount() + kept});  // its path under the mount works too
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(
      DirectReadInCgroup(cg, other, disk_->loop_path(), kBlock, kReads, 2000),
      0);
  ASSERT_EQ(DirectReadInCgroup(cg, kept, disk_->loop_path(), kBlock, kReads, 0),
            0);
  ASSERT_EQ(
      DirectReadInCgroup(cg, below, disk_->loop_path(), kBlock, kReads, 1000),
      0);
  ASSERT_TRUE(b.WaitForRecords("event", 2 * kReads));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> events = b.Events();
  EXPECT_EQ(events.size(), 2u * kReads);
  std::set<uint64_t> want = Sectors(0);
  want.merge(Sectors(1000));
  EXPECT_EQ(SectorsOf(events), want);
  EXPECT_TRUE(InCgroup(events, cg.Id(other)).empty());
  const std::vector<json> stats = b.RecordsOfType("stats");
  ASSERT_FALSE(stats.empty());
  // Every read of the other cgroup was slow and dropped in the kernel.
  EXPECT_GE(stats.back()["filtered"].get<uint64_t>(), uint64_t{kReads});
  EXPECT_EQ(stats.back()["emitted"].get<uint64_t>(), 2u * kReads);
  const std::vector<json> headers = b.RecordsOfType("header");
  ASSERT_FALSE(headers.empty());
  EXPECT_EQ(headers[0]["cgroup_filter"], cg.mount() + kept);
}

TEST(CgroupOption, NoSuchCgroupIsABadUsage) {
  BIOSNOOP_REQUIRE_ROOT();
  Biosnoop b({"--cgroup", "/no-such-cgroup-biosnoop-test"});
  EXPECT_EQ(b.Wait(), 64) << b.Stderr();
  EXPECT_NE(b.Stderr().find("no such cgroup"), std::string::npos) << b.Stderr();
}

// Container-shaped cgroups, as docker and a kubelet with containerd name
// them: the container id and the pod uid come from the names.
TEST_F(CgroupTest, ContainerAndPodIdsFromContainerShapedCgroups) {
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string docker_id(64, 'd');
  const std::string cri_id = std::string(32, '0') + std::string(32, 'f');
  const std::string uid = "8d2f1e3a-4b5c-4d6e-9f70-a1b2c3d4e5f6";
  std::string uid_ = uid;
  std::replace(uid_.begin(), uid_.end(), '-', '_');
  const std::string docker =
      cg.Add("system.slice/docker-" + docker_id + ".scope");
  const std::string pod =
      cg.Add("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
             uid_ + ".slice/cri-containerd-" + cri_id + ".scope");
  ASSERT_FALSE(docker.empty() || pod.empty());
  Biosnoop b({"--min-us", "10000", "-d", disk_->loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(
      DirectReadInCgroup(cg, docker, disk_->loop_path(), kBlock, kReads, 0), 0);
  ASSERT_EQ(
      DirectReadInCgroup(cg, pod, disk_->loop_path(), kBlock, kReads, 1000), 0);
  ASSERT_TRUE(b.WaitForRecords("event", 2 * kReads));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> events = b.Events();
  const std::vector<json> in_docker = InCgroup(events, cg.Id(docker));
  const std::vector<json> in_pod = InCgroup(events, cg.Id(pod));
  EXPECT_EQ(in_docker.size(), size_t{kReads});
  EXPECT_EQ(in_pod.size(), size_t{kReads});
  for (const json& e : in_docker) {
    EXPECT_EQ(e["container_id"], docker_id) << e;
    EXPECT_TRUE(e["pod_uid"].is_null()) << e;
  }
  for (const json& e : in_pod) {
    EXPECT_EQ(e["cgroup"], pod) << e;
    EXPECT_EQ(e["container_id"], cri_id) << e;
    EXPECT_EQ(e["pod_uid"], uid) << e;
  }
}

// Starts a dd reading one block of `dev` at block `skip` with O_DIRECT in
// cgroup `rel`.
Child StartReaderIn(const Cgroups& cg, const std::string& rel,
                    const std::string& dev, int skip) {
  return Child::Program(
      {"dd", "if=" + dev, "of=/dev/null", "iflag=direct", "status=none",
       "bs=4096", "count=1", "skip=" + std::to_string(skip)},
      InCgroup(cg, rel));
}

// Moves task `pid` into cgroup `rel`.
bool MoveTo(const Cgroups& cg, const std::string& rel, pid_t pid) {
  std::ofstream procs(cg.mount() + rel + "/cgroup.procs");
  procs << pid << "\n";
  procs.flush();
  return procs.good();
}

// A read whose task moves to another cgroup while it waits on the disk.
class MovedReaderTest : public CgroupTest {
 protected:
  // Starts the reader in `from` and moves it to `to` once its read is
  // on the disk (slowed to 2.5 s); biosnoop runs with --stuck-after 1.
  void StartAndMove(Cgroups& cg, const std::string& from,
                    const std::string& to) {
    ASSERT_TRUE(disk_->Set("read_delay_ms=2500").ok());
    reader_ = StartReaderIn(cg, from, disk_->loop_path(), 3000);
    ASSERT_TRUE(reader_.started()) << reader_.result().Describe();
    ASSERT_TRUE(WaitUntil(
        [&] {
          absl::StatusOr<SlowDiskCounters> c = disk_->Counters();
          return c.ok() && c->in_flight >= 1;
        },
        10000))
        << "the read never reached the disk";
    ASSERT_TRUE(MoveTo(cg, to, reader_.pid()));
  }
  void TearDown() override {
    if (reader_.started()) EXPECT_TRUE(ExitedWith(reader_.Wait(), 0));
  }
  Child reader_;
};

// The task's /proc/<tid>/cgroup names its new cgroup: the one the I/O
// came from is found by walking the tree (the ids differ).
TEST_F(MovedReaderTest, CgroupOfAMovedTaskIsFoundByWalkingTheTree) {
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string from = cg.Add("from");
  const std::string to = cg.Add("to");
  ASSERT_FALSE(from.empty() || to.empty());
  Biosnoop b(
      {"--min-us", "10000", "-d", disk_->loop_name(), "--stuck-after", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  StartAndMove(cg, from, to);
  ASSERT_TRUE(b.WaitForRecords("stuck", 1));
  ASSERT_TRUE(b.WaitForRecords("event", 1));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  for (const json& r : b.Records()) {
    if (r["type"] != "event" && r["type"] != "stuck") continue;
    EXPECT_EQ(r["cgroup_id"], cg.Id(from)) << r;
    EXPECT_EQ(r["cgroup"], from) << r;
  }
}

// A cgroup removed while its I/O was in flight: the stuck record and the
// event keep its id and have no path (no made-up name).
TEST_F(MovedReaderTest, RemovedCgroupKeepsItsIdAndHasNoPath) {
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string gone = cg.Add("gone");
  const std::string to = cg.Add("to");
  ASSERT_FALSE(gone.empty() || to.empty());
  const uint64_t gone_id = cg.Id(gone);
  Biosnoop b(
      {"--min-us", "10000", "-d", disk_->loop_name(), "--stuck-after", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  StartAndMove(cg, gone, to);
  ASSERT_TRUE(cg.Remove(gone)) << strerror(errno);
  ASSERT_TRUE(b.WaitForRecords("stuck", 1));
  ASSERT_TRUE(b.WaitForRecords("event", 1));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  for (const json& r : b.Records()) {
    if (r["type"] != "event" && r["type"] != "stuck") continue;
    EXPECT_EQ(r["cgroup_id"], gone_id) << r;
    EXPECT_TRUE(r["cgroup"].is_null()) << r;
  }
}

}  // namespace
}  // namespace biosnoop::testing
