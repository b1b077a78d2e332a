// --ops in the protobuf wire encoder: the op record, and the op ids of
// events, stuck records, the header and stats, the same bytes as the
// protobuf library writes for the messages proto_format.h fills.

#include <string>

#include "biosnoop.pb.h"
#include "delimited_record.h"
#include "every_field_records.h"
#include "gtest/gtest.h"
#include "proto_format.h"
#include "proto_wire.h"
#include "stuck_like.h"

namespace biosnoop {
namespace {

std::string ReferenceOp(const EnrichedOp& o, absl::string_view host) {
  v1::Record record;
  FillOpProto(o, host, record.mutable_op());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}

std::string EncodeOp(const EnrichedOp& o, absl::string_view host) {
  std::string out;
  AppendOpRecordDelimited(o, ProtoHost(host), &out);
  return out;
}

TEST(OpProtoWireTest, SameBytesAsTheLibraryForOps) {
  EnrichedOp o = EveryFieldOp();
  EXPECT_EQ(EncodeOp(o, "db-7"), ReferenceOp(o, "db-7"));
  // Nothing optional: no offset, no error, no partition, no dirty ages, no
  // cgroup, not named, no block disks, a valid comm.
  std::memcpy(o.op.comm.data(), "pg", 3);
  o.op.offset.reset();
  o.op.result = 0;
  o.op.dirty_known = 0;
  o.op.cgroup_id = 0;
  o.partition.clear();
  o.op.named = false;
  o.file = FileLabel{};
  o.block_disks.clear();
  o.op.journal.culprits.clear();
  o.op.others_writeback.culprits.pop_back();
  EXPECT_EQ(EncodeOp(o, ""), ReferenceOp(o, ""));
  // A call with no time in any layer, and an empty block disk name.
  o = EnrichedOp();
  o.op.call = Call::kFsync;
  o.block_disks = {""};
  EXPECT_EQ(EncodeOp(o, "h"), ReferenceOp(o, "h"));
  // Invalid UTF-8 everywhere a string comes from outside.
  o = EveryFieldOp();
  o.disk = "sd\xc0";
  o.partition =
      "sd\xc0"
      "1";
  o.file.path = "/x\xff";
  o.block_disks = {"a\xfe", "b"};
  o.op.journal.culprits[0].cgroup.path = "/j\xff";
  o.op.others_writeback.culprits[0].cgroup.pod_uid = "p\xc0";
  EXPECT_EQ(EncodeOp(o, "h\xc0"), ReferenceOp(o, "h\xc0"));
}

TEST(OpProtoWireTest, OpRecordReadsBackWithTheLibrary) {
  const v1::Record record =
      ParseDelimitedRecord(EncodeOp(EveryFieldOp(), "db-7"));
  ASSERT_TRUE(record.has_op());
  const v1::Op& op = record.op();
  EXPECT_EQ(op.op_id(), 31u);
  EXPECT_EQ(op.call(), "pwrite64");
  EXPECT_EQ(op.latency_us(), 45000u);
  // 45 ms - 21 (block) - 4 (writeback) - 5 (journal) - 2 (flush) - 3
  // (others_writeback) - 6 (throttle).
  EXPECT_EQ(op.other_us(), 4000u);
  EXPECT_EQ(op.throttle().wait_us(), 6000u);
  EXPECT_EQ(op.throttle().bytes(), 12288u);
  ASSERT_EQ(op.throttle_controllers_size(), 2);
  EXPECT_EQ(op.throttle_controllers(0), "wbt");
  EXPECT_EQ(op.throttle_controllers(1), "io.cost");
  EXPECT_EQ(op.block().wait_us(), 21000u);
  EXPECT_EQ(op.journal().wait_us(), 5000u);
  EXPECT_EQ(op.flush().requests(), 2u);
  EXPECT_EQ(op.others_writeback().bytes(), 69632u);
  EXPECT_EQ(op.block().culprits_size(), 0);
  ASSERT_EQ(op.others_writeback().culprits_size(), 2);
  const v1::OpCulprit& etl = op.others_writeback().culprits(0);
  EXPECT_EQ(etl.pid(), 900u);
  EXPECT_EQ(etl.comm(), "etl\xef\xbf\xbd");
  EXPECT_EQ(etl.comm_raw(), "etl\xfe");
  EXPECT_EQ(etl.cgroup_id(), 5150u);
  EXPECT_EQ(etl.container_id(), std::string(64, 'b'));
  EXPECT_EQ(etl.role(), "dirtier");
  EXPECT_EQ(etl.requests(), 4u);
  EXPECT_EQ(etl.bytes(), 65536u);
  EXPECT_EQ(etl.wait_us(), 2500u);
  const v1::OpCulprit& batch = op.others_writeback().culprits(1);
  EXPECT_FALSE(batch.has_cgroup());  // its cgroup could not be named
  EXPECT_EQ(batch.cgroup_id(), 5151u);
  EXPECT_EQ(batch.role(), "submitter");
  // No cgroup id: none of the cgroup's fields.
  const v1::OpCulprit& flusher = op.flush().culprits(0);
  EXPECT_FALSE(flusher.has_cgroup());
  EXPECT_EQ(flusher.cgroup_id(), 0u);
  EXPECT_EQ(op.journal().culprits(0).cgroup(), "/");
  EXPECT_EQ(op.block().disks_size(), 1);
  EXPECT_EQ(op.writeback().dirty_age_us_max(), 900000u);
  EXPECT_EQ(op.offset(), 65536u);
  EXPECT_EQ(op.error(), "EIO");
}

std::string ReferenceEvent(const EnrichedEvent& e) {
  v1::Record record;
  FillEventProto(e, "db-7", record.mutable_event());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}

TEST(OpProtoWireTest, SameBytesForEventsWithAndWithoutOpIds) {
  EnrichedEvent e = EveryFieldEvent();
  std::string scratch, out;
  AppendEventRecordDelimited(e, "db-7", &scratch, &out);
  EXPECT_EQ(out, ReferenceEvent(e));
  // Op ids without files looked at (a direct read under a call).
  e.event.attribution = Attribution{};
  e.event.op_id = 300;
  out.clear();
  AppendEventRecordDelimited(e, "db-7", &scratch, &out);
  EXPECT_EQ(out, ReferenceEvent(e));
  e.event.op_id = 0;
  out.clear();
  AppendEventRecordDelimited(e, "db-7", &scratch, &out);
  EXPECT_EQ(out, ReferenceEvent(e));
}

TEST(OpProtoWireTest, SameBytesForStuckHeaderAndStatsWithOps) {
  const StuckRequest s = StuckLike(EveryFieldEvent());
  ASSERT_EQ(s.request.op_id, 31u);
  v1::Record stuck;
  FillStuckProto(s, "db-7", stuck.mutable_stuck());
  std::string want, got;
  AppendDelimited(stuck, &want);
  AppendStuckRecordDelimited(s, ProtoHost("db-7"), &got);
  EXPECT_EQ(got, want);

  for (bool ops : {true, false}) {
    StreamInfo info = EveryFieldInfo();
    info.ops = ops;
    v1::Record header;
    FillHeaderProto(info, header.mutable_header());
    want.clear();
    got.clear();
    AppendDelimited(header, &want);
    AppendHeaderRecordDelimited(info, &got);
    EXPECT_EQ(got, want) << ops;
    EXPECT_EQ(header.header().ops(), ops);
    EXPECT_EQ(header.header().op_min_us(), ops ? 5000u : 0u);
  }

  const StatsSnapshot stats = EveryFieldStats();
  v1::Record record;
  FillStatsProto(stats, record.mutable_stats());
  want.clear();
  got.clear();
  AppendDelimited(record, &want);
  AppendStatsRecordDelimited(stats, &got);
  EXPECT_EQ(got, want);
  EXPECT_EQ(record.stats().ops_written(), 14u);
}

}  // namespace
}  // namespace biosnoop
