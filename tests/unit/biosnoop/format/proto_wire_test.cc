#include "proto_wire.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "biosnoop.pb.h"
#include "gtest/gtest.h"
#include "proto_format.h"
#include "stacked_devices.h"
#include "stuck_like.h"
#include "worst_case_event.h"

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
    if (rng() % 3 == 0)
      e.event.queue_ns.reset();
    else
      e.event.queue_ns = rng() >> (rng() % 64);
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
    if (rng() % 4 == 0) e.stack = {"md0", "dm-0", "vg0-d\xffta"};
    e.realtime_ns = static_cast<int64_t>(rng() >> 2) * ((rng() % 2) ? 1 : -1);
    e.seq = rng() >> (rng() % 64);
    e.include_queue = rng() % 2;
    out.clear();
    AppendEventRecordDelimited(e, "host", &scratch, &out);
    ASSERT_EQ(out, Reference(e, "host")) << "event " << i;
  }
}

// Strings are copied by size class (up to 3 bytes one by one, 4-7 and
// 8-16 with two overlapping moves, longer with memcpy): every length from
// 0 to 40 in every string field, each byte telling its position.
TEST(ProtoWireTest, SameBytesForStringsOfEveryLength) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>('A' + i % 26);
    EnrichedEvent e = Sample();
    e.disk = s;
    e.partition = s;
    std::fill(e.event.comm.begin(), e.event.comm.end(), '\0');
    std::copy_n(s.begin(), std::min<size_t>(n, e.event.comm.size()),
                e.event.comm.begin());
    EXPECT_EQ(Encode(e, s), Reference(e, s)) << "length " << n;
  }
}

// The devices stacked on the partition: each name its own field 35, after
// every other (field-number order), an empty one and invalid UTF-8
// included; the most there can be.
TEST(ProtoWireTest, SameBytesAsTheLibraryForStacks) {
  EnrichedEvent e = Sample();
  e.stack = {"md0", "dm-0", "vg0-data", "dm-1", "data_crypt"};
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
  e.stack = {"", "dm-\xff", std::string(127, 'n')};
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
  e.stack.assign(StackedDevices::kMaxEntries, "vg0-some_volume");
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
  e.event.attribution.dirtier_op_ids = {1, 2};
  e.event.attribution.dirtier_op_count = 2;
  e.event.op_id = 7;
  EXPECT_EQ(Encode(e, "db-7"), Reference(e, "db-7"));
}

TEST(ProtoWireTest, AppendsAfterExistingBytes) {
  std::string scratch, out = "prefix";
  AppendEventRecordDelimited(Sample(), "db-7", &scratch, &out);
  EXPECT_EQ(out, "prefix" + Reference(Sample(), "db-7"));
}

// WriteEventRecordDelimited writes into a caller's buffer of
// EventRecordBound bytes: the worst case of every variable part must stay
// inside it, and the record must still be the library's bytes.
TEST(ProtoWireTest, WriteStaysWithinItsBound) {
  EnrichedEvent e = Sample();
  const std::string invalid(300, '\xff');  // each byte becomes U+FFFD
  e.disk = invalid;
  e.partition = invalid;
  e.stack.assign(StackedDevices::kMaxEntries, invalid);
  SetLongestFixedFields(&e);
  SetLongestOpIds(&e);
  e.realtime_ns = std::numeric_limits<int64_t>::min() + 1;

  const ProtoHost host(invalid);
  const size_t bound = EventRecordBound(e, host);
  constexpr size_t kGuard = 64;
  std::string buffer(bound + kGuard, '#');
  char* start = nullptr;
  const char* end = WriteEventRecordDelimited(e, host, buffer.data(), &start);
  ASSERT_GE(start, buffer.data());
  EXPECT_LE(static_cast<size_t>(end - buffer.data()), bound);
  EXPECT_EQ(buffer.substr(bound), std::string(kGuard, '#'));
  EXPECT_EQ(std::string(start, static_cast<size_t>(end - start)),
            Reference(e, invalid));
}

// The rare records, against the library the same way.
std::string Reference(const StreamInfo& info) {
  v1::Record record;
  FillHeaderProto(info, record.mutable_header());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}
std::string Reference(const StatsSnapshot& stats) {
  v1::Record record;
  FillStatsProto(stats, record.mutable_stats());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}
std::string Reference(const SummaryRecord& summary) {
  v1::Record record;
  FillSummaryProto(summary, record.mutable_summary());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}
template <typename T, typename Fn>
std::string EncodeWith(Fn fn, const T& value) {
  std::string out;
  fn(value, &out);
  return out;
}
std::string Encode(const StreamInfo& info) {
  return EncodeWith(AppendHeaderRecordDelimited, info);
}
std::string Encode(const StatsSnapshot& stats) {
  return EncodeWith(AppendStatsRecordDelimited, stats);
}
std::string Encode(const SummaryRecord& summary) {
  return EncodeWith(AppendSummaryRecordDelimited, summary);
}

StreamInfo FullInfo() {
  StreamInfo info;
  info.host = "db-7";
  info.boot_id = "0c5e1f2a-8d7b-4d43-9a8e-1b2c3d4e5f60";
  info.start_realtime_ns = 1795239800'123456789;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0-1-amd64";
  info.min_us = 10000;
  info.queued = true;
  info.disk_filter = "nvme0n1p2";
  info.pid_filter = 4242;
  info.comm_filter = "postgres";
  info.op_filter = "write";
  info.ringbuf_kib = 2048;
  info.stuck_after_us = 1'000'000;
  info.run_id = "0123456789abcdef";
  return info;
}

TEST(ProtoWireTest, SameBytesAsTheLibraryForHeaders) {
  EXPECT_EQ(Encode(FullInfo()), Reference(FullInfo()));
  StreamInfo info;  // every field at its default, start time at the epoch
  EXPECT_EQ(Encode(info), Reference(info));
  info = FullInfo();
  info.queued = false;
  info.start_realtime_ns = -1'500'000'000;  // before 1970
  info.host = std::string("h\xff\0x", 4);   // invalid UTF-8, a NUL
  info.comm_filter = "c\xc0";
  info.kernel_release.clear();
  EXPECT_EQ(Encode(info), Reference(info));
  info.min_us = std::numeric_limits<uint64_t>::max();
  info.pid_filter = std::numeric_limits<uint32_t>::max();
  info.ringbuf_kib = std::numeric_limits<uint32_t>::max();
  info.stuck_after_us = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(Encode(info), Reference(info));
  // What the kernel lacks: each name its own field, an empty one and
  // invalid UTF-8 included.
  info.kernel_lacks = {"block_io_start", "", "verifier:\xff"};
  EXPECT_EQ(Encode(info), Reference(info));
}

std::string ReferenceStuck(const StuckRequest& s, absl::string_view host) {
  v1::Record record;
  FillStuckProto(s, host, record.mutable_stuck());
  std::string out;
  AppendDelimited(record, &out);
  return out;
}

std::string EncodeStuck(const StuckRequest& s, absl::string_view host) {
  std::string out;
  AppendStuckRecordDelimited(s, ProtoHost(host), &out);
  return out;
}

// A stuck request: an event's fields at issue, in flight 20.5 ms so far.
TEST(ProtoWireTest, SameBytesAsTheLibraryForStuckRequests) {
  StuckRequest s = StuckLike(Sample());
  EXPECT_EQ(EncodeStuck(s, "db-7"), ReferenceStuck(s, "db-7"));
  // Devices stacked on it (field 28, after op_id), an invalid name too.
  s.stack = {"md0", "dm-0", "vg0-d\xffta"};
  s.request.op_id = 12;
  EXPECT_EQ(EncodeStuck(s, "db-7"), ReferenceStuck(s, "db-7"));
  s.stack.clear();
  // Absent optionals, zeros, an invalid comm (comm_raw) and host, a queue
  // time of zero (present: optional).
  s.partition.clear();
  s.request.queue_ns = 0;
  s.request.pid = s.request.tid = s.request.queue_depth = 0;
  s.request.sector = 0;
  std::memcpy(s.request.comm.data(), "a\"b\xff\x01\0", 6);
  EXPECT_EQ(EncodeStuck(s, "h\xc0"), ReferenceStuck(s, "h\xc0"));
  s.request.queue_ns.reset();
  s.disk = "d\xff";
  s.realtime_ns = -1;
  EXPECT_EQ(EncodeStuck(s, ""), ReferenceStuck(s, ""));
}

TEST(ProtoWireTest, SameBytesAsTheLibraryForStats) {
  StatsSnapshot s;  // zeros: only the timestamp message, empty
  EXPECT_EQ(Encode(s), Reference(s));
  s.realtime_ns = 1795239900'000000001;
  s.elapsed_s = 100.25;
  s.completions = 1ull << 40;
  s.emitted = 10;
  s.lost = 2;
  s.orphans = 3;
  s.below_threshold = 4;
  s.filtered = 5;
  s.decode_errors = 6;
  s.expired = 7;
  s.written = 8;
  s.dropped = 9;
  s.missed = 11;
  s.unfinished = 12;
  s.final = true;
  s.run_id = "0123456789abcdef";
  EXPECT_EQ(Encode(s), Reference(s));
  for (double elapsed : {-0.0, 1e-300, -2.5, std::nan(""),
                         std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::denorm_min()}) {
    s.elapsed_s = elapsed;
    s.final = !s.final;
    EXPECT_EQ(Encode(s), Reference(s)) << elapsed;
  }
  s.realtime_ns = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Encode(s), Reference(s));
}

TEST(ProtoWireTest, SameBytesAsTheLibraryForSummaries) {
  SummaryRecord s;  // no groups
  EXPECT_EQ(Encode(s), Reference(s));
  s.realtime_ns = 1795239841'500000000;
  s.interval_s = 60.000123;
  s.min_us = 10000;
  s.groups.push_back(HistGroup{});  // --hist without -D: no labels, empty
  HistGroup g;
  g.disk = "nvme0n1";
  g.op = "read";
  g.data.count = 40;
  g.data.bytes = 40 * 4096;
  g.data.slow = 3;
  g.data.errors = 2;
  g.data.latency[0] = 1;  // zeros between counted buckets stay
  g.data.latency[6] = 37;
  g.data.latency[13] = 3;
  g.data.size[12] = 40;
  s.groups.push_back(g);
  g.disk = std::string("\xfe\xff", 2);
  g.op = "write";
  g.data.latency.fill(std::numeric_limits<uint64_t>::max());
  g.data.size.fill(0);
  s.groups.push_back(g);
  EXPECT_EQ(Encode(s), Reference(s));
}

TEST(ProtoWireTest, SameBytesForRandomSummaries) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    SummaryRecord s;
    s.realtime_ns = static_cast<int64_t>(rng() >> 2) * ((rng() % 2) ? 1 : -1);
    s.interval_s = static_cast<double>(rng() % 100000) / 1000.0;
    s.min_us = rng() >> (rng() % 64);
    for (int n = static_cast<int>(rng() % 5); n > 0; --n) {
      HistGroup g;
      g.disk = rng() % 3 ? "vda" : "";
      g.op = rng() % 3 ? "read" : "";
      g.data.count = rng() >> (rng() % 64);
      g.data.bytes = rng() >> (rng() % 64);
      g.data.slow = rng() >> (rng() % 64);
      g.data.errors = rng() % 2 ? 0 : rng() >> (rng() % 64);
      for (uint64_t& b : g.data.latency)
        b = rng() % 3 ? 0 : rng() >> (rng() % 64);
      for (uint64_t& b : g.data.size) b = rng() % 3 ? 0 : rng() >> (rng() % 64);
      s.groups.push_back(g);
    }
    ASSERT_EQ(Encode(s), Reference(s)) << "summary " << i;
  }
}

TEST(ProtoWireTest, RareRecordsAppendAfterExistingBytes) {
  std::string out = "prefix";
  AppendHeaderRecordDelimited(FullInfo(), &out);
  EXPECT_EQ(out, "prefix" + Reference(FullInfo()));
}

}  // namespace
}  // namespace biosnoop
