// --cgroup followed by its path (CgroupWatch) over a fake cgroup tree: plain
// directories, whose inode numbers stand for the cgroups' ids as in
// cgroupfs.

#include "cgroup_watch.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

uint64_t Inode(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

class CgroupWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cgroup_watch_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    dir_ = root_ + "/system.slice/x.service";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(root_); }

  ProbeConfig Config() const {
    ProbeConfig c;
    c.cgroup_id = Inode(dir_);
    c.cgroup_level = 2;
    c.cgroup_dir = dir_;
    return c;
  }

  std::string root_;
  std::string dir_;
};

TEST_F(CgroupWatchTest, FollowsThePathThroughRemovalAndRemaking) {
  CgroupWatch watch(Config(), "/system.slice/x.service");
  EXPECT_FALSE(watch.Check().has_value());  // as at start

  fs::remove(dir_);
  std::optional<CgroupWatch::Change> c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, kNoCgroup);
  EXPECT_EQ(c->message,
            "biosnoop: --cgroup /system.slice/x.service: removed; matching "
            "nothing until it exists again (I/O counted as filtered)");
  EXPECT_FALSE(watch.Check().has_value());  // said once

  // Another directory first, so the new one cannot get the old inode.
  fs::create_directory(root_ + "/spacer");
  fs::create_directory(dir_);
  const uint64_t made = Inode(dir_);
  c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, made);
  EXPECT_EQ(c->message,
            "biosnoop: --cgroup /system.slice/x.service: made again (id " +
                std::to_string(made) + "), following it");
  EXPECT_FALSE(watch.Check().has_value());
}

// systemd's restart is quicker than a check: the id changed with no check
// seeing the path gone.
TEST_F(CgroupWatchTest, RemovedAndMadeAgainBetweenTwoChecks) {
  CgroupWatch watch(Config(), "/x");
  const std::string moved = root_ + "/old";
  fs::rename(dir_, moved);  // keeps the old inode alive: a new one below
  fs::create_directory(dir_);
  std::optional<CgroupWatch::Change> c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, Inode(dir_));
  EXPECT_NE(c->id, Inode(moved));
  EXPECT_THAT(c->message,
              HasSubstr("--cgroup /x: removed and made again (id "));
  EXPECT_FALSE(watch.Check().has_value());
}

TEST_F(CgroupWatchTest, AFileInItsPlaceIsNoCgroup) {
  CgroupWatch watch(Config(), "/x");
  fs::remove(dir_);
  std::ofstream(dir_) << "not a cgroup";
  std::optional<CgroupWatch::Change> c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, kNoCgroup);
}

TEST_F(CgroupWatchTest, AParentThatIsAFileMeansRemoved) {
  CgroupWatch watch(Config(), "/x");
  fs::remove_all(root_ + "/system.slice");
  std::ofstream(root_ + "/system.slice") << "";  // ENOTDIR below it
  std::optional<CgroupWatch::Change> c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, kNoCgroup);
}

// An error other than "not there" (EACCES, ENOMEM; here ELOOP, which root
// gets too) says nothing of the cgroup: no change, looked at again later.
TEST_F(CgroupWatchTest, APathThatCannotBeReadNowIsNoChange) {
  CgroupWatch watch(Config(), "/x");
  const std::string parent = root_ + "/system.slice";
  fs::rename(parent, root_ + "/aside");
  fs::create_symlink("system.slice", parent);  // a loop: ELOOP
  EXPECT_FALSE(watch.Check().has_value());
  fs::remove(parent);
  fs::rename(root_ + "/aside", parent);
  EXPECT_FALSE(watch.Check().has_value());  // the same cgroup all along
}

TEST_F(CgroupWatchTest, WatchesNothingWithoutCgroup) {
  ProbeConfig none;
  CgroupWatch watch(none, "");
  fs::remove(dir_);
  EXPECT_FALSE(watch.Check().has_value());
}

}  // namespace
}  // namespace biosnoop
