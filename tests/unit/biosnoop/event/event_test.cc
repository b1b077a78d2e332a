#include "event.h"

#include <algorithm>
#include <cerrno>
#include <string>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

TEST(RwbsTest, MatchesKernelFlagStrings) {
  EXPECT_EQ(Rwbs(Op::kRead, 0), "R");
  EXPECT_EQ(Rwbs(Op::kWrite, 0), "W");
  EXPECT_EQ(Rwbs(Op::kWrite, kFlagSync), "WS");
  EXPECT_EQ(Rwbs(Op::kRead, kFlagRahead), "RA");
  EXPECT_EQ(Rwbs(Op::kRead, kFlagMeta | kFlagSync), "RSM");
  EXPECT_EQ(Rwbs(Op::kFlush, kFlagPreflush), "FF");
  EXPECT_EQ(Rwbs(Op::kWrite, kFlagPreflush | kFlagFua | kFlagSync), "FWFS");
  EXPECT_EQ(Rwbs(Op::kDiscard, 0), "D");
  EXPECT_EQ(Rwbs(Op::kSecureErase, 0), "DE");
  EXPECT_EQ(Rwbs(Op::kOther, 0), "N");
  EXPECT_EQ(Rwbs(Op::kZoneAppend, kFlagFua), "ZAF");
  EXPECT_EQ(Rwbs(Op::kWriteZeroes, 0), "N");
  EXPECT_EQ(Rwbs(Op::kWriteZeroes, kFlagSync), "NS");  // blkdiscard -z
  EXPECT_EQ(Rwbs(Op::kSecureErase, kFlagPreflush | kFlagFua | kFlagRahead |
                                       kFlagSync | kFlagMeta),
            "FDEFASM");
}

// The table ignores flag bits it has no letter for, and prints an op the
// enum does not know as the kernel prints an unknown one.
TEST(RwbsTest, UnknownOpsAndFlagBits) {
  EXPECT_EQ(Rwbs(Op::kRead, kFlagSync | 0xe0), "RS");
  EXPECT_EQ(Rwbs(static_cast<Op>(8), 0), "N");
  EXPECT_EQ(Rwbs(static_cast<Op>(255), kFlagMeta), "NM");
}

// WriteEventJson's bound counts on it: every op with every flag.
TEST(RwbsTest, NoneIsLongerThanKMaxRwbsLength) {
  size_t longest = 0;
  for (int op = 0; op <= 255; ++op) {
    for (int flags = 0; flags <= 255; ++flags) {
      const absl::string_view rwbs =
          Rwbs(static_cast<Op>(op), static_cast<uint8_t>(flags));
      longest = std::max(longest, rwbs.size());
    }
  }
  EXPECT_EQ(longest, kMaxRwbsLength);
}

// The encoders' bounds count on these maxima too.
TEST(OpNameTest, NoneIsLongerThanKMaxOpNameLength) {
  size_t longest = 0;
  for (int op = 0; op <= 255; ++op) {
    longest = std::max(longest, OpName(static_cast<Op>(op)).size());
  }
  EXPECT_EQ(longest, kMaxOpNameLength);
}

TEST(BlkStatusTest, NoNameIsLongerThanKMaxErrorNameLength) {
  size_t longest = 0;
  for (int status = 0; status <= 255; ++status) {
    longest = std::max(
        longest, BlkStatusToError(static_cast<uint8_t>(status)).name.size());
  }
  EXPECT_EQ(longest, kMaxErrorNameLength);
}

TEST(OpNameTest, StableLowercaseNames) {
  EXPECT_EQ(OpName(Op::kRead), "read");
  EXPECT_EQ(OpName(Op::kWrite), "write");
  EXPECT_EQ(OpName(Op::kFlush), "flush");
  EXPECT_EQ(OpName(Op::kDiscard), "discard");
  EXPECT_EQ(OpName(Op::kWriteZeroes), "write_zeroes");
  EXPECT_EQ(OpName(static_cast<Op>(42)), "other");
}

TEST(BlkStatusTest, MapsLikeTheKernel) {
  EXPECT_EQ(BlkStatusToError(0).errno_value, 0);
  EXPECT_EQ(BlkStatusToError(0).name, "");
  EXPECT_EQ(BlkStatusToError(10).errno_value, EIO);
  EXPECT_EQ(BlkStatusToError(10).name, "EIO");
  EXPECT_EQ(BlkStatusToError(2).name, "ETIMEDOUT");
  EXPECT_EQ(BlkStatusToError(3).errno_value, ENOSPC);
  EXPECT_EQ(BlkStatusToError(16).name, "ENODEV");
  // Codes this build does not know are EIO, as blk_status_to_errno() does.
  EXPECT_EQ(BlkStatusToError(200).errno_value, EIO);
}

}  // namespace
}  // namespace biosnoop
