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
      if (r < 10) next += 1 + rng() % 4;               // a gap
      if (r >= 10 && r < 20) seq = 1 + rng() % next;   // any earlier number
      if (r == 20) next = 1 + rng() % 50;              // a file out of order
      const bool added = ranges.Add(seq);
      EXPECT_EQ(added, want.insert(seq).second) << round << " " << i << " " << seq;
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
        const CliResult c = RunCli({"convert", "--to", "proto", "-o", path, jsonl});
        EXPECT_EQ(c.code, 0) << c.err;
      }
      paths.push_back(path);
    }
    std::vector<std::string> args = {"json"};
    args.insert(args.end(), paths.begin(), paths.end());
    const CliResult r = RunCli(args);
    const std::string ctx = absl::StrCat(what, proto ? " (protobuf)" : " (jsonl)");
    EXPECT_EQ(r.code, 0) << ctx << ": " << r.err;
    EXPECT_NE(r.out.find(absl::StrCat("\"not_in_input\":", want.not_in_input,
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
      {Without([](uint64_t seq) { return seq >= 100 && seq < 110; })}, {10, 0, 0},
      "ten in the middle");
  EXPECT_TRUE(Has(w, "WARNING:   10 events biosnoop wrote are not in the input")) << w;
  ExpectFigures({Without([](uint64_t seq) { return seq > 395; })}, {5, 0, 0},
                "the last five");
  ExpectFigures({Without([](uint64_t seq) { return seq % 2 == 0; })}, {200, 0, 0},
                "every other one");
  // No event at all: the stats records say 400 were written. The first
  // one (150) reads as the count that opens this part of the run, as a
  // rotated file's does: those 150 count as earlier, the other 250 as
  // not in the input.
  ExpectFigures({Without([](uint64_t) { return true; })}, {250, 150, 0},
                "all of them");
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
  const std::string w = ExpectFigures({Join(newer)}, {0, 300, 0}, "newest only");
  EXPECT_TRUE(Has(w, "WARNING:   300 earlier events of these runs are not in the input"))
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
  const std::string opening = R"({"type":"stats","timestamp":"2026-11-21T05:00:01.271820144Z",)"
                              R"("elapsed_s":1.27,"completions":3000,"emitted":300,"lost":0,)"
                              R"("orphans":0,"below_threshold":2700,"filtered":0,)"
                              R"("decode_errors":0,"expired":0,"written":300,"dropped":0,)"
                              R"("final":false,"missed":0,"unfinished":0})";
  ExpectFigures({Join({lines[0], opening, opening})}, {0, 300, 0}, "quiet new file");
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
  EXPECT_TRUE(Has(w, "WARNING:   400 events are in the input more than once")) << w;
}

}  // namespace
}  // namespace biosnoop::report
