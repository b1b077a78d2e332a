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
#include <sys/statfs.h>
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

// FS_IOC_GETVERSION: the inode's generation (i_generation), 0 if none.
uint32_t Generation(int fd) {
  long gen = 0;
  return ioctl(fd, FS_IOC_GETVERSION, &gen) == 0 ? static_cast<uint32_t>(gen)
                                                 : 0;
}

// Event `e` lists a file at `path`.
bool ListsPath(const json& e, const std::string& path) {
  if (!e.contains("files")) return false;
  for (const json& f : e["files"]) {
    if (f.value("path", "") == path) return true;
  }
  return false;
}

class LedgerReuseTest : public ::testing::Test {
 protected:
  void SetUp() override { BIOSNOOP_REQUIRE_ROOT(); }
};

// An inode number reused (issue #39): process X dirties pages 0..7 of
// file A with separate 4 KiB writes (eight small folios: eight ledger
// entries) and A is deleted before writeback, its dirty pages dropped;
// process Y creates B, which gets A's inode number (xfs frees a deleted
// inode once its inactivation ran, which statfs waits for; B's generation
// is another), and writes 64 KiB at once: one large folio, whose dirtying
// notes only its index 0.  Cutting B to 24 KiB splits that folio (6.18:
// [0-3] and [4-5], both still dirty, not dirtied again: no ledger note);
// B's size on disk was 64 KiB already (grown first), so xfs writes
// nothing back for the cut.  Pages 4-5 are written first, alone
// (sync_file_range): a request whose first page, index 4, has A's entry
// in its ledger slot.  Lookups go by each bio vector's folio, and a
// request of a whole large folio looks up only its index, which its
// dirtying noted: the split is what makes a request start at an index B
// never noted.  That write names no dirtier (the dead inode's entry is
// dropped, a miss), no write of B names X, and ledger_stale counts it.
TEST_F(LedgerReuseTest, DeletedFilesEntriesNeverNameTheNewFilesDirtier) {
  LoopDevice loop(320);
  ASSERT_TRUE(loop.ok());
  FileSystem fs(loop.path(), FsType::kXfs);
  ASSERT_TRUE(fs.ok()) << fs.error();
  Biosnoop b({"--min-us", "0", "--stats-interval", "1", "-d", loop.name(),
              "--writeback-owner"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  const std::string a = fs.Path("a.dat");
  const std::string bpath = fs.Path("b.dat");
  const std::string page(4096, 'a');
  const std::string big(64 << 10, 'b');
  std::vector<pid_t> xs;  // A's writers, one per attempt
  pid_t y = -1;
  uint64_t ino = 0;
  uint32_t gen_a = 0, gen_b = 0;
  // xfs gives the lowest free inode near the directory's: A's, once freed.
  // Under load xfs's deferred inactivation may keep A's number from the
  // next create for a while (CI under load: none of 10 attempts).
  for (int attempt = 0; attempt < 50 && y < 0; ++attempt) {
    const pid_t x = RunChildIn(nullptr, "", "ledger-old", [&] {
      const int fd = open(a.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) return 1;
      for (int i = 0; i < 8; ++i) {
        if (pwrite(fd, page.data(), page.size(), i * 4096) != 4096) return 2;
      }
      return close(fd) == 0 ? 0 : 3;
    });
    ASSERT_GT(x, 0);
    xs.push_back(x);
    ino = StatIno(a);
    ASSERT_NE(ino, 0u);
    {
      const int fd = open(a.c_str(), O_RDONLY);
      ASSERT_GE(fd, 0) << strerror(errno);
      gen_a = Generation(fd);
      close(fd);
    }
    ASSERT_EQ(unlink(a.c_str()), 0) << strerror(errno);
    struct statfs sfs;  // waits for xfs's inactivation of A
    ASSERT_EQ(statfs(fs.dir().c_str(), &sfs), 0) << strerror(errno);
    // Y makes B; when B has A's number it writes it, cuts it and syncs.
    const pid_t child = RunChildIn(nullptr, "", "ledger-new", [&] {
      const int fd = open(bpath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) return 1;
      struct stat st;
      if (fstat(fd, &st) != 0) return 2;
      if (st.st_ino != ino) {
        close(fd);
        return unlink(bpath.c_str()) == 0 ? 0 : 3;
      }
      if (ftruncate(fd, big.size()) != 0) return 4;
      if (write(fd, big.data(), big.size()) !=
          static_cast<ssize_t>(big.size())) {
        return 5;
      }
      if (ftruncate(fd, 24 << 10) != 0) return 6;
      if (sync_file_range(fd, 16 << 10, 8 << 10,
                          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                              SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
        return 7;
      }
      if (fsync(fd) != 0) return 8;
      return close(fd) == 0 ? 0 : 9;
    });
    ASSERT_GT(child, 0);
    if (StatIno(bpath) == ino) {
      const int fd = open(bpath.c_str(), O_RDONLY);
      ASSERT_GE(fd, 0) << strerror(errno);
      gen_b = Generation(fd);
      close(fd);
      y = child;
    }
  }
  ASSERT_GT(y, 0) << "no new file got the deleted file's inode number";
  EXPECT_NE(gen_a, gen_b) << "xfs gave the reused inode its generation";
  // Every page of B (24 KiB) written: events of it, and the count.
  const auto b_bytes = [&] {
    uint64_t n = 0;
    for (const json& e : b.Events()) {
      if (e["op"] == "write" && ListsPath(e, bpath) && ListsInode(e, ino)) {
        n += e["bytes"].get<uint64_t>();
      }
    }
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return b_bytes() >= (24u << 10); }))
      << "B's writes not all seen: " << b_bytes() << " bytes";
  EXPECT_TRUE(b.WaitForRecords("stats", 1, [](const json& s) {
    return s.value("ledger_stale", uint64_t{0}) > 0;
  })) << "ledger_stale never rose";
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  uint64_t bytes = 0;
  int by_y = 0, by_none = 0;
  for (const json& e : b.Events()) {
    if (e["op"] != "write" || !ListsPath(e, bpath)) continue;
    SCOPED_TRACE(e.dump());
    bytes += e["bytes"].get<uint64_t>();
    const json& d = e["dirtied_by"];
    if (d.is_object()) {
      for (pid_t x : xs) {
        EXPECT_NE(d["pid"], x) << "B's write names A's dirtier";
      }
      EXPECT_EQ(d["pid"], y);
      by_y += d["pid"] == y ? 1 : 0;
    } else {
      ++by_none;
    }
    EXPECT_LE(e["dirtier_count"].get<int>(), 1) << "A's dirtier counted";
  }
  EXPECT_EQ(bytes, 24u << 10) << "B's writes not all seen";
  EXPECT_GT(by_y, 0) << "no write of B names its dirtier";
  EXPECT_GT(by_none, 0) << "no write of B started at a page of A's entries";
  const json stats = LatestStats(b);
  EXPECT_GT(stats.value("ledger_stale", uint64_t{0}), 0u) << stats;
}

}  // namespace
}  // namespace biosnoop::testing
