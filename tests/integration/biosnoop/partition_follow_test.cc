// -d PART follows its partition while biosnoop runs (issue #26): resized
// (resizepart, what growpart does), moved, deleted and added again, the
// kernel filter and the event's `partition` name follow what sysfs says,
// and biosnoop says so on stderr.  Real partitions (BLKPG through
// addpart/resizepart/delpart) on a real loop device.

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// A node for partition `name` in `dir` (no udev here), from its sysfs dev;
// made again each time, since a partition added again may get another
// minor.  Empty on failure.
std::string PartitionNode(const std::string& dir, const std::string& name) {
  const std::string dev = Slurp("/sys/class/block/" + name + "/dev");
  unsigned ma = 0, mi = 0;
  if (sscanf(dev.c_str(), "%u:%u", &ma, &mi) != 2) return "";
  const std::string node = dir + "/" + name;
  unlink(node.c_str());
  if (mknod(node.c_str(), S_IFBLK | 0600, makedev(ma, mi)) != 0) return "";
  return node;
}

// Waits, up to 20 s, until `done` holds; false (the caller says what it
// awaited) when it never did.
bool WaitUntil(const std::function<bool()>& done) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

bool Contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Events at `sector` of the whole disk.
std::vector<json> AtSector(const std::vector<json>& events, uint64_t sector) {
  std::vector<json> out;
  for (const json& e : events) {
    if (e.value("sector", uint64_t{0}) == sector) out.push_back(e);
  }
  return out;
}

class PartitionFollowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!IsRoot()) return;
    ASSERT_TRUE(disk_.ok());
    ASSERT_FALSE(nodes_.path().empty());
  }
  void TearDown() override {
    for (int n = 1; n <= 2; ++n)
      Part({"delpart", disk_.path(), std::to_string(n)});
  }
  // addpart/resizepart/delpart DISK N [START LENGTH], quietly failing
  // when told to delete what is not there.
  static int Part(const std::vector<std::string>& argv) {
    return RunCommand(argv);
  }
  std::string P(int n) const { return disk_.name() + "p" + std::to_string(n); }

  LoopDevice disk_{32};
  TempDir nodes_;
};

// The case: a partition grown while biosnoop runs; I/O past its old
// end is an event, named after it.  Also the name: the disk's partitions as
// biosnoop read them when the first event came (p1, then p2 after it) are
// stale once p2 is deleted and p1 grown over its sectors, and the event
// must not be named after p2.
TEST_F(PartitionFollowTest, AGrownPartitionIsFollowed) {
  BIOSNOOP_REQUIRE_ROOT();
  ASSERT_EQ(Part({"addpart", disk_.path(), "1", "2048", "8192"}), 0);
  ASSERT_EQ(Part({"addpart", disk_.path(), "2", "10240", "8192"}), 0);
  std::string p1 = PartitionNode(nodes_.path(), P(1));
  ASSERT_FALSE(p1.empty());
  Biosnoop b({"-d", P(1)});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(p1, true, 4096, 1).exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return !AtSector(b.Events(), 2048).empty(); }))
      << "no event for the read at the partition's start:\n"
      << b.Stdout();

  ASSERT_EQ(Part({"delpart", disk_.path(), "2"}), 0);
  ASSERT_EQ(Part({"resizepart", disk_.path(), "1", "32768"}), 0);
  const std::string said =
      "partition " + P(1) + " is now sectors [2048, 34816) of " + disk_.name();
  ASSERT_TRUE(WaitUntil([&] { return Contains(b.Stderr(), said); }))
      << "awaited \"" << said << "\" on stderr:\n"
      << b.Stderr();

  // Block 2000 of the partition: sector 2048 + 16000, in old p2's range.
  p1 = PartitionNode(nodes_.path(), P(1));
  ASSERT_EQ(DirectDd(p1, true, 4096, 1, 2000).exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return !AtSector(b.Events(), 18048).empty(); }))
      << "no event for the read past the partition's old end:\n"
      << b.Stdout() << b.Stderr();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::vector<json> grown = AtSector(b.Events(), 18048);
  ASSERT_EQ(grown.size(), 1u) << b.Stdout();
  EXPECT_EQ(grown[0]["partition"], P(1)) << grown[0];
  EXPECT_EQ(grown[0]["disk"], disk_.name()) << grown[0];
  // (filtered may count a flush: BLKPG's changes can flush the disk, and a
  // flush has no sector in any partition.)
}

// Deleted: nothing on the disk is the partition's, said on stderr, and its
// I/O is counted as filtered.  Added again elsewhere, with another
// partition on its old sectors: the filter follows the name, and the other
// partition's I/O stays out.
TEST_F(PartitionFollowTest, ADeletedPartitionMatchesNothingUntilAddedAgain) {
  BIOSNOOP_REQUIRE_ROOT();
  ASSERT_EQ(Part({"addpart", disk_.path(), "1", "2048", "8192"}), 0);
  Biosnoop b({"-d", P(1), "--stats-interval", "1"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  ASSERT_EQ(Part({"delpart", disk_.path(), "1"}), 0);
  const std::string gone = "partition " + P(1) + " no longer exists";
  ASSERT_TRUE(WaitUntil([&] { return Contains(b.Stderr(), gone); }))
      << "awaited \"" << gone << "\" on stderr:\n"
      << b.Stderr();
  // Its old first block, read through the whole disk.
  ASSERT_EQ(DirectDd(disk_.path(), true, 4096, 1, 256).exit_code, 0);
  auto filtered_at_least = [&](int n) {
    for (const json& s : b.RecordsOfType("stats")) {
      if (s.value("filtered", 0) >= n) return true;
    }
    return false;
  };
  ASSERT_TRUE(WaitUntil([&] { return filtered_at_least(1); }))
      << "awaited a stats record with filtered >= 1:\n"
      << b.Stdout();

  ASSERT_EQ(Part({"addpart", disk_.path(), "2", "2048", "8192"}), 0);
  ASSERT_EQ(Part({"addpart", disk_.path(), "1", "40960", "8192"}), 0);
  const std::string back =
      "partition " + P(1) + " is now sectors [40960, 49152) of " + disk_.name();
  ASSERT_TRUE(WaitUntil([&] { return Contains(b.Stderr(), back); }))
      << "awaited \"" << back << "\" on stderr:\n"
      << b.Stderr();
  const std::string p2 = PartitionNode(nodes_.path(), P(2));
  const std::string p1 = PartitionNode(nodes_.path(), P(1));
  ASSERT_FALSE(p1.empty() || p2.empty());
  ASSERT_EQ(DirectDd(p2, true, 4096, 1).exit_code, 0);  // sector 2048
  ASSERT_EQ(DirectDd(p1, true, 4096, 1).exit_code, 0);  // sector 40960
  ASSERT_TRUE(WaitUntil([&] { return !AtSector(b.Events(), 40960).empty(); }))
      << "no event for the read in the partition's new place:\n"
      << b.Stdout() << b.Stderr();
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::vector<json> events = b.Events();
  ASSERT_EQ(events.size(), 1u) << b.Stdout();
  EXPECT_EQ(events[0]["partition"], P(1)) << events[0];
  EXPECT_TRUE(AtSector(events, 2048).empty()) << b.Stdout();
  EXPECT_EQ(b.Summary()["filtered"], 2) << b.Stderr();
}

}  // namespace
}  // namespace biosnoop::testing
