// The stream header's kernel_lacks (what the running kernel lacks that
// changed the run) through the three sinks, read back with bioreport's
// reader and converted between JSON Lines and protobuf byte for byte; and
// absent, as in earlier streams, when the kernel lacks nothing.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
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

// A header as biosnoop writes it with --ops on a 6.1 kernel.
StreamInfo Info(std::vector<std::string> kernel_lacks) {
  StreamInfo info;
  info.host = "db-7";
  info.boot_id = "b00t";
  info.start_realtime_ns = 1795239800000000000;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.1.0-28-amd64";
  info.min_us = 10000;
  info.ringbuf_kib = 2048;
  info.stuck_after_us = 1000000;
  info.run_id = "0123456789abcdef";
  info.ops = true;
  info.op_min_us = 10000;
  info.kernel_lacks = std::move(kernel_lacks);
  return info;
}

const std::vector<std::string> kTwoLacks = {"block_io_start",
                                            "verifier:handle_sys_enter"};

class KernelLacksTest : public SinkRoundTrip {
 protected:
  // The header alone, through the sink of `format`, as the file's bytes.
  std::string Write(const StreamInfo& info, const std::string& format) {
    return SinkRoundTrip::Write(
        [&info](FileSink& sink) { return sink.WriteHeader(info); }, format);
  }
};

TEST_F(KernelLacksTest, JsonArrayAfterOpMinUs) {
  const std::string line = Write(Info(kTwoLacks), "jsonl");
  EXPECT_NE(line.find(R"("ops":true,"op_min_us":10000,)"
                      R"("kernel_lacks":["block_io_start",)"
                      R"("verifier:handle_sys_enter"]})"
                      "\n"),
            std::string::npos)
      << line;
  const ordered_json j = ordered_json::parse(line);
  EXPECT_EQ(j["kernel_lacks"], ordered_json(kTwoLacks));
}

TEST_F(KernelLacksTest, ProtobufRepeatedField) {
  const std::string bytes = Write(Info(kTwoLacks), "pb");
  v1::Record record;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint32_t size = 0;
  ASSERT_TRUE(in.ReadVarint32(&size));
  ASSERT_EQ(in.CurrentPosition() + size, bytes.size());
  ASSERT_TRUE(record.ParseFromArray(bytes.data() + in.CurrentPosition(),
                                    static_cast<int>(size)));
  ASSERT_TRUE(record.has_header());
  EXPECT_EQ(std::vector<std::string>(record.header().kernel_lacks().begin(),
                                     record.header().kernel_lacks().end()),
            kTwoLacks);
}

TEST_F(KernelLacksTest, EcsUnderTheHeaderFields) {
  const ordered_json d = ordered_json::parse(Write(Info(kTwoLacks), "ecs"));
  EXPECT_EQ(d["biosnoop"]["header"]["op_min_us"], 10000);
  EXPECT_EQ(d["biosnoop"]["header"]["kernel_lacks"], ordered_json(kTwoLacks));
}

// bioreport reads both formats, and convert gives the other format's bytes
// exactly.
TEST_F(KernelLacksTest, ReadBackAndConvertedByteForByte) {
  const std::string jsonl = Write(Info(kTwoLacks), "jsonl");
  const std::string pb = Write(Info(kTwoLacks), "pb");
  for (const std::string* bytes : {&jsonl, &pb}) {
    const ParsedRecord rec = ReadBack(*bytes);
    ASSERT_EQ(rec.kind, RecordKind::kHeader);
    EXPECT_EQ(std::vector<std::string>(rec.header.kernel_lacks().begin(),
                                       rec.header.kernel_lacks().end()),
              kTwoLacks);
    EXPECT_EQ(rec.header.op_min_us(), 10000u);
    std::string as_json;
    ASSERT_TRUE(report::AppendRecordJson(rec, &as_json).ok());
    EXPECT_EQ(as_json, jsonl);
    std::string as_proto;
    report::AppendRecordProto(rec, &as_proto);
    EXPECT_EQ(as_proto, pb);
  }
}

// On a kernel that lacks nothing: no key in JSON or ECS, no field in
// protobuf, so the stream is what earlier versions wrote; and it converts
// back the same.
TEST_F(KernelLacksTest, AbsentWhenTheKernelLacksNothing) {
  const std::string jsonl = Write(Info({}), "jsonl");
  EXPECT_EQ(jsonl.find("kernel_lacks"), std::string::npos) << jsonl;
  EXPECT_NE(jsonl.find(R"("op_min_us":10000})"
                       "\n"),
            std::string::npos)
      << jsonl;
  EXPECT_EQ(Write(Info({}), "ecs").find("kernel_lacks"), std::string::npos);
  const std::string pb = Write(Info({}), "pb");
  const ParsedRecord from_pb = ReadBack(pb);
  EXPECT_EQ(from_pb.header.kernel_lacks_size(), 0);
  std::string as_json;
  ASSERT_TRUE(report::AppendRecordJson(from_pb, &as_json).ok());
  EXPECT_EQ(as_json, jsonl);
  const ParsedRecord from_json = ReadBack(jsonl);
  std::string as_proto;
  report::AppendRecordProto(from_json, &as_proto);
  EXPECT_EQ(as_proto, pb);
}

// What a pipeline may hand bioreport: an empty array reads as none, and
// anything but an array of strings is refused.
TEST_F(KernelLacksTest, ReaderTakesAnEmptyArrayAndRefusesOthers) {
  std::string line = Write(Info({}), "jsonl");
  line.insert(line.size() - 2, R"(,"kernel_lacks":[])");
  EXPECT_EQ(ReadBack(line).header.kernel_lacks_size(), 0);
  for (const char* bad :
       {R"(,"kernel_lacks":"io_uring")", R"(,"kernel_lacks":[1])",
        R"(,"kernel_lacks":["io_uring")"}) {
    std::string spoiled = Write(Info({}), "jsonl");
    spoiled.insert(spoiled.size() - 2, bad);
    EXPECT_TRUE(StrictReaderRefuses(spoiled)) << bad;
  }
}

}  // namespace
}  // namespace biosnoop
