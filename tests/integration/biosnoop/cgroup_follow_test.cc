// --cgroup follows its path while biosnoop runs (issue #39), as systemd
// makes a service's cgroup again at each restart: the cgroup removed, its
// I/O after that made again under the same path still logged, and each
// change said once on stderr.  Real cgroups, real processes in them, direct
// I/O on a real loop device.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cgroup_reads.h"
#include "cgroups.h"
#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

constexpr int kBlock = 4096;
constexpr int kReads = 4;

// An event of those reads, submitted in the cgroup `id`.
auto ReadOf(int skip, uint64_t id) {
  return [skip, id](const json& e) {
    const uint64_t first = static_cast<uint64_t>(skip) * (kBlock / 512);
    const uint64_t sector = e.value("sector", uint64_t{0});
    return e.value("cgroup_id", uint64_t{0}) == id && sector >= first &&
           sector < first + kReads * (kBlock / 512);
  };
}

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

TEST(CgroupFollowTest, FollowsItsPathWhenTheCgroupIsMadeAgain) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(16);
  ASSERT_TRUE(disk.ok());
  Cgroups cg;
  REQUIRE_CGROUPS(cg);
  const std::string t = cg.Add("t.service");
  ASSERT_FALSE(t.empty());
  const uint64_t first_id = cg.Id(t);
  Biosnoop b({"--min-us", "0", "-d", disk.name(), "--cgroup", t});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  ASSERT_EQ(DirectReadInCgroup(cg, t, disk.path(), kBlock, kReads, 0), 0);
  ASSERT_TRUE(b.WaitForRecords("event", kReads, ReadOf(0, first_id)));

  ASSERT_TRUE(cg.Remove(t));
  const std::string removed =
      absl::StrCat("biosnoop: --cgroup ", t,
                   ": removed; matching nothing until it exists again");
  ASSERT_TRUE(b.WaitForStderr(removed));

  ASSERT_EQ(cg.Add("t.service"), t);
  const uint64_t second_id = cg.Id(t);
  ASSERT_NE(second_id, first_id);
  const std::string made =
      absl::StrCat("biosnoop: --cgroup ", t, ": made again (id ", second_id,
                   "), following it");
  ASSERT_TRUE(b.WaitForStderr(made));
  ASSERT_EQ(DirectReadInCgroup(cg, t, disk.path(), kBlock, kReads, 1000), 0);
  ASSERT_TRUE(b.WaitForRecords("event", kReads, ReadOf(1000, second_id)));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  // Only the cgroup's reads, each once; each change said once.
  const std::vector<json> events = b.Events();
  std::set<uint64_t> sectors;
  for (const json& e : events) {
    EXPECT_TRUE(ReadOf(0, first_id)(e) || ReadOf(1000, second_id)(e)) << e;
    EXPECT_TRUE(sectors.insert(e.value("sector", uint64_t{0})).second) << e;
  }
  EXPECT_EQ(events.size(), 2u * kReads);
  EXPECT_EQ(Occurrences(b.Stderr(), removed), 1u) << b.Stderr();
  EXPECT_EQ(Occurrences(b.Stderr(), made), 1u) << b.Stderr();
  EXPECT_EQ(Occurrences(b.Stderr(), "--cgroup " + t), 2u) << b.Stderr();
}

}  // namespace
}  // namespace biosnoop::testing
