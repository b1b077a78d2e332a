// The protobuf and JSON Lines sinks: the whole Sink interface, exact event
// counts (also when the output fails part-way), records read back by
// bioreport's reader, and the two formats saying the same thing.

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
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
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_format.h"
#include "proto_sink.h"
#include "record_reader.h"
#include "record_writer.h"

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
        (std::filesystem::temp_directory_path() / "biosnoop-sink-XXXXXX").string();
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
  for (uint64_t seq = 1; seq <= 5; ++seq) {
    ASSERT_TRUE(sink->Write(MakeEvent(seq, seq == 4 ? "bad\xff" : "fio")).ok());
  }
  // events_written() counts what reached the file: flush first.
  ASSERT_TRUE(sink->Flush().ok());
  ASSERT_TRUE(sink->WriteStats(Stats(false, sink->events_written())).ok());
  ASSERT_TRUE(sink->Write(MakeEvent(6, "fio")).ok());
  ASSERT_TRUE(sink->Flush().ok());
  ASSERT_TRUE(sink->WriteStats(Stats(true, sink->events_written())).ok());
  EXPECT_EQ(sink->events_written(), 6u);
  EXPECT_EQ(sink->events_dropped(), 0u);
  EXPECT_EQ(sink->file().records_written(), 9u);  // + header + 2 stats

  report::StreamFormat format;
  const std::vector<ParsedRecord> recs = ReadAll(path, &format);
  EXPECT_EQ(format, proto() ? report::StreamFormat::kProtobuf
                            : report::StreamFormat::kJsonLines);
  ASSERT_EQ(recs.size(), 9u);
  EXPECT_EQ(recs[0].kind, RecordKind::kHeader);
  EXPECT_EQ(recs[0].header.format_version(), kStreamFormatVersion);
  EXPECT_EQ(recs[0].header.boot_id(), "b00t");
  EXPECT_EQ(recs[0].header.start_time().seconds(), 1795239800);
  EXPECT_EQ(recs[0].header.min_us(), 10000u);
  EXPECT_EQ(recs[6].kind, RecordKind::kStats);
  EXPECT_EQ(recs[6].stats.written(), 5u);
  EXPECT_FALSE(recs[6].stats.final());
  EXPECT_EQ(recs[8].kind, RecordKind::kStats);
  EXPECT_EQ(recs[8].stats.written(), 6u);
  EXPECT_EQ(recs[8].stats.lost(), 2u);
  EXPECT_EQ(recs[8].stats.elapsed_s(), 100.25);
  EXPECT_TRUE(recs[8].stats.final());
  std::vector<int> events = {1, 2, 3, 4, 5, 7};
  for (size_t i = 0; i < events.size(); ++i) {
    const ParsedRecord& r = recs[events[i]];
    ASSERT_EQ(r.kind, RecordKind::kEvent);
    // The event reads back as exactly what FillEventProto makes of it.
    v1::Event want;
    FillEventProto(MakeEvent(i + 1, i + 1 == 4 ? "bad\xff" : "fio"), "db-7",
                   &want);
    EXPECT_TRUE(MessageDifferencer::Equals(r.event, want))
        << r.event.DebugString() << "\nvs\n" << want.DebugString();
  }
  EXPECT_EQ(recs[4].event.comm(), "bad\xef\xbf\xbd");
  EXPECT_EQ(recs[4].event.comm_raw(), "bad\xff");
  EXPECT_FALSE(recs[1].event.has_comm_raw());
  EXPECT_FALSE(recs[3].event.has_partition());  // seq 3: no partition
  EXPECT_EQ(recs[1].event.partition(), "nvme0n1p2");
}

// Writes 200 events, header and stats under a 4000-byte file size limit in
// a child; reports the sink's counts and the file's content.
std::string LimitedWriteBody(const std::string& path, bool proto) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = 4000;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
  auto file = OutputFile::Open(path, proto ? RecordFraming::kVarintDelimited
                                           : RecordFraming::kLines);
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
    if (seq % 5 == 0) errors += !sink->Flush().ok();
  }
  errors += !sink->Flush().ok();
  errors += !sink->WriteStats(Stats(true, 200)).ok();
  return absl::StrCat(sink->events_written(), " ", sink->events_dropped(), " ",
                      errors);
}

std::string RunChild(const std::string& path, bool proto) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe";
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string report = LimitedWriteBody(path, proto);
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
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
TEST(ProtoFormatTest, ConverterJsonEqualsBiosnoopJsonOnRandomEvents) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 5000; ++i) {
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
    const std::string host = (r >> 32) % 7 == 0 ? "h\x01\xc3" : "db-7";

    std::string biosnoop_line;
    AppendEventJson(e, host, &biosnoop_line);
    ParsedRecord rec;
    rec.kind = RecordKind::kEvent;
    FillEventProto(e, host, &rec.event);
    std::string converted;
    report::AppendRecordJson(rec, &converted);
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
