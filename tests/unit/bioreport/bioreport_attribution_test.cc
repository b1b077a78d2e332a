// bioreport and file attribution (issue #28): an event's content, files and
// dirtier, and the ledger's counters, read from JSON Lines with the
// parser's usual strictness, converted losslessly both ways (and streams
// from before them unchanged), selected with --file and ranked by `top`.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"
#include "record_parsers.h"
#include "record_writer.h"

namespace biosnoop::report {
namespace {

using test_util::ReadFile;
using test_util::RunCli;
using test_util::TempDir;
using test_util::WriteFile;

// The six keys as biosnoop writes them after "completion_context".
const char kAttribution[] =
    R"(,"content":"file","files":[{"path":"/mnt/data/f","path_kind":"absolute","inode":12,"dev":"7:0","direct":false}],"file_count":1,"files_incomplete":false,"dirtied_by":{"pid":812,"tid":812,"comm":"dd","cgroup":"/system.slice/x.service","cgroup_id":5183,"dirtied_at":"2026-11-25T16:01:02.123456789Z"},"dirtier_count":1)";

// An event line: `seq`, submitted by kworker 77, `latency_us`, then
// `tail` (the attribution keys, or nothing for a stream from before them).
std::string EventLine(int seq, uint64_t latency_us, const std::string& tail) {
  return absl::StrCat(
      R"({"type":"event","timestamp":"2026-11-25T16:01:0)", seq,
      R"(.000000000Z","host":"db7","disk":"loop0","partition":null,)"
      R"("dev":"7:0","op":"write","rwbs":"W","sector":)",
      seq * 8, R"(,"bytes":4096,"latency_us":)", latency_us, R"(,"device_us":)",
      latency_us,
      R"(,"queue_us":1,"queue_depth":1,"pid":77,"tid":78,)"
      R"("comm":"kworker/u8:2","error_code":0,"error":null,"seq":)",
      seq,
      R"(,"cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null,)"
      R"("completion_context":"softirq")",
      tail, "}");
}

// The attribution keys of one event.  `files`: the array's text;
// `dirtier`: the object's text or "null".
std::string Attribution(const std::string& content, const std::string& files,
                        int file_count, const std::string& dirtier,
                        int dirtier_count, bool incomplete = false) {
  return absl::StrCat(
      R"(,"content":")", content, R"(","files":)", files, R"(,"file_count":)",
      file_count, R"(,"files_incomplete":)", incomplete ? "true" : "false",
      R"(,"dirtied_by":)", dirtier, R"(,"dirtier_count":)", dirtier_count);
}

std::string File(const std::string& path, uint64_t inode,
                 const std::string& kind = "absolute", bool direct = false) {
  return absl::StrCat(R"({"path":")", path, R"(","path_kind":")", kind,
                      R"(","inode":)", inode, R"(,"dev":"7:0","direct":)",
                      direct ? "true" : "false", "}");
}

std::string Dirtier(uint32_t pid, const std::string& comm,
                    const std::string& cgroup, uint64_t cgroup_id,
                    const std::string& comm_raw = "") {
  return absl::StrCat(
      R"({"pid":)", pid, R"(,"tid":)", pid, R"(,"comm":")", comm, R"(")",
      comm_raw.empty() ? ""
                       : absl::StrCat(R"(,"comm_raw":")", comm_raw, R"(")"),
      R"(,"cgroup":)", cgroup.empty() ? "null" : "\"" + cgroup + "\"",
      R"(,"cgroup_id":)", cgroup_id,
      R"(,"dirtied_at":"2026-11-25T16:00:30.000000001Z"})");
}

const char kHeader[] =
    R"({"type":"header","format_version":1,"host":"db7","boot_id":"b","start_time":"2026-11-25T16:00:00.000000000Z","biosnoop_version":"0.1.0","kernel_release":"6.18.0","min_us":10000,"queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"","op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000,"run_id":"9f86d081884c7d65"})";

std::string Stats(const std::string& ledger) {
  return absl::StrCat(
      R"({"type":"stats","timestamp":"2026-11-25T16:01:09.000000000Z","elapsed_s":69,"completions":6,"emitted":6,"lost":0,"orphans":0,"below_threshold":0,"filtered":0,"decode_errors":0,"expired":0,"written":6,"dropped":0,"final":true,"missed":0,"unfinished":0,"run_id":"9f86d081884c7d65")",
      ledger, "}");
}

// Six events for the filters and `top`:
//   1  /mnt/data/a (and /srv/b), dirtied by dd 812 in x.service    20 ms
//   2  /mnt/data/a, dirtied by dd 812 in x.service                 30 ms
//   3  /srv/b, direct, no dirtier (a direct write)                 90 ms
//   4  metadata: no file, dirtied by jbd2 300 (cgroup removed)     15 ms
//   5  a file with no name (inode 99), dirtied by a bad comm       25 ms
//   6  attribution off: none of the keys                           11 ms
// and a stuck record (which names no file).
std::string Stream() {
  const std::string x = "/system.slice/x.service";
  return absl::StrCat(
      kHeader, "\n",
      EventLine(1, 20000,
                Attribution("file",
                            absl::StrCat("[", File("/mnt/data/a", 12), ",",
                                         File("/srv/b", 13), "]"),
                            3, Dirtier(812, "dd", x, 5183), 2, true)),
      "\n",
      EventLine(
          2, 30000,
          Attribution("file", absl::StrCat("[", File("/mnt/data/a", 12), "]"),
                      1, Dirtier(812, "dd", x, 5183), 1)),
      "\n",
      EventLine(3, 90000,
                Attribution("file",
                            absl::StrCat(
                                "[", File("/srv/b", 13, "absolute", true), "]"),
                            1, "null", 0)),
      "\n",
      EventLine(4, 15000,
                Attribution("metadata", "[]", 0,
                            Dirtier(300, "jbd2/loop0-8", "", 44), 1)),
      "\n",
      EventLine(
          5, 25000,
          Attribution("file", absl::StrCat("[", File("", 99, ""), "]"), 1,
                      Dirtier(666, "bad\xEF\xBF\xBD", "/", 1, "626164ff"), 1)),
      "\n", EventLine(6, 11000, ""), "\n",
      R"({"type":"stuck","timestamp":"2026-11-25T16:01:07.000000000Z","host":"db7","disk":"loop0","partition":null,"dev":"7:0","op":"write","rwbs":"W","sector":800,"bytes":4096,"inflight_us":1500000,"queue_us":3,"queue_depth":1,"pid":8,"tid":8,"comm":"dd","cgroup":"/","cgroup_id":1,"container_id":null,"pod_uid":null})",
      "\n", Stats(R"(,"ledger_misses":3,"ledger_replaced":1)"), "\n");
}

absl::Status Parse(const std::string& line, ParsedRecord* rec) {
  JsonRecordParser parser;
  return parser.Parse(line, rec);
}

TEST(BioreportAttributionTest, ParsesTheLayoutBiosnoopWrites) {
  ParsedRecord rec;
  ASSERT_TRUE(Parse(EventLine(1, 20000, kAttribution), &rec).ok());
  const v1::Event& e = rec.event;
  EXPECT_EQ(e.content(), "file");
  ASSERT_EQ(e.files_size(), 1);
  EXPECT_EQ(e.files(0).path(), "/mnt/data/f");
  EXPECT_EQ(e.files(0).path_kind(), "absolute");
  EXPECT_EQ(e.files(0).inode(), 12u);
  EXPECT_EQ(e.files(0).dev(), "7:0");
  EXPECT_FALSE(e.files(0).direct());
  EXPECT_EQ(e.file_count(), 1u);
  EXPECT_FALSE(e.files_incomplete());
  ASSERT_TRUE(e.has_dirtied_by());
  EXPECT_EQ(e.dirtied_by().pid(), 812u);
  EXPECT_EQ(e.dirtied_by().tid(), 812u);
  EXPECT_EQ(e.dirtied_by().comm(), "dd");
  EXPECT_FALSE(e.dirtied_by().has_comm_raw());
  EXPECT_EQ(e.dirtied_by().cgroup(), "/system.slice/x.service");
  EXPECT_EQ(e.dirtied_by().cgroup_id(), 5183u);
  EXPECT_EQ(e.dirtied_by().dirtied_at().seconds(), 1795622462);
  EXPECT_EQ(e.dirtied_by().dirtied_at().nanos(), 123456789);
  EXPECT_EQ(e.dirtier_count(), 1u);

  // No files, no dirtier; a dirtier with a raw comm and no cgroup name.
  ASSERT_TRUE(
      Parse(EventLine(2, 20000, Attribution("none", "[]", 0, "null", 0)), &rec)
          .ok());
  EXPECT_EQ(rec.event.content(), "none");
  EXPECT_EQ(rec.event.files_size(), 0);
  EXPECT_FALSE(rec.event.has_dirtied_by());
  const absl::Status s = Parse(
      EventLine(
          3, 20000,
          Attribution("file", absl::StrCat("[", File("f", 1, "name"), "]"), 1,
                      Dirtier(9, "x\xEF\xBF\xBD", "", 7, "78ff"), 1)),
      &rec);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(rec.event.dirtied_by().comm_raw(), "x\xff");
  EXPECT_FALSE(rec.event.dirtied_by().has_cgroup());
  EXPECT_EQ(rec.event.dirtied_by().cgroup_id(), 7u);

  // The ledger's counters; absent (a stream of an earlier version), 0.
  ASSERT_TRUE(
      Parse(Stats(R"(,"ledger_misses":3,"ledger_replaced":4)"), &rec).ok());
  EXPECT_EQ(rec.stats.ledger_misses(), 3u);
  EXPECT_EQ(rec.stats.ledger_replaced(), 4u);
  ASSERT_TRUE(Parse(Stats(""), &rec).ok());
  EXPECT_EQ(rec.stats.ledger_misses(), 0u);
  EXPECT_EQ(rec.stats.ledger_replaced(), 0u);
}

// Each corrupt variant is refused with a message naming what is wrong.
TEST(BioreportAttributionTest, CorruptAttributionIsRefusedWithAClearMessage) {
  const std::string one_file = absl::StrCat("[", File("/a", 1), "]");
  const std::string dd = Dirtier(812, "dd", "/", 1);
  const struct {
    std::string tail;
    std::string message;
  } cases[] = {
      {Attribution("file", R"({"path":"/a"})", 1, dd, 1),
       R"("files": at column )"},
      {Attribution("file", R"(["/a"])", 1, dd, 1), "file 1: at column"},
      {Attribution(
           "file",
           R"([{"path_kind":"absolute","inode":1,"dev":"7:0","direct":false}])",
           1, dd, 1),
       R"("files": file 1: file without "path")"},
      {Attribution(
           "file",
           absl::StrCat(
               "[", File("/a", 1), ",",
               R"({"path":"/b","path_kind":"absolute","inode":1,"inode":2,"dev":"7:0","direct":false})",
               "]"),
           2, dd, 1),
       R"("files": file 2: file with "inode" twice)"},
      {Attribution("file", one_file, 1, "812", 1),
       R"("dirtied_by": at column )"},
      {Attribution(
           "file", one_file, 1,
           R"({"pid":812,"tid":812,"comm":"dd","cgroup":null,"cgroup_id":1})",
           1),
       R"("dirtied_by": dirtier without "dirtied_at")"},
      {Attribution("file", one_file, 1,
                   absl::StrReplaceAll(
                       dd, {{R"("pid":812)", R"("pid":812,"pid":813)"}}),
                   1),
       R"("dirtied_by": dirtier with "pid" twice)"},
      {Attribution("file", one_file, 1,
                   absl::StrReplaceAll(
                       dd, {{"2026-11-25T16:00:30.000000001Z", "yesterday"}}),
                   1),
       R"("dirtied_by": "dirtied_at": )"},
      {Attribution(
           "file", absl::StrCat("[", File("/a", 1), "]"), 1,
           absl::StrReplaceAll(
               dd, {{R"("comm":"dd")", R"("comm":"dd","comm_raw":"xyz")"}}),
           1),
       R"("comm_raw": comm_raw is not hex digit pairs)"},
      {Attribution(
           "file",
           R"([{"path":"/a","path_kind":"absolute","inode":-1,"dev":"7:0","direct":false}])",
           1, dd, 1),
       R"("files": file 1: "inode": )"},
      {Attribution(
           "file",
           R"([{"path":"/a","path_kind":"absolute","inode":1,"dev":"7:0","direct":0}])",
           1, dd, 1),
       R"("files": file 1: "direct": )"},
      {absl::StrReplaceAll(
           Attribution("file", one_file, 1, dd, 1),
           {{R"("file_count":1)", R"("file_count":4294967296)"}}),
       R"("file_count": )"},
      // Consistency: the schema's rules, whatever the format.
      {Attribution("", one_file, 1, dd, 1),
       R"(event with files or a dirtier but no "content")"},
      {Attribution("file",
                   absl::StrCat("[", File("/a", 1), ",", File("/b", 2), "]"), 1,
                   dd, 1),
       "file_count 1 is below the 2 files listed"},
  };
  for (const auto& c : cases) {
    ParsedRecord rec;
    const absl::Status s = Parse(EventLine(1, 20000, c.tail), &rec);
    EXPECT_FALSE(s.ok()) << c.tail;
    EXPECT_NE(std::string(s.message()).find(c.message), std::string::npos)
        << s << "\nwanted: " << c.message;
  }
  // Nine files: the schema lists at most eight.
  std::string nine = "[";
  for (int i = 0; i < 9; ++i) {
    absl::StrAppend(&nine, i > 0 ? "," : "",
                    File(absl::StrCat("/f", i), i + 1));
  }
  nine += "]";
  ParsedRecord rec;
  const absl::Status s =
      Parse(EventLine(1, 20000, Attribution("file", nine, 9, "null", 0)), &rec);
  EXPECT_NE(std::string(s.message()).find("event with 9 files (at most 8)"),
            std::string::npos)
      << s;
}

// The protobuf reader holds events to the same rules.
TEST(BioreportAttributionTest, ProtobufEventsAreCheckedTheSameWay) {
  ParsedRecord rec;
  ASSERT_TRUE(Parse(EventLine(1, 20000, kAttribution), &rec).ok());
  auto check = [](const ParsedRecord& r) {
    std::string framed;
    AppendRecordProto(r, &framed);
    size_t i = 0;  // past the length's varint
    while (static_cast<unsigned char>(framed[i]) & 0x80) ++i;
    ProtoRecordParser parser;
    ParsedRecord back;
    return parser.Parse(absl::string_view(framed).substr(i + 1), &back);
  };
  EXPECT_TRUE(check(rec).ok());
  ParsedRecord no_content = rec;
  no_content.event.clear_content();
  EXPECT_EQ(check(no_content).message(),
            R"(event with files or a dirtier but no "content")");
  ParsedRecord no_time = rec;
  no_time.event.mutable_dirtied_by()->clear_dirtied_at();
  EXPECT_EQ(check(no_time).message(),
            "dirtier without a dirtied_at (its time is the epoch)");
  ParsedRecord bad_time = rec;
  bad_time.event.mutable_dirtied_by()->mutable_dirtied_at()->set_nanos(-1);
  EXPECT_FALSE(check(bad_time).ok());
}

class BioreportAttributionCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = dir_.Path("in.jsonl");
    WriteFile(input_, Stream());
  }
  // The summary report's event count after `filter`, and its stuck count.
  std::pair<size_t, size_t> Counts(const std::vector<std::string>& filter) {
    std::vector<std::string> args = {"summary"};
    args.insert(args.end(), filter.begin(), filter.end());
    args.push_back(input_);
    const test_util::CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const size_t events = r.out.find("events: ");
    const size_t stuck = r.out.find("stuck requests: ");
    if (events == std::string::npos) {
      ADD_FAILURE() << r.out;
      return {0, 0};
    }
    return {
        std::stoul(r.out.substr(events + 8)),
        stuck == std::string::npos ? 0 : std::stoul(r.out.substr(stuck + 16))};
  }
  TempDir dir_;
  std::string input_;
};

TEST_F(BioreportAttributionCliTest, ConvertsLosslesslyBothWays) {
  const std::string pb = dir_.Path("out.pb");
  const std::string back = dir_.Path("back.jsonl");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb, input_}).code, 0);
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "-o", back, pb}).code, 0);
  EXPECT_EQ(ReadFile(back), Stream());
  const std::string pb2 = dir_.Path("again.pb");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb2, back}).code, 0);
  EXPECT_EQ(ReadFile(pb2), ReadFile(pb));
}

// A stream from before attribution (no content, files, dirtier; stats
// without the ledger's counters) converts to protobuf and back unchanged:
// nothing is added to it.
TEST_F(BioreportAttributionCliTest, StreamsOfEarlierVersionsConvertUnchanged) {
  const std::string old = absl::StrCat(kHeader, "\n", EventLine(1, 20000, ""),
                                       "\n", Stats(""), "\n");
  const std::string in = dir_.Path("old.jsonl");
  WriteFile(in, old);
  const std::string pb = dir_.Path("old.pb");
  const std::string back = dir_.Path("old-back.jsonl");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb, in}).code, 0);
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "-o", back, pb}).code, 0);
  EXPECT_EQ(ReadFile(back), old);
}

TEST_F(BioreportAttributionCliTest, FileFilterIsAPathPrefix) {
  using Pair = std::pair<size_t, size_t>;
  // Events 1 and 2 (/mnt/data/a); 1 also names /srv/b, as 3 does.
  EXPECT_EQ(Counts({"--file", "/mnt/data/"}), Pair(2, 1));
  EXPECT_EQ(Counts({"--file", "/mnt/data/a"}), Pair(2, 1));
  EXPECT_EQ(Counts({"--file", "/srv/b"}), Pair(2, 1));
  // A text prefix, not a directory: "/mnt/d" takes /mnt/data/a.
  EXPECT_EQ(Counts({"--file", "/mnt/d"}), Pair(2, 1));
  EXPECT_EQ(Counts({"--file", "/mnt/x"}), Pair(0, 1));
  // Every event with a named file; never 4 (no file), 5 (no name) or 6
  // (attribution off).
  EXPECT_EQ(Counts({"--file", "/"}), Pair(3, 1));
  // With the other filters.
  EXPECT_EQ(Counts({"--file", "/srv/", "--min-us", "50000"}), Pair(1, 1));
}

TEST_F(BioreportAttributionCliTest, FileFilterBadValuesAreUsageErrors) {
  const test_util::CliResult empty = RunCli({"--file", "", input_});
  EXPECT_EQ(empty.code, 64);
  EXPECT_NE(empty.err.find("--file: empty value"), std::string::npos)
      << empty.err;
  const test_util::CliResult twice =
      RunCli({"--file", "/a", "--file", "/b", input_});
  EXPECT_EQ(twice.code, 64);
  EXPECT_NE(twice.err.find("--file given more than once"), std::string::npos)
      << twice.err;
  const test_util::CliResult baseline =
      RunCli({"baseline", "--file", "/a", input_});
  EXPECT_EQ(baseline.code, 64);
  EXPECT_NE(baseline.err.find("--file does not apply to baseline"),
            std::string::npos)
      << baseline.err;
}

TEST_F(BioreportAttributionCliTest, TopRanksContentsFilesAndDirtiers) {
  const test_util::CliResult r = RunCli({"top", input_});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.out.find("top contents by slow I/O count:");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(at), R"(top contents by slow I/O count:
content   count  total_us  max_us     bytes
file          4    165000   90000  16.0 KiB
metadata      1     15000   15000   4.0 KiB

top contents by total latency:
content   count  total_us  max_us     bytes
file          4    165000   90000  16.0 KiB
metadata      1     15000   15000   4.0 KiB

top files by slow I/O count:
file             count  total_us  max_us    bytes
/mnt/data/a          2     50000   30000  8.0 KiB
/srv/b               1     90000   90000  4.0 KiB
inode 99 on 7:0      1     25000   25000  4.0 KiB

top files by total latency:
file             count  total_us  max_us    bytes
/srv/b               1     90000   90000  4.0 KiB
/mnt/data/a          2     50000   30000  8.0 KiB
inode 99 on 7:0      1     25000   25000  4.0 KiB

top dirtiers by slow I/O count:
pid  comm          count  total_us  max_us    bytes
812  dd                2     50000   30000  8.0 KiB
300  jbd2/loop0-8      1     15000   15000  4.0 KiB
666  bad�              1     25000   25000  4.0 KiB

top dirtiers by total latency:
pid  comm          count  total_us  max_us    bytes
812  dd                2     50000   30000  8.0 KiB
666  bad�              1     25000   25000  4.0 KiB
300  jbd2/loop0-8      1     15000   15000  4.0 KiB

top dirtier cgroups by slow I/O count:
cgroup                   count  total_us  max_us    bytes
/system.slice/x.service      2     50000   30000  8.0 KiB
/                            1     25000   25000  4.0 KiB
cgroup id 44                 1     15000   15000  4.0 KiB

top dirtier cgroups by total latency:
cgroup                   count  total_us  max_us    bytes
/system.slice/x.service      2     50000   30000  8.0 KiB
/                            1     25000   25000  4.0 KiB
cgroup id 44                 1     15000   15000  4.0 KiB
)");
  // --top and --file apply to them as to the other tables.
  const test_util::CliResult top1 =
      RunCli({"top", "--top", "1", "--file", "/srv/", input_});
  ASSERT_EQ(top1.code, 0) << top1.err;
  // Events 1 and 3: event 1's first file is /mnt/data/a (its first
  // page's), so it counts there, as it does by count (a tie, by name).
  EXPECT_NE(top1.out.find("top files by total latency:\n"
                          "file    count  total_us  max_us    bytes\n"
                          "/srv/b      1     90000   90000  4.0 KiB\n"),
            std::string::npos)
      << top1.out;
  EXPECT_NE(top1.out.find("top files by slow I/O count:\n"
                          "file         count  total_us  max_us    bytes\n"
                          "/mnt/data/a      1     20000   20000  4.0 KiB\n"),
            std::string::npos)
      << top1.out;
}

// Metadata is its own content row and never a file in the file ranking,
// even when a record lists a file for it (btrfs's btree inode, "inode 1",
// as a stream of an earlier biosnoop named it, content "file" there too
// would be counted: only content "file" ranks files).
TEST(BioreportAttributionTopTest, MetadataIsKeptOutOfTheFileRanking) {
  TempDir dir;
  const std::string input = dir.Path("in.jsonl");
  WriteFile(
      input,
      absl::StrCat(
          kHeader, "\n",
          EventLine(
              1, 40000,
              Attribution("metadata", absl::StrCat("[", File("", 1, ""), "]"),
                          1, "null", 0)),
          "\n",
          EventLine(2, 30000, Attribution("metadata", "[]", 0, "null", 0)),
          "\n",
          EventLine(
              3, 20000,
              Attribution("file", absl::StrCat("[", File("/mnt/f", 257), "]"),
                          1, "null", 0)),
          "\n", Stats(""), "\n"));
  const test_util::CliResult r = RunCli({"top", input});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("top contents by slow I/O count:\n"
                       "content   count  total_us  max_us    bytes\n"
                       "metadata      2     70000   40000  8.0 KiB\n"
                       "file          1     20000   20000  4.0 KiB\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("top files by total latency:\n"
                       "file    count  total_us  max_us    bytes\n"
                       "/mnt/f      1     20000   20000  4.0 KiB\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("inode 1 "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace biosnoop::report
