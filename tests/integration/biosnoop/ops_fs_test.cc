// Calls (--ops) on each file system biosnoop follows (issue #39): ext4,
// xfs, btrfs (no s_bdev: its disk from its own structures) and overlayfs
// (a container's root: the call's real file on the upper file system),
// each on a slow disk; and a call on a file system with no block device
// (FUSE), which is counted and named once on stderr.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "op_records.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// ops_unfollowed in the final summary (-v lists every counter); -1 when
// absent.
double Unfollowed(const Biosnoop& b) {
  const std::map<std::string, double> s = b.Summary();
  const auto it = s.find("ops_unfollowed");
  return it == s.end() ? -1 : it->second;
}

// Whether a request the call submitted is of its block or writeback layer,
// not its journal (a REQ_META write: btrfs's tree log, xfs's log) or flush
// layer, as the kernel side sorts them (op_rq_class), from its event's
// rwbs: "F" first is a preflush, "M" a meta write.
bool BlockOrWriteback(const json& e) {
  const std::string rwbs = e.value("rwbs", "");
  const bool preflush = rwbs.size() > 1 && rwbs[0] == 'F';
  if (e["op"] == "flush" || (preflush && U(e, "bytes") == 0)) return false;
  return !(e["op"] == "write" && rwbs.find('M') != std::string::npos);
}

// The requests of `events` that are of the block or writeback layer.
// (The op's journal layer also counts the journal's writes another
// thread, jbd2, submitted: those are not all among the op's events.)
std::vector<json> BlockOrWritebackOf(const std::vector<json>& events) {
  std::vector<json> out;
  for (const json& e : events) {
    if (BlockOrWriteback(e)) out.push_back(e);
  }
  return out;
}

enum class Kind { kExt4, kXfs, kBtrfs, kOverlay };

std::string KindName(const ::testing::TestParamInfo<Kind>& info) {
  switch (info.param) {
    case Kind::kExt4:
      return "Ext4";
    case Kind::kXfs:
      return "Xfs";
    case Kind::kBtrfs:
      return "Btrfs";
    case Kind::kOverlay:
      return "OverlayOnExt4";
  }
  return "";
}

class OpsFsTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// pwrite + fsync, then a direct pread: both are op records naming the
// path the application used (the merged one on overlayfs), the slow disk,
// the file's inode as stat() gives it, and layers made of the requests
// carrying their op_id.
TEST_P(OpsFsTest, FsyncAndDirectPreadAreFollowed) {
  SlowDisk disk({.size_mib = 320});  // xfs needs 300 MiB at least
  ASSERT_TRUE(disk.ok()) << disk.error();
  const Kind kind = GetParam();
  const FsType type = kind == Kind::kXfs     ? FsType::kXfs
                      : kind == Kind::kBtrfs ? FsType::kBtrfs
                                             : FsType::kExt4;
  FileSystem fs(disk.loop_path(), type);
  ASSERT_TRUE(fs.ok()) << fs.error();
  std::unique_ptr<Overlay> overlay;
  std::string path = fs.Path("wal");
  if (kind == Kind::kOverlay) {
    overlay = std::make_unique<Overlay>(fs);
    ASSERT_TRUE(overlay->ok()) << overlay->error();
    path = overlay->Path("wal");
  }
  ASSERT_TRUE(WriteFile(path, 256 << 10, true));
  ASSERT_TRUE(DropCache(path));
  ASSERT_TRUE(disk.Set("write_delay_ms=30 read_delay_ms=30").ok());

  Biosnoop b({"--ops", "--op-min-us", "0", "--min-us", "0", "-d",
              disk.loop_name(), "--comm", "ops-fs"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string data(16 << 10, 'w');
  AlignedBuffer buf;
  ASSERT_NE(buf.get(), nullptr);
  const pid_t child = RunChildIn(nullptr, "", "ops-fs", [&] {
    const int fd = open(path.c_str(), O_WRONLY);
    if (fd < 0) return 1;
    if (pwrite(fd, data.data(), data.size(), 0) != ssize_t(data.size())) {
      return 2;
    }
    if (fsync(fd) != 0 || close(fd) != 0) return 3;
    const int direct = open(path.c_str(), O_RDONLY | O_DIRECT);
    if (direct < 0) return 4;
    if (pread(direct, buf.get(), 4096, 128 << 10) != 4096) return 5;
    return close(direct) == 0 ? 0 : 6;
  });
  ASSERT_GT(child, 0);
  ASSERT_TRUE(b.WaitForRecords("op", 1, [](const json& o) {
    return o["call"] == "pread64" && o["comm"] == "ops-fs";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  const std::vector<json> events = b.Events();
  const std::vector<json> fsyncs = OpsOf(b, "fsync", "ops-fs");
  ASSERT_EQ(fsyncs.size(), 1u) << b.Stdout();
  const std::vector<json> preads = OpsOf(b, "pread64", "ops-fs");
  ASSERT_EQ(preads.size(), 1u) << b.Stdout();
  for (const json& op : {fsyncs[0], preads[0]}) {
    SCOPED_TRACE(op.dump());
    EXPECT_EQ(U(op, "pid"), uint64_t(child));
    EXPECT_EQ(op["file"]["path"], path);
    EXPECT_EQ(U(op["file"], "inode"), st.st_ino);
    // btrfs: the subvolume's dev, not the super block's.
    EXPECT_EQ(op["file"]["dev"], StatDev(path));
    EXPECT_EQ(op["disk"], disk.loop_name());
    // overlayfs: the upper file behind the merged one, as its own stat()
    // and the events of its pages name it; no other file system has one.
    const std::string real = overlay ? overlay->UpperPath("wal") : "";
    if (overlay) {
      struct stat upper;
      ASSERT_EQ(stat(real.c_str(), &upper), 0);
      ASSERT_TRUE(op.contains("real_file"));
      EXPECT_EQ(op["real_file"]["path"], real);
      EXPECT_EQ(op["real_file"]["path_kind"], "absolute");
      EXPECT_EQ(U(op["real_file"], "inode"), upper.st_ino);
      EXPECT_EQ(op["real_file"]["dev"], StatDev(real));
      EXPECT_EQ(op["real_file"]["direct"], op["file"]["direct"]);
    } else {
      EXPECT_FALSE(op.contains("real_file"));
    }
    const std::vector<json> mine = EventsOf(events, U(op, "op_id"));
    ASSERT_FALSE(mine.empty()) << b.Stdout();
    for (const json& e : mine) {
      EXPECT_EQ(e["comm"], "ops-fs") << e;
      EXPECT_EQ(e["disk"], disk.loop_name()) << e;
      // The events name the file the op record does: the real one.
      if (e.value("content", "") == "file") {
        EXPECT_EQ(e["files"][0]["path"], overlay ? real : path) << e;
        EXPECT_EQ(e["files"][0]["dev"],
                  overlay ? op["real_file"]["dev"] : op["file"]["dev"])
            << e;
      }
    }
    ExpectLayersAre(op, BlockOrWritebackOf(mine));
  }
  // The data the fsync forced out is its writeback; the direct read its
  // own block request.
  EXPECT_GE(U(fsyncs[0]["writeback"], "requests"), 1u) << fsyncs[0];
  EXPECT_GE(U(preads[0]["block"], "requests"), 1u) << preads[0];
  EXPECT_EQ(preads[0]["file"]["direct"], true) << preads[0];
  EXPECT_EQ(Unfollowed(b), 0) << b.Stderr();
}

INSTANTIATE_TEST_SUITE_P(FileSystems, OpsFsTest,
                         ::testing::Values(Kind::kExt4, Kind::kXfs,
                                           Kind::kBtrfs, Kind::kOverlay),
                         KindName);

class OpsUnfollowedTest : public ::testing::Test {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// Calls on a FUSE file (slowdisk's own disk.img): no block device, so no
// op record; each call counted in ops_unfollowed, and the file system
// named once on stderr however many calls follow.
TEST_F(OpsUnfollowedTest, FuseCallsAreCountedAndNamedOnce) {
  SlowDisk disk({.size_mib = 64});
  ASSERT_TRUE(disk.ok()) << disk.error();
  const std::string image = disk.image_path();
  Biosnoop b({"--ops", "--op-min-us", "0", "--comm", "ops-fuse"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  AlignedBuffer buf;
  ASSERT_NE(buf.get(), nullptr);
  auto preads = [&](int n) {
    return RunChildIn(nullptr, "", "ops-fuse", [&] {
      const int fd = open(image.c_str(), O_RDONLY);
      if (fd < 0) return 1;
      for (int i = 0; i < n; ++i) {
        if (pread(fd, buf.get(), 4096, 4096 * i) != 4096) return 2;
      }
      return close(fd) == 0 ? 0 : 3;
    });
  };
  ASSERT_GT(preads(1), 0);
  // "fuse" or "fuse.<subtype>", as mountinfo says.
  ASSERT_TRUE(b.WaitForStderr("biosnoop: --ops: calls on fuse"));
  ASSERT_GT(preads(2), 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::string err = b.Stderr();
  const std::string said = "are not followed: no block device";
  size_t n = 0;
  for (size_t at = err.find(said); at != std::string::npos;
       at = err.find(said, at + 1)) {
    ++n;
  }
  EXPECT_EQ(n, 1u) << err;
  EXPECT_NE(err.find(absl::StrCat(" at ", disk.mountpoint(), " are")),
            std::string::npos)
      << err;
  EXPECT_EQ(Unfollowed(b), 3) << err;
  EXPECT_TRUE(OpsOf(b, "pread64", "ops-fuse").empty()) << b.Stdout();
}

}  // namespace
}  // namespace biosnoop::testing
