// The table sink over an OutputFile: rows in the file, the other records'
// lines on the notes stream, events counted apart from the header lines.

#include "table_sink.h"

#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "output_file.h"
#include "stuck_like.h"

namespace biosnoop {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ReadAll(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
    text.append(buf, n);
  }
  return text;
}

std::vector<std::string> Lines(const std::string& text) {
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  lines.pop_back();
  return lines;
}

class TableSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-table-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    notes_ = std::tmpfile();
    ASSERT_NE(notes_, nullptr);
  }
  void TearDown() override {
    std::fclose(notes_);
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::FILE* notes_ = nullptr;
};

EnrichedEvent Event(uint64_t seq, const std::string& partition) {
  EnrichedEvent e;
  e.seq = seq;
  e.realtime_ns = 1795326928000000000 + static_cast<int64_t>(seq);
  std::memcpy(e.event.comm.data(), "dd", 2);
  e.event.pid = 42;
  e.disk = "vda";
  e.partition = partition;
  e.event.op = Op::kRead;
  e.event.bytes = 4096;
  e.event.device_ns = 20000000;
  return e;
}

TEST_F(TableSinkTest, RowsInTheFileAndTheRestOnTheNotes) {
  const std::string path = dir_ + "/table.txt";
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(path, RecordFraming::kLines);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_FALSE((*file)->IsTerminal());
  EXPECT_EQ((*file)->TerminalColumns(), 0);
  TableSink sink(std::move(*file), notes_, TerminalCharset::kUtf8,
                 absl::UTCTimeZone());

  StreamInfo info;
  info.min_us = 10000;
  ASSERT_TRUE(sink.WriteHeader(info).ok());
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(sink.Write(Event(seq, "vda1")).ok());
  }
  // A partition name wider than the column: the header again, then it.
  ASSERT_TRUE(sink.Write(Event(4, "nvme10n1p12")).ok());
  ASSERT_TRUE(sink.WriteStuck(StuckLike(Event(5, "vda1"))).ok());
  StatsSnapshot stats;
  stats.completions = 7;
  ASSERT_TRUE(sink.WriteStats(stats).ok());
  SummaryRecord summary;
  summary.interval_s = 60;
  summary.groups.resize(1);
  summary.groups[0].disk = "vda";
  summary.groups[0].op = "read";
  summary.groups[0].data.count = 4;
  summary.groups[0].data.latency[14] = 4;
  ASSERT_TRUE(sink.WriteSummary(summary).ok());
  // A rotation: the new file starts with the header; said once only.
  ASSERT_TRUE(sink.WriteHeader(info).ok());
  stats.final = true;
  ASSERT_TRUE(sink.WriteStats(stats).ok());  // the summary line's job
  ASSERT_TRUE(sink.Flush().ok());

  EXPECT_EQ(sink.events_written(), 4u);
  EXPECT_EQ(sink.events_dropped(), 0u);
  const std::vector<std::string> rows = Lines(ReadAll(path));
  ASSERT_EQ(rows.size(), 8u) << ReadAll(path);
  EXPECT_TRUE(absl::StartsWith(rows[0], "TIME "));
  EXPECT_TRUE(absl::StartsWith(rows[1], "05:55:28.000 dd "));
  EXPECT_TRUE(absl::StartsWith(rows[4], "TIME "));
  EXPECT_NE(rows[4], rows[0]);  // DISK is wider
  EXPECT_TRUE(absl::StrContains(rows[5], " nvme10n1p12 "));
  EXPECT_EQ(rows[5].find(" read "), rows[4].find(" OP "));
  EXPECT_TRUE(absl::EndsWith(rows[6], " [stuck]")) << rows[6];
  EXPECT_EQ(rows[7], rows[4]);

  const std::vector<std::string> notes = Lines(ReadAll(notes_));
  ASSERT_EQ(notes.size(), 3u) << ReadAll(notes_);
  EXPECT_EQ(notes[0],
            "biosnoop: tracing block I/O taking at least 10 ms, and every "
            "failed one (Ctrl-C ends)");
  EXPECT_TRUE(absl::StartsWith(notes[1],
                               "biosnoop: 00:00:00 stats: "
                               "completions=7 "))
      << notes[1];
  EXPECT_TRUE(absl::StartsWith(notes[2],
                               "biosnoop: 00:00:00 last 60.0 s: "
                               "vda read: 4 I/O, "))
      << notes[2];
}

// --ops: the header has a CALL column, and calls are rows counted as ops.
TEST_F(TableSinkTest, CallsAreRowsCountedAsOps) {
  const std::string path = dir_ + "/ops.txt";
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(path, RecordFraming::kLines);
  ASSERT_TRUE(file.ok()) << file.status();
  TableSink sink(std::move(*file), notes_, TerminalCharset::kAscii,
                 absl::UTCTimeZone());
  StreamInfo info;
  info.ops = true;
  ASSERT_TRUE(sink.WriteHeader(info).ok());
  EnrichedOp o;
  o.op.op_id = 3;
  o.op.call = Call::kFsync;
  ASSERT_TRUE(sink.WriteOp(o).ok());
  ASSERT_TRUE(sink.Write(Event(1, "vda1")).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(sink.ops_written(), 1u);
  EXPECT_EQ(sink.events_written(), 1u);
  const std::vector<std::string> rows = Lines(ReadAll(path));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(absl::StrContains(rows[0], " CALL ")) << rows[0];
  EXPECT_TRUE(absl::StrContains(rows[1], " fsync() ")) << rows[1];
  EXPECT_EQ(rows[1].find("#3"), rows[0].find("CALL")) << rows[1];
}

}  // namespace
}  // namespace biosnoop
