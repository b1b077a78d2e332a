// What an event's pages hold on ext4, xfs and btrfs (issue #39): metadata
// is "metadata" on each (ext4's buffer heads, xfs's buffers and log,
// btrfs's btree inode and superblock), never a file; a btrfs file is named
// with the dev stat() gives (its subvolume's), also for direct reads that
// btrfs submits itself; and a dirtied-page ledger entry of a deleted file
// never names the dirtier of a new file that got its inode number.

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ext4_fixture.h"
#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// stat()'s st_dev of `path` as biosnoop writes a dev, "MAJ:MIN".
std::string StatDev(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  return absl::StrCat(major(st.st_dev), ":", minor(st.st_dev));
}

uint64_t StatIno(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

// Whether event `e` lists a file with inode `ino`.
bool ListsInode(const json& e, uint64_t ino) {
  if (!e.contains("files")) return false;
  for (const json& f : e["files"]) {
    if (f["inode"] == ino) return true;
  }
  return false;
}

bool IsMeta(const json& e) {
  return e["rwbs"].get<std::string>().find('M') != std::string::npos;
}

class FsAttributionTest : public ::testing::TestWithParam<FsType> {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// Many small files made and synced: the file system writes its metadata
// (inode tables and bitmaps, xfs's buffers and log, btrfs's tree blocks
// and superblocks).  Events of it say "metadata" and list no file; every
// request the file system marked REQ_META ('M') is such an event; no event
// names btrfs's btree inode (1) as a file.
TEST_P(FsAttributionTest, MetadataWritesAreMetadataNeverAFile) {
  LoopDevice loop(GetParam() == FsType::kXfs ? 320 : 256);
  ASSERT_TRUE(loop.ok());
  FileSystem fs(loop.path(), GetParam());
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(mkdir(fs.Path("d").c_str(), 0755), 0) << strerror(errno);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(WriteFile(fs.Path(absl::StrCat("d/f", i)), 4096, false));
  }
  ASSERT_GT(fs.Sync(), 0);
  ASSERT_TRUE(b.WaitForRecords("event", 1, [](const json& e) {
    return e["op"] == "write" && e["content"] == "metadata";
  }));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  int metadata = 0, meta_flagged = 0;
  for (const json& e : b.Events()) {
    SCOPED_TRACE(e.dump());
    if (e["content"] == "metadata") {
      ++metadata;
      EXPECT_TRUE(e["files"].empty());
      EXPECT_EQ(e["file_count"], 0);
    }
    if (IsMeta(e) && e["op"] != "flush") {
      ++meta_flagged;
      EXPECT_EQ(e["content"], "metadata");
    }
    if (GetParam() == FsType::kBtrfs) {
      EXPECT_FALSE(ListsInode(e, 1)) << "btrfs's btree inode as a file";
    }
  }
  EXPECT_GT(metadata, 0);
  EXPECT_GT(meta_flagged, 0) << "no request marked REQ_META";
}

INSTANTIATE_TEST_SUITE_P(Fs, FsAttributionTest,
                         ::testing::Values(FsType::kExt4, FsType::kXfs,
                                           FsType::kBtrfs),
                         [](const auto& info) {
                           return std::string(FsName(info.param));
                         });

class BtrfsAttributionTest : public ::testing::Test {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// A btrfs file written back and read with O_DIRECT: each event of its
// data names it with stat()'s dev (its subvolume's anonymous dev, not the
// super block's) and its path, and the direct reads name it as direct I/O
// (when btrfs does not serve them through the page cache).
TEST_F(BtrfsAttributionTest, FilesNamedWithStatDevAlsoDirectReads) {
  LoopDevice loop(256);
  ASSERT_TRUE(loop.ok());
  FileSystem fs(loop.path(), FsType::kBtrfs);
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string path = fs.Path("data.dat");
  constexpr size_t kSize = 256 << 10;
  // No data checksums (NOCOW, set while it is empty): btrfs serves
  // O_DIRECT of checksummed data through the page cache (6.18 here).
  {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0) << strerror(errno);
    int flags = 0;
    ASSERT_EQ(ioctl(fd, FS_IOC_GETFLAGS, &flags), 0) << strerror(errno);
    flags |= FS_NOCOW_FL;
    ASSERT_EQ(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0) << strerror(errno);
    close(fd);
  }
  ASSERT_TRUE(WriteFile(path, kSize, true));
  const uint64_t ino = StatIno(path);
  const std::string dev = StatDev(path);
  ASSERT_NE(ino, 0u);
  ASSERT_TRUE(b.WaitForRecords("event", 1, [&](const json& e) {
    return e["op"] == "write" && ListsInode(e, ino);
  }));
  // Its pages dropped: a read goes to the disk even where btrfs serves
  // O_DIRECT through the page cache.
  ASSERT_TRUE(DropCache(path)) << "its pages stay cached";
  AlignedBuffer buf(kSize);
  ASSERT_NE(buf.get(), nullptr);
  {
    const int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
    ASSERT_GE(fd, 0) << strerror(errno);
    ASSERT_EQ(pread(fd, buf.get(), kSize, 0), static_cast<ssize_t>(kSize))
        << strerror(errno);
    close(fd);
  }
  ASSERT_TRUE(b.WaitForRecords("event", 1, [&](const json& e) {
    return e["op"] == "read" && ListsInode(e, ino);
  })) << "no read event names the file read with O_DIRECT";
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  int named = 0, direct_reads = 0;
  for (const json& e : b.Events()) {
    if (!e.contains("files")) continue;
    for (const json& f : e["files"]) {
      if (f["inode"] != ino) continue;
      SCOPED_TRACE(e.dump());
      ++named;
      EXPECT_EQ(f["dev"], dev);
      EXPECT_EQ(f["path"], path);
      if (e["op"] == "read") {
        EXPECT_EQ(e["content"], "file");
        // btrfs may serve O_DIRECT through the page cache (readahead,
        // 'A': so does 6.18 here); a read it submits itself is direct.
        const bool buffered =
            e["rwbs"].get<std::string>().find('A') != std::string::npos;
        EXPECT_EQ(f["direct"], !buffered);
        direct_reads += buffered ? 0 : 1;
      }
    }
  }
  EXPECT_GT(named, 0);
  if (direct_reads == 0) {
    std::cerr << "note: btrfs served the O_DIRECT read through the page "
                 "cache: its direct I/O path is not exercised here\n";
  }
}

}  // namespace
}  // namespace biosnoop::testing
