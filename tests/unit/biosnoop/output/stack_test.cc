// An event's and a stuck record's stack (the devices stacked on the
// request's partition or disk: device-mapper, md) through the three sinks,
// read back with bioreport's reader and converted between JSON Lines and
// protobuf byte for byte; and absent, as in earlier streams, when nothing
// is stacked.

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "biosnoop.pb.h"
#include "ecs_sink.h"
#include "google/protobuf/io/coded_stream.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "nlohmann/json.hpp"
#include "output_file.h"
#include "proto_sink.h"
#include "record_reader.h"
#include "record_writer.h"
#include "sink_round_trip.h"

namespace biosnoop {
namespace {

using nlohmann::ordered_json;
using report::ParsedRecord;
using report::RecordKind;

// dm-crypt over an LVM volume over md0 (Event.stack's example).
const std::vector<std::string> kStack = {"md0", "dm-0", "vg0-data", "dm-1",
                                         "data_crypt"};

// A slow write on vdb, a member of md0, as the enricher names it.
EnrichedEvent SlowWrite(std::vector<std::string> stack) {
  EnrichedEvent e;
  e.event.complete_ns = 5'000'000'000;
  e.event.device_ns = 25'000'000;
  e.event.queue_ns = 1'000;
  e.event.sector = 4096;
  e.event.major = 254;
  e.event.minor = 16;
  e.event.bytes = 65536;
  e.event.pid = e.event.tid = 4242;
  e.event.queue_depth = 2;
  e.event.op = Op::kWrite;
  e.event.flags = kFlagSync;
  e.event.completion_context = CompletionContext::kHardirq;
  std::memcpy(e.event.comm.data(), "postgres", 8);
  e.disk = "vdb";
  e.stack = std::move(stack);
  e.realtime_ns = 1795239841123456789;
  e.seq = 1;
  return e;
}

StuckRequest StuckWrite(std::vector<std::string> stack) {
  const EnrichedEvent e = SlowWrite({});
  StuckRequest s;
  s.request = e.event;
  s.found_ns = 6'000'000'000;
  s.inflight_ns = 1'500'000'000;
  s.disk = e.disk;
  s.stack = std::move(stack);
  s.realtime_ns = e.realtime_ns;
  return s;
}

class StackTest : public SinkRoundTrip {
 protected:
  std::string WriteEvent(const EnrichedEvent& e, const std::string& format) {
    return Write([&e](FileSink& sink) { return sink.Write(e); }, format);
  }
  std::string WriteStuck(const StuckRequest& s, const std::string& format) {
    return Write([&s](FileSink& sink) { return sink.WriteStuck(s); }, format);
  }

  // `rec` converted to each format is exactly `jsonl` and `pb`.
  static void ExpectConvertsTo(const ParsedRecord& rec,
                               const std::string& jsonl,
                               const std::string& pb) {
    std::string as_json;
    ASSERT_TRUE(report::AppendRecordJson(rec, &as_json).ok());
    EXPECT_EQ(as_json, jsonl);
    std::string as_proto;
    report::AppendRecordProto(rec, &as_proto);
    EXPECT_EQ(as_proto, pb);
  }
};

template <typename Names>
std::vector<std::string> Strings(const Names& names) {
  return std::vector<std::string>(names.begin(), names.end());
}

TEST_F(StackTest, JsonArrayAfterPartition) {
  const std::string line = WriteEvent(SlowWrite(kStack), "jsonl");
  EXPECT_NE(line.find(R"("disk":"vdb","partition":null,)"
                      R"("stack":["md0","dm-0","vg0-data","dm-1",)"
                      R"("data_crypt"],"dev":"254:16",)"),
            std::string::npos)
      << line;
  EXPECT_EQ(ordered_json::parse(line)["stack"], ordered_json(kStack));
  const std::string stuck = WriteStuck(StuckWrite(kStack), "jsonl");
  EXPECT_NE(stuck.find(R"("disk":"vdb","partition":null,)"
                       R"("stack":["md0","dm-0","vg0-data","dm-1",)"
                       R"("data_crypt"],"dev":"254:16",)"),
            std::string::npos)
      << stuck;
}

TEST_F(StackTest, ProtobufRepeatedField) {
  const std::string bytes = WriteEvent(SlowWrite(kStack), "pb");
  v1::Record record;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint32_t size = 0;
  ASSERT_TRUE(in.ReadVarint32(&size));
  ASSERT_EQ(in.CurrentPosition() + size, bytes.size());
  ASSERT_TRUE(record.ParseFromArray(bytes.data() + in.CurrentPosition(),
                                    static_cast<int>(size)));
  ASSERT_TRUE(record.has_event());
  EXPECT_EQ(Strings(record.event().stack()), kStack);
}

TEST_F(StackTest, EcsUnderBiosnoop) {
  const ordered_json d =
      ordered_json::parse(WriteEvent(SlowWrite(kStack), "ecs"));
  EXPECT_EQ(d["biosnoop"]["disk"], "vdb");
  EXPECT_EQ(d["biosnoop"]["stack"], ordered_json(kStack));
  const ordered_json s =
      ordered_json::parse(WriteStuck(StuckWrite(kStack), "ecs"));
  EXPECT_EQ(s["biosnoop"]["stack"], ordered_json(kStack));
}

// bioreport reads both formats, and convert gives the other format's bytes
// exactly, for events and stuck records; a name that is not UTF-8 too
// (both formats write it with U+FFFD, so it converts the same).
TEST_F(StackTest, ReadBackAndConvertedByteForByte) {
  for (const std::vector<std::string>& stack :
       {kStack, std::vector<std::string>{"dm-3", "we\"ird \xff", ""}}) {
    const std::string jsonl = WriteEvent(SlowWrite(stack), "jsonl");
    const std::string pb = WriteEvent(SlowWrite(stack), "pb");
    for (const std::string* bytes : {&jsonl, &pb}) {
      const ParsedRecord rec = ReadBack(*bytes);
      ASSERT_EQ(rec.kind, RecordKind::kEvent);
      EXPECT_EQ(rec.event.disk(), "vdb");
      EXPECT_EQ(rec.event.stack_size(), static_cast<int>(stack.size()));
      EXPECT_EQ(rec.event.stack(0), stack[0]);
      ExpectConvertsTo(rec, jsonl, pb);
    }
    const std::string stuck_jsonl = WriteStuck(StuckWrite(stack), "jsonl");
    const std::string stuck_pb = WriteStuck(StuckWrite(stack), "pb");
    for (const std::string* bytes : {&stuck_jsonl, &stuck_pb}) {
      const ParsedRecord rec = ReadBack(*bytes);
      ASSERT_EQ(rec.kind, RecordKind::kStuck);
      EXPECT_EQ(rec.stuck.stack_size(), static_cast<int>(stack.size()));
      EXPECT_EQ(rec.stuck.stack(0), stack[0]);
      ExpectConvertsTo(rec, stuck_jsonl, stuck_pb);
    }
  }
  const ParsedRecord rec = ReadBack(WriteEvent(SlowWrite(kStack), "pb"));
  EXPECT_EQ(Strings(rec.event.stack()), kStack);
}

// Nothing stacked: no key in JSON or ECS, no field in protobuf, so that
// the stream is what earlier versions wrote; and it converts back the
// same.
TEST_F(StackTest, AbsentWhenNothingIsStacked) {
  const std::string jsonl = WriteEvent(SlowWrite({}), "jsonl");
  EXPECT_EQ(jsonl.find("stack"), std::string::npos) << jsonl;
  EXPECT_NE(jsonl.find(R"("partition":null,"dev":"254:16",)"),
            std::string::npos)
      << jsonl;
  EXPECT_EQ(WriteEvent(SlowWrite({}), "ecs").find("stack"), std::string::npos);
  EXPECT_EQ(WriteStuck(StuckWrite({}), "jsonl").find("stack"),
            std::string::npos);
  EXPECT_EQ(WriteStuck(StuckWrite({}), "ecs").find("stack"), std::string::npos);
  const std::string pb = WriteEvent(SlowWrite({}), "pb");
  const ParsedRecord from_pb = ReadBack(pb);
  EXPECT_EQ(from_pb.event.stack_size(), 0);
  ExpectConvertsTo(from_pb, jsonl, pb);
  ExpectConvertsTo(ReadBack(jsonl), jsonl, pb);
}

// What a pipeline may hand bioreport: an empty array reads as none (and
// converts to no key), a key anywhere in the line is read, and anything but
// an array of strings is refused.
TEST_F(StackTest, ReaderTakesAnEmptyArrayAndRefusesOthers) {
  const std::string plain = WriteEvent(SlowWrite({}), "jsonl");
  std::string line = plain;
  line.insert(line.size() - 2, R"(,"stack":[])");
  const ParsedRecord empty = ReadBack(line);
  EXPECT_EQ(empty.event.stack_size(), 0);
  std::string as_json;
  ASSERT_TRUE(report::AppendRecordJson(empty, &as_json).ok());
  EXPECT_EQ(as_json, plain);
  line = plain;
  line.insert(line.size() - 2, R"(,"stack":["dm-0","vg0-data"])");
  const ParsedRecord at_end = ReadBack(line);
  EXPECT_EQ(Strings(at_end.event.stack()),
            (std::vector<std::string>{"dm-0", "vg0-data"}));
  for (const char* bad :
       {R"(,"stack":"dm-0")", R"(,"stack":[1])", R"(,"stack":["dm-0")",
        R"(,"stack":null)", R"(,"stack":[["dm-0"]])"}) {
    std::string spoiled = plain;
    spoiled.insert(spoiled.size() - 2, bad);
    EXPECT_TRUE(StrictReaderRefuses(spoiled)) << bad;
  }
}

}  // namespace
}  // namespace biosnoop
