// Op records (--ops) and the attribution's op ids, decoded from bytes laid
// out as the kernel writes them (bpf/biosnoop_abi.h).

#include <cstring>
#include <string>
#include <vector>

#include "biosnoop_abi.h"
#include "decoder.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

// "data.db" in "/srv/db" (names: file first, then its parents).
const char kNames[] = "data.db\0db\0srv";
constexpr size_t kNamesLen = sizeof(kNames);  // the last NUL included

std::vector<unsigned char> OpBytes(const biosnoop_op_record& r,
                                   const char* names, size_t names_len) {
  std::vector<unsigned char> buf(sizeof(r) + names_len);
  std::memcpy(buf.data(), &r, sizeof(r));
  if (names_len > 0) std::memcpy(buf.data() + sizeof(r), names, names_len);
  return buf;
}

biosnoop_op_record SampleOp() {
  biosnoop_op_record r{};
  r.abi_version = BIOSNOOP_ABI_VERSION;
  r.size = sizeof(r) + kNamesLen;
  r.kind = BIOSNOOP_REC_OP;
  r.call = BIOSNOOP_CALL_PWRITE64;
  r.flags = BIOSNOOP_OPF_NAMED;
  r.op_id = 77;
  r.start_ns = 1'000'000'000;
  r.end_ns = 1'030'000'000;
  r.result = 8192;
  r.offset = 65536;
  r.bytes_requested = 8192;
  r.pid = 500;
  r.tid = 501;
  std::memcpy(r.comm, "postgres", 9);
  r.cgroup_id = 4242;
  r.disk_dev = (254u << 20) | 0;
  r.part_dev = (254u << 20) | 1;
  r.block_devs[0] = (254u << 20) | 0;
  r.block_dev_count = 1;
  r.block.requests = 2;
  r.block.bytes = 8192;
  r.block.queue_ns_sum = 3000;
  r.block.queue_ns_max = 2000;
  r.block.device_ns_sum = 25'000'000;
  r.block.device_ns_max = 20'000'000;
  r.block.wait_ns = 21'000'000;
  r.writeback.requests = 1;
  r.writeback.bytes = 4096;
  r.writeback.wait_ns = 4'000'000;
  r.dirty_known = 1;
  r.dirty_age_max_ns = 900'000'000;
  r.dirty_age_min_ns = 800'000'000;
  r.file.ino = 1234;
  r.file.dev = (254u << 20) | 1;
  r.file.names_off = 0;
  r.file.depth = 3;
  r.file.flags = BIOSNOOP_FILE_ROOT;
  r.names_len = kNamesLen;
  return r;
}

TEST(OpDecoderTest, DecodesEveryField) {
  const std::vector<unsigned char> buf = OpBytes(SampleOp(), kNames, kNamesLen);
  ASSERT_EQ(RecordKindOf(buf.data(), buf.size()), RecordKind::kOp);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());
  EXPECT_EQ(op.op_id, 77u);
  EXPECT_EQ(op.call, Call::kPwrite64);
  EXPECT_EQ(CallName(op.call), "pwrite64");
  EXPECT_FALSE(op.uring);
  EXPECT_EQ(op.pid, 500u);
  EXPECT_EQ(op.tid, 501u);
  EXPECT_EQ(op.Comm(), "postgres");
  EXPECT_EQ(op.cgroup_id, 4242u);
  EXPECT_EQ(op.start_ns, 1'000'000'000u);
  EXPECT_EQ(op.end_ns, 1'030'000'000u);
  EXPECT_EQ(op.LatencyNs(), 30'000'000u);
  EXPECT_EQ(op.result, 8192);
  EXPECT_EQ(op.BytesDone(), 8192u);
  EXPECT_EQ(op.ErrorCode(), 0);
  ASSERT_TRUE(op.offset.has_value());
  EXPECT_EQ(*op.offset, 65536u);
  EXPECT_EQ(op.bytes_requested, 8192u);
  EXPECT_FALSE(op.bytes_requested_partial);
  EXPECT_EQ(op.disk_major, 254u);
  EXPECT_EQ(op.disk_minor, 0u);
  EXPECT_EQ(op.part_major, 254u);
  EXPECT_EQ(op.part_minor, 1u);
  EXPECT_TRUE(op.named);
  EXPECT_EQ(op.file.ino, 1234u);
  EXPECT_EQ(op.file.dev_major, 254u);
  EXPECT_EQ(op.file.dev_minor, 1u);
  EXPECT_TRUE(op.file.reached_root);
  EXPECT_EQ(op.file.names, (std::vector<std::string>{"data.db", "db", "srv"}));
  EXPECT_EQ(op.block.requests, 2u);
  EXPECT_EQ(op.block.bytes, 8192u);
  EXPECT_EQ(op.block.queue_ns_sum, 3000u);
  EXPECT_EQ(op.block.queue_ns_max, 2000u);
  EXPECT_EQ(op.block.device_ns_sum, 25'000'000u);
  EXPECT_EQ(op.block.device_ns_max, 20'000'000u);
  EXPECT_EQ(op.block.wait_ns, 21'000'000u);
  EXPECT_EQ(op.block_devs, (std::vector<uint32_t>{(254u << 20) | 0}));
  EXPECT_EQ(op.block_dev_count, 1u);
  EXPECT_EQ(op.writeback.requests, 1u);
  EXPECT_EQ(op.writeback.bytes, 4096u);
  EXPECT_EQ(op.writeback.wait_ns, 4'000'000u);
  EXPECT_EQ(op.dirty_known, 1u);
  EXPECT_EQ(op.dirty_age_max_ns, 900'000'000u);
  EXPECT_EQ(op.dirty_age_min_ns, 800'000'000u);
  // 30 ms - 21 ms block - 4 ms writeback.
  EXPECT_EQ(op.OtherNs(), 5'000'000u);
}

biosnoop_op_culprit Culprit(uint32_t pid, const char* comm, uint8_t layer,
                            uint64_t wait_ns) {
  biosnoop_op_culprit c{};
  c.pid = pid;
  std::strncpy(c.comm, comm, sizeof(c.comm));
  c.layer = layer;
  c.wait_ns = wait_ns;
  c.cgroup_id = 1000 + pid;
  c.requests = pid % 7 + 1;
  c.bytes = 4096ull * pid;
  return c;
}

TEST(OpDecoderTest, DecodesJournalFlushOthersAndTheirCulprits) {
  biosnoop_op_record r = SampleOp();
  r.journal = {.requests = 3,
               .bytes = 12288,
               .queue_ns_sum = 10,
               .queue_ns_max = 6,
               .device_ns_sum = 700,
               .device_ns_max = 400,
               .wait_ns = 5'000'000};
  r.flush = {.requests = 1, .device_ns_sum = 90, .wait_ns = 2'000'000};
  r.others = {.requests = 4, .bytes = 65536, .wait_ns = 3'000'000};
  r.culprits[0] = Culprit(30, "kworker/u8:2", BIOSNOOP_OPCLASS_FLUSH, 2'000);
  r.culprits[1] = Culprit(20, "jbd2/vda1-8", BIOSNOOP_OPCLASS_JOURNAL, 5'000);
  r.culprits[2] = Culprit(41, "batch", BIOSNOOP_OPCLASS_OTHERS, 1'000);
  r.culprits[2].dirtier = 1;
  r.culprits[3] = Culprit(40, "etl", BIOSNOOP_OPCLASS_OTHERS, 3'000);
  const std::vector<unsigned char> buf = OpBytes(r, kNames, kNamesLen);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());

  EXPECT_EQ(op.journal.requests, 3u);
  EXPECT_EQ(op.journal.bytes, 12288u);
  EXPECT_EQ(op.journal.queue_ns_sum, 10u);
  EXPECT_EQ(op.journal.queue_ns_max, 6u);
  EXPECT_EQ(op.journal.device_ns_sum, 700u);
  EXPECT_EQ(op.journal.device_ns_max, 400u);
  EXPECT_EQ(op.journal.wait_ns, 5'000'000u);
  EXPECT_EQ(op.flush.requests, 1u);
  EXPECT_EQ(op.flush.device_ns_sum, 90u);
  EXPECT_EQ(op.flush.wait_ns, 2'000'000u);
  EXPECT_EQ(op.others_writeback.requests, 4u);
  EXPECT_EQ(op.others_writeback.bytes, 65536u);
  EXPECT_EQ(op.others_writeback.wait_ns, 3'000'000u);
  // 30 ms - 21 (block) - 4 (writeback) - 5 - 2 - 3: nothing left.
  EXPECT_EQ(op.OtherUs(), 0u);

  EXPECT_TRUE(op.block.culprits.empty());
  EXPECT_TRUE(op.writeback.culprits.empty());
  ASSERT_EQ(op.journal.culprits.size(), 1u);
  const OpCulprit& jbd2 = op.journal.culprits[0];
  EXPECT_EQ(jbd2.pid, 20u);
  EXPECT_EQ(jbd2.Comm(), "jbd2/vda1-8");
  EXPECT_EQ(jbd2.cgroup_id, 1020u);
  EXPECT_FALSE(jbd2.dirtier);
  EXPECT_EQ(jbd2.requests, 7u);
  EXPECT_EQ(jbd2.bytes, 4096u * 20);
  EXPECT_EQ(jbd2.wait_ns, 5'000u);
  ASSERT_EQ(op.flush.culprits.size(), 1u);
  EXPECT_EQ(op.flush.culprits[0].Comm(), "kworker/u8:2");
  // Most waited-for first, whatever the slots' order.
  ASSERT_EQ(op.others_writeback.culprits.size(), 2u);
  EXPECT_EQ(op.others_writeback.culprits[0].Comm(), "etl");
  EXPECT_FALSE(op.others_writeback.culprits[0].dirtier);
  EXPECT_EQ(op.others_writeback.culprits[1].Comm(), "batch");
  EXPECT_TRUE(op.others_writeback.culprits[1].dirtier);
}

TEST(OpDecoderTest, CulpritsSkipFreeSlotsAndTieByPid) {
  biosnoop_op_record r = SampleOp();
  r.culprits[0] = Culprit(9, "flush-b", BIOSNOOP_OPCLASS_WRITEBACK, 700);
  r.culprits[1] = Culprit(0, "free", BIOSNOOP_OPCLASS_WRITEBACK, 900);
  r.culprits[2] = Culprit(8, "flush-a", BIOSNOOP_OPCLASS_WRITEBACK, 700);
  // The call's own requests have no culprit: such a slot is dropped, as
  // is a class this biosnoop does not know.
  r.culprits[3] = Culprit(5, "self", BIOSNOOP_OPCLASS_BLOCK, 800);
  const std::vector<unsigned char> buf = OpBytes(r, kNames, kNamesLen);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());
  ASSERT_EQ(op.writeback.culprits.size(), 2u);
  EXPECT_EQ(op.writeback.culprits[0].pid, 8u);
  EXPECT_EQ(op.writeback.culprits[1].pid, 9u);
  EXPECT_TRUE(op.block.culprits.empty());

  r.culprits[3].layer = BIOSNOOP_OPCLASS_COUNT;
  const std::vector<unsigned char> unknown = OpBytes(r, kNames, kNamesLen);
  ASSERT_TRUE(DecodeOpRecordInto(unknown.data(), unknown.size(), &op).ok());
  EXPECT_EQ(op.writeback.culprits.size(), 2u);  // not appended to the last
  for (const OpLayer* l : op.Layers()) {
    for (const OpCulprit& c : l->culprits) EXPECT_NE(c.pid, 5u);
  }
}

TEST(OpDecoderTest, FlagsOffsetNoneAndErrors) {
  biosnoop_op_record r = SampleOp();
  r.call = BIOSNOOP_CALL_URING_FSYNC;
  r.flags = BIOSNOOP_OPF_URING | BIOSNOOP_OPF_ASKED_PARTIAL;
  r.offset = BIOSNOOP_OFFSET_NONE;
  r.result = -5;
  const std::vector<unsigned char> buf = OpBytes(r, kNames, kNamesLen);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());
  EXPECT_EQ(op.call, Call::kUringFsync);
  EXPECT_TRUE(IsSyncCall(op.call));
  EXPECT_TRUE(op.uring);
  EXPECT_TRUE(op.bytes_requested_partial);
  EXPECT_FALSE(op.offset.has_value());
  EXPECT_EQ(op.ErrorCode(), 5);
  EXPECT_EQ(ErrnoName(op.ErrorCode()), "EIO");
  EXPECT_EQ(op.BytesDone(), 0u);
  // Not named at return: inode and device stay, names go.
  EXPECT_FALSE(op.named);
  EXPECT_EQ(op.file.ino, 1234u);
  EXPECT_TRUE(op.file.names.empty());
  EXPECT_FALSE(op.file.reached_root);
}

TEST(OpDecoderTest, ListsAtMostFourBlockDisksOfMore) {
  biosnoop_op_record r = SampleOp();
  for (uint32_t i = 0; i < BIOSNOOP_OP_DISKS; ++i)
    r.block_devs[i] = 8u << 20 | i;
  r.block_dev_count = 6;
  const std::vector<unsigned char> buf = OpBytes(r, kNames, kNamesLen);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());
  EXPECT_EQ(op.block_devs.size(), 4u);
  EXPECT_EQ(op.block_devs[3], 8u << 20 | 3);
  EXPECT_EQ(op.block_dev_count, 6u);
  // And a reused FileOp keeps nothing of a call with more disks.
  r.block_dev_count = 0;
  r.offset = BIOSNOOP_OFFSET_NONE;
  const std::vector<unsigned char> none = OpBytes(r, kNames, kNamesLen);
  ASSERT_TRUE(DecodeOpRecordInto(none.data(), none.size(), &op).ok());
  EXPECT_TRUE(op.block_devs.empty());
  EXPECT_FALSE(op.offset.has_value());
}

TEST(OpDecoderTest, NameRunningPastTheEndStopsTheChain) {
  biosnoop_op_record r = SampleOp();
  r.file.depth = 5;  // two more names than there are
  const std::vector<unsigned char> buf = OpBytes(r, kNames, kNamesLen);
  FileOp op;
  ASSERT_TRUE(DecodeOpRecordInto(buf.data(), buf.size(), &op).ok());
  EXPECT_EQ(op.file.names.size(), 3u);
  EXPECT_FALSE(op.file.reached_root);
}

TEST(OpDecoderTest, RejectsWhatDoesNotAddUp) {
  FileOp op;
  const biosnoop_op_record good = SampleOp();
  const std::vector<unsigned char> buf = OpBytes(good, kNames, kNamesLen);
  for (size_t n = 0; n < sizeof(good); ++n) {
    const absl::Status s = DecodeOpRecordInto(buf.data(), n, &op);
    ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << n;
  }
  // The record claims more than was handed over.
  EXPECT_EQ(DecodeOpRecordInto(buf.data(), buf.size() - 1, &op).code(),
            absl::StatusCode::kInvalidArgument);

  biosnoop_op_record r = good;
  r.abi_version = BIOSNOOP_ABI_VERSION + 1;
  std::vector<unsigned char> b = OpBytes(r, kNames, kNamesLen);
  EXPECT_EQ(DecodeOpRecordInto(b.data(), b.size(), &op).code(),
            absl::StatusCode::kFailedPrecondition);

  r = good;
  r.names_len = kNamesLen - 1;  // disagrees with the record's size
  b = OpBytes(r, kNames, kNamesLen);
  EXPECT_EQ(DecodeOpRecordInto(b.data(), b.size(), &op).code(),
            absl::StatusCode::kInvalidArgument);

  r = good;
  r.kind = BIOSNOOP_REC_EVENT;
  b = OpBytes(r, kNames, kNamesLen);
  EXPECT_EQ(DecodeOpRecordInto(b.data(), b.size(), &op).code(),
            absl::StatusCode::kInvalidArgument);

  for (uint8_t call : {uint8_t{BIOSNOOP_CALL_NONE},
                       uint8_t{BIOSNOOP_CALL_IO_URING_ENTER}, uint8_t{200}}) {
    r = good;
    r.call = call;
    b = OpBytes(r, kNames, kNamesLen);
    EXPECT_EQ(DecodeOpRecordInto(b.data(), b.size(), &op).code(),
              absl::StatusCode::kInvalidArgument)
        << int{call};
  }
}

TEST(OpDecoderTest, RecordKindOfTellsEventsFromOps) {
  biosnoop_event e{};
  e.abi_version = BIOSNOOP_ABI_VERSION;
  e.size = sizeof(e);
  e.kind = BIOSNOOP_REC_EVENT;
  EXPECT_EQ(RecordKindOf(&e, sizeof(e)), RecordKind::kEvent);
  e.kind = 99;
  EXPECT_EQ(RecordKindOf(&e, sizeof(e)), RecordKind::kUnknown);
  e.kind = BIOSNOOP_REC_OP;
  EXPECT_EQ(RecordKindOf(&e, kRecordKindOffset), RecordKind::kUnknown);
  EXPECT_EQ(RecordKindOf(&e, kRecordKindOffset + 1), RecordKind::kOp);
}

// An event with its attribution: the op ids of the calls that dirtied
// its pages, the dirtier's op id, and the request's own op id.
std::vector<unsigned char> EventWithAttr(const biosnoop_attr& a) {
  biosnoop_event e{};
  e.abi_version = BIOSNOOP_ABI_VERSION;
  e.size = sizeof(e) + sizeof(a);
  e.kind = BIOSNOOP_REC_EVENT;
  e.op = BIOSNOOP_OP_WRITE;
  e.op_id = 31;
  std::vector<unsigned char> buf(e.size);
  std::memcpy(buf.data(), &e, sizeof(e));
  std::memcpy(buf.data() + sizeof(e), &a, sizeof(a));
  return buf;
}

biosnoop_attr SampleAttr() {
  biosnoop_attr a{};
  a.content = BIOSNOOP_CONTENT_FILE;
  a.has_dirtier = 1;
  a.dirtier.pid = 9;
  a.dirtier.tid = 10;
  a.dirtier.op_id = 12;
  a.dirtier_count = 2;
  a.op_id_count = 11;
  a.op_ids_listed = BIOSNOOP_MAX_OP_IDS;
  for (int i = 0; i < BIOSNOOP_MAX_OP_IDS; ++i) a.op_ids[i] = 12 + i;
  return a;
}

TEST(OpDecoderTest, EventCarriesItsOpIdAndItsDirtiersCalls) {
  const std::vector<unsigned char> buf = EventWithAttr(SampleAttr());
  Event e;
  ASSERT_TRUE(DecodeRecordInto(buf.data(), buf.size(), &e).ok());
  EXPECT_EQ(e.op_id, 31u);
  ASSERT_TRUE(e.attribution.dirtier.has_value());
  EXPECT_EQ(e.attribution.dirtier->op_id, 12u);
  EXPECT_EQ(e.attribution.dirtier_op_ids,
            (std::vector<uint64_t>{12, 13, 14, 15, 16, 17, 18, 19}));
  EXPECT_EQ(e.attribution.dirtier_op_count, 11u);

  // Decoded into the same Event, an attribution without op ids has none.
  biosnoop_attr a{};
  a.content = BIOSNOOP_CONTENT_FILE;
  const std::vector<unsigned char> plain = EventWithAttr(a);
  ASSERT_TRUE(DecodeRecordInto(plain.data(), plain.size(), &e).ok());
  EXPECT_TRUE(e.attribution.dirtier_op_ids.empty());
  EXPECT_EQ(e.attribution.dirtier_op_count, 0u);
}

TEST(OpDecoderTest, RejectsMoreOpIdsListedThanFitOrCounted) {
  biosnoop_attr a = SampleAttr();
  a.op_ids_listed = BIOSNOOP_MAX_OP_IDS + 1;
  a.op_id_count = 20;
  std::vector<unsigned char> buf = EventWithAttr(a);
  Event e;
  EXPECT_EQ(DecodeRecordInto(buf.data(), buf.size(), &e).code(),
            absl::StatusCode::kInvalidArgument);
  a = SampleAttr();
  a.op_id_count = 3;  // fewer than listed
  buf = EventWithAttr(a);
  EXPECT_EQ(DecodeRecordInto(buf.data(), buf.size(), &e).code(),
            absl::StatusCode::kInvalidArgument);
}

// other_us is what the written latency and waits leave, each rounded down
// to whole microseconds first, so that the three add up exactly in the
// output; not the rounded difference of the nanoseconds.
TEST(FileOpTest, OtherUsMakesTheWrittenLayersAddUp) {
  FileOp op;
  op.start_ns = 1'000;
  op.end_ns = 1'000 + 3'999;     // 3 us
  op.block.wait_ns = 1'999;      // 1 us
  op.writeback.wait_ns = 1'999;  // 1 us
  EXPECT_EQ(op.OtherNs(), 1u);   // 1 ns: 0 us
  EXPECT_EQ(op.OtherUs(), 1u);   // 3 - 1 - 1
  op.block.wait_ns = 5'000;      // more than the latency: clamped
  EXPECT_EQ(op.OtherUs(), 0u);
}

}  // namespace
}  // namespace biosnoop
