// Events missing from bioreport's input, found from their seq numbers
// (1, 2, 3, ... in each biosnoop run): lines dropped on the way to the log
// store, older log files not given, the same log given twice.

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "aggregator.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::GoldenLines;
using test_util::RunCli;

// Against a std::set, on numbers that come mostly in order with gaps,
// repeats and stretches out of order, as rotated logs given in any order.
TEST(SeqRangesTest, CountsDistinctNumbersAndTheirBoundsLikeASet) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    SeqRanges ranges;
    std::set<uint64_t> want;
    uint64_t next = 1 + rng() % 5;
    for (int i = 0; i < 400; ++i) {
      const uint64_t r = rng() % 100;
      uint64_t seq = next++;
      if (r < 10) next += 1 + rng() % 4;              // a gap
      if (r >= 10 && r < 20) seq = 1 + rng() % next;  // any earlier number
      if (r == 20) next = 1 + rng() % 50;             // a file out of order
      const bool added = ranges.Add(seq);
      EXPECT_EQ(added, want.insert(seq).second)
          << round << " " << i << " " << seq;
    }
    ASSERT_FALSE(ranges.empty());
    EXPECT_EQ(ranges.count(), want.size());
    EXPECT_EQ(ranges.first(), *want.begin());
    EXPECT_EQ(ranges.last(), *want.rbegin());
  }
}

TEST(SeqRangesTest, JoinsNeighboursFromEitherSide) {
  SeqRanges r;
  EXPECT_TRUE(r.Add(5));
  EXPECT_TRUE(r.Add(3));
  EXPECT_TRUE(r.Add(4));  // joins both
  EXPECT_FALSE(r.Add(4));
  EXPECT_FALSE(r.Add(3));
  EXPECT_TRUE(r.Add(1));
  EXPECT_TRUE(r.Add(2));
  EXPECT_TRUE(r.Add(6));
  EXPECT_EQ(r.count(), 6u);
  EXPECT_EQ(r.first(), 1u);
  EXPECT_EQ(r.last(), 6u);
}

uint64_t SeqOf(const std::string& line) {
  const size_t at = line.find("\"seq\":");
  return at == std::string::npos ? 0 : std::stoull(line.substr(at + 6));
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) absl::StrAppend(&out, l, "\n");
  return out;
}

// The golden lines without the events whose seq `drop` accepts; every
// other record stays.
template <typename Drop>
std::string Without(Drop drop) {
  std::vector<std::string> kept;
  for (const std::string& l : GoldenLines()) {
    const uint64_t seq = SeqOf(l);  // 0: not an event
    if (seq == 0 || !drop(seq)) kept.push_back(l);
  }
  return Join(kept);
}

struct Figures {
  uint64_t not_in_input = 0, before_input = 0, duplicates = 0;
};

// Checks the report's figures for `files` (written to a scratch directory)
// in both formats (the protobuf pass converts each file first), and returns
// the text summary's warning block (for JSON Lines).
std::string ExpectFigures(const std::vector<std::string>& files,
                          const Figures& want, const std::string& what) {
  test_util::TempDir dir;
  std::string warnings;
  for (const bool proto : {false, true}) {
    std::vector<std::string> paths;
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string jsonl = dir.Path(absl::StrCat(i, ".jsonl"));
      test_util::WriteFile(jsonl, files[i]);
      std::string path = jsonl;
      if (proto) {
        path = dir.Path(absl::StrCat(i, ".pb"));
        const CliResult c =
            RunCli({"convert", "--to", "proto", "-o", path, jsonl});
        EXPECT_EQ(c.code, 0) << c.err;
      }
      paths.push_back(path);
    }
    std::vector<std::string> args = {"json"};
    args.insert(args.end(), paths.begin(), paths.end());
    const CliResult r = RunCli(args);
    const std::string ctx =
        absl::StrCat(what, proto ? " (protobuf)" : " (jsonl)");
    EXPECT_EQ(r.code, 0) << ctx << ": " << r.err;
    EXPECT_NE(
        r.out.find(absl::StrCat("\"not_in_input\":", want.not_in_input,
                                ",\"before_input\":", want.before_input,
                                ",\"duplicate_events\":", want.duplicates)),
        std::string::npos)
        << ctx << ": " << r.out;
    if (!proto) {
      args[0] = "summary";
      const std::string out = RunCli(args).out;
      warnings = out.substr(0, out.find("\n\n") + 1);
      if (warnings.rfind("WARNING", 0) != 0) warnings.clear();
    }
  }
  return warnings;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BioreportSeqTest, AWholeStreamHasNothingMissing) {
  const std::string w = ExpectFigures({Join(GoldenLines())}, {}, "whole");
  EXPECT_FALSE(Has(w, "not in the input")) << w;
  EXPECT_FALSE(Has(w, "more than once")) << w;
}

// Lines dropped between biosnoop and the log store: between two events,
// and after the last one that the final stats record counts as written.
TEST(BioreportSeqTest, EventsDroppedOnTheWayAreCountedWhereverTheyWere) {
  std::string w = ExpectFigures(
      {Without([](uint64_t seq) { return seq >= 100 && seq < 110; })},
      {10, 0, 0}, "ten in the middle");
  EXPECT_TRUE(
      Has(w, "WARNING:   10 events biosnoop wrote are not in the input"))
      << w;
  ExpectFigures({Without([](uint64_t seq) { return seq > 395; })}, {5, 0, 0},
                "the last five");
  ExpectFigures({Without([](uint64_t seq) { return seq % 2 == 0; })},
                {200, 0, 0}, "every other one");
  // No event at all: the stats records say 400 were written, and the file
  // starts with the run's header: all 400 are missing (the first stats
  // record, 150, is not right after the header, as the one SIGHUP writes
  // in a new file is, so it does not say those are in an earlier file).
  const std::string w_all = ExpectFigures(
      {Without([](uint64_t) { return true; })}, {400, 0, 0}, "all of them");
  EXPECT_TRUE(
      Has(w_all, "WARNING:   400 events biosnoop wrote are not in the input"))
      << w_all;
  EXPECT_FALSE(Has(w_all, "earlier events")) << w_all;
  // Nothing but the header and the final stats record: the run wrote 400
  // events and none is here.  A stats record right after a header opens a
  // rotated file only when the run goes on (SIGHUP's is never final), so
  // these 400 are missing, not in an earlier file.
  const std::vector<std::string> lines = GoldenLines();
  ASSERT_TRUE(Has(lines.back(), "\"final\":true")) << lines.back();
  const std::string w_bare = ExpectFigures({Join({lines[0], lines.back()})},
                                           {400, 0, 0}, "header and final");
  EXPECT_TRUE(
      Has(w_bare, "WARNING:   400 events biosnoop wrote are not in the input"))
      << w_bare;
  EXPECT_FALSE(Has(w_bare, "earlier events")) << w_bare;
}

// A rotated log: the newest file only (events 301..400 after its own
// header) leaves out the 300 before, which are not lost; both files give
// everything.
TEST(BioreportSeqTest, OlderLogFilesNotGivenAreEarlierEventsNotLoss) {
  const std::vector<std::string> lines = GoldenLines();
  std::vector<std::string> older, newer = {lines[0]};  // the header again
  bool rotated = false;
  for (const std::string& l : lines) {
    (rotated ? newer : older).push_back(l);
    if (Has(l, "\"written\":300,")) rotated = true;
  }
  ASSERT_TRUE(rotated);
  const std::string w =
      ExpectFigures({Join(newer)}, {0, 300, 0}, "newest only");
  EXPECT_TRUE(Has(
      w, "WARNING:   300 earlier events of these runs are not in the input"))
      << w;
  EXPECT_FALSE(Has(w, "biosnoop wrote are not in the input")) << w;
  EXPECT_FALSE(Has(ExpectFigures({Join(older), Join(newer)}, {}, "both"),
                   "not in the input"));
  // Given in the other order: the same.
  ExpectFigures({Join(newer), Join(older)}, {}, "both, newest first");
  // The older one alone: its stats (written 300) match its last event.
  ExpectFigures({Join(older)}, {}, "older only");

  // As biosnoop rotates now: the new file opens with a stats record after
  // its header (written 300 so far). Alone, with no event since, it holds
  // 300 earlier events and misses none; with events 301..310 dropped on
  // the way, those 10 are missing.
  const std::string opening =
      R"({"type":"stats","timestamp":"2026-11-21T05:00:01.271820144Z",)"
      R"("elapsed_s":1.27,"completions":3000,"emitted":300,"lost":0,)"
      R"("orphans":0,"below_threshold":2700,"filtered":0,)"
      R"("decode_errors":0,"expired":0,"written":300,"dropped":0,)"
      R"("final":false,"missed":0,"unfinished":0})";
  ExpectFigures({Join({lines[0], opening, opening})}, {0, 300, 0},
                "quiet new file");
  std::vector<std::string> opened = {lines[0], opening};
  for (size_t i = 1; i < newer.size(); ++i) {
    const uint64_t seq = SeqOf(newer[i]);
    if (seq == 0 || seq > 310) opened.push_back(newer[i]);
  }
  ExpectFigures({Join(opened)}, {10, 300, 0}, "new file, 301..310 dropped");
}

TEST(BioreportSeqTest, TheSameLogTwiceIsSaid) {
  const std::string whole = Join(GoldenLines());
  const std::string w = ExpectFigures({whole, whole}, {0, 0, 400}, "twice");
  EXPECT_TRUE(Has(w, "WARNING:   400 events are in the input more than once"))
      << w;
}

// The stats record biosnoop writes after the header of a file SIGHUP
// opened, `written` events so far.
std::string Opening(uint64_t written, const std::string& run_id = "") {
  return absl::StrCat(
      R"({"type":"stats","timestamp":"2026-11-21T05:00:01.180000000Z",)",
      R"("elapsed_s":1.18,"completions":3000,"emitted":300,"lost":0,)",
      R"("orphans":0,"below_threshold":2700,"filtered":0,)",
      R"("decode_errors":0,"expired":0,"written":)", written,
      R"(,"dropped":0,"final":false,"missed":0,"unfinished":0)",
      run_id.empty() ? "" : absl::StrCat(R"(,"run_id":")", run_id, "\""), "}");
}

// What logrotate's copytruncate and biosnoop's SIGHUP give under load, built
// line by line: the old file (.1) has events 1..195 (196..200 were written
// between the copy and the truncation: lost), the cut file starts with the
// 14 events written between the truncation and the SIGHUP (201..214),
// then the run's header again, the stats record SIGHUP writes (214 written
// so far) and the rest of the run.
struct CutFiles {
  std::string old_file, cut_file;
};
CutFiles CopyTruncate() {
  const std::vector<std::string> lines = GoldenLines();
  std::vector<std::string> old_lines, prefix, rest;
  uint64_t last_seq = 0;
  for (const std::string& l : lines) {
    const uint64_t seq = SeqOf(l);
    if (seq != 0) last_seq = seq;
    if (seq >= 196 && seq <= 200) continue;
    if (last_seq <= 200) {
      old_lines.push_back(l);
    } else if (last_seq <= 214) {
      prefix.push_back(l);
    } else {
      rest.push_back(l);
    }
  }
  std::vector<std::string> cut = prefix;
  cut.push_back(lines[0]);
  cut.push_back(Opening(214));
  cut.insert(cut.end(), rest.begin(), rest.end());
  return {Join(old_lines), Join(cut)};
}

std::string JsonOf(const std::vector<std::string>& contents) {
  test_util::TempDir dir;
  std::vector<std::string> args = {"json"};
  for (size_t i = 0; i < contents.size(); ++i) {
    args.push_back(dir.Path(absl::StrCat(i, ".jsonl")));
    test_util::WriteFile(args.back(), contents[i]);
  }
  const CliResult r = RunCli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.out;
}

TEST(BioreportSeqTest, ACopyTruncatedFileStartingWithEventsBeforeItsHeader) {
  const CutFiles f = CopyTruncate();
  // Both files: one run, the 5 lost to the copy missing, nothing earlier.
  std::string w = ExpectFigures({f.old_file, f.cut_file}, {5, 0, 0}, "both");
  EXPECT_TRUE(Has(w, "WARNING:   5 events biosnoop wrote are not in the input"))
      << w;
  EXPECT_FALSE(Has(w, "no stats records")) << w;
  EXPECT_FALSE(Has(w, "earlier events")) << w;
  // Named in any order.
  ExpectFigures({f.cut_file, f.old_file}, {5, 0, 0}, "both, newest first");
  std::string j = JsonOf({f.old_file, f.cut_file});
  EXPECT_TRUE(Has(j, R"("events":395,)")) << j;
  EXPECT_TRUE(Has(j, R"("runs":1,"runs_not_final":0,"loss_known":true,)")) << j;
  // The cut file alone: events 1..200 are earlier (in files not given), none
  // of its own missing.
  w = ExpectFigures({f.cut_file}, {0, 200, 0}, "cut file alone");
  EXPECT_FALSE(Has(w, "no stats records")) << w;
  j = JsonOf({f.cut_file});
  EXPECT_TRUE(Has(j, R"("runs":1,)")) << j;

  // Without the SIGHUP (no header in the cut file at all): its events are
  // the run the old file ended in.
  std::string headless;
  for (const std::string& l : std::vector<std::string>(
           absl::StrSplit(f.cut_file, '\n', absl::SkipEmpty()))) {
    if (!Has(l, R"("type":"header")") && !Has(l, R"("written":214,)")) {
      absl::StrAppend(&headless, l, "\n");
    }
  }
  ExpectFigures({f.old_file, headless}, {5, 0, 0}, "no SIGHUP");
  j = JsonOf({f.old_file, headless});
  EXPECT_TRUE(Has(j, R"("runs":1,)")) << j;
}

// The cut file may start inside a line (a write split by the truncation),
// or with NUL bytes (a hole: a writer with `>` instead of `>>`): those are
// skipped like a damaged line anywhere else, not the whole file.
TEST(BioreportSeqTest, ACutFileStartingWithAPartialLineOrNulBytesIsRead) {
  const CutFiles f = CopyTruncate();
  test_util::TempDir dir;
  const std::string old_path = dir.Path("slow.jsonl.1");
  test_util::WriteFile(old_path, f.old_file);
  // Event 201 cut 40 bytes in.
  const std::string partial = f.cut_file.substr(40);
  const std::string nuls = std::string(100000, '\0') + f.cut_file;
  for (const auto& [content, damage] :
       {std::pair<std::string, std::string>{
            partial, "slow.jsonl:1: partial line skipped ("},
        {nuls, "slow.jsonl: byte 0: 100000 NUL bytes skipped (a hole"}}) {
    const std::string path = dir.Path("slow.jsonl");
    test_util::WriteFile(path, content);
    CliResult r = RunCli({"json", old_path, path});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(Has(
        r.err,
        absl::StrCat("bioreport: ", path.substr(0, path.size() - 10), damage)))
        << r.err;
    const bool cut = content == partial;
    EXPECT_TRUE(Has(r.out, absl::StrCat(R"("events":)", cut ? 394 : 395, ",")))
        << r.out;
    EXPECT_TRUE(
        Has(r.out, absl::StrCat(R"("not_in_input":)", cut ? 6 : 5,
                                R"(,"before_input":0,"duplicate_events":0,)",
                                R"("mixed_runs":0,"corrupt_records":1,)")))
        << r.out;
    EXPECT_TRUE(Has(r.out, R"("runs":1,)")) << r.out;
    // --strict still refuses the damage.
    EXPECT_EQ(RunCli({"json", "--strict", old_path, path}).code, kExitData);
  }
  // Bytes that are not a biosnoop stream are still refused whole.
  const std::string junk = dir.Path("junk");
  test_util::WriteFile(junk, "hello\nworld\n{\"not\":\"a record\"}\n");
  EXPECT_EQ(RunCli({"json", junk}).code, kExitData);
}

// Two biosnoops appending to one file: their lines interleave after the
// second one's header. The stats records name their run (run_id), so
// each run has its stats; which run wrote each event is unknown, so their
// seq numbers are not checked, and the report says so rather than
// reporting duplicates.
TEST(BioreportSeqTest, TwoRunsAppendingToOneFileAreToldApart) {
  const std::string header_a =
      R"({"type":"header","format_version":1,"host":"db7","boot_id":"b",)"
      R"("start_time":"2026-11-21T05:00:00.000000000Z","biosnoop_version":"0.1.0",)"
      R"("kernel_release":"6.18.0","min_us":0,"queued":false,"disk_filter":"",)"
      R"("pid_filter":0,"comm_filter":"","op_filter":"","ringbuf_kib":2048,)"
      R"("stuck_after_us":1000000,"run_id":"aaaaaaaaaaaaaaaa"})";
  std::string header_b = header_a;
  header_b.replace(header_b.find("05:00:00.0"), 10, "05:00:01.0");
  header_b.replace(header_b.find("aaaaaaaaaaaaaaaa"), 16, "bbbbbbbbbbbbbbbb");
  auto event = [](uint64_t seq) {
    return absl::StrCat(
        R"({"type":"event","timestamp":"2026-11-21T05:00:02.000000000Z",)",
        R"("host":"db7","disk":"vda","partition":null,"dev":"254:0","op":"read",)",
        R"("rwbs":"R","sector":8,"bytes":4096,"latency_us":20000,"device_us":20000,)",
        R"("queue_us":1,"queue_depth":1,"pid":1,"tid":1,"comm":"dd",)",
        R"("error_code":0,"error":null,"seq":)", seq, "}");
  };
  auto final_stats = [](uint64_t written, const std::string& run_id) {
    std::string s = Opening(written, run_id);
    s.replace(s.find(R"("final":false)"), 13, R"("final":true)");
    return s;
  };
  const std::string file =
      Join({header_a, event(1), event(2), event(3), header_b, event(4),
            event(1), event(5), event(2), final_stats(5, "aaaaaaaaaaaaaaaa"),
            final_stats(2, "bbbbbbbbbbbbbbbb")});
  const std::string j = JsonOf({file});
  EXPECT_TRUE(Has(j, R"("events":7,)")) << j;
  EXPECT_TRUE(Has(j, R"("runs":2,"runs_not_final":0,"loss_known":true,)")) << j;
  EXPECT_TRUE(Has(j,
                  R"("not_in_input":0,"before_input":0,"duplicate_events":0,)"
                  R"("mixed_runs":2,)"))
      << j;
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("two.jsonl"), file);
  const std::string out = RunCli({"summary", dir.Path("two.jsonl")}).out;
  EXPECT_TRUE(Has(out,
                  "WARNING:   2 runs wrote into one file at the same time "
                  "(two biosnoops appending to it): their events are all "
                  "counted, but not checked against their seq numbers"))
      << out;
  EXPECT_FALSE(Has(out, "no stats records")) << out;
  EXPECT_FALSE(Has(out, "more than once")) << out;
  // Files of earlier versions (no run_id) still read as before: one run
  // per header.
  std::string old = file;
  for (const char* id :
       {R"(,"run_id":"aaaaaaaaaaaaaaaa")", R"(,"run_id":"bbbbbbbbbbbbbbbb")"}) {
    for (size_t at; (at = old.find(id)) != std::string::npos;)
      old.erase(at, strlen(id));
  }
  EXPECT_TRUE(Has(JsonOf({old}), R"("runs":2,)"));
}

}  // namespace
}  // namespace biosnoop::report
