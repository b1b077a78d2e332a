#include "stacked_devices.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr uint64_t kSecond = 1'000'000'000;

// A sysfs tree in a temp dir, laid out as the kernel does it: device
// directories under devices/..., class/block/<name> a relative symlink to
// each (partitions' inside their disk's), every block device with holders/
// and slaves/; a holder is a symlink in holders/ to the holder's directory,
// with the matching one in the holder's slaves/; a device-mapper device
// has dm/name, an md device md/.
class FakeSysfs {
 public:
  FakeSysfs() {
    char tmpl[] = "/tmp/biosnoop-stacked-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    EXPECT_NE(dir, nullptr);
    root_ = dir != nullptr ? dir : "/nonexistent";
    fs::create_directories(root_ + "/class/block");
  }
  ~FakeSysfs() {
    std::error_code ec;
    fs::remove_all(root_, ec);  // does not follow the symlinks
  }

  const std::string& root() const { return root_; }

  void AddDisk(const std::string& name) {
    AddDevice(name, "devices/pci0000:00/0000:00:05.0/virtio3/block/" + name);
  }
  void AddPartition(const std::string& disk, const std::string& name) {
    AddDevice(name, dirs_.at(disk) + "/" + name);
    WriteFile(dirs_.at(name) + "/partition", "1\n");
  }
  // dm-N with its mapper name, as dmsetup/LVM create them.
  void AddDm(const std::string& name, const std::string& mapper_name) {
    AddDevice(name, "devices/virtual/block/" + name);
    fs::create_directories(root_ + "/" + dirs_.at(name) + "/dm");
    WriteFile(dirs_.at(name) + "/dm/name", mapper_name + "\n");
  }
  void AddMd(const std::string& name) {
    AddDevice(name, "devices/virtual/block/" + name);
    fs::create_directories(root_ + "/" + dirs_.at(name) + "/md");
  }

  // `holder` is stacked on `device` (device is one of holder's slaves).
  void Hold(const std::string& device, const std::string& holder) {
    LinkBetween(dirs_.at(device) + "/holders/" + holder, dirs_.at(holder));
    LinkBetween(dirs_.at(holder) + "/slaves/" + device, dirs_.at(device));
  }
  void Release(const std::string& device, const std::string& holder) {
    fs::remove(root_ + "/" + dirs_.at(device) + "/holders/" + holder);
    fs::remove(root_ + "/" + dirs_.at(holder) + "/slaves/" + device);
  }

  // `rel` relative to the device directory of `device`.
  void WriteDeviceFile(const std::string& device, const std::string& rel,
                       const std::string& content) {
    WriteFile(dirs_.at(device) + "/" + rel, content);
  }
  std::string DevicePath(const std::string& device) const {
    return root_ + "/" + dirs_.at(device);
  }

 private:
  void AddDevice(const std::string& name, const std::string& rel) {
    dirs_[name] = rel;
    fs::create_directories(root_ + "/" + rel + "/holders");
    fs::create_directories(root_ + "/" + rel + "/slaves");
    fs::create_directories(root_ + "/" + rel + "/power");
    WriteFile(rel + "/size", "16777216\n");
    LinkBetween("class/block/" + name, rel);
  }
  void WriteFile(const std::string& rel, const std::string& content) {
    std::ofstream(root_ + "/" + rel, std::ios::binary | std::ios::trunc)
        << content;
  }
  // A relative symlink at `from` to `to`, both relative to the root.
  void LinkBetween(const std::string& from, const std::string& to) {
    const fs::path link = fs::path(root_) / from;
    fs::create_symlink(
        (fs::path(root_) / to).lexically_relative(link.parent_path()), link);
  }

  std::string root_;
  std::map<std::string, std::string> dirs_;
};

class StackedDevicesTest : public ::testing::Test {
 protected:
  StackedDevicesTest() {
    sysfs_.AddDisk("vda");  // nothing stacked
    sysfs_.AddPartition("vda", "vda1");
  }

  std::vector<std::string> Stack(const std::string& name, uint64_t now_ns) {
    return stacked_.Lookup(name, now_ns);
  }

  FakeSysfs sysfs_;
  StackedDevices stacked_{sysfs_.root()};
  const uint64_t t0_ = 100 * kSecond;
};

TEST_F(StackedDevicesTest, NothingStacked) {
  EXPECT_THAT(Stack("vda", t0_), IsEmpty());
  EXPECT_THAT(Stack("vda1", t0_), IsEmpty());
  // Names sysfs does not know: DiskNames's "MAJ:MIN" for an unknown disk,
  // and names that are no path component.
  EXPECT_THAT(Stack("254:7", t0_), IsEmpty());
  EXPECT_THAT(Stack("nosuchdisk", t0_), IsEmpty());
  EXPECT_THAT(Stack("", t0_), IsEmpty());
  EXPECT_THAT(Stack("..", t0_), IsEmpty());
  EXPECT_THAT(Stack("../../class/block/vda", t0_), IsEmpty());
}

TEST_F(StackedDevicesTest, WithoutSysfsNothingIsStacked) {
  StackedDevices none("/nonexistent-sysfs");
  EXPECT_THAT(none.Lookup("vda", t0_), IsEmpty());
}

// An LVM volume on a whole disk (the disk a physical volume): the dm
// device, then its mapper name.
TEST_F(StackedDevicesTest, DeviceMapperHolderWithItsMapperName) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "vg0-data");
  sysfs_.Hold("vdb", "dm-0");
  EXPECT_THAT(Stack("vdb", t0_), ElementsAre("dm-0", "vg0-data"));
  // Nothing is stacked on the volume itself.
  EXPECT_THAT(Stack("dm-0", t0_), IsEmpty());
}

// A partition's holders are the partition's, not its disk's; the disk's
// own (none here) are those of a request outside every partition.
TEST_F(StackedDevicesTest, PartitionHoldersAreThePartitions) {
  sysfs_.AddDisk("vdc");
  sysfs_.AddPartition("vdc", "vdc1");
  sysfs_.AddPartition("vdc", "vdc2");
  sysfs_.AddDm("dm-1", "vg1-home");
  sysfs_.Hold("vdc1", "dm-1");
  EXPECT_THAT(Stack("vdc1", t0_), ElementsAre("dm-1", "vg1-home"));
  EXPECT_THAT(Stack("vdc2", t0_), IsEmpty());
  EXPECT_THAT(Stack("vdc", t0_), IsEmpty());
}

// Two holders of one device (two logical volumes on one physical volume):
// sorted by name, whatever order sysfs lists them in, each followed by
// its mapper name.  Byte order: "dm-10" before "dm-2".
TEST_F(StackedDevicesTest, HoldersSortedByName) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-2", "vg0-b");
  sysfs_.AddDm("dm-10", "vg0-c");
  sysfs_.AddDm("dm-1", "vg0-a");
  sysfs_.Hold("vdb", "dm-2");
  sysfs_.Hold("vdb", "dm-10");
  sysfs_.Hold("vdb", "dm-1");
  EXPECT_THAT(Stack("vdb", t0_),
              ElementsAre("dm-1", "vg0-a", "dm-10", "vg0-c", "dm-2", "vg0-b"));
}

// md RAID1 over two disks, an LVM volume over md0, dm-crypt over that: the
// proto's example, from either member; md devices have no mapper name.
TEST_F(StackedDevicesTest, CryptOverLvmOverMdOverTwoDisks) {
  sysfs_.AddDisk("vdd");
  sysfs_.AddDisk("vde");
  sysfs_.AddMd("md0");
  sysfs_.AddDm("dm-0", "vg0-data");
  sysfs_.AddDm("dm-1", "data_crypt");
  sysfs_.Hold("vdd", "md0");
  sysfs_.Hold("vde", "md0");
  sysfs_.Hold("md0", "dm-0");
  sysfs_.Hold("dm-0", "dm-1");
  for (const char* member : {"vdd", "vde"}) {
    EXPECT_THAT(Stack(member, t0_),
                ElementsAre("md0", "dm-0", "vg0-data", "dm-1", "data_crypt"))
        << member;
  }
  EXPECT_THAT(Stack("md0", t0_),
              ElementsAre("dm-0", "vg0-data", "dm-1", "data_crypt"));
  EXPECT_THAT(Stack("dm-0", t0_), ElementsAre("dm-1", "data_crypt"));
}

// Depth first: a holder's own holders come before the next holder.
TEST_F(StackedDevicesTest, HoldersOfAHolderBeforeTheNextHolder) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "vg0-a");
  sysfs_.AddDm("dm-1", "vg0-b");
  sysfs_.AddDm("dm-2", "a_crypt");
  sysfs_.Hold("vdb", "dm-0");
  sysfs_.Hold("vdb", "dm-1");
  sysfs_.Hold("dm-0", "dm-2");
  EXPECT_THAT(Stack("vdb", t0_),
              ElementsAre("dm-0", "vg0-a", "dm-2", "a_crypt", "dm-1", "vg0-b"));
}

// A device reached twice (a thin pool over its metadata and data volumes,
// both on one disk) is listed once, where it is first reached.
TEST_F(StackedDevicesTest, DeviceReachedTwiceListedOnce) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "vg0-pool_tmeta");
  sysfs_.AddDm("dm-1", "vg0-pool_tdata");
  sysfs_.AddDm("dm-2", "vg0-pool-tpool");
  sysfs_.AddDm("dm-3", "vg0-thin1");
  sysfs_.Hold("vdb", "dm-0");
  sysfs_.Hold("vdb", "dm-1");
  sysfs_.Hold("dm-0", "dm-2");
  sysfs_.Hold("dm-1", "dm-2");
  sysfs_.Hold("dm-2", "dm-3");
  EXPECT_THAT(Stack("vdb", t0_),
              ElementsAre("dm-0", "vg0-pool_tmeta", "dm-2", "vg0-pool-tpool",
                          "dm-3", "vg0-thin1", "dm-1", "vg0-pool_tdata"));
}

// sysfs never has a cycle, but a broken or hostile tree may: the walk
// ends, each device listed once, the device looked up never.
TEST_F(StackedDevicesTest, CycleEnds) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "a");
  sysfs_.AddDm("dm-1", "b");
  sysfs_.Hold("vdb", "dm-0");
  sysfs_.Hold("dm-0", "dm-1");
  sysfs_.Hold("dm-1", "dm-0");
  sysfs_.Hold("dm-1", "vdb");
  EXPECT_THAT(Stack("vdb", t0_), ElementsAre("dm-0", "a", "dm-1", "b"));
  EXPECT_THAT(Stack("dm-0", t0_), ElementsAre("dm-1", "b", "vdb"));
  EXPECT_THAT(Stack("dm-1", t0_), ElementsAre("dm-0", "a", "vdb"));
  // A device that holds itself.
  sysfs_.AddMd("md5");
  sysfs_.Hold("md5", "md5");
  EXPECT_THAT(Stack("md5", t0_), IsEmpty());
}

// A chain deeper than kMaxDepth is followed kMaxDepth levels up.
TEST_F(StackedDevicesTest, DepthIsBounded) {
  sysfs_.AddDisk("vdb");
  std::string below = "vdb";
  std::vector<std::string> chain;
  for (int i = 0; i < StackedDevices::kMaxDepth + 4; ++i) {
    const std::string md = absl::StrCat("md", 100 + i);
    sysfs_.AddMd(md);
    sysfs_.Hold(below, md);
    chain.push_back(md);
    below = md;
  }
  chain.resize(StackedDevices::kMaxDepth);
  EXPECT_EQ(Stack("vdb", t0_), chain);
}

// At most kMaxEntries names, and a device-mapper device's kernel name
// never without its mapper name: a pair that does not fit is left out.
TEST_F(StackedDevicesTest, EntriesAreCapped) {
  sysfs_.AddDisk("vdb");
  for (int i = 0; i < 40; ++i) {
    const std::string dm = absl::StrCat("dm-", 100 + i);
    sysfs_.AddDm(dm, absl::StrCat("vg0-lv", 100 + i));
    sysfs_.Hold("vdb", dm);
  }
  const std::vector<std::string> full = Stack("vdb", t0_);
  ASSERT_EQ(full.size(), StackedDevices::kMaxEntries);
  EXPECT_EQ(full.front(), "dm-100");
  EXPECT_EQ(full.back(), absl::StrCat("vg0-lv", 99 + full.size() / 2));

  // One md device first ("bcache0" sorts before "dm-"): 1 + 15 pairs, the
  // 16th pair does not fit in the one name left.
  sysfs_.AddDisk("vdc");
  sysfs_.AddMd("bcache0");
  sysfs_.Hold("vdc", "bcache0");
  for (int i = 0; i < 40; ++i) sysfs_.Hold("vdc", absl::StrCat("dm-", 100 + i));
  const std::vector<std::string> odd = Stack("vdc", t0_);
  ASSERT_EQ(odd.size(), StackedDevices::kMaxEntries - 1);
  EXPECT_EQ(odd.front(), "bcache0");
  EXPECT_EQ(odd.back(), "vg0-lv114");
}

// A volume created or removed after the first lookup shows at the first
// lookup kRevalidateNs after the last read, not before: until then the
// cached list is served (no sysfs read).
TEST_F(StackedDevicesTest, ChangesShowAfterTheRevalidationInterval) {
  sysfs_.AddDisk("vdb");
  EXPECT_THAT(Stack("vdb", t0_), IsEmpty());

  sysfs_.AddDm("dm-0", "vg0-new");  // lvcreate after start
  sysfs_.Hold("vdb", "dm-0");
  EXPECT_THAT(Stack("vdb", t0_ + kSecond / 2), IsEmpty());
  EXPECT_THAT(Stack("vdb", t0_ + kSecond - 1), IsEmpty());
  EXPECT_THAT(Stack("vdb", t0_ + kSecond), ElementsAre("dm-0", "vg0-new"));

  // Renamed (lvrename), then removed (lvremove): each within a second.
  sysfs_.WriteDeviceFile("dm-0", "dm/name", "vg0-renamed\n");
  EXPECT_THAT(Stack("vdb", t0_ + kSecond + 1), ElementsAre("dm-0", "vg0-new"));
  EXPECT_THAT(Stack("vdb", t0_ + 2 * kSecond),
              ElementsAre("dm-0", "vg0-renamed"));
  sysfs_.Release("vdb", "dm-0");
  EXPECT_THAT(Stack("vdb", t0_ + 2 * kSecond + kSecond / 2),
              ElementsAre("dm-0", "vg0-renamed"));
  EXPECT_THAT(Stack("vdb", t0_ + 3 * kSecond), IsEmpty());
}

// Event timestamps are not strictly ordered: a time before the last read
// is "not yet", never a re-read (nor an overflow into one).
TEST_F(StackedDevicesTest, EarlierTimeIsNotARevalidation) {
  sysfs_.AddDisk("vdb");
  EXPECT_THAT(Stack("vdb", t0_), IsEmpty());
  sysfs_.AddDm("dm-0", "vg0-new");
  sysfs_.Hold("vdb", "dm-0");
  EXPECT_THAT(Stack("vdb", t0_ - 1), IsEmpty());
  EXPECT_THAT(Stack("vdb", 0), IsEmpty());
  EXPECT_THAT(Stack("vdb", t0_ + kSecond), ElementsAre("dm-0", "vg0-new"));
}

// Each device is revalidated on its own clock, also when lookups switch
// between more devices than the few found without hashing.
TEST_F(StackedDevicesTest, EachDeviceCachedOnItsOwn) {
  std::vector<std::string> disks;
  for (int i = 0; i < 6; ++i) {
    disks.push_back(std::string("sd") + static_cast<char>('a' + i));
    sysfs_.AddDisk(disks.back());
    sysfs_.AddDm(absl::StrCat("dm-", i), absl::StrCat("vg-", i));
  }
  // sda's list read at t0, the others' a half second later.
  EXPECT_THAT(Stack("sda", t0_), IsEmpty());
  for (int i = 0; i < 6; ++i) {
    sysfs_.Hold(disks[i], absl::StrCat("dm-", i));
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 5; i >= 1; --i) {
      EXPECT_THAT(Stack(disks[i], t0_ + kSecond / 2),
                  ElementsAre(absl::StrCat("dm-", i), absl::StrCat("vg-", i)))
          << disks[i];
    }
    EXPECT_THAT(Stack("sda", t0_ + kSecond / 2), IsEmpty());
  }
  EXPECT_THAT(Stack("sda", t0_ + kSecond), ElementsAre("dm-0", "vg-0"));
}

// Looked up by what DiskNames named: the partition, else the disk; the
// same answers as by name, served by the view's id while it is the same,
// read again a second after the last read whatever the id, and found by
// name again under a new id.
TEST_F(StackedDevicesTest, LookupByDiskNamesView) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddPartition("vdb", "vdb1");
  sysfs_.AddDm("dm-0", "vg0-data");
  sysfs_.AddDm("dm-1", "vg1-whole");
  sysfs_.Hold("vdb1", "dm-0");
  sysfs_.Hold("vdb", "dm-1");
  const DiskNames::LocationView in_vdb1{"vdb", "vdb1", 11};
  const DiskNames::LocationView outside{"vdb", "", 12};
  EXPECT_THAT(stacked_.Lookup(in_vdb1, t0_), ElementsAre("dm-0", "vg0-data"));
  EXPECT_THAT(stacked_.Lookup(outside, t0_), ElementsAre("dm-1", "vg1-whole"));

  sysfs_.Release("vdb1", "dm-0");
  EXPECT_THAT(stacked_.Lookup(in_vdb1, t0_ + kSecond - 1),
              ElementsAre("dm-0", "vg0-data"));
  // A new id (DiskNames read the partitions again): found by its name,
  // still not read again before its second is up.
  const DiskNames::LocationView renewed{"vdb", "vdb1", 13};
  EXPECT_THAT(stacked_.Lookup(renewed, t0_ + kSecond - 1),
              ElementsAre("dm-0", "vg0-data"));
  EXPECT_THAT(stacked_.Lookup(renewed, t0_ + kSecond), IsEmpty());
  EXPECT_THAT(stacked_.Lookup(in_vdb1, t0_ + kSecond), IsEmpty());
  // The same cache as lookups by name.
  EXPECT_THAT(Stack("vdb1", t0_ + kSecond), IsEmpty());
  EXPECT_THAT(Stack("vdb", t0_ + kSecond - 1),
              ElementsAre("dm-1", "vg1-whole"));

  // More devices than the few kept by id, in turns: each still right.
  for (int i = 0; i < 6; ++i) {
    sysfs_.AddDisk(std::string("sd") + static_cast<char>('a' + i));
  }
  sysfs_.AddDm("dm-9", "vg9-sdc");
  sysfs_.Hold("sdc", "dm-9");
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 6; ++i) {
      const std::string disk = std::string("sd") + static_cast<char>('a' + i);
      const DiskNames::LocationView view{disk, "", 100u + i};
      if (i == 2) {
        EXPECT_THAT(stacked_.Lookup(view, t0_), ElementsAre("dm-9", "vg9-sdc"));
      } else {
        EXPECT_THAT(stacked_.Lookup(view, t0_), IsEmpty()) << disk;
      }
    }
  }
}

// What a mapper name's attribute may hold: read without its newline; an
// empty, unreadable or over-long one (no dm name is 128 bytes or more) is
// left out, the holder still listed; a FIFO does not hang the read.
TEST_F(StackedDevicesTest, MalformedMapperNames) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "x");
  sysfs_.AddDm("dm-1", "x");
  sysfs_.AddDm("dm-2", "x");
  sysfs_.AddDm("dm-3", "x");
  sysfs_.AddDm("dm-4", "x");
  sysfs_.WriteDeviceFile("dm-0", "dm/name", "no_newline");
  sysfs_.WriteDeviceFile("dm-1", "dm/name", "\n");
  sysfs_.WriteDeviceFile("dm-2", "dm/name", std::string(300, 'n') + "\n");
  fs::remove(sysfs_.DevicePath("dm-3") + "/dm/name");
  fs::remove(sysfs_.DevicePath("dm-4") + "/dm/name");
  ASSERT_EQ(mkfifo((sysfs_.DevicePath("dm-4") + "/dm/name").c_str(), 0600), 0);
  for (int i = 0; i <= 4; ++i) sysfs_.Hold("vdb", absl::StrCat("dm-", i));
  EXPECT_THAT(Stack("vdb", t0_), ElementsAre("dm-0", "no_newline", "dm-1",
                                             "dm-2", "dm-3", "dm-4"));
}

// A mapper name is bytes: kept as they are (the writers make them valid
// UTF-8 and escape them); a name of 127 bytes, the longest, is read whole.
TEST_F(StackedDevicesTest, MapperNamesKeptAsTheyAre) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "we\"ird\\na\xffme");
  sysfs_.AddDm("dm-1", std::string(127, 'l'));
  sysfs_.Hold("vdb", "dm-0");
  sysfs_.Hold("vdb", "dm-1");
  EXPECT_THAT(Stack("vdb", t0_), ElementsAre("dm-0", "we\"ird\\na\xffme",
                                             "dm-1", std::string(127, 'l')));
}

// Holders that are no block device's name are skipped; a holders/ that is
// a file, or missing, has none.
TEST_F(StackedDevicesTest, OddHoldersDirectories) {
  sysfs_.AddDisk("vdb");
  sysfs_.AddDm("dm-0", "vg0-data");
  sysfs_.Hold("vdb", "dm-0");
  sysfs_.AddDisk("vdc");
  fs::remove_all(sysfs_.DevicePath("vdc") + "/holders");
  sysfs_.WriteDeviceFile("vdc", "holders", "not a directory\n");
  sysfs_.AddDisk("vdd");
  fs::remove_all(sysfs_.DevicePath("vdd") + "/holders");
  EXPECT_THAT(Stack("vdb", t0_), ElementsAre("dm-0", "vg0-data"));
  EXPECT_THAT(Stack("vdc", t0_), IsEmpty());
  EXPECT_THAT(Stack("vdd", t0_), IsEmpty());
  // A holder without a directory of its own (removed meanwhile): listed,
  // with nothing above it.
  sysfs_.AddDisk("vde");
  sysfs_.Hold("vde", "dm-0");
  fs::remove(sysfs_.root() + "/class/block/dm-0");
  EXPECT_THAT(Stack("vde", t0_), ElementsAre("dm-0"));
}

// --ops' disks below each stacked disk: LVM over a partition names the
// partition's disk; LVM over md RAID and dm-crypt over that name the
// member disks first, then the stacked ones between; at most 4.
TEST(ScanLowerDisksTest, EveryStackedDiskWithTheDisksBelowIt) {
  FakeSysfs sysfs;
  int minor = 0;
  auto dev = [&](const std::string& name) {
    sysfs.WriteDeviceFile(name, "dev", absl::StrCat("254:", minor++, "\n"));
  };
  for (const char* d : {"vda", "vdb", "vdc", "vdd", "vde", "vdf", "vdg"}) {
    sysfs.AddDisk(d);
    dev(d);  // 254:0 .. 254:6
  }
  sysfs.AddPartition("vda", "vda1");
  dev("vda1");  // 254:7
  sysfs.AddDm("dm-0", "vg0-root");
  dev("dm-0");  // 254:8
  sysfs.Hold("vda1", "dm-0");
  sysfs.AddMd("md0");
  dev("md0");  // 254:9
  sysfs.Hold("vdb", "md0");
  sysfs.Hold("vdc", "md0");
  sysfs.AddDm("dm-1", "vg1-data");
  dev("dm-1");  // 254:10
  sysfs.Hold("md0", "dm-1");
  sysfs.AddDm("dm-2", "data_crypt");
  dev("dm-2");  // 254:11
  sysfs.Hold("dm-1", "dm-2");
  // Striped over five disks: the first four (by name) are kept.
  sysfs.AddDm("dm-3", "wide");
  dev("dm-3");  // 254:12
  for (const char* d : {"vdc", "vdd", "vde", "vdf", "vdg"})
    sysfs.Hold(d, "dm-3");
  // A hostile tree: a device below itself, and one with no dev.
  sysfs.AddDm("dm-4", "loop");
  dev("dm-4");  // 254:13
  sysfs.Hold("dm-4", "dm-4");
  sysfs.Hold("vdd", "dm-4");
  sysfs.AddDm("dm-5", "nodev");
  sysfs.Hold("vde", "dm-5");

  auto d = [](unsigned m) { return (254u << 20) | m; };
  std::map<uint32_t, std::vector<uint32_t>> got;
  for (const LowerDisks& l : ScanLowerDisks(sysfs.root())) {
    EXPECT_TRUE(got.emplace(l.dev, l.below).second) << l.dev;
  }
  EXPECT_THAT(got[d(8)], ElementsAre(d(0)));               // dm-0: vda
  EXPECT_THAT(got[d(9)], ElementsAre(d(1), d(2)));         // md0
  EXPECT_THAT(got[d(10)], ElementsAre(d(1), d(2), d(9)));  // dm-1
  // dm-2: the members, then the stacked ones nearest first.
  EXPECT_THAT(got[d(11)], ElementsAre(d(1), d(2), d(10), d(9)));
  EXPECT_THAT(got[d(12)], ElementsAre(d(2), d(3), d(4), d(5)));
  EXPECT_THAT(got[d(13)], ElementsAre(d(3)));
  EXPECT_EQ(got.size(), 6u) << "only the stacked disks with a dev";
}

}  // namespace
}  // namespace biosnoop
