// The JSON Lines output against the schema in proto/biosnoop.proto (the
// source of truth for field names), through the generated descriptor.

#include <cstring>
#include <string>
#include <vector>

#include "biosnoop.pb.h"
#include "event.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "nlohmann/json.hpp"

namespace biosnoop {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using nlohmann::ordered_json;

// Every field set: queue time known, partition named, an error, and a comm
// that is not UTF-8 so that comm_raw appears.
EnrichedEvent EveryFieldEvent() {
  EnrichedEvent e;
  e.event.device_ns = 25000000;
  e.event.queue_ns = 1000000;
  e.event.sector = 2048;
  e.event.major = 8;
  e.event.minor = 0;
  e.event.bytes = 65536;
  e.event.pid = 100;
  e.event.tid = 101;
  e.event.queue_depth = 4;
  e.event.op = Op::kRead;
  e.event.blk_status = 10;
  std::memcpy(e.event.comm.data(), "bad\xff", 4);
  e.disk = "sda";
  e.partition = "sda1";
  e.realtime_ns = 1795239841000000000;
  e.seq = 1;
  return e;
}

ordered_json Parse(const EnrichedEvent& e) {
  std::string line;
  AppendEventJson(e, "host-a", &line);
  return ordered_json::parse(line);
}

std::vector<std::string> FieldNames() {
  const Descriptor* d = biosnoop::v1::Event::descriptor();
  std::vector<std::string> names;
  for (int i = 0; i < d->field_count(); ++i)
    names.push_back(d->field(i)->name());
  return names;
}

std::vector<std::string> Keys(const ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

TEST(SchemaTest, FullyPopulatedLineHasEveryFieldInSchemaOrder) {
  // Same names, same order as declared in the .proto.
  EXPECT_EQ(Keys(Parse(EveryFieldEvent())), FieldNames());
}

TEST(SchemaTest, EveryKeyIsAnEventField) {
  const Descriptor* d = biosnoop::v1::Event::descriptor();
  EnrichedEvent e = EveryFieldEvent();
  std::memcpy(e.event.comm.data(), "fine", 5);  // valid: no comm_raw
  e.event.queue_ns.reset();
  e.partition.clear();
  e.event.blk_status = 0;
  for (const std::string& key : Keys(Parse(e))) {
    EXPECT_NE(d->FindFieldByName(key), nullptr) << key;
  }
  std::vector<std::string> expected = FieldNames();
  std::erase(expected, "comm_raw");
  EXPECT_EQ(Keys(Parse(e)), expected);
}

TEST(SchemaTest, ValueTypesMatchFieldTypes) {
  const Descriptor* d = biosnoop::v1::Event::descriptor();
  EnrichedEvent with_nulls = EveryFieldEvent();
  with_nulls.event.queue_ns.reset();
  with_nulls.partition.clear();
  with_nulls.event.blk_status = 0;
  for (const EnrichedEvent& e : {EveryFieldEvent(), with_nulls}) {
    const ordered_json j = Parse(e);
    for (auto it = j.begin(); it != j.end(); ++it) {
      const FieldDescriptor* f = d->FindFieldByName(it.key());
      ASSERT_NE(f, nullptr) << it.key();
      if (it.value().is_null()) {
        // null only for proto3 `optional` fields.
        EXPECT_TRUE(f->has_optional_keyword()) << it.key();
        continue;
      }
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING:   // string, and bytes as hex
        case FieldDescriptor::CPPTYPE_MESSAGE:  // Timestamp: RFC 3339 text
          EXPECT_TRUE(it.value().is_string()) << it.key();
          break;
        case FieldDescriptor::CPPTYPE_INT32:
        case FieldDescriptor::CPPTYPE_INT64:
          EXPECT_TRUE(it.value().is_number_integer()) << it.key();
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
        case FieldDescriptor::CPPTYPE_UINT64:
          EXPECT_TRUE(it.value().is_number_unsigned()) << it.key();
          break;
        default:
          ADD_FAILURE() << "no JSON rule for field type of " << it.key();
      }
    }
  }
}

TEST(SchemaTest, ProtobufJsonParserReadsALine) {
  // A line with a valid comm (comm_raw is hex here, base64 in protobuf's
  // JSON mapping) is accepted by protobuf's own JSON parser, strictly.
  EnrichedEvent e = EveryFieldEvent();
  std::memcpy(e.event.comm.data(), "fio", 4);
  std::string line;
  AppendEventJson(e, "host-a", &line);
  biosnoop::v1::Event msg;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status =
      google::protobuf::util::JsonStringToMessage(line, &msg, options);
  ASSERT_TRUE(status.ok()) << status.ToString() << "\n" << line;
  EXPECT_EQ(msg.timestamp().seconds(), 1795239841);
  EXPECT_EQ(msg.host(), "host-a");
  EXPECT_EQ(msg.disk(), "sda");
  EXPECT_EQ(msg.partition(), "sda1");
  EXPECT_EQ(msg.dev(), "8:0");
  EXPECT_EQ(msg.sector(), 2048u);
  EXPECT_EQ(msg.latency_us(), 25000u);
  EXPECT_TRUE(msg.has_queue_us());
  EXPECT_EQ(msg.queue_us(), 1000u);
  EXPECT_EQ(msg.comm(), "fio");
  EXPECT_FALSE(msg.has_comm_raw());
  EXPECT_EQ(msg.error_code(), 5);
  EXPECT_EQ(msg.error(), "EIO");
  EXPECT_EQ(msg.seq(), 1u);
}

}  // namespace
}  // namespace biosnoop
