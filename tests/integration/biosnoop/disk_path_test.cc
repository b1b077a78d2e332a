// -d with a path under /dev that is a symlink (/dev/disk/by-id/...,
// /dev/disk/by-uuid/..., /dev/mapper/x with udev) names the device the
// link leads to, found by its device number (issue #26).  udev makes no
// such links here, so the test makes them, as udev would: relative, and
// chained.

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

TEST(DiskPath, ASymlinkToADiskNamesTheDisk) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  // by-id/x -> ../../dev/loopN, and by-path/y -> ../by-id/x.
  ASSERT_EQ(mkdir((dir.path() + "/by-id").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir.path() + "/by-path").c_str(), 0755), 0);
  const std::string by_id = dir.path() + "/by-id/usb-Loop_Disk_0001";
  const std::string by_path = dir.path() + "/by-path/pci-0000:00:1f.2-ata-1";
  std::string up;  // from by-id/ to the root
  for (char c : dir.path() + "/by-id") {
    if (c == '/') up += "../";
  }
  ASSERT_EQ(symlink((up + disk.path().substr(1)).c_str(), by_id.c_str()), 0);
  ASSERT_EQ(symlink("../by-id/usb-Loop_Disk_0001", by_path.c_str()), 0);

  for (const std::string& link : {by_id, by_path}) {
    Biosnoop b({"-d", link});
    ASSERT_TRUE(b.WaitAttached()) << link << ":\n" << b.Stderr();
    ASSERT_EQ(DirectDd(disk.path(), true, 4096, 1).exit_code, 0);
    ASSERT_EQ(b.Stop(), 0) << b.Stderr();
    const std::vector<json> events = b.Events();
    ASSERT_EQ(events.size(), 1u) << link << ":\n" << b.Stdout();
    EXPECT_EQ(events[0]["disk"], disk.name());
  }
}

// A path that is not a block device is refused as bad usage, saying so;
// one that does not exist says that.
TEST(DiskPath, APathThatIsNoBlockDeviceIsRefused) {
  BIOSNOOP_REQUIRE_ROOT();
  TempDir dir;
  const std::string file = dir.path() + "/not-a-disk";
  std::ofstream(file) << "x";
  const std::string link = dir.path() + "/link-to-null";
  ASSERT_EQ(symlink("/dev/null", link.c_str()), 0);
  for (const std::string& path : {file, link}) {
    Biosnoop b({"-d", path});
    EXPECT_EQ(b.Wait(), 64) << b.Stderr();
    EXPECT_NE(b.Stderr().find("is not a block device"), std::string::npos)
        << b.Stderr();
  }
  Biosnoop b({"-d", dir.path() + "/by-id/nothing-here"});
  EXPECT_EQ(b.Wait(), 64) << b.Stderr();
  EXPECT_NE(b.Stderr().find("No such file or directory"), std::string::npos)
      << b.Stderr();
}

// A link to a bio-based device (as /dev/mapper/x is to a dm device, which
// this kernel cannot make: no device-mapper) gets the message for that
// device: it is not request-based.  zram is one such device.
TEST(DiskPath, ASymlinkToABioBasedDeviceSaysItIsNotRequestBased) {
  BIOSNOOP_REQUIRE_ROOT();
  std::optional<std::string> id =
      CommandOutput({"cat", "/sys/class/zram-control/hot_add"});
  ASSERT_TRUE(id.has_value()) << "no /sys/class/zram-control: cannot make a "
                                 "bio-based disk";
  const std::string zram = "zram" + *id;
  TempDir dir;
  const std::string link = dir.path() + "/vg-root";
  ASSERT_EQ(symlink(("/dev/" + zram).c_str(), link.c_str()), 0);
  {
    Biosnoop b({"-d", link});
    EXPECT_EQ(b.Wait(), 64) << b.Stderr();
    EXPECT_NE(
        b.Stderr().find("biosnoop: disk \"" + zram + "\" is not request-based"),
        std::string::npos)
        << b.Stderr();
  }
  EXPECT_EQ(
      RunCommand({"bash", "-c",
                  "echo " + *id + " > /sys/class/zram-control/hot_remove"}),
      0);
}

}  // namespace
}  // namespace biosnoop::testing
