// The stderr line naming a file system whose calls --ops cannot follow.

#include "unfollowed_fs.h"

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

constexpr char kMountinfo[] =
    "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
    "40 22 0:52 / /tmp/sd/mnt rw,nosuid,nodev,relatime shared:20 - "
    "fuse.slowdisk slowdisk rw,user_id=0,group_id=0\n"
    "41 22 0:53 / /mnt/nfs rw,relatime - nfs4 srv:/x rw,vers=4.2\n";

TEST(UnfollowedFsLineTest, NamesTheTypeAndMountPoint) {
  EXPECT_EQ(UnfollowedFsLine(52, kMountinfo),
            "biosnoop: --ops: calls on fuse.slowdisk at /tmp/sd/mnt are not "
            "followed: no block device");
  EXPECT_EQ(UnfollowedFsLine(53, kMountinfo),
            "biosnoop: --ops: calls on nfs4 at /mnt/nfs are not followed: no "
            "block device");
}

TEST(UnfollowedFsLineTest, AFileSystemNoLongerMountedIsNamedByItsDevice) {
  EXPECT_EQ(UnfollowedFsLine((7u << 20) | 99, kMountinfo),
            "biosnoop: --ops: calls on the file system 7:99 are not "
            "followed: no block device");
}

}  // namespace
}  // namespace biosnoop
