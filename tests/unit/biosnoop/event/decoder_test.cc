#include "decoder.h"

#include <cstring>
#include <vector>

#include "biosnoop_abi.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

biosnoop_event SampleRecord() {
  biosnoop_event r{};
  r.abi_version = BIOSNOOP_ABI_VERSION;
  r.size = sizeof(r);
  r.kind = BIOSNOOP_REC_EVENT;
  r.op = BIOSNOOP_OP_WRITE;
  r.flags = BIOSNOOP_FLAG_SYNC | BIOSNOOP_FLAG_FUA;
  r.blk_status = 10;
  r.complete_ns = 123456789012345;
  r.device_ns = 20500000;
  r.queue_ns = 1500;
  r.sector = 2048;
  r.dev = (254u << 20) | 16;
  r.bytes = 4096;
  r.pid = 4242;
  r.tid = 4243;
  r.queue_depth = 7;
  r.submit_known = 1;
  std::memcpy(r.comm, "dd", 3);
  return r;
}

TEST(DecoderTest, DecodesEveryField) {
  biosnoop_event r = SampleRecord();
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->complete_ns, 123456789012345u);
  EXPECT_EQ(e->device_ns, 20500000u);
  ASSERT_TRUE(e->queue_ns.has_value());
  EXPECT_EQ(*e->queue_ns, 1500u);
  EXPECT_EQ(e->sector, 2048u);
  EXPECT_EQ(e->major, 254u);
  EXPECT_EQ(e->minor, 16u);
  EXPECT_EQ(e->bytes, 4096u);
  EXPECT_EQ(e->pid, 4242u);
  EXPECT_EQ(e->tid, 4243u);
  EXPECT_EQ(e->queue_depth, 7u);
  EXPECT_EQ(e->op, Op::kWrite);
  EXPECT_EQ(e->flags, kFlagSync | kFlagFua);
  EXPECT_EQ(e->blk_status, 10);
  EXPECT_TRUE(e->submit_known);
  EXPECT_EQ(e->Comm(), "dd");
  EXPECT_EQ(e->LatencyNs(false), 20500000u);
  EXPECT_EQ(e->LatencyNs(true), 20501500u);
}

// The consumer decodes every record into the same Event: nothing of one
// record may show through in the next, however the two differ.
TEST(DecoderTest, DecodingIntoAReusedEventLeavesNothingOfThePreviousOne) {
  biosnoop_event first = SampleRecord();
  biosnoop_event second{};
  second.abi_version = BIOSNOOP_ABI_VERSION;
  second.size = sizeof(second);
  second.kind = BIOSNOOP_REC_EVENT;
  second.queue_ns = BIOSNOOP_QUEUE_UNKNOWN;
  std::memcpy(second.comm, "x", 2);
  Event reused;
  ASSERT_TRUE(DecodeRecordInto(&first, sizeof(first), &reused).ok());
  ASSERT_TRUE(DecodeRecordInto(&second, sizeof(second), &reused).ok());
  absl::StatusOr<Event> fresh = DecodeRecord(&second, sizeof(second));
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_FALSE(reused.queue_ns.has_value());
  EXPECT_EQ(reused.Comm(), "x");
  EXPECT_EQ(std::memcmp(&reused.comm, &fresh->comm, sizeof(reused.comm)), 0);
  EXPECT_EQ(reused.complete_ns, fresh->complete_ns);
  EXPECT_EQ(reused.device_ns, fresh->device_ns);
  EXPECT_EQ(reused.sector, fresh->sector);
  EXPECT_EQ(reused.major, fresh->major);
  EXPECT_EQ(reused.minor, fresh->minor);
  EXPECT_EQ(reused.bytes, fresh->bytes);
  EXPECT_EQ(reused.pid, fresh->pid);
  EXPECT_EQ(reused.tid, fresh->tid);
  EXPECT_EQ(reused.queue_depth, fresh->queue_depth);
  EXPECT_EQ(reused.op, fresh->op);
  EXPECT_EQ(reused.flags, fresh->flags);
  EXPECT_EQ(reused.blk_status, fresh->blk_status);
  EXPECT_EQ(reused.submit_known, fresh->submit_known);
}

TEST(DecoderTest, UnknownQueueTimeIsEmpty) {
  biosnoop_event r = SampleRecord();
  r.queue_ns = BIOSNOOP_QUEUE_UNKNOWN;
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->queue_ns.has_value());
  // -Q with an unknown queue time falls back to device time.
  EXPECT_EQ(e->LatencyNs(true), 20500000u);
}

// NVMe's driver stamps: 0 (what every other disk's record holds) is
// unknown; a record decoded into a reused Event keeps none of the last's.
TEST(DecoderTest, DriverTimesOnlyWhereTheKernelMeasuredThem) {
  biosnoop_event nvme = SampleRecord();
  nvme.driver_prep_ns = 2100;
  nvme.driver_done_ns = 900;
  Event e;
  ASSERT_TRUE(DecodeRecordInto(&nvme, sizeof(nvme), &e).ok());
  ASSERT_TRUE(e.values.Get(EventValue::kDriverPrepUs).has_value());
  ASSERT_TRUE(e.values.Get(EventValue::kDriverDoneUs).has_value());
  EXPECT_EQ(*e.values.Get(EventValue::kDriverPrepUs), 2100u);
  EXPECT_EQ(*e.values.Get(EventValue::kDriverDoneUs), 900u);
  biosnoop_event virtio = SampleRecord();
  ASSERT_TRUE(DecodeRecordInto(&virtio, sizeof(virtio), &e).ok());
  EXPECT_FALSE(e.values.Get(EventValue::kDriverPrepUs).has_value());
  EXPECT_FALSE(e.values.Get(EventValue::kDriverDoneUs).has_value());
}

TEST(DecoderTest, LargeMinorNumbersSurvive) {
  biosnoop_event r = SampleRecord();
  r.dev = (259u << 20) | 0xfffff;  // MINORBITS is 20
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->major, 259u);
  EXPECT_EQ(e->minor, 0xfffffu);
}

TEST(DecoderTest, RejectsShortRecordsOfEveryLength) {
  biosnoop_event r = SampleRecord();
  for (size_t n = 0; n < sizeof(r); ++n) {
    absl::StatusOr<Event> e = DecodeRecord(&r, n);
    ASSERT_FALSE(e.ok()) << n;
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(e.status().message().find("short record"),
              absl::string_view::npos);
  }
}

TEST(DecoderTest, RejectsOtherAbiVersion) {
  biosnoop_event r = SampleRecord();
  r.abi_version = BIOSNOOP_ABI_VERSION + 1;
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DecoderTest, RejectsUnknownKindAndBadSize) {
  biosnoop_event r = SampleRecord();
  r.kind = 99;
  EXPECT_FALSE(DecodeRecord(&r, sizeof(r)).ok());
  r = SampleRecord();
  r.size = sizeof(r) + 8;  // claims more than was handed over
  EXPECT_FALSE(DecodeRecord(&r, sizeof(r)).ok());
  r.size = 16;
  EXPECT_FALSE(DecodeRecord(&r, sizeof(r)).ok());
}

TEST(DecoderTest, OutOfRangeOpBecomesOther) {
  biosnoop_event r = SampleRecord();
  r.op = 200;
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->op, Op::kOther);
}

TEST(DecoderTest, CommKeepsArbitraryBytesAndStopsAtNul) {
  biosnoop_event r = SampleRecord();
  const char hostile[16] = {'"',    '\\', '\n', 1,   '\x7f', '\xff',
                            '\xc3', 'x',  '\0', 'z', 'z',    'z',
                            'z',    'z',  'z',  '\0'};
  std::memcpy(r.comm, hostile, 16);
  absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->Comm(), absl::string_view(hostile, 8));
  // A comm with no NUL at all is read as its 16 bytes, never past them.
  std::memset(r.comm, 'a', 16);
  e = DecodeRecord(&r, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->Comm().size(), 16u);
}

TEST(DecoderTest, UnalignedBufferDecodes) {
  biosnoop_event r = SampleRecord();
  std::vector<unsigned char> buf(sizeof(r) + 1);
  std::memcpy(buf.data() + 1, &r, sizeof(r));
  absl::StatusOr<Event> e = DecodeRecord(buf.data() + 1, sizeof(r));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->sector, 2048u);
}

}  // namespace
}  // namespace biosnoop
