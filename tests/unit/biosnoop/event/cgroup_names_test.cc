// Naming cgroup ids (cgroup_names.h): the bounded cache, the lookups in a
// cgroup-like tree (a temporary directory: readdir's d_ino is the inode
// there too) and a fake /proc, the v2 mount in mountinfo, --cgroup paths.

#include "cgroup_names.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

namespace fs = std::filesystem;

CgroupLookup Found(const std::string& path) {
  return {CgroupLookup::Result::kFound, path};
}

TEST(CgroupNamesCache, BoundedLeastRecentlyUsedOut) {
  std::vector<uint64_t> looked_up;
  CgroupNames names(
      [&](uint64_t id, uint32_t) {
        looked_up.push_back(id);
        return Found("/cg" + std::to_string(id));
      },
      3);
  for (uint64_t id = 10; id < 1010; ++id) {
    EXPECT_EQ(names.Resolve(id, 0).path, "/cg" + std::to_string(id));
    EXPECT_LE(names.size(), 3u);
  }
  EXPECT_EQ(names.size(), 3u);
  EXPECT_EQ(names.evictions(), 997u);
  EXPECT_EQ(looked_up.size(), 1000u);
  // 1007..1009 are cached; using 1007 makes 1008 the oldest.
  EXPECT_EQ(names.Resolve(1007, 0).path, "/cg1007");
  names.Resolve(5, 0);  // evicts 1008
  looked_up.clear();
  names.Resolve(1009, 0);
  names.Resolve(1007, 0);
  EXPECT_TRUE(looked_up.empty());
  names.Resolve(1008, 0);
  EXPECT_EQ(looked_up, std::vector<uint64_t>{1008});
  EXPECT_EQ(names.hits(), 3u);
}

TEST(CgroupNamesCache, UnknownIdAndNotNowAreNotCachedGoneIs) {
  int calls = 0;
  CgroupLookup::Result next = CgroupLookup::Result::kNotNow;
  CgroupNames names(
      [&](uint64_t, uint32_t) {
        ++calls;
        return CgroupLookup{next, ""};
      },
      8);
  EXPECT_FALSE(names.Resolve(0, 1).known);
  EXPECT_EQ(calls, 0);  // id 0: unknown, never looked up
  EXPECT_FALSE(names.Resolve(42, 1).known);
  EXPECT_FALSE(names.Resolve(42, 1).known);
  EXPECT_EQ(calls, 2);  // not now: asked again
  next = CgroupLookup::Result::kGone;
  EXPECT_FALSE(names.Resolve(42, 1).known);
  EXPECT_FALSE(names.Resolve(42, 1).known);
  EXPECT_EQ(calls, 3);  // gone for good: ids are never reused
}

TEST(CgroupNamesCache, ContainerAndPodFromThePath) {
  const std::string id(64, 'c');
  CgroupNames names(
      [&](uint64_t, uint32_t) {
        return Found("/system.slice/docker-" + id + ".scope");
      },
      8);
  const CgroupLabel& l = names.Resolve(7, 0);
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.container_id, id);
  EXPECT_EQ(l.pod_uid, "");
}

class CgroupFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/biosnoop-cgfs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    root_ = dir_ + "/cgroup";
    proc_ = dir_ + "/proc";
    fs::create_directories(root_ + "/system.slice/a.service");
    fs::create_directories(root_ + "/user.slice/u/s.scope");
    fs::create_directories(proc_ + "/77");
  }
  void TearDown() override { fs::remove_all(dir_); }
  uint64_t Ino(const std::string& rel) {
    struct stat st;
    EXPECT_EQ(stat((root_ + rel).c_str(), &st), 0) << rel;
    return st.st_ino;
  }
  std::string dir_, root_, proc_;
};

TEST_F(CgroupFsTest, RootIsSlashEvenWithoutAMount) {
  CgroupFs none("", proc_, 0);
  const CgroupLookup r = none.Find(1, 0);
  EXPECT_EQ(r.result, CgroupLookup::Result::kFound);
  EXPECT_EQ(r.path, "/");
  EXPECT_EQ(none.Find(99, 0).result, CgroupLookup::Result::kNotNow);
}

TEST_F(CgroupFsTest, ProcHintCheckedByInodeThenAWalk) {
  CgroupFs cgfs(root_, proc_, 1'000'000'000'000);  // one walk, then none
  std::ofstream(proc_ + "/77/cgroup")
      << "1:name=systemd:/x\n0::/system.slice/a.service\n";
  const uint64_t a = Ino("/system.slice/a.service");
  CgroupLookup r = cgfs.Find(a, 77);
  EXPECT_EQ(r.result, CgroupLookup::Result::kFound);
  EXPECT_EQ(r.path, "/system.slice/a.service");
  EXPECT_EQ(cgfs.walks(), 0u);
  // The task's cgroup now is another: the walk finds the id.
  const uint64_t s = Ino("/user.slice/u/s.scope");
  r = cgfs.Find(s, 77);
  EXPECT_EQ(r.result, CgroupLookup::Result::kFound);
  EXPECT_EQ(r.path, "/user.slice/u/s.scope");
  EXPECT_EQ(cgfs.walks(), 1u);
  // No second walk within the interval.
  fs::create_directories(root_ + "/late");
  r = cgfs.Find(Ino("/late"), 0);
  EXPECT_EQ(r.result, CgroupLookup::Result::kNotNow);
  EXPECT_EQ(cgfs.walks(), 1u);
}

TEST_F(CgroupFsTest, RemovedDirectoryIsGone) {
  CgroupFs cgfs(root_, proc_, 0);
  fs::create_directories(root_ + "/brief");
  const uint64_t brief = Ino("/brief");
  fs::remove(root_ + "/brief");
  EXPECT_EQ(cgfs.Find(brief, 0).result, CgroupLookup::Result::kGone);
}

// A container's own cgroup namespace (Kubernetes on a cgroup v2 node):
// /proc names cgroups from the namespace's root, found by our own pid.
TEST_F(CgroupFsTest, FromInsideACgroupNamespace) {
  const std::string ns = "/kubepods.slice/pod1.slice/cri-containerd-c.scope";
  fs::create_directories(root_ + ns + "/inner");
  fs::create_directories(proc_ + "/self");
  fs::create_directories(proc_ + "/78");
  std::ofstream(root_ + "/cgroup.procs") << "1\n2\n";
  std::ofstream(root_ + ns + "/inner/cgroup.procs") << "3\n"
                                                    << getpid() << "\n";
  std::ofstream(proc_ + "/self/cgroup") << "0::/inner\n";
  std::ofstream(proc_ + "/77/cgroup")
      << "0::/../../../system.slice/a.service\n";
  std::ofstream(proc_ + "/78/cgroup") << "0::/\n";
  CgroupFs cgfs(root_, proc_, 1'000'000'000'000);
  EXPECT_EQ(cgfs.ns_root(), ns);
  CgroupLookup r = cgfs.Find(Ino("/system.slice/a.service"), 77);
  EXPECT_EQ(r.result, CgroupLookup::Result::kFound);
  EXPECT_EQ(r.path, "/system.slice/a.service");
  r = cgfs.Find(Ino(ns), 78);
  EXPECT_EQ(r.result, CgroupLookup::Result::kFound);
  EXPECT_EQ(r.path, ns);
  EXPECT_EQ(cgfs.walks(), 0u);  // all from /proc, none by a walk
}

TEST_F(CgroupFsTest, OutsideANamespaceTheRootIsTheRoot) {
  fs::create_directories(proc_ + "/self");
  std::ofstream(proc_ + "/self/cgroup") << "0::/system.slice/a.service\n";
  std::ofstream(root_ + "/system.slice/a.service/cgroup.procs")
      << getpid() << "\n";
  EXPECT_EQ(CgroupNamespaceRoot(root_, proc_), "/");
  // Nobody lists the pid (it cannot be told): as if outside.
  std::ofstream(root_ + "/system.slice/a.service/cgroup.procs") << "1\n";
  EXPECT_EQ(CgroupNamespaceRoot(root_, proc_), "/");
  EXPECT_EQ(CgroupNamespaceRoot("", proc_), "/");
}

TEST(CgroupPathFromRoot, JoinsAndClimbs) {
  EXPECT_EQ(CgroupPathFromRoot("/", "/"), "/");
  EXPECT_EQ(CgroupPathFromRoot("/", "/a/b"), "/a/b");
  EXPECT_EQ(CgroupPathFromRoot("/k/p/c", "/"), "/k/p/c");
  EXPECT_EQ(CgroupPathFromRoot("/k/p/c", "/x"), "/k/p/c/x");
  EXPECT_EQ(CgroupPathFromRoot("/k/p/c", "/../../../init.scope"),
            "/init.scope");
  EXPECT_EQ(CgroupPathFromRoot("/k/p/c", "/../../q/c2"), "/k/q/c2");
  EXPECT_EQ(CgroupPathFromRoot("/k", "/../../.."), "/");
}

TEST(FindCgroup2Mount, FromMountinfo) {
  char tmpl[] = "/tmp/biosnoop-mountinfo-XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(tmpl)
      << "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
         "38 31 0:35 / /sys/fs/cgroup/blkio rw - cgroup cgroup rw,blkio\n"
         "50 31 0:38 /sub /mnt/bind rw - cgroup2 cgroup2 rw\n"
         "41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw shared:9 - cgroup2 "
         "cgroup2 rw\n";
  EXPECT_EQ(FindCgroup2Mount(tmpl), "/sys/fs/cgroup/uni fied");
  // Seen from a cgroup namespace, the host's whole tree is rooted above
  // the namespace's root; a subtree still is not the tree.
  std::ofstream(tmpl)
      << "57 47 0:38 /../.. /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
         "58 47 0:38 /../x /mnt/sub rw - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(FindCgroup2Mount(tmpl), "/sys/fs/cgroup/unified");
  std::ofstream(tmpl) << "58 47 0:38 /../x /mnt/sub rw - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(FindCgroup2Mount(tmpl), "");
  std::ofstream(tmpl) << "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n";
  EXPECT_EQ(FindCgroup2Mount(tmpl), "");
  unlink(tmpl);
}

TEST_F(CgroupFsTest, ResolveCgroupPathRelativeOrUnderTheMount) {
  absl::StatusOr<CgroupTarget> t = ResolveCgroupPath("/user.slice/u/", root_);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->path, "/user.slice/u");
  EXPECT_EQ(t->level, 2u);
  EXPECT_EQ(t->id, Ino("/user.slice/u"));
  t = ResolveCgroupPath(root_ + "/system.slice", root_);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->path, "/system.slice");
  EXPECT_EQ(t->level, 1u);
  t = ResolveCgroupPath("/", root_);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->level, 0u);
  EXPECT_EQ(ResolveCgroupPath("/nope", root_).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveCgroupPath("/user.slice/../x", root_).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveCgroupPath("/x", "").status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace biosnoop
