// Op records (--ops) through the sinks: queued in order with the events,
// and counted apart from them, also when a write fails part-way.

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "ecs_sink.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "nlohmann/json.hpp"
#include "output_file.h"
#include "proto_sink.h"

namespace biosnoop {
namespace {

EnrichedEvent AnEvent(uint64_t seq) {
  EnrichedEvent e;
  e.event.device_ns = 15'000'000;
  e.event.major = 7;
  e.event.minor = 3;
  e.event.op = Op::kWrite;
  e.event.op_id = 100 + seq;
  std::memcpy(e.event.comm.data(), "dd", 3);
  e.disk = "loop3";
  e.realtime_ns = 1795239841000000000;
  e.seq = seq;
  return e;
}

EnrichedOp AnOp(uint64_t op_id) {
  EnrichedOp o;
  o.op.op_id = op_id;
  o.op.call = Call::kFsync;
  o.op.start_ns = 1'000'000;
  o.op.end_ns = 31'000'000;
  std::memcpy(o.op.comm.data(), "postgres", 9);
  o.disk = "loop3";
  o.realtime_ns = 1795239841000000000;
  return o;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class OpSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-opsink-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

// The lines' "type" (JSON Lines), in file order.
std::vector<std::string> Types(const std::string& content) {
  std::vector<std::string> types;
  for (absl::string_view line :
       absl::StrSplit(content, '\n', absl::SkipEmpty())) {
    types.push_back(nlohmann::json::parse(line)["type"].get<std::string>());
  }
  return types;
}

TEST_F(OpSinkTest, OpsAreWrittenInOrderWithEventsAndCountedApart) {
  const std::string path = Path("slow.jsonl");
  auto file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  JsonlSink sink(std::move(*file), "host-a");
  ASSERT_TRUE(sink.Write(AnEvent(1)).ok());
  ASSERT_TRUE(sink.WriteOp(AnOp(7)).ok());
  ASSERT_TRUE(sink.Write(AnEvent(2)).ok());
  // Ops still buffered are neither written nor dropped yet.
  EXPECT_EQ(sink.ops_written(), 0u);
  ASSERT_TRUE(sink.WriteStats(StatsSnapshot{}).ok());  // flushes
  EXPECT_EQ(sink.ops_written(), 1u);
  EXPECT_EQ(sink.events_written(), 2u);
  ASSERT_TRUE(sink.WriteOp(AnOp(8)).ok());
  ASSERT_TRUE(sink.WriteOp(AnOp(9)).ok());
  ASSERT_TRUE(sink.Write(AnEvent(3)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(sink.events_written(), 3u);
  EXPECT_EQ(sink.events_dropped(), 0u);
  EXPECT_EQ(sink.ops_written(), 3u);
  EXPECT_EQ(sink.ops_dropped(), 0u);
  const std::string content = ReadFile(path);
  EXPECT_EQ(Types(content),
            (std::vector<std::string>{"event", "op", "event", "stats", "op",
                                      "op", "event"}));
  const std::vector<std::string> lines =
      absl::StrSplit(content, '\n', absl::SkipEmpty());
  EXPECT_EQ(nlohmann::json::parse(lines[1])["op_id"], 7);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["call"], "fsync");
  EXPECT_EQ(nlohmann::json::parse(lines[0])["op_id"], 101);
}

TEST_F(OpSinkTest, ProtoAndEcsSinksCountOpsApartToo) {
  for (const bool proto : {true, false}) {
    const std::string path = Path(proto ? "slow.pb" : "slow.ecs.jsonl");
    auto file = OutputFile::Open(
        path, proto ? RecordFraming::kVarintDelimited : RecordFraming::kLines);
    ASSERT_TRUE(file.ok()) << file.status();
    std::unique_ptr<FileSink> sink;
    if (proto) {
      sink = std::make_unique<ProtoSink>(std::move(*file), "host-a");
    } else {
      sink = std::make_unique<EcsSink>(std::move(*file), "host-a");
    }
    ASSERT_TRUE(sink->WriteOp(AnOp(1)).ok());
    ASSERT_TRUE(sink->Write(AnEvent(1)).ok());
    ASSERT_TRUE(sink->WriteOp(AnOp(2)).ok());
    ASSERT_TRUE(sink->Flush().ok());
    EXPECT_EQ(sink->events_written(), 1u) << proto;
    EXPECT_EQ(sink->ops_written(), 2u) << proto;
    EXPECT_EQ(sink->file().records_written(), 3u) << proto;
    if (!proto) {
      const std::vector<std::string> lines =
          absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty());
      ASSERT_EQ(lines.size(), 3u);
      EXPECT_EQ(nlohmann::json::parse(lines[0])["event"]["action"],
                "call-completed");
      EXPECT_EQ(nlohmann::json::parse(lines[1])["event"]["action"],
                "io-completed");
    }
  }
}

// In a child (the file size limit stays there): events and ops written
// until the file may grow no more.  The write stops inside a record; what
// reached the file (whole records only) must be exactly what the sink
// counts as written, by kind, and the rest dropped.  Reports "events
// written/dropped ops written/dropped | event lines op lines".
std::string WriteUntilTheLimit(const std::string& path) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl;
  getrlimit(RLIMIT_FSIZE, &rl);
  rl.rlim_cur = 20000;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
  auto file = OutputFile::Open(path);
  if (!file.ok()) return file.status().ToString();
  JsonlSink sink(std::move(*file), "host-a");
  // Ops and events of different sizes, in an irregular order, more than
  // one buffer's worth, so that the limit is met in a write that a full
  // buffer makes; the buffer still holds ops after them.
  uint64_t seq = 0;
  for (int i = 0; i < 400; ++i) {
    if (i % 3 == 1 || i % 7 == 0) {
      (void)sink.WriteOp(AnOp(static_cast<uint64_t>(i)));
    } else {
      (void)sink.Write(AnEvent(++seq));
    }
  }
  // Events alone, more than a buffer: the write a full buffer makes from
  // inside an event's formatting fails, and drops those ops.  Then the
  // file may grow again, and the next such write goes through.  Each
  // write must be counted on its own: a count that took the failed write
  // and the good one together would count the dropped ops as written.
  for (int i = 0; i < 300; ++i) (void)sink.Write(AnEvent(++seq));
  rl.rlim_cur = rl.rlim_max;
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
  for (int i = 0; i < 300; ++i) (void)sink.Write(AnEvent(++seq));
  (void)sink.WriteOp(AnOp(1000));
  if (!sink.Flush().ok()) return "the last flush failed";
  const std::vector<std::string> types = Types(ReadFile(path));
  const auto ops = static_cast<uint64_t>(
      std::count(types.begin(), types.end(), std::string("op")));
  return absl::StrCat(sink.events_written(), "/", sink.events_dropped(), " ",
                      sink.ops_written(), "/", sink.ops_dropped(), " | ",
                      types.size() - ops, " ", ops, " of ", seq);
}

TEST_F(OpSinkTest, APartialWriteCountsWrittenAndDroppedOpsExactly) {
  const std::string path = Path("slow.jsonl");
  // In a child: the file size limit stays there.
  const testing::ChildResult child =
      testing::RunInChild([&path] { return WriteUntilTheLimit(path); });
  ASSERT_TRUE(testing::ExitedWith(child, 0));
  const std::string& report = child.report;

  // 400 records, ops at i % 3 == 1 or i % 7 == 0; then 600 events and
  // one op.
  uint64_t ops = 1;
  for (int i = 0; i < 400; ++i) ops += (i % 3 == 1 || i % 7 == 0) ? 1 : 0;
  const uint64_t events = 1000 + 1 - ops;
  uint64_t ew, ed, ow, od, event_lines, op_lines, seq;
  std::string slash_free = report;
  std::replace(slash_free.begin(), slash_free.end(), '/', ' ');
  std::replace(slash_free.begin(), slash_free.end(), '|', ' ');
  std::istringstream fields(slash_free);
  std::string of;
  ASSERT_TRUE(fields >> ew >> ed >> ow >> od >> event_lines >> op_lines >> of >>
              seq)
      << report;
  EXPECT_EQ(seq, events) << report;
  // Some of each kind reached the file, some did not: the test reaches
  // the case it is about.
  EXPECT_GT(ow, 0u) << report;
  EXPECT_GT(od, 0u) << report;
  EXPECT_EQ(ew, event_lines) << report;
  EXPECT_EQ(ow, op_lines) << report;
  EXPECT_EQ(ew + ed, events) << report;
  EXPECT_EQ(ow + od, ops) << report;
}

}  // namespace
}  // namespace biosnoop
