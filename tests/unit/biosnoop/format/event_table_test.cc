// The terminal table (event_table.h) and its lines on stderr
// (table_notes.h): columns in the order a person reads them, aligned under
// the header whatever the values, terminal text only.

#include "event_table.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "stuck_like.h"
#include "table_notes.h"

namespace biosnoop {
namespace {

// 2026-11-21T05:55:28.541246942Z
constexpr int64_t kRealtimeNs = 1795326928541246942;

EnrichedEvent SlowRead() {
  EnrichedEvent e;
  e.realtime_ns = kRealtimeNs;
  std::memcpy(e.event.comm.data(), "postgres", 8);
  e.event.pid = 5084;
  e.event.tid = 5090;
  e.disk = "vda";
  e.partition = "vda1";
  e.event.op = Op::kRead;
  e.event.bytes = 8192;
  e.event.device_ns = 21873456;
  e.event.queue_ns = 3999;
  Attribution& a = e.event.attribution;
  a.content = Content::kFile;
  a.file_count = 1;
  a.files.resize(1);
  a.files[0].ino = 12;
  e.attribution.content = "file";
  e.attribution.files = {{"/var/lib/pg/base/5/16384", PathKind::kAbsolute}};
  return e;
}

std::string Row(EventTable& t, const EnrichedEvent& e,
                bool* widened = nullptr) {
  std::string row;
  const bool w = t.EventRow(e, &row);
  if (widened != nullptr) *widened = w;
  return row;
}

TEST(EventTableTest, TheHeaderAndARowAsAPersonReadsThem) {
  EventTable t(TableLayout{});
  EXPECT_EQ(t.HeaderLine(),
            "TIME         COMM                PID DISK    OP      BYTES  "
            "LAT(ms) QUE(ms) FILE\n");
  EXPECT_EQ(Row(t, SlowRead()),
            "05:55:28.541 postgres           5084 vda1    read     8192   "
            "21.873   0.003 /var/lib/pg/base/5/16384\n");
}

// The time of day is the zone's; ms are cut, never rounded up into the
// next second.
TEST(EventTableTest, TimeOfDayInTheZone) {
  absl::TimeZone plus2 = absl::FixedTimeZone(2 * 3600);
  EventTable t(TableLayout{.zone = plus2});
  EnrichedEvent e = SlowRead();
  e.realtime_ns = 1795326928999999999;
  EXPECT_TRUE(absl::StartsWith(Row(t, e), "07:55:28.999 ")) << Row(t, e);
}

// Every row's FILE starts under the header's, for values within the
// columns' widths; a value wider than its column widens it for good and
// says so once, and then the new header and every row agree again.
TEST(EventTableTest, ColumnsStayAlignedAndWidenOnce) {
  EventTable t(TableLayout{});
  const size_t file_at = t.HeaderLine().find("FILE");
  EnrichedEvent e = SlowRead();
  for (uint32_t bytes : {512u, 4096u, 1048576u}) {
    for (uint64_t ns : {1000ull, 999999999ull, 9999999999ull}) {
      e.event.bytes = bytes;
      e.event.device_ns = ns;
      bool widened = true;
      const std::string row = Row(t, e, &widened);
      EXPECT_FALSE(widened) << row;
      EXPECT_EQ(row.find("/var/"), file_at) << row;
    }
  }
  e.partition = "nvme10n1p12";  // wider than DISK's 7
  bool widened = false;
  const std::string wide = Row(t, e, &widened);
  EXPECT_TRUE(widened);
  const std::string header = t.HeaderLine();
  EXPECT_EQ(wide.find("/var/"), header.find("FILE")) << header << wide;
  EXPECT_GT(header.find("FILE"), file_at);
  e.partition = "vda1";
  const std::string narrow = Row(t, e, &widened);
  EXPECT_FALSE(widened);
  EXPECT_EQ(narrow.find("/var/"), header.find("FILE")) << header << narrow;
  // 100 s of latency: wider than LAT(ms)'s 8.
  e.event.device_ns = 100000000000ull;
  EXPECT_NE(Row(t, e, &widened).find(" 100000.000 "), std::string::npos);
  EXPECT_TRUE(widened);
}

// A process name and a path of every kind of trouble: '?' for what a
// terminal would act on, and the columns still line up (a name's width is
// its columns, not its bytes).
TEST(EventTableTest, NamesArePrintedSafelyAndKeepTheirColumns) {
  EventTable t(TableLayout{.charset = TerminalCharset::kUtf8});
  const size_t file_at = t.HeaderLine().find("FILE");
  EnrichedEvent e = SlowRead();
  std::memcpy(e.event.comm.data(), "\"q\\\n\x01\x7f\xff\xfe\xc3x", 10);
  e.attribution.files[0].path = "/tmp/\x1b[2J\n\xe2\x80\xae";
  const std::string row = Row(t, e);
  EXPECT_TRUE(absl::StrContains(row, " \"q\\??????x "));
  EXPECT_TRUE(absl::EndsWith(row, " /tmp/?[2J??\n")) << row;
  EXPECT_EQ(row.find('\x1b'), std::string::npos);
  EXPECT_EQ(row.find('\n'), row.size() - 1);
  EXPECT_EQ(row.find("/tmp/"), file_at);
  // A UTF-8 name of fewer columns than bytes: padded by its columns.
  std::memset(e.event.comm.data(), 0, e.event.comm.size());
  std::memcpy(e.event.comm.data(), "\xe4\xb8\xad\xe6\x96\x87-db", 9);
  const std::string wide = Row(t, e);
  EXPECT_EQ(wide.find("\xe4\xb8\xad\xe6\x96\x87-db   "), 13u) << wide;
  // Its FILE byte offset is 9 - 7 bytes further: 4 columns in 6 bytes,
  // padded as 7 columns.
  EXPECT_EQ(wide.find("/tmp/"), file_at + 2) << wide;
}

// What is not a path: the pages' content in brackets, more files counted,
// a failed request's error first, nothing known as "-".
TEST(EventTableTest, TheFileColumnSaysWhatThePagesAre) {
  EventTable t(TableLayout{});
  EnrichedEvent e = SlowRead();
  e.event.attribution.file_count = 3;
  e.event.attribution.incomplete = true;
  EXPECT_TRUE(absl::EndsWith(Row(t, e), " /var/lib/pg/base/5/16384 +2...\n"));
  e.event.blk_status = 10;  // BLK_STS_IOERR
  EXPECT_TRUE(
      absl::EndsWith(Row(t, e), " [EIO] /var/lib/pg/base/5/16384 +2...\n"))
      << Row(t, e);
  e.event.blk_status = 0;
  e.attribution.content = "metadata";
  EXPECT_TRUE(absl::EndsWith(Row(t, e), " [metadata]\n")) << Row(t, e);
  e.attribution.content = "";  // --no-files
  EXPECT_TRUE(absl::EndsWith(Row(t, e), " 0.003 -\n")) << Row(t, e);
  e.event.queue_ns.reset();
  EXPECT_TRUE(absl::EndsWith(Row(t, e), " 21.873       - -\n")) << Row(t, e);
  e.attribution.content = "file";
  e.attribution.files[0].path.clear();  // not named: its inode
  e.event.attribution.file_count = 1;
  EXPECT_TRUE(absl::EndsWith(Row(t, e), " [inode 12]\n")) << Row(t, e);
}

// --ops: a CALL column; a call is its own row, named with "()".
TEST(EventTableTest, CallsAreRowsAndEventsNameTheirCall) {
  EventTable t(TableLayout{.calls = true});
  const std::string header = t.HeaderLine();
  EXPECT_TRUE(absl::StrContains(header, " QUE(ms) CALL   FILE\n")) << header;
  EnrichedEvent e = SlowRead();
  e.event.op_id = 17;
  std::string row = Row(t, e);
  EXPECT_EQ(row.find("/var/"), header.find("FILE"));
  EXPECT_TRUE(absl::StrContains(row, " #17    /var/")) << row;
  e.event.op_id = 0;
  EXPECT_TRUE(absl::StrContains(Row(t, e), " -      /var/"));

  EnrichedOp o;
  o.realtime_ns = kRealtimeNs;
  o.op.op_id = 17;
  o.op.call = Call::kFdatasync;
  o.op.pid = 5084;
  std::memcpy(o.op.comm.data(), "postgres", 8);
  o.op.start_ns = 1000;
  o.op.end_ns = 1000 + 40123456;
  o.disk = "vda";
  o.partition = "vda1";
  o.file = {"/var/lib/pg/pg_wal/0001", PathKind::kAbsolute};
  ASSERT_FALSE(t.OpRow(o, &row));
  EXPECT_EQ(row,
            "05:55:28.541 postgres           5084 vda1    fdatasync()       - "
            "  40.123       - #17    /var/lib/pg/pg_wal/0001\n");
  o.op.call = Call::kPwrite64;
  o.op.result = -5;
  ASSERT_FALSE(t.OpRow(o, &row));
  EXPECT_TRUE(absl::StrContains(row, " pwrite64()        0 ")) << row;
  EXPECT_TRUE(absl::EndsWith(row, " #17    [EIO] /var/lib/pg/pg_wal/0001\n"))
      << row;
}

// A stuck request: its time in flight so far, marked.
TEST(EventTableTest, AStuckRequestIsARowMarkedStuck) {
  EventTable t(TableLayout{});
  EnrichedEvent e = SlowRead();
  e.event.device_ns = 4000000000;
  StuckRequest s = StuckLike(e);
  std::string row;
  t.StuckRow(s, &row);
  EXPECT_TRUE(absl::StrContains(row, " 4000.000 ")) << row;
  EXPECT_TRUE(absl::EndsWith(row, " [stuck] /var/lib/pg/base/5/16384\n"))
      << row;
  s.attribution_label.content = "";
  t.StuckRow(s, &row);
  EXPECT_TRUE(absl::EndsWith(row, " 0.003 [stuck]\n")) << row;
}

// On a terminal of a given width, FILE gives way (from the left), down to
// its minimum; the columns before it never do.
TEST(EventTableTest, RowsFitTheTerminalWidth) {
  EventTable t(TableLayout{});
  EnrichedEvent e = SlowRead();
  e.attribution.files[0].path =
      "/srv/a/very/long/directory/name/that/goes/on/and/on/data.db";
  t.set_max_width(100);
  std::string row = Row(t, e);
  EXPECT_EQ(row.size(), 101u) << row;  // 100 columns and the '\n'
  EXPECT_TRUE(absl::EndsWith(row, "/on/and/on/data.db\n")) << row;
  EXPECT_TRUE(absl::StrContains(row, " 0.003 ...")) << row;
  t.set_max_width(40);
  row = Row(t, e);
  EXPECT_EQ(row.size() - row.find("..."), EventTable::kMinFileColumns + 1)
      << row;
  t.set_max_width(0);
  EXPECT_TRUE(absl::StrContains(Row(t, e), e.attribution.files[0].path));
}

TEST(TableNotesTest, WhatTheOtherRecordsSay) {
  StreamInfo info;
  info.min_us = 10000;
  EXPECT_EQ(TableStartNote(info),
            "biosnoop: tracing block I/O taking at least 10 ms, and every "
            "failed one (Ctrl-C ends)");
  info.min_us = 250;
  info.ops = true;
  info.op_min_us = 5000;
  EXPECT_EQ(TableStartNote(info),
            "biosnoop: tracing block I/O taking at least 0.250 ms, and every "
            "failed one, and calls taking at least 5 ms (Ctrl-C ends)");
  info = StreamInfo{};
  EXPECT_EQ(TableStartNote(info),
            "biosnoop: tracing every block I/O (Ctrl-C ends)");

  StatsSnapshot s;
  s.realtime_ns = kRealtimeNs;
  s.completions = 100;
  s.emitted = 10;
  s.written = 9;
  s.lost = 1;
  s.missed = 2;
  EXPECT_EQ(TableStatsNote(s, absl::UTCTimeZone()),
            "biosnoop: 05:55:28 stats: completions=100 emitted=10 written=9 "
            "lost=1 dropped=0 missed=2");
}

// A summary: a line per disk and operation that had I/O, its p99 the upper
// bound of the fine bucket that holds it.
TEST(TableNotesTest, ASummaryLinePerDiskAndOperation) {
  SummaryRecord r;
  r.realtime_ns = kRealtimeNs;
  r.interval_s = 60;
  r.groups.resize(2);
  r.groups[0].disk = "vda\x1b";
  r.groups[0].op = "read";
  r.groups[1].disk = "vdb";
  r.groups[1].op = "write";  // no I/O: no line
  HistData& d = r.groups[0].data;
  // 99 reads at 2 ms, one at 50 ms: the 99th is at 2 ms.
  int two_ms = 0;
  while (FineUpperSeconds(two_ms) < 0.002) ++two_ms;
  int fifty_ms = 0;
  while (FineUpperSeconds(fifty_ms) < 0.05) ++fifty_ms;
  d.fine[two_ms] = 99;
  d.fine[fifty_ms] = 1;
  d.count = 100;
  d.slow = 1;
  d.latency_ns = 99 * 2000000ull + 50000000ull;
  const std::vector<std::string> lines =
      TableSummaryNotes(r, absl::UTCTimeZone(), TerminalCharset::kUtf8);
  ASSERT_EQ(lines.size(), 1u);
  const double p99 = FineUpperSeconds(two_ms) * 1e3;
  EXPECT_GE(p99, 2.0);
  EXPECT_LT(p99, 2.0 * 1.0906);  // a bucket is at most 9.05% wide
  EXPECT_EQ(lines[0],
            absl::StrFormat("biosnoop: 05:55:28 last 60.0 s: vda? read: 100 "
                            "I/O, 1 slow, 0 failed, mean 2.480 ms, p99 <= "
                            "%.3f ms",
                            p99));
}

}  // namespace
}  // namespace biosnoop
