#include "disk_names.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "partition_watch.h"

namespace biosnoop {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr uint64_t kSecond = 1'000'000'000;

// A sysfs tree in a temp dir, laid out as the kernel does it: the device
// directories live under devices/..., and dev/block/MAJ:MIN, block/<disk>
// and class/block/<name> are relative symlinks into them.
class FakeSysfs {
 public:
  FakeSysfs() {
    char tmpl[] = "/tmp/biosnoop-sysfs-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    EXPECT_NE(dir, nullptr);
    root_ = dir != nullptr ? dir : "/nonexistent";
    fs::create_directories(root_ + "/dev/block");
    fs::create_directories(root_ + "/block");
    fs::create_directories(root_ + "/class/block");
  }
  ~FakeSysfs() {
    std::error_code ec;
    fs::remove_all(root_, ec);  // does not follow the symlinks
  }

  const std::string& root() const { return root_; }

  // `parent` e.g. "devices/pci0000:00/0000:00:02.0/virtio1/block".
  // request_based: has a blk-mq queue (mq/), as every disk the tests
  // name; zram, dm and md devices have none.
  void AddDisk(const std::string& name, uint32_t major, uint32_t minor,
               const std::string& parent = "devices/virtual/block",
               bool request_based = true) {
    std::string rel = parent + "/" + name;
    device_dirs_[name] = rel;
    fs::create_directories(root_ + "/" + rel + "/queue");
    fs::create_directories(root_ + "/" + rel + "/slaves");
    if (request_based) fs::create_directories(root_ + "/" + rel + "/mq/0");
    fs::create_directories(root_ + "/" + rel + "/holders");
    fs::create_directories(root_ + "/" + rel + "/power");
    WriteFile(rel + "/queue/rotational", "0\n");
    WriteFile(rel + "/dev", absl::StrCat(major, ":", minor, "\n"));
    WriteFile(rel + "/size", "16777216\n");
    Link("dev/block/" + DevName(major, minor), "../../" + rel);
    Link("block/" + name, "../" + rel);
    Link("class/block/" + name, "../../" + rel);
  }

  void AddPartition(const std::string& disk, const std::string& name,
                    uint32_t major, uint32_t minor, uint64_t start,
                    uint64_t size) {
    std::string rel = device_dirs_.at(disk) + "/" + name;
    device_dirs_[name] = rel;
    fs::create_directories(root_ + "/" + rel + "/power");
    WriteFile(rel + "/dev", absl::StrCat(major, ":", minor, "\n"));
    WriteFile(rel + "/partition", std::string(1, name.back()) + "\n");
    WriteFile(rel + "/start", absl::StrCat(start, "\n"));
    WriteFile(rel + "/size", absl::StrCat(size, "\n"));
    WriteFile(rel + "/ro", "0\n");
    Link("dev/block/" + DevName(major, minor), "../../" + rel);
    Link("class/block/" + name, "../../" + rel);
  }

  // As the kernel does on removal: the device directory, its partitions'
  // and every link to them go away.
  void RemoveDisk(const std::string& name) {
    const std::string dir =
        fs::canonical(root_ + "/" + device_dirs_.at(name)).string();
    for (const char* links : {"dev/block", "block", "class/block"}) {
      for (const fs::directory_entry& link :
           fs::directory_iterator(root_ + "/" + links)) {
        fs::path target = link.path().parent_path() / fs::read_symlink(link);
        std::string resolved = fs::weakly_canonical(target).string();
        if (resolved == dir || resolved.rfind(dir + "/", 0) == 0) {
          fs::remove(link.path());
        }
      }
    }
    fs::remove_all(dir);
  }

  void WriteFile(const std::string& rel, const std::string& content) {
    std::ofstream(root_ + "/" + rel, std::ios::binary | std::ios::trunc)
        << content;
  }
  // `rel` relative to the device directory of `device`.
  void WriteDeviceFile(const std::string& device, const std::string& rel,
                       const std::string& content) {
    WriteFile(device_dirs_.at(device) + "/" + rel, content);
  }
  void Link(const std::string& rel, const std::string& target) {
    fs::create_symlink(target, root_ + "/" + rel);
  }

 private:
  static std::string DevName(uint32_t major, uint32_t minor) {
    return absl::StrCat(major, ":", minor);
  }

  std::string root_;
  std::map<std::string, std::string> device_dirs_;
};

class DiskNamesTest : public ::testing::Test {
 protected:
  DiskNamesTest() {
    sysfs_.AddDisk("vda", 254, 0,
                   "devices/pci0000:00/0000:00:02.0/virtio1/block");
    sysfs_.AddPartition("vda", "vda1", 254, 1, 2048, 1000);
    sysfs_.AddPartition("vda", "vda2", 254, 2, 4096, 4096);
    sysfs_.AddDisk("loop0", 7, 0);
  }

  std::string Disk(uint32_t major, uint32_t minor, uint64_t now_ns) {
    return names_.Lookup(major, minor, 0, now_ns).disk;
  }
  std::string Part(uint32_t major, uint32_t minor, uint64_t sector,
                   uint64_t now_ns) {
    return names_.Lookup(major, minor, sector, now_ns).partition;
  }

  FakeSysfs sysfs_;
  DiskNames names_{sysfs_.root()};
  const uint64_t t0_ = 100 * kSecond;
};

TEST_F(DiskNamesTest, NamesWholeDisk) {
  DiskNames::Location loc = names_.Lookup(254, 0, 0, t0_);
  EXPECT_EQ(loc.disk, "vda");
  EXPECT_EQ(loc.partition, "");  // sector 0 is before vda1
  EXPECT_EQ(Disk(7, 0, t0_), "loop0");
}

TEST_F(DiskNamesTest, NamesPartitionBySector) {
  EXPECT_EQ(Part(254, 0, 2047, t0_), "");
  EXPECT_EQ(Part(254, 0, 2048, t0_), "vda1");  // first sector
  EXPECT_EQ(Part(254, 0, 3047, t0_), "vda1");  // last sector
  EXPECT_EQ(Part(254, 0, 3048, t0_), "");      // gap
  EXPECT_EQ(Part(254, 0, 4095, t0_), "");      // gap
  EXPECT_EQ(Part(254, 0, 4096, t0_), "vda2");
  EXPECT_EQ(Part(254, 0, 8191, t0_), "vda2");
  EXPECT_EQ(Part(254, 0, 8192, t0_), "");  // beyond the end
  EXPECT_EQ(Part(254, 0, std::numeric_limits<uint64_t>::max(), t0_), "");
  EXPECT_EQ(names_.Lookup(254, 0, 2500, t0_).disk, "vda");
}

TEST_F(DiskNamesTest, DiskWithoutPartitionsHasNoPartitionName) {
  EXPECT_EQ(Part(7, 0, 0, t0_), "");
  EXPECT_EQ(Part(7, 0, 2048, t0_), "");
}

TEST_F(DiskNamesTest, InnermostOfNestedPartitionsWins) {
  // MBR: sda2 is an extended partition holding the logical sda5 and sda6.
  sysfs_.AddDisk("sda", 8, 0);
  sysfs_.AddPartition("sda", "sda1", 8, 1, 2048, 2048);
  sysfs_.AddPartition("sda", "sda2", 8, 2, 8192, 100000);
  sysfs_.AddPartition("sda", "sda5", 8, 5, 10240, 1000);
  sysfs_.AddPartition("sda", "sda6", 8, 6, 20480, 1000);
  EXPECT_EQ(Part(8, 0, 3000, t0_), "sda1");
  EXPECT_EQ(Part(8, 0, 9000, t0_), "sda2");
  EXPECT_EQ(Part(8, 0, 10240, t0_), "sda5");
  EXPECT_EQ(Part(8, 0, 11239, t0_), "sda5");  // last sector of sda5
  EXPECT_EQ(Part(8, 0, 11240, t0_), "sda2");  // just after it
  EXPECT_EQ(Part(8, 0, 21480, t0_), "sda2");
  EXPECT_EQ(Part(8, 0, 15000, t0_), "sda2");
  EXPECT_EQ(Part(8, 0, 21000, t0_), "sda6");
  EXPECT_EQ(Part(8, 0, 108191, t0_), "sda2");
  EXPECT_EQ(Part(8, 0, 108192, t0_), "");
}

TEST_F(DiskNamesTest, UnknownDeviceIsMajorMinorUntilHotplugged) {
  EXPECT_EQ(Disk(7, 1, t0_), "7:1");
  EXPECT_EQ(Part(7, 1, 0, t0_), "");

  sysfs_.AddDisk("loop1", 7, 1);  // losetup after start
  // Within the retry window the negative answer is served from the cache:
  // no sysfs read, so the new device is not seen yet.
  EXPECT_EQ(Disk(7, 1, t0_ + kSecond / 2), "7:1");
  EXPECT_EQ(Disk(7, 1, t0_ + kSecond - 1), "7:1");
  EXPECT_EQ(Disk(7, 1, t0_ + kSecond), "loop1");
  EXPECT_EQ(Disk(7, 1, t0_ + kSecond + 1), "loop1");
}

TEST_F(DiskNamesTest, NegativeRetryIsPerDevice) {
  EXPECT_EQ(Disk(7, 1, t0_), "7:1");
  sysfs_.AddDisk("loop1", 7, 1);
  sysfs_.AddDisk("loop2", 7, 2);
  // 7:2 was never looked up, so its first lookup reads sysfs.
  EXPECT_EQ(Disk(7, 2, t0_ + 1), "loop2");
  EXPECT_EQ(Disk(7, 1, t0_ + 1), "7:1");
}

TEST_F(DiskNamesTest, KnownDeviceIsServedFromCache) {
  ASSERT_EQ(Disk(254, 0, t0_), "vda");
  ASSERT_EQ(Part(254, 0, 2048, t0_), "vda1");
  sysfs_.RemoveDisk("vda");
  // Hits in the cache need no sysfs: unchanged until revalidation is due,
  // for the partitions after kPartitionRevalidateNs, for the name after
  // kRevalidateNs.
  const uint64_t part_due = t0_ + DiskNames::kPartitionRevalidateNs;
  EXPECT_EQ(Part(254, 0, 2048, part_due - 1), "vda1");
  EXPECT_EQ(Part(254, 0, 4096, part_due - 1), "vda2");
  EXPECT_EQ(Part(254, 0, 4096, part_due), "");
  EXPECT_EQ(names_.Lookup(254, 0, 3000, t0_ + 5 * kSecond).disk, "vda");
  // Revalidated after kRevalidateNs: the device is gone.
  EXPECT_EQ(Disk(254, 0, t0_ + DiskNames::kRevalidateNs), "254:0");
  EXPECT_EQ(Part(254, 0, 2048, t0_ + DiskNames::kRevalidateNs), "");
}

// The last device is remembered across lookups; new devices grow (and
// rehash) the map that holds it, so the remembered one must follow.  Under
// ASan a stale pointer would fail here, without it a wrong name.
TEST_F(DiskNamesTest, LastDeviceStaysRightWhileTheTableGrows) {
  for (uint32_t minor = 1; minor <= 200; ++minor) {
    sysfs_.AddDisk(absl::StrCat("loop", minor), 7, minor);
  }
  for (uint32_t minor = 1; minor <= 200; ++minor) {
    const uint64_t now = t0_ + minor;
    DiskNames::LocationView vda = names_.LookupView(254, 0, 2048, now);
    ASSERT_EQ(vda.disk, "vda") << minor;
    ASSERT_EQ(vda.partition, "vda1") << minor;
    // Twice: the second is served by the remembered device.
    ASSERT_EQ(names_.LookupView(7, minor, 0, now).disk,
              absl::StrCat("loop", minor));
    ASSERT_EQ(names_.LookupView(7, minor, 0, now).disk,
              absl::StrCat("loop", minor));
    ASSERT_EQ(names_.LookupView(254, 0, 4096, now).partition, "vda2") << minor;
    ASSERT_EQ(names_.LookupView(254, 0, 4096, now).partition, "vda2") << minor;
  }
  for (uint32_t minor = 200; minor >= 1; --minor) {
    ASSERT_EQ(names_.LookupView(7, minor, 0, t0_ + 300).disk,
              absl::StrCat("loop", minor));
  }
}

// LocationView::id stands for the name named (the partition's, else the
// disk's) as read: the same while served from the cache, different for
// every other name, new whenever sysfs is read again, never 0.
TEST_F(DiskNamesTest, IdStandsForTheNameAsRead) {
  const uint64_t vda1 = names_.LookupView(254, 0, 2048, t0_).id;
  const uint64_t vda2 = names_.LookupView(254, 0, 4096, t0_).id;
  const uint64_t vda = names_.LookupView(254, 0, 0, t0_).id;
  const uint64_t loop0 = names_.LookupView(7, 0, 2048, t0_).id;
  const uint64_t unknown = names_.LookupView(7, 9, 0, t0_).id;
  const std::set<uint64_t> ids = {vda1, vda2, vda, loop0, unknown};
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_FALSE(ids.contains(0));
  EXPECT_EQ(names_.LookupView(254, 0, 2100, t0_ + 1).id, vda1);
  EXPECT_EQ(names_.LookupView(254, 0, 3000, t0_ + kSecond - 1).id, vda1);
  EXPECT_EQ(names_.LookupView(254, 0, 5000, t0_ + 2).id, vda2);
  EXPECT_EQ(names_.LookupView(254, 0, 100, t0_ + 3).id, vda);
  EXPECT_EQ(names_.LookupView(7, 0, 0, t0_ + 4).id, loop0);
  // The partitions read again a second later: new ids, the disk's kept
  // (its name is read again only on revalidation).
  const uint64_t vda1_again = names_.LookupView(254, 0, 2048, t0_ + kSecond).id;
  EXPECT_FALSE(ids.contains(vda1_again));
  EXPECT_NE(vda1_again, 0u);
  EXPECT_EQ(names_.LookupView(254, 0, 100, t0_ + kSecond).id, vda);
  const uint64_t vda_again =
      names_.LookupView(254, 0, 100, t0_ + DiskNames::kRevalidateNs).id;
  EXPECT_NE(vda_again, vda);
  EXPECT_NE(vda_again, vda1_again);
}

TEST_F(DiskNamesTest, ReusedMajorMinorIsRenamedOnRevalidation) {
  ASSERT_EQ(Part(254, 0, 2048, t0_), "vda1");
  sysfs_.RemoveDisk("vda");
  sysfs_.AddDisk("vdb", 254, 0,
                 "devices/pci0000:00/0000:00:03.0/virtio2/block");
  sysfs_.AddPartition("vdb", "vdb1", 254, 1, 2048, 1000);
  EXPECT_EQ(Disk(254, 0, t0_ + DiskNames::kRevalidateNs - 1), "vda");
  DiskNames::Location loc =
      names_.Lookup(254, 0, 2048, t0_ + DiskNames::kRevalidateNs);
  EXPECT_EQ(loc.disk, "vdb");
  EXPECT_EQ(loc.partition, "vdb1");
}

TEST_F(DiskNamesTest, RemovedPartitionIsForgottenOnRevalidation) {
  ASSERT_EQ(Part(254, 0, 4096, t0_), "vda2");
  fs::remove(sysfs_.root() + "/dev/block/254:2");
  fs::remove(sysfs_.root() + "/class/block/vda2");
  fs::remove_all(sysfs_.root() + "/block/vda/vda2");
  EXPECT_EQ(Part(254, 0, 4096, t0_ + DiskNames::kRevalidateNs), "");
  EXPECT_EQ(Part(254, 0, 2048, t0_ + DiskNames::kRevalidateNs), "vda1");
}

TEST_F(DiskNamesTest, PartitionAddedAfterStartIsFound) {
  ASSERT_EQ(Part(7, 0, 2100, t0_), "");
  sysfs_.AddPartition("loop0", "loop0p1", 259, 0, 2048, 2048);  // losetup -P
  EXPECT_EQ(Part(7, 0, 2100, t0_ + kSecond / 2), "");           // rate limited
  EXPECT_EQ(Part(7, 0, 2100, t0_ + DiskNames::kPartitionRetryNs), "loop0p1");
  EXPECT_EQ(names_.Lookup(7, 0, 2100, t0_ + 2 * kSecond).disk, "loop0");
}

TEST_F(DiskNamesTest, PartitionAddedNextToKnownOnesIsFound) {
  ASSERT_EQ(Part(254, 0, 2048, t0_), "vda1");
  sysfs_.AddPartition("vda", "vda3", 254, 3, 8192, 4096);  // partprobe
  // A hit in vda1 does not re-read; a miss a second later does.
  EXPECT_EQ(Part(254, 0, 2048, t0_ + 2 * kSecond), "vda1");
  EXPECT_EQ(Part(254, 0, 9000, t0_ + 2 * kSecond), "vda3");
}

// Issue #26: a partition resized or moved while a sector still falls in
// its stale place was misnamed until the 10 s revalidation.  vda2 deleted
// and vda1 grown over its sectors (resizepart): 4096 is vda1's now.
TEST_F(DiskNamesTest, ResizedPartitionIsRenamedWithinASecond) {
  ASSERT_EQ(Part(254, 0, 4096, t0_), "vda2");
  fs::remove(sysfs_.root() + "/dev/block/254:2");
  fs::remove(sysfs_.root() + "/class/block/vda2");
  fs::remove_all(sysfs_.root() + "/block/vda/vda2");
  sysfs_.WriteDeviceFile("vda1", "size", "8192\n");
  EXPECT_EQ(Part(254, 0, 4096, t0_ + DiskNames::kPartitionRevalidateNs),
            "vda1");
}

TEST_F(DiskNamesTest, InvalidatedDiskIsReadAgainAtItsNextLookup) {
  ASSERT_EQ(Part(254, 0, 4096, t0_), "vda2");
  sysfs_.WriteDeviceFile("vda2", "start", "9000\n");
  names_.Invalidate(254, 0);
  names_.Invalidate(9, 9);  // unknown: nothing to do
  EXPECT_EQ(Part(254, 0, 4096, t0_), "");
  EXPECT_EQ(Part(254, 0, 9000, t0_), "vda2");
}

TEST_F(DiskNamesTest, MalformedSysfsIsTreatedAsUnknown) {
  // A dev/block entry that is no symlink, and one naming "..".
  sysfs_.WriteFile("dev/block/9:0", "not a link\n");
  sysfs_.Link("dev/block/9:1", "../../devices/virtual/block/..");
  sysfs_.Link("dev/block/9:2", "../../devices/virtual/block/");
  EXPECT_EQ(Disk(9, 0, t0_), "9:0");
  EXPECT_EQ(Disk(9, 1, t0_), "9:1");
  EXPECT_EQ(Disk(9, 2, t0_), "9:2");

  // Partitions with garbage are ignored; the good one still counts.
  sysfs_.AddDisk("sdb", 8, 16);
  sysfs_.AddPartition("sdb", "sdb1", 8, 17, 2048, 1000);
  sysfs_.AddPartition("sdb", "sdb2", 8, 18, 4096, 1000);
  sysfs_.AddPartition("sdb", "sdb3", 8, 19, 6144, 1000);
  sysfs_.AddPartition("sdb", "sdb4", 8, 20, 8192, 1000);
  sysfs_.AddPartition("sdb", "sdb5", 8, 21, 10240, 1000);
  sysfs_.AddPartition("sdb", "sdb6", 8, 22, 12288, 1000);
  sysfs_.AddPartition("sdb", "sdb7", 8, 23, 14336, 1000);
  sysfs_.WriteDeviceFile("sdb2", "start", "garbage\n");
  sysfs_.WriteDeviceFile("sdb3", "size", "-5\n");
  sysfs_.WriteDeviceFile("sdb4", "start",
                         "18446744073709551615\n");  // overflows
  sysfs_.WriteDeviceFile("sdb5", "size", std::string(4096, '1'));
  sysfs_.WriteDeviceFile("sdb6", "start", "");
  fs::remove(sysfs_.root() + "/block/sdb/sdb7/partition");
  fs::create_directories(sysfs_.root() + "/block/sdb/sdb8");  // empty dir
  EXPECT_EQ(Part(8, 16, 2048, t0_), "sdb1");
  for (uint64_t sector : {4096, 6144, 8192, 10240, 12288, 14336}) {
    EXPECT_EQ(Part(8, 16, sector, t0_), "") << sector;
  }
  EXPECT_EQ(Disk(8, 16, t0_), "sdb");
}

TEST_F(DiskNamesTest, MissingBlockDirectoryMeansNoPartitions) {
  fs::remove(sysfs_.root() + "/block/vda");
  EXPECT_EQ(names_.Lookup(254, 0, 2048, t0_).disk, "vda");
  EXPECT_EQ(Part(254, 0, 2048, t0_), "");
}

TEST_F(DiskNamesTest, ResolvesWholeDisk) {
  for (const char* name : {"vda", "/dev/vda"}) {
    absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve(name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_EQ(r->major, 254u);
    EXPECT_EQ(r->minor, 0u);
    EXPECT_EQ(r->sector_start, 0u);
    EXPECT_EQ(r->sector_end, std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(r->disk, "vda");
    EXPECT_EQ(r->partition, "");
    EXPECT_EQ(r->part_major, 0u);
    EXPECT_EQ(r->part_minor, 0u);
  }
  absl::StatusOr<DiskNames::ResolvedDisk> loop = names_.Resolve("loop0");
  ASSERT_TRUE(loop.ok()) << loop.status();
  EXPECT_EQ(loop->major, 7u);
  EXPECT_EQ(loop->minor, 0u);
}

TEST_F(DiskNamesTest, ResolvesPartitionToItsDiskAndRange) {
  for (const char* name : {"vda1", "/dev/vda1"}) {
    absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve(name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_EQ(r->major, 254u);  // the whole disk's, not the partition's 254:1
    EXPECT_EQ(r->minor, 0u);
    EXPECT_EQ(r->sector_start, 2048u);
    EXPECT_EQ(r->sector_end, 3048u);
    EXPECT_EQ(r->disk, "vda");
    EXPECT_EQ(r->partition, "vda1");
    EXPECT_EQ(r->part_major, 254u);  // its own number (--ops filters by it)
    EXPECT_EQ(r->part_minor, 1u);
  }
  absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve("vda2");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->sector_start, 4096u);
  EXPECT_EQ(r->sector_end, 8192u);
}

TEST_F(DiskNamesTest, ResolveUnknownDiskSaysWhatToDo) {
  absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve("/dev/sdz");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kNotFound) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("unknown disk \"sdz\""));
  EXPECT_THAT(r.status().message(), HasSubstr("/class/block/sdz"));
  EXPECT_THAT(r.status().message(), HasSubstr("lsblk"));
}

// A name is echoed escaped, so the error stays one line whatever was
// typed (-d "$(printf 'lo\nop')").
TEST_F(DiskNamesTest, ResolveEchoesANameWithControlCharactersEscaped) {
  absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve("lo\nop\t\"x");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kNotFound) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("unknown disk \"lo\\nop\\t\\\"x\""));
  EXPECT_EQ(r.status().message().find('\n'), absl::string_view::npos)
      << r.status();
  EXPECT_EQ(r.status().message().find('\t'), absl::string_view::npos)
      << r.status();
}

TEST_F(DiskNamesTest, ResolveRefusesDisksThatAreNotRequestBased) {
  sysfs_.AddDisk("zram0", 251, 0, "devices/virtual/block", false);
  absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve("zram0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "disk \"zram0\" is not request-based (no blk-mq queue): its I/O "
            "never passes the block request tracepoints, so there would be no "
            "events");

  // A stacked device (dm, md) names the disks its I/O goes to.
  sysfs_.AddDisk("sdb", 8, 16);
  sysfs_.AddDisk("dm-0", 253, 0, "devices/virtual/block", false);
  sysfs_.AddPartition("dm-0", "dm-0p1", 253, 1, 2048, 4096);
  sysfs_.Link("block/dm-0/slaves/sdb", "../../sdb");
  sysfs_.Link("block/dm-0/slaves/loop0", "../../loop0");
  for (const char* name : {"dm-0", "/dev/dm-0", "dm-0p1"}) {
    r = names_.Resolve(name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(r.status().message(),
                HasSubstr("disk \"dm-0\" is not request-based"));
    EXPECT_THAT(
        r.status().message(),
        HasSubstr("its I/O goes to loop0, sdb: give one of those with -d"));
  }
}

TEST_F(DiskNamesTest, ResolveRejectsBadNames) {
  for (std::string name :
       {std::string(""), std::string("/dev/"), std::string("."),
        std::string(".."), std::string("/dev/.."), std::string("/dev/."),
        std::string("vd\0a", 4), std::string("/dev/vd\0a", 9),
        std::string(300, 'a')}) {
    absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve(name);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
        << "\"" << name << "\": " << r.status();
  }
}

// A name with a '/' is a path to the device node, symlinks followed (a
// /dev/disk/by-id/ link): it must exist and be a block device.
TEST_F(DiskNamesTest, ResolveTakesAPathToABlockDeviceOnly) {
  const std::string dir = sysfs_.root() + "/nodes";
  fs::create_directories(dir);
  std::ofstream(dir + "/file") << "x";
  fs::create_symlink("/dev/null", dir + "/by-id-null");
  fs::create_symlink("file", dir + "/by-id-file");
  for (const std::string& path :
       {dir + "/file", dir + "/by-id-file", dir + "/by-id-null", dir}) {
    absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve(path);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
        << path << ": " << r.status();
    EXPECT_THAT(r.status().message(), HasSubstr("is not a block device"))
        << path;
  }
  for (const std::string& path :
       {dir + "/by-id/nothing", std::string("/dev/mapper/nosuchvolume"),
        std::string("nosuchdir/vda")}) {
    absl::StatusOr<DiskNames::ResolvedDisk> r = names_.Resolve(path);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound)
        << path << ": " << r.status();
    EXPECT_THAT(r.status().message(), HasSubstr("No such file or directory"))
        << path;
  }
}

TEST_F(DiskNamesTest, ResolveReportsMalformedSysfs) {
  sysfs_.WriteDeviceFile("loop0", "dev", "garbage\n");
  EXPECT_EQ(names_.Resolve("loop0").status().code(),
            absl::StatusCode::kFailedPrecondition);
  sysfs_.WriteDeviceFile("vda", "dev", "254:x\n");
  EXPECT_EQ(names_.Resolve("vda").status().code(),
            absl::StatusCode::kFailedPrecondition);
  // The disk's dev is broken, so its partition cannot be resolved either.
  EXPECT_EQ(names_.Resolve("vda1").status().code(),
            absl::StatusCode::kFailedPrecondition);
  sysfs_.WriteDeviceFile("vda", "dev", "254:0\n");
  sysfs_.WriteDeviceFile("vda2", "size", "huge\n");
  EXPECT_EQ(names_.Resolve("vda2").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(names_.Resolve("vda1").ok());
}

// -d vda2 followed: resized, deleted, added again elsewhere (PartitionWatch
// reads the same tree).
TEST_F(DiskNamesTest, PartitionWatchFollowsThePartitionByName) {
  ProbeConfig config;
  config.dev = (254u << 20) | 0;
  config.partition = "vda2";
  config.sector_start = 4096;
  config.sector_end = 8192;
  PartitionWatch watch(config, sysfs_.root());
  EXPECT_FALSE(watch.Check().has_value());

  sysfs_.WriteDeviceFile("vda2", "size", "8192\n");
  std::optional<PartitionWatch::Change> c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->exists);
  EXPECT_EQ(c->start, 4096u);
  EXPECT_EQ(c->end, 12288u);
  EXPECT_EQ(c->message,
            "biosnoop: partition vda2 is now sectors [4096, 12288) of vda (was "
            "[4096, 8192)); -d follows it");
  EXPECT_FALSE(watch.Check().has_value());

  const std::string dir = fs::canonical(sysfs_.root() + "/class/block/vda2");
  fs::remove(sysfs_.root() + "/class/block/vda2");
  c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->exists);
  EXPECT_EQ(c->start, 0u);
  EXPECT_EQ(c->end, 0u);
  EXPECT_THAT(c->message, HasSubstr("partition vda2 no longer exists"));
  EXPECT_FALSE(watch.Check().has_value());  // said once

  fs::create_symlink(dir, sysfs_.root() + "/class/block/vda2");
  sysfs_.WriteDeviceFile("vda2", "start", "20000\n");
  c = watch.Check();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->start, 20000u);
  EXPECT_EQ(c->end, 28192u);
  EXPECT_THAT(c->message, HasSubstr("(was deleted)"));

  // Malformed for a moment (written while read): no change yet.
  sysfs_.WriteDeviceFile("vda2", "size", "x\n");
  EXPECT_FALSE(watch.Check().has_value());
}

TEST_F(DiskNamesTest, PartitionWatchWatchesNothingForAWholeDisk) {
  ProbeConfig config;
  config.dev = (254u << 20) | 0;
  PartitionWatch watch(config, sysfs_.root());
  sysfs_.WriteDeviceFile("vda2", "size", "8192\n");
  EXPECT_FALSE(watch.Check().has_value());
}

}  // namespace
}  // namespace biosnoop
