#include "missed_completions.h"

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

InflightEntry Entry(uint32_t dev, uint32_t slot, uint64_t rq,
                    uint64_t issue_ns) {
  InflightEntry e;
  e.dev = dev;
  e.rq = rq;
  e.issue_ns = issue_ns;
  e.in_slot = true;
  e.slot = slot;
  return e;
}

constexpr uint32_t kDisk = (7u << 20) | 3;
constexpr uint32_t kOther = (253u << 20) | 0;

TEST(MissedCompletionFinder, OneIdleObservationConfirmsNothing) {
  MissedCompletionFinder f;
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk}).empty());
}

TEST(MissedCompletionFinder, SameRequestAtTwoIdleObservationsIsMissed) {
  MissedCompletionFinder f;
  f.Observe({Entry(kDisk, 8, 0x1000, 5), Entry(kDisk, 16, 0x2000, 6)}, {kDisk});
  std::vector<InflightEntry> missed = f.Observe(
      {Entry(kDisk, 8, 0x1000, 5), Entry(kDisk, 16, 0x2000, 6)}, {kDisk});
  ASSERT_EQ(missed.size(), 2u);
  EXPECT_EQ(missed[0].slot, 8u);
  EXPECT_EQ(missed[1].slot, 16u);
  // Confirmed entries are not candidates again (they are removed).
  EXPECT_TRUE(f.Observe({}, {kDisk}).empty());
}

TEST(MissedCompletionFinder, ABusyDiskIsNeverJudged) {
  MissedCompletionFinder f;
  f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {});
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {}).empty());
  // Busy in between: the first idle observation starts over.
  f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk});
  f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {});
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk}).empty());
  EXPECT_EQ(f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk}).size(), 1u);
}

TEST(MissedCompletionFinder, ANewRequestInTheSameSlotIsNotTheOldOne) {
  MissedCompletionFinder f;
  f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk});
  // Completed normally, and the request reused for a new issue.
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x1000, 9)}, {kDisk}).empty());
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x3000, 9)}, {kDisk}).empty());
}

TEST(MissedCompletionFinder, OnlyTheIdleDiskIsJudged) {
  MissedCompletionFinder f;
  std::vector<InflightEntry> both = {Entry(kDisk, 8, 0x1000, 5),
                                     Entry(kOther, 8, 0x2000, 5)};
  f.Observe(both, {kDisk});
  std::vector<InflightEntry> missed = f.Observe(both, {kDisk});
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_EQ(missed[0].dev, kDisk);
}

TEST(MissedCompletionFinder, ResetForgetsCandidates) {
  MissedCompletionFinder f;
  f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk});
  f.Reset();
  EXPECT_TRUE(f.Observe({Entry(kDisk, 8, 0x1000, 5)}, {kDisk}).empty());
}

TEST(DiskIdle, UnknownDiskIsNotJudged) {
  // No disk has major 4095 minor 1048575.
  EXPECT_FALSE(DiskIdle(0xffffffffu).has_value());
}

}  // namespace
}  // namespace biosnoop
