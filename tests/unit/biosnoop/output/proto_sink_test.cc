// The protobuf and JSON Lines sinks: the whole Sink interface, exact event
// counts (also when the output fails part-way), records read back by
// bioreport's reader, and the two formats saying the same thing.

#include "proto_sink.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "biosnoop.pb.h"
#include "child_process.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_format.h"
#include "proto_wire.h"
#include "record_reader.h"
#include "record_writer.h"
#include "stuck_like.h"

namespace biosnoop {
namespace {

using google::protobuf::util::MessageDifferencer;
using report::ParsedRecord;
using report::RecordKind;
using report::RecordReader;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

EnrichedEvent MakeEvent(uint64_t seq, absl::string_view comm = "postgres") {
  EnrichedEvent e;
  e.event.device_ns = 15000000 + seq * 1000;
  e.event.queue_ns = 2000 * seq;
  e.event.sector = 2048 * seq;
  e.event.major = 259;
  e.event.minor = 0;
  e.event.bytes = 4096;
  e.event.pid = 4242;
  e.event.tid = 4243;
  e.event.queue_depth = 3;
  e.event.op = seq % 2 ? Op::kRead : Op::kWrite;
  e.event.flags = kFlagSync;
  std::memcpy(e.event.comm.data(), comm.data(),
              std::min(comm.size(), e.event.comm.size() - 1));
  e.disk = "nvme0n1";
  e.partition = seq % 3 ? "nvme0n1p2" : "";
  e.realtime_ns = 1795239841000000000 + static_cast<int64_t>(seq) * 1000;
  e.seq = seq;
  return e;
}

StreamInfo Info() {
  StreamInfo info;
  info.host = "db-7";
  info.boot_id = "b00t";
  info.start_realtime_ns = 1795239800000000000;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0";
  info.min_us = 10000;
  info.ringbuf_kib = 4096;
  return info;
}

StatsSnapshot Stats(bool final, uint64_t written) {
  StatsSnapshot s;
  s.realtime_ns = 1795239900000000000;
  s.elapsed_s = 100.25;
  s.completions = 1000;
  s.emitted = 10;
  s.lost = 2;
  s.written = written;
  s.final = final;
  return s;
}

SummaryRecord Summary(int64_t realtime_ns) {
  SummaryRecord s;
  s.realtime_ns = realtime_ns;
  s.interval_s = 0.5;
  s.min_us = 10000;
  HistGroup g;
  g.disk = "nvme0n1";
  g.op = "read";
  g.data.count = 40;
  g.data.bytes = 40 * 4096;
  g.data.slow = 3;
  g.data.latency[6] = 37;
  g.data.latency[13] = 3;
  g.data.size[12] = 40;
  s.groups.push_back(g);
  g.op = "write";
  g.data.slow = 0;
  g.data.latency[13] = 0;
  g.data.latency[6] = 40;
  s.groups.push_back(g);
  return s;
}

std::vector<ParsedRecord> ReadAll(const std::string& path,
                                  report::StreamFormat* format = nullptr) {
  auto reader = RecordReader::Open(path, report::ReaderOptions{});
  EXPECT_TRUE(reader.ok()) << reader.status();
  std::vector<ParsedRecord> out;
  ParsedRecord rec;
  for (;;) {
    absl::StatusOr<bool> got = (*reader)->Next(&rec);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || !*got) break;
    out.push_back(rec);
  }
  EXPECT_EQ((*reader)->records_skipped(), 0u);
  EXPECT_FALSE((*reader)->damaged_end());
  if (format != nullptr) *format = (*reader)->format();
  return out;
}

class SinkFormatsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-sink-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  bool proto() const { return GetParam(); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::unique_ptr<FileSink> MakeSink(const std::string& path) {
    auto file = OutputFile::Open(path, proto() ? RecordFraming::kVarintDelimited
                                               : RecordFraming::kLines);
    EXPECT_TRUE(file.ok()) << file.status();
    if (proto()) return std::make_unique<ProtoSink>(std::move(*file), "db-7");
    return std::make_unique<JsonlSink>(std::move(*file), "db-7");
  }

  std::string dir_;
};

TEST_P(SinkFormatsTest, RoundTripThroughTheReader) {
  const std::string path = Path("stream");
  std::unique_ptr<FileSink> sink = MakeSink(path);
  ASSERT_TRUE(sink->WriteHeader(Info()).ok());
  auto comm_of = [](uint64_t seq) { return seq == 4 ? "bad\xff" : "fio"; };
  for (uint64_t seq = 1; seq <= 5; ++seq) {
    ASSERT_TRUE(sink->Write(MakeEvent(seq, comm_of(seq))).ok());
    // A summary between queued events: they are written before it, and
    // only they count as events.
    if (seq == 3) {
      ASSERT_TRUE(sink->WriteSummary(Summary(1795239841500000000)).ok());
      EXPECT_EQ(sink->events_written(), 3u);
    }
  }
  // events_written() counts what reached the file: flush first.
  ASSERT_TRUE(sink->Flush().ok());
  ASSERT_TRUE(sink->WriteStats(Stats(false, sink->events_written())).ok());
  ASSERT_TRUE(sink->Write(MakeEvent(6, "fio")).ok());
  ASSERT_TRUE(sink->Flush().ok());
  ASSERT_TRUE(sink->WriteStats(Stats(true, sink->events_written())).ok());
  SummaryRecord no_groups = Summary(1795239842000000000);
  no_groups.groups.clear();
  ASSERT_TRUE(sink->WriteSummary(no_groups).ok());
  EXPECT_EQ(sink->events_written(), 6u);
  EXPECT_EQ(sink->events_dropped(), 0u);
  // + header + 2 stats + 2 summaries
  EXPECT_EQ(sink->file().records_written(), 11u);

  report::StreamFormat format;
  const std::vector<ParsedRecord> recs = ReadAll(path, &format);
  EXPECT_EQ(format, proto() ? report::StreamFormat::kProtobuf
                            : report::StreamFormat::kJsonLines);
  ASSERT_EQ(recs.size(), 11u);
  EXPECT_EQ(recs[0].kind, RecordKind::kHeader);
  EXPECT_EQ(recs[0].header.format_version(), kStreamFormatVersion);
  EXPECT_EQ(recs[0].header.boot_id(), "b00t");
  EXPECT_EQ(recs[0].header.start_time().seconds(), 1795239800);
  EXPECT_EQ(recs[0].header.min_us(), 10000u);
  ASSERT_EQ(recs[4].kind, RecordKind::kSummary);
  v1::Summary want_summary;
  FillSummaryProto(Summary(1795239841500000000), &want_summary);
  EXPECT_TRUE(MessageDifferencer::Equals(recs[4].summary, want_summary))
      << recs[4].summary.DebugString();
  EXPECT_EQ(recs[4].summary.groups(1).latency_us_log2_size(), 7);  // trimmed
  EXPECT_EQ(recs[7].kind, RecordKind::kStats);
  EXPECT_EQ(recs[7].stats.written(), 5u);
  EXPECT_FALSE(recs[7].stats.final());
  EXPECT_EQ(recs[9].kind, RecordKind::kStats);
  EXPECT_EQ(recs[9].stats.written(), 6u);
  EXPECT_EQ(recs[9].stats.lost(), 2u);
  EXPECT_EQ(recs[9].stats.elapsed_s(), 100.25);
  EXPECT_TRUE(recs[9].stats.final());
  ASSERT_EQ(recs[10].kind, RecordKind::kSummary);
  EXPECT_EQ(recs[10].summary.groups_size(), 0);
  std::vector<int> events = {1, 2, 3, 5, 6, 8};
  for (size_t i = 0; i < events.size(); ++i) {
    const ParsedRecord& r = recs[events[i]];
    ASSERT_EQ(r.kind, RecordKind::kEvent);
    // The event reads back as exactly what FillEventProto makes of it.
    v1::Event want;
    FillEventProto(MakeEvent(i + 1, comm_of(i + 1)), "db-7", &want);
    EXPECT_TRUE(MessageDifferencer::Equals(r.event, want))
        << r.event.DebugString() << "\nvs\n"
        << want.DebugString();
  }
  EXPECT_EQ(recs[5].event.comm(), "bad\xef\xbf\xbd");
  EXPECT_EQ(recs[5].event.comm_raw(), "bad\xff");
  EXPECT_FALSE(recs[1].event.has_comm_raw());
  EXPECT_FALSE(recs[3].event.has_partition());  // seq 3: no partition
  EXPECT_EQ(recs[1].event.partition(), "nvme0n1p2");
}

// Writes 200 events, header, stats and summaries under a 4000-byte file
// size limit in a child; reports the sink's counts and the file's content.
std::string LimitedWriteBody(const std::string& path, bool proto) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = 4000;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
  auto file = OutputFile::Open(
      path, proto ? RecordFraming::kVarintDelimited : RecordFraming::kLines);
  if (!file.ok()) return "open failed";
  std::unique_ptr<FileSink> sink;
  if (proto) {
    sink = std::make_unique<ProtoSink>(std::move(*file), "db-7");
  } else {
    sink = std::make_unique<JsonlSink>(std::move(*file), "db-7");
  }
  int errors = 0;
  errors += !sink->WriteHeader(Info()).ok();
  for (uint64_t seq = 1; seq <= 200; ++seq) {
    errors += !sink->Write(MakeEvent(seq)).ok();
    if (seq % 7 == 0) errors += !sink->WriteStats(Stats(false, seq)).ok();
    if (seq % 11 == 0)
      errors += !sink->WriteSummary(Summary(1795239842000000000)).ok();
    if (seq % 5 == 0) errors += !sink->Flush().ok();
  }
  errors += !sink->Flush().ok();
  errors += !sink->WriteStats(Stats(true, 200)).ok();
  errors += !sink->WriteSummary(Summary(1795239842000000000)).ok();
  return absl::StrCat(sink->events_written(), " ", sink->events_dropped(), " ",
                      errors);
}

// LimitedWriteBody in a child (the file size limit stays there).
std::string RunChild(const std::string& path, bool proto) {
  const testing::ChildResult r = testing::RunInChild(
      [&path, proto] { return LimitedWriteBody(path, proto); });
  EXPECT_TRUE(testing::ExitedWith(r, 0));
  return r.report;
}

TEST_P(SinkFormatsTest, CountsEventsExactlyWhenTheOutputFails) {
  const std::string path = Path("limited");
  const std::vector<std::string> parts =
      absl::StrSplit(RunChild(path, proto()), ' ');
  ASSERT_EQ(parts.size(), 3u);
  const uint64_t written = std::stoull(parts[0]);
  const uint64_t dropped = std::stoull(parts[1]);
  EXPECT_GT(std::stoi(parts[2]), 0);  // the limit was hit
  EXPECT_EQ(written + dropped, 200u);
  EXPECT_GT(written, 0u);
  EXPECT_GT(dropped, 0u);
  // The file holds whole records only, and exactly `written` events.
  const std::vector<ParsedRecord> recs = ReadAll(path);
  uint64_t events = 0;
  for (const ParsedRecord& r : recs) events += r.kind == RecordKind::kEvent;
  EXPECT_EQ(events, written);
  ASSERT_FALSE(recs.empty());
  EXPECT_EQ(recs[0].kind, RecordKind::kHeader);
  EXPECT_LE(ReadFile(path).size(), 4000u);
}

INSTANTIATE_TEST_SUITE_P(JsonlAndProto, SinkFormatsTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Proto" : "Jsonl";
                         });

// The protobuf form, written back as JSON by the converter, is byte for
// byte the line biosnoop's own JSON writer makes: the formats agree.
// A random event: every field over its range, hostile strings now and
// then; `host` gets a random host name.
EnrichedEvent RandomEvent(std::mt19937_64& rng, std::string* host) {
  EnrichedEvent e;
  const uint64_t r = rng();
  e.event.device_ns = rng() >> (r % 64);
  if (r & 1) e.event.queue_ns = rng() >> (r % 60);
  e.include_queue = r & 2;
  e.event.sector = rng();
  e.event.major = static_cast<uint32_t>(rng());
  e.event.minor = static_cast<uint32_t>(rng() >> 44);
  e.event.bytes = static_cast<uint32_t>(rng());
  e.event.pid = static_cast<uint32_t>(rng());
  e.event.tid = static_cast<uint32_t>(rng());
  e.event.queue_depth = static_cast<uint32_t>(rng() >> 50);
  e.event.op = static_cast<Op>(r % 8);
  e.event.flags = static_cast<uint8_t>(rng() & 0x1f);
  e.event.blk_status = (r >> 8) % 4 == 0 ? static_cast<uint8_t>(rng()) : 0;
  const size_t comm_len = (r >> 16) % 16;
  for (size_t k = 0; k < comm_len; ++k) {
    e.event.comm[k] = static_cast<char>(1 + rng() % 255);
  }
  e.disk = (r >> 20) % 5 == 0 ? "d\xff\"isk" : "sda";
  e.partition = (r >> 24) % 3 == 0 ? "" : "sda1";
  e.realtime_ns = static_cast<int64_t>(rng() >> 2) * ((r >> 30) % 2 ? 1 : -1);
  e.seq = rng();
  *host = (r >> 32) % 7 == 0 ? "h\x01\xc3" : "db-7";
  return e;
}

TEST(ProtoFormatTest, ConverterJsonEqualsBiosnoopJsonOnRandomEvents) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 5000; ++i) {
    std::string host;
    const EnrichedEvent e = RandomEvent(rng, &host);
    std::string biosnoop_line;
    AppendEventJson(e, host, &biosnoop_line);
    ParsedRecord rec;
    rec.kind = RecordKind::kEvent;
    FillEventProto(e, host, &rec.event);
    std::string converted;
    ASSERT_TRUE(report::AppendRecordJson(rec, &converted).ok());
    ASSERT_EQ(converted, biosnoop_line);

    // And the protobuf bytes are those of a v1::Record holding the event.
    std::string framed;
    report::AppendRecordProto(rec, &framed);
    v1::Record record;
    *record.mutable_event() = rec.event;
    std::string expected;
    AppendDelimited(record, &expected);
    ASSERT_EQ(framed, expected);
  }
}

// The same for stuck records: the converter's JSON from FillStuckProto's
// message is AppendStuckJson's line, and its protobuf bytes
// AppendStuckRecordDelimited's.
TEST(ProtoFormatTest, ConverterJsonEqualsBiosnoopJsonOnRandomStuckRequests) {
  std::mt19937_64 rng(44);
  for (int i = 0; i < 5000; ++i) {
    std::string host;
    const StuckRequest s = StuckLike(RandomEvent(rng, &host));
    std::string biosnoop_line;
    AppendStuckJson(s, JsonHost(host), &biosnoop_line);
    ParsedRecord rec;
    rec.kind = RecordKind::kStuck;
    FillStuckProto(s, host, &rec.stuck);
    std::string converted;
    ASSERT_TRUE(report::AppendRecordJson(rec, &converted).ok());
    ASSERT_EQ(converted, biosnoop_line);

    std::string framed;
    report::AppendRecordProto(rec, &framed);
    std::string written;
    AppendStuckRecordDelimited(s, ProtoHost(host), &written);
    ASSERT_EQ(framed, written);
  }
}

// The same for summaries: the converter's JSON from FillSummaryProto's
// message is AppendSummaryJson's line, and its protobuf the Record's.
TEST(ProtoFormatTest, ConverterJsonEqualsBiosnoopJsonOnRandomSummaries) {
  std::mt19937_64 rng(43);
  for (int i = 0; i < 2000; ++i) {
    SummaryRecord s;
    const uint64_t r = rng();
    s.realtime_ns = static_cast<int64_t>(rng() >> 2) * ((r & 1) ? 1 : -1);
    s.interval_s = static_cast<double>(rng() >> (r % 64)) / 1e6;
    s.min_us = rng() >> ((r >> 8) % 64);
    const size_t groups = (r >> 16) % 5;
    for (size_t g = 0; g < groups; ++g) {
      HistGroup h;
      h.disk = (rng() % 4 == 0) ? "d\xff\"\n" : "nvme0n1";
      h.op = (rng() % 2 == 0) ? "read" : "write";
      h.data.count = rng() >> (rng() % 64);
      h.data.bytes = rng();
      h.data.slow = rng() >> (rng() % 64);
      h.data.errors = rng() % 2 ? 0 : rng() >> (rng() % 64);
      // Sparse histograms, often with zero trailing buckets.
      for (auto* hist : {&h.data.latency, &h.data.size}) {
        for (uint64_t& bucket : *hist) {
          if (rng() % 5 == 0) bucket = rng() >> (rng() % 64);
        }
      }
      s.groups.push_back(h);
    }
    std::string biosnoop_line;
    AppendSummaryJson(s, &biosnoop_line);
    ParsedRecord rec;
    rec.kind = RecordKind::kSummary;
    FillSummaryProto(s, &rec.summary);
    std::string converted;
    ASSERT_TRUE(report::AppendRecordJson(rec, &converted).ok());
    ASSERT_EQ(converted, biosnoop_line);

    std::string framed;
    report::AppendRecordProto(rec, &framed);
    v1::Record record;
    *record.mutable_summary() = rec.summary;
    std::string expected;
    AppendDelimited(record, &expected);
    ASSERT_EQ(framed, expected);
  }
}

TEST(ProtoFormatTest, DelimitedIsWhatProtobufReadsBack) {
  v1::Record record;
  FillHeaderProto(Info(), record.mutable_header());
  std::string bytes;
  AppendDelimited(record, &bytes);
  // varint size, then the message.
  ASSERT_LT(bytes.size(), 128u + 1);
  EXPECT_EQ(static_cast<size_t>(bytes[0]), bytes.size() - 1);
  v1::Record back;
  ASSERT_TRUE(back.ParseFromString(bytes.substr(1)));
  EXPECT_TRUE(MessageDifferencer::Equals(back, record));
}

TEST(ProtoFormatTest, InvalidUtf8BecomesReplacementInEveryString) {
  StreamInfo info = Info();
  info.host = "h\xff";
  info.comm_filter = "c\xc0";
  v1::StreamHeader h;
  FillHeaderProto(info, &h);
  EXPECT_EQ(h.host(), "h\xef\xbf\xbd");
  EXPECT_EQ(h.comm_filter(), "c\xef\xbf\xbd");
  std::string bytes;
  EXPECT_TRUE(h.SerializeToString(&bytes));
  v1::StreamHeader back;
  EXPECT_TRUE(back.ParseFromString(bytes));  // proto3 strings must be UTF-8
}

}  // namespace
}  // namespace biosnoop
