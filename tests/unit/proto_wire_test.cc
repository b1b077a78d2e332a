#include "proto_wire.h"

#include <random>
#include <string>

#include "biosnoop.pb.h"
#include "gtest/gtest.h"
#include "proto_format.h"

namespace biosnoop {
namespace {

// What the protobuf library itself writes for the same event.
std::string Reference(const EnrichedEvent& e, absl::string_view host) {
  v1::Record record;
  FillEventProto(e, host, record.mutable_event());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}

std::string Encode(const EnrichedEvent& e, absl::string_view host) {
  std::string scratch, out;
  AppendEventRecordDelimited(e, host, &scratch, &out);
  return out;
}

EnrichedEvent Sample() {
  EnrichedEvent e;
  e.event.complete_ns = 1;
  e.event.device_ns = 20'500'123;
  e.event.queue_ns = 4'000;
  e.event.sector = 123456789;
  e.event.major = 259;
  e.event.minor = 3;
  e.event.bytes = 131072;
  e.event.pid = 4242;
  e.event.tid = 4243;
  e.event.queue_depth = 17;
  e.event.op = Op::kWrite;
  e.event.flags = kFlagSync | kFlagFua;
  e.event.blk_status = 10;
  std::memcpy(e.event.comm.data(), "postgres", 8);
  e.disk = "nvme0n1";
  e.partition = "nvme0n1p2";
  e.realtime_ns = 1795239841'123456789;
  e.seq = 99;
  return e;
}

TEST(ProtoWireTest, SameBytesAsTheLibraryForAFullEvent) {
  EnrichedEvent e = Sample();
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
  e.include_queue = true;
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
}

TEST(ProtoWireTest, SameBytesForDefaultsAndAbsentOptionals) {
  EnrichedEvent e;  // zeros everywhere: timestamp at the epoch, no strings
  EXPECT_EQ(Encode(e, ""), Reference(e, ""));
  e = Sample();
  e.partition.clear();
  e.event.queue_ns.reset();
  e.event.blk_status = 0;
  e.realtime_ns = -1;  // before 1970: negative seconds, sign-extended
  EXPECT_EQ(Encode(e, "h"), Reference(e, "h"));
}

TEST(ProtoWireTest, SameBytesForRandomEventsAndHostileComms) {
  std::mt19937_64 rng(42);
  std::string scratch, out;
  for (int i = 0; i < 20000; ++i) {
    EnrichedEvent e = Sample();
    e.event.device_ns = rng() >> (rng() % 64);
    if (rng() % 3 == 0) e.event.queue_ns.reset(); else e.event.queue_ns = rng() >> (rng() % 64);
    e.event.sector = rng() >> (rng() % 64);
    e.event.bytes = static_cast<uint32_t>(rng());
    e.event.major = static_cast<uint32_t>(rng() % 4096);
    e.event.minor = static_cast<uint32_t>(rng() % (1u << 20));
    e.event.pid = static_cast<uint32_t>(rng());
    e.event.op = static_cast<Op>(rng() % 8);
    e.event.flags = static_cast<uint8_t>(rng() % 32);
    e.event.blk_status = static_cast<uint8_t>(rng() % 20);
    for (char& c : e.event.comm) c = static_cast<char>(rng());
    e.event.comm[rng() % 16] = '\0';
    if (rng() % 4 == 0) e.partition.clear();
    if (rng() % 8 == 0) e.disk = std::string("\xff\xfe", 2);
    e.realtime_ns = static_cast<int64_t>(rng() >> 2) * ((rng() % 2) ? 1 : -1);
    e.seq = rng() >> (rng() % 64);
    e.include_queue = rng() % 2;
    out.clear();
    AppendEventRecordDelimited(e, "host", &scratch, &out);
    ASSERT_EQ(out, Reference(e, "host")) << "event " << i;
  }
}

TEST(ProtoWireTest, AppendsAfterExistingBytes) {
  std::string scratch, out = "prefix";
  AppendEventRecordDelimited(Sample(), "db-7", &scratch, &out);
  EXPECT_EQ(out, "prefix" + Reference(Sample(), "db-7"));
}

}  // namespace
}  // namespace biosnoop
