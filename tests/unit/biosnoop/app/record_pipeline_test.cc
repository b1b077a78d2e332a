// The record path with --ops: each ring-buffer record goes the way its
// kind says (an event to Sink::Write, an op record to Sink::WriteOp),
// decoding errors of either kind are counted, and the stream's header and
// stats say what --ops did.

#include "record_pipeline.h"

#include <cstring>
#include <string>
#include <vector>

#include "biosnoop_abi.h"
#include "counters.h"
#include "enricher.h"
#include "gtest/gtest.h"
#include "options.h"
#include "sink.h"
#include "stream_header.h"

namespace biosnoop {
namespace {

// Keeps what it is given.
class RecordingSink : public Sink {
 public:
  absl::Status Write(const EnrichedEvent& e) override {
    events.push_back(e);
    return absl::OkStatus();
  }
  absl::Status WriteOp(const EnrichedOp& o) override {
    ops.push_back(o);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  absl::Status WriteHeader(const StreamInfo&) override {
    return absl::OkStatus();
  }
  absl::Status WriteStats(const StatsSnapshot&) override {
    return absl::OkStatus();
  }
  absl::Status WriteSummary(const SummaryRecord&) override {
    return absl::OkStatus();
  }
  absl::Status WriteStuck(const StuckRequest&) override {
    return absl::OkStatus();
  }
  absl::Status Reopen() override { return absl::OkStatus(); }
  uint64_t events_written() const override { return events.size(); }
  uint64_t events_dropped() const override { return 0; }
  uint64_t ops_written() const override { return ops.size(); }
  uint64_t ops_dropped() const override { return 0; }

  std::vector<EnrichedEvent> events;
  std::vector<EnrichedOp> ops;
};

biosnoop_event EventRecord(uint64_t op_id) {
  biosnoop_event r{};
  r.abi_version = BIOSNOOP_ABI_VERSION;
  r.size = sizeof(r);
  r.kind = BIOSNOOP_REC_EVENT;
  r.op = BIOSNOOP_OP_WRITE;
  r.complete_ns = 5'000'000'000;
  r.device_ns = 20'000'000;
  r.queue_ns = BIOSNOOP_QUEUE_UNKNOWN;
  r.op_id = op_id;
  std::memcpy(r.comm, "dd", 3);
  return r;
}

biosnoop_op_record OpRecord(uint64_t op_id) {
  biosnoop_op_record r{};
  r.abi_version = BIOSNOOP_ABI_VERSION;
  r.size = sizeof(r);
  r.kind = BIOSNOOP_REC_OP;
  r.call = BIOSNOOP_CALL_FDATASYNC;
  r.op_id = op_id;
  r.start_ns = 4'000'000'000;
  r.end_ns = 4'050'000'000;
  r.offset = BIOSNOOP_OFFSET_NONE;
  r.writeback.requests = 3;
  r.writeback.wait_ns = 30'000'000;
  std::memcpy(r.comm, "postgres", 9);
  return r;
}

class RecordPipelineTest : public ::testing::Test {
 protected:
  RecordPipelineTest()
      : enricher_("/nonexistent-sysfs", false, "", "/nonexistent-proc"),
        pipeline_(&enricher_, &sink_) {}

  Enricher enricher_;
  RecordingSink sink_;
  RecordPipeline pipeline_;
};

TEST_F(RecordPipelineTest, EachKindGoesItsWay) {
  const biosnoop_event e1 = EventRecord(7);
  const biosnoop_op_record o = OpRecord(7);
  const biosnoop_event e2 = EventRecord(0);
  ASSERT_TRUE(pipeline_.Consume(&e1, sizeof(e1)).ok());
  ASSERT_TRUE(pipeline_.Consume(&o, sizeof(o)).ok());
  ASSERT_TRUE(pipeline_.Consume(&e2, sizeof(e2)).ok());
  EXPECT_EQ(pipeline_.decode_errors, 0u) << pipeline_.first_decode_error;
  ASSERT_EQ(sink_.events.size(), 2u);
  ASSERT_EQ(sink_.ops.size(), 1u);
  EXPECT_EQ(sink_.events[0].event.op_id, 7u);
  EXPECT_EQ(sink_.events[1].event.op_id, 0u);
  // Ops take no seq: events are numbered 1, 2 whatever comes between.
  EXPECT_EQ(sink_.events[0].seq, 1u);
  EXPECT_EQ(sink_.events[1].seq, 2u);
  const EnrichedOp& op = sink_.ops[0];
  EXPECT_EQ(op.op.op_id, 7u);
  EXPECT_EQ(op.op.call, Call::kFdatasync);
  EXPECT_EQ(op.op.Comm(), "postgres");
  EXPECT_EQ(op.op.OtherNs(), 20'000'000u);
  // Enriched: the wall-clock times of its entry and return.
  EXPECT_EQ(op.realtime_ns - op.start_realtime_ns, 50'000'000);
  EXPECT_EQ(op.disk, "0:0");  // sysfs does not know it
}

TEST_F(RecordPipelineTest, BadRecordsOfEitherKindAreCountedNotWritten) {
  biosnoop_op_record o = OpRecord(1);
  o.names_len = 4;  // none follow
  ASSERT_TRUE(pipeline_.Consume(&o, sizeof(o)).ok());
  EXPECT_EQ(pipeline_.decode_errors, 1u);
  EXPECT_NE(pipeline_.first_decode_error.find("op record"), std::string::npos)
      << pipeline_.first_decode_error;
  biosnoop_event e = EventRecord(0);
  e.kind = 99;
  ASSERT_TRUE(pipeline_.Consume(&e, sizeof(e)).ok());
  EXPECT_EQ(pipeline_.decode_errors, 2u);
  EXPECT_TRUE(sink_.events.empty());
  EXPECT_TRUE(sink_.ops.empty());
  // A short op record is an op record that does not decode.
  const biosnoop_op_record good = OpRecord(2);
  ASSERT_TRUE(pipeline_.Consume(&good, 40).ok());
  EXPECT_EQ(pipeline_.decode_errors, 3u);
}

TEST_F(RecordPipelineTest, DiscardingCountsOpsApart) {
  pipeline_.discarding = true;
  const biosnoop_event e = EventRecord(0);
  const biosnoop_op_record o = OpRecord(1);
  ASSERT_TRUE(pipeline_.Consume(&e, sizeof(e)).ok());
  ASSERT_TRUE(pipeline_.Consume(&o, sizeof(o)).ok());
  ASSERT_TRUE(pipeline_.Consume(&o, sizeof(o)).ok());
  EXPECT_EQ(pipeline_.discarded, 1u);
  EXPECT_EQ(pipeline_.ops_discarded, 2u);
  EXPECT_TRUE(sink_.ops.empty());
}

TEST(StreamHeaderOpsTest, HeaderAndStatsSayWhatOpsDid) {
  Options o;
  o.min_us = 10000;
  StreamInfo info = MakeStreamInfo(o, "h", 0);
  EXPECT_FALSE(info.ops);
  EXPECT_EQ(info.op_min_us, 0u);
  o.ops = true;
  o.op_min_us = 2500;
  info = MakeStreamInfo(o, "h", 0);
  EXPECT_TRUE(info.ops);
  EXPECT_EQ(info.op_min_us, 2500u);

  Counters k;
  k.v[BIOSNOOP_CTR_OPS_LOST] = 4;
  k.v[BIOSNOOP_CTR_OPS_UNTRACKED] = 5;
  k.v[BIOSNOOP_CTR_OPS_EMITTED] = 40;
  ConsumerCounts c;
  c.ops = true;
  c.ops_written = 33;
  StatsSnapshot s = MakeStats(k, MissedHooks{}, c, 0, 1.0, false, "r");
  EXPECT_EQ(s.ops_lost, 4u);
  EXPECT_EQ(s.ops_written, 33u);
  EXPECT_EQ(s.ops_untracked, 5u);
  EXPECT_TRUE(s.HasOps());
  c.ops = false;
  s = MakeStats(k, MissedHooks{}, c, 0, 1.0, false, "r");
  EXPECT_FALSE(s.HasOps());
}

}  // namespace
}  // namespace biosnoop
