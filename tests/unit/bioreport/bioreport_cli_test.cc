// bioreport's command line: bad usage exits 64 with one line, unreadable
// inputs 66, data that is not a biosnoop stream (or --strict damage) 65.

#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "app/man_page_check.h"
#include "bioreport_test_util.h"
#include "cli_doc.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::GoldenPath;
using test_util::RunCli;

bool OneLine(const std::string& s) {
  return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
}

TEST(BioreportCliTest, BadUsageExits64WithOneLine) {
  const std::vector<std::vector<std::string>> cases = {
      {"--bogus"},
      {"-x"},
      {"--since"},
      {"--since", "yesterday"},
      {"--pid", "12x"},
      {"--op", "reads"},
      {"--by", "host"},
      {"summary", "--by", "disk"},
      {"convert", GoldenPath("events.jsonl")},
      {"--to", "proto"},
      {"hist", "--top", "0"},
      {"--since", "2026-11-21T06:00:00Z", "--until", "2026-11-21T05:00:00Z"},
      {"-", "-"},
      {"-d", "vda", "-d", "vdb"},
      {"--pid", "1", "-p", "2"},
      {"-c", "dd", "--comm", "fio"},
      {"baseline", "--op", "read", "--op", "write"},
      {"--min-us", "50000", "--min-us", "10"},
      {"--since", "2026-11-21T05:00:00Z", "--since", "2026-11-21T06:00:00Z"},
      {"--until", "2026-11-21T05:00:00Z", "--until", "2026-11-21T06:00:00Z"},
      {"hist", "-D", "--by", "op"},
      {"hist", "--by", "op", "--per-disk"},
      {"hist", "--by", "op", "--by", "disk"},
      {"-d", ""},
      {"--disk", "/dev/"},
      {"-c", ""},
      {"top", "--top", "-1"},
  };
  for (const auto& args : cases) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, kExitUsage) << args[0] << ": " << r.err;
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_EQ(r.err.rfind("bioreport: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_NE(RunCli({"--pid", "12x"}).err.find("--pid: expected a number"),
            std::string::npos);
  EXPECT_NE(RunCli({"--since"}).err.find("--since needs a value"),
            std::string::npos);
  EXPECT_EQ(RunCli({"-d", "vda", "--disk", "vdb"}).err,
            "bioreport: --disk given more than once: each filter takes one "
            "value (run one report per value) (see bioreport --help)\n");
  EXPECT_EQ(RunCli({"--min-us", "1", "--min-us", "2"}).err,
            "bioreport: --min-us given more than once: each filter takes one "
            "value (run one report per value) (see bioreport --help)\n");
  // An empty filter value is bad usage, whichever filter (biosnoop's rule).
  EXPECT_EQ(RunCli({"-d", ""}).err,
            "bioreport: -d: empty value: expected a disk name such as vda "
            "(see bioreport --help)\n");
  EXPECT_EQ(RunCli({"--comm", ""}).err,
            "bioreport: --comm: empty value: expected a process name such as "
            "dd (see bioreport --help)\n");
  // A number below the range, or no number, is "expected"; above it, too
  // large with the largest (cli_numbers.h, biosnoop's rule).
  for (const char* top : {"0", "-1", "+5", " 5", "5 ", "0x10", ""}) {
    EXPECT_EQ(RunCli({"top", "--top", top}).err,
              absl::StrCat("bioreport: --top: expected a number from 1 to "
                           "1000000, got \"",
                           top, "\" (see bioreport --help)\n"));
  }
  for (const char* top : {"1000001", "18446744073709551616"}) {
    EXPECT_EQ(RunCli({"top", "--top", top}).err,
              absl::StrCat("bioreport: --top: ", top,
                           " is too large: at most 1000000 (see bioreport "
                           "--help)\n"));
  }
  // SimpleAtoi took "+5" and " 5"; the common rule takes digits only.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--min-us", "+5"},
                                             {"--pid", " 5"},
                                             {"--tail-us", "5 "},
                                             {"ops", "--op-id", "0x10"}}) {
    EXPECT_EQ(RunCli(args).code, kExitUsage) << args[0] << " " << args[1];
  }
  // Durations are biosnoop's too: a unit, or a plain number of seconds.
  for (const char* bucket : {"1m", "90s", "60", "0.5h"}) {
    const CliResult r =
        RunCli({"heatmap", "--bucket", bucket, GoldenPath("events.jsonl")});
    EXPECT_EQ(r.code, 0) << bucket << ": " << r.err;
  }
  for (const char* bucket : {"+1m", " 1m", "1m ", "-1m", "10 ms", ""}) {
    EXPECT_NE(RunCli({"heatmap", "--bucket", bucket})
                  .err.find("--bucket: expected a positive"),
              std::string::npos)
        << bucket;
  }
  EXPECT_EQ(RunCli({"hist", "-D", "--by", "op"}).err,
            "bioreport: --by: the grouping is already set: give one of -D "
            "(--by disk) and --by, once (see bioreport --help)\n");
}

TEST(BioreportCliTest, HelpAndVersion) {
  const CliResult help = RunCli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out.rfind("usage: bioreport", 0), 0u);
  const CliResult version = RunCli({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("bioreport ", 0), 0u);
  // argp's spellings (libbpf-tools): -V and -?.
  EXPECT_EQ(RunCli({"-V"}).out, version.out);
  EXPECT_EQ(RunCli({"-?"}).out, help.out);
}

// -c was --comm, and is a cgroup in biosnoop and libbpf-tools: refused
// with both equivalents, the value carried over, so that a command
// written for either meaning is never read with the other.
TEST(BioreportCliTest, DashCNamesBothMeaningsAndTakesNeither) {
  const std::string events = GoldenPath("events.jsonl");
  CliResult r = RunCli({"top", "-c", "dd", events});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.err,
            "bioreport: -c: give --comm dd for a process name (what "
            "bioreport's -c was), or --cgroup PATH for a cgroup (what -c is "
            "in biosnoop and libbpf-tools) (see bioreport --help)\n");
  EXPECT_TRUE(r.out.empty());
  r = RunCli({"-c/system.slice", events});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(r.err, "--comm /system.slice for"));
  EXPECT_TRUE(absl::StrContains(r.err, "--cgroup /system.slice for"));
  // --comm says the same as -c did.
  EXPECT_EQ(RunCli({"top", "--comm", "dd", events}).code, 0);
}

// bioreport's man page and --help come from one table (BioreportDoc): each
// lists the options the other does, the parser takes every one of them,
// and Debian's man tools render the page without a warning.
TEST(BioreportCliTest, ManPageListsEveryOptionHelpListsAndNoOther) {
  const std::string page = cli::ManPage(BioreportDoc(), "0.1.0", "2026-01-02");
  const std::set<std::string> help = man_check::HelpOptions(UsageText());
  EXPECT_EQ(help, man_check::ManOptions(page));
  for (const char* o : {"--since", "--until", "-d", "--disk", "--csv", "--json",
                        "--of", "-h", "--version"}) {
    EXPECT_EQ(help.count(o), 1u) << o;
  }
  EXPECT_EQ(help.size(), 30u + 7u) << "30 long options, 7 short ones";
  // And every report, in --help's list and the page's REPORTS.
  for (const char* report :
       {"summary", "hist", "csv", "json", "top", "sizes", "errors", "baseline",
        "heatmap", "ops", "why", "convert"}) {
    EXPECT_TRUE(
        absl::StrContains(UsageText(), absl::StrCat("\n  ", report, " ")))
        << report;
    EXPECT_TRUE(
        absl::StrContains(page, absl::StrCat(".TP\n\\fB", report, "\\fR")))
        << report;
  }
}

TEST(BioreportCliTest, TheParserTakesEveryDocumentedOption) {
  for (const cli::Section& s : BioreportDoc().sections) {
    for (const cli::Entry& e : s.entries) {
      for (const cli::Flag& f : e.flags) {
        // An input that cannot be opened: nothing waits for stdin.
        std::vector<std::string> args = {absl::StrCat("--", f.long_name),
                                         "/nonexistent/in.jsonl"};
        if (f.arg != nullptr) args.front() += "=x";
        const CliResult r = RunCli(args);
        EXPECT_EQ(r.err.find("unknown option"), std::string::npos)
            << f.long_name << ": " << r.err;
      }
    }
  }
}

TEST(BioreportCliTest, HelpFitsEightyColumnsAndTheManPageRenders) {
  for (absl::string_view line : absl::StrSplit(UsageText(), '\n')) {
    EXPECT_LE(line.size(), 79u) << line;
  }
  const std::string text = man_check::ExpectRendersCleanly(
      "bioreport", "1", cli::ManPage(BioreportDoc(), "0.1.0", "2026-01-02"));
  for (const char* want :
       {"NAME", "SYNOPSIS", "DESCRIPTION", "REPORTS", "OPTIONS", "EXIT STATUS",
        "FILES", "SEE ALSO", "--bucket DURATION", "biosnoop(8)"}) {
    EXPECT_TRUE(absl::StrContains(text, want)) << want;
  }
}

TEST(BioreportCliTest, UnreadableInputsExit66) {
  CliResult r = RunCli({"/nonexistent/slow.jsonl"});
  EXPECT_EQ(r.code, kExitNoInput);
  EXPECT_EQ(r.err,
            "bioreport: cannot open /nonexistent/slow.jsonl: No such file or "
            "directory\n");
  r = RunCli({"/tmp"});
  EXPECT_EQ(r.code, kExitNoInput);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos);
}

TEST(BioreportCliTest, NotABiosnoopStreamExits65) {
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("page.html"), "<html><body>hi</body></html>\n");
  const CliResult r = RunCli({dir.Path("page.html")});
  EXPECT_EQ(r.code, kExitData);
  EXPECT_NE(
      r.err.find("not a biosnoop stream: it starts with bytes 3c 68 74 6d"),
      std::string::npos)
      << r.err;
}

TEST(BioreportCliTest, StrictFailsOnDamageOtherwiseWarns) {
  test_util::TempDir dir;
  std::string data = test_util::ReadFile(GoldenPath("events.jsonl"));
  data.insert(data.find('\n') + 1, "{\"type\":\"event\",oops}\n");
  const std::string path = dir.Path("slow.jsonl");
  test_util::WriteFile(path, data);
  CliResult r = RunCli({"json", path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(path + ":2: corrupt line skipped"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("WARNING:   1 corrupt records skipped"),
            std::string::npos);
  EXPECT_NE(r.out.find("\"corrupt_records\":1"), std::string::npos);
  r = RunCli({"summary", path});
  EXPECT_NE(r.out.find("WARNING:   1 corrupt records skipped"),
            std::string::npos);
  r = RunCli({"--strict", path});
  EXPECT_EQ(r.code, kExitData);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
}

TEST(BioreportCliTest, NoStatsMeansLossUnknown) {
  test_util::TempDir dir;
  std::string data = test_util::ReadFile(GoldenPath("events.jsonl"));
  std::string events_only;
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t nl = data.find('\n', pos);
    const std::string line = data.substr(pos, nl + 1 - pos);
    if (line.rfind("{\"type\":\"event\"", 0) == 0) events_only += line;
    pos = nl + 1;
  }
  test_util::WriteFile(dir.Path("old.jsonl"), events_only);
  const CliResult r = RunCli({"hist", dir.Path("old.jsonl")});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("WARNING: events may be missing from this report:\n"
                        "WARNING:   no stats records: loss unknown\n",
                        0),
            0u)
      << r.out;
}

// Lines [from, to] (1-based, inclusive) of `lines`, newline-terminated.
std::string Lines(const std::vector<std::string>& lines, size_t from,
                  size_t to) {
  std::string out;
  for (size_t i = from; i <= to; ++i) absl::StrAppend(&out, lines[i - 1], "\n");
  return out;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BioreportCliTest, APipeIsReadOnceAndWhole) {
  // The time-order pass must not use up an input that gives its bytes
  // once: `bioreport <(zcat slow.jsonl.3.gz)` names /dev/fd/63, a pipe.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string path = absl::StrCat("/dev/fd/", fds[0]);
  const std::string data = test_util::ReadFile(GoldenPath("events.jsonl"));
  std::thread writer([&] {
    for (size_t done = 0; done < data.size();) {
      const ssize_t n = write(fds[1], data.data() + done, data.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
  });
  const CliResult r = RunCli({"json", path});
  writer.join();
  close(fds[0]);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "\"records\":408,")) << r.out;
  EXPECT_TRUE(Has(r.out, "\"events\":400,")) << r.out;
  EXPECT_TRUE(Has(r.out, "\"lost\":3,")) << r.out;
  EXPECT_EQ(r.err,  // the golden stream's own loss, nothing else
            "WARNING: events may be missing from this report:\n"
            "WARNING:   3 events lost in the kernel (ring buffer full)\n\n");
}

TEST(BioreportCliTest, RotatedFilesNamedNewestFirstKeepTheRunsLatestCounters) {
  // biosnoop -o slow.jsonl, SIGHUP after line 306: the new file starts
  // with the run's header and a stats record; `slow.jsonl*` names it first.
  const std::vector<std::string> lines = test_util::GoldenLines();
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("slow.jsonl"),
                       lines[0] + "\n" + Lines(lines, 306, 408));
  test_util::WriteFile(dir.Path("slow.jsonl.1"), Lines(lines, 1, 306));
  for (const auto& order :
       {std::vector<std::string>{"slow.jsonl", "slow.jsonl.1"},
        std::vector<std::string>{"slow.jsonl.1", "slow.jsonl"}}) {
    const CliResult r =
        RunCli({"json", dir.Path(order[0]), dir.Path(order[1])});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(Has(r.out,
                    "\"runs\":1,\"runs_not_final\":0,\"loss_known\":true,"
                    "\"lost\":3,"))
        << order[0] << " first: " << r.out;
    EXPECT_TRUE(Has(r.out,
                    "\"not_in_input\":0,\"before_input\":0,"
                    "\"duplicate_events\":0"))
        << r.out;
    const CliResult text = RunCli({dir.Path(order[0]), dir.Path(order[1])});
    EXPECT_TRUE(Has(text.out, "WARNING:   3 events lost in the kernel"))
        << text.out;
  }
}

TEST(BioreportCliTest, ARunWithoutItsFinalStatsRecordHasLossUnknownAfterIt) {
  // Kernel loss leaves no gap in seq: after the last stats record (here
  // written 300, lost 0) nothing tells whether events were lost.
  const std::vector<std::string> lines = test_util::GoldenLines();
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("cut.jsonl"), Lines(lines, 1, 306));
  const CliResult r = RunCli({"json", dir.Path("cut.jsonl")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(
      Has(r.out, "\"runs\":1,\"runs_not_final\":1,\"loss_known\":false,"))
      << r.out;
  const CliResult text = RunCli({dir.Path("cut.jsonl")});
  EXPECT_TRUE(Has(text.out,
                  "WARNING:   1 of 1 runs have no final stats record (still "
                  "running, killed, or their newest file not given): loss "
                  "after their last stats record is unknown\n"))
      << text.out;
  // With the final record there is no such line.
  test_util::WriteFile(dir.Path("whole.jsonl"), Lines(lines, 1, 408));
  EXPECT_FALSE(Has(RunCli({dir.Path("whole.jsonl")}).out, "no final stats"));
}

// The first line of the golden stream with "type" `type` (and '\n').
std::string GoldenLine(const std::string& type) {
  const std::string data = test_util::ReadFile(GoldenPath("events.jsonl"));
  const size_t start = data.find("{\"type\":\"" + type + "\"");
  return data.substr(start, data.find('\n', start) + 1 - start);
}

// `line` with the value of `key` replaced by `value` (JSON text).
std::string WithValue(std::string line, const std::string& key,
                      const std::string& value) {
  const size_t start = line.find("\"" + key + "\":") + key.size() + 3;
  line.replace(start, line.find_first_of(",}", start) - start, value);
  return line;
}

// The first event line of the golden stream, at `time` (RFC 3339).
std::string GoldenEventAt(const std::string& time) {
  return WithValue(GoldenLine("event"), "timestamp", "\"" + time + "\"");
}

// Records 327 years apart (the reader accepts 1678..2261): more nanoseconds
// than int64 holds, which made the span negative.
TEST(BioreportCliTest, SpanOfRecordsCenturiesApartIsRight) {
  test_util::TempDir dir;
  const std::string path = dir.Path("old.jsonl");
  test_util::WriteFile(path, GoldenEventAt("1700-01-01T00:00:00Z") +
                                 GoldenEventAt("2026-11-21T05:00:00Z"));
  CliResult r = RunCli({"json", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"duration_s\":10315573200.000,"), std::string::npos)
      << r.out;
  r = RunCli({"summary", path});
  EXPECT_NE(r.out.find("span: 1700-01-01 00:00:00 .. 2026-11-21 05:00:00 UTC "
                       "(10315573200.0 s)\n"),
            std::string::npos)
      << r.out;
}

// Latencies and loss counters near 2^64 (absurd, but the reader accepts
// any uint64): their sums are exact, never wrapped or capped, so a mean
// is never below the minimum and a total never smaller than a part.
TEST(BioreportCliTest, SumsBeyond64BitsAreExact) {
  test_util::TempDir dir;
  const std::string path = dir.Path("big.jsonl");
  const std::string header = GoldenLine("header");
  const std::string event = WithValue(GoldenLine("event"), "latency_us",
                                      "9223372036854775808");  // 2^63
  const std::string stats =
      WithValue(GoldenLine("stats"), "lost", "18446744073709551615");
  std::string data = header + WithValue(event, "seq", "1") + stats;
  data += WithValue(header, "boot_id", "\"other\"");
  for (const char* seq : {"1", "2"}) {
    data += WithValue(WithValue(event, "op", "\"write\""), "seq", seq);
  }
  data += stats;
  test_util::WriteFile(path, data);

  CliResult r = RunCli({"summary", path});
  ASSERT_EQ(r.code, 0) << r.err;
  // min and mean of all three: 2^63.
  EXPECT_NE(r.out.find("all    all        3  96.0 KiB  9223372036854775808  "
                       "9223372036854775808"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("WARNING:   36893488147419103230 events lost"),
            std::string::npos)
      << r.out;
  r = RunCli({"json", path});
  EXPECT_NE(r.out.find("\"mean\":9223372036854775808.0,"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"lost\":36893488147419103230,"), std::string::npos)
      << r.out;
  r = RunCli({"top", path});
  // The process's total and the disk's: 3 * 2^63.
  EXPECT_NE(
      r.out.find("\n777  a\"b\\\\c\\n\\x7f      3  27670116110564327424  "),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nloop3      3  27670116110564327424  "),
            std::string::npos)
      << r.out;
}

// Names from the input (op, host, disk; keys in warnings) are printed
// escaped everywhere, so that a crafted stream cannot forge report lines
// or send terminal escapes.
TEST(BioreportCliTest, NamesFromTheInputCannotForgeLinesOrEscapes) {
  test_util::TempDir dir;
  const std::string path = dir.Path("hostile.jsonl");
  const std::string forged = "\\nWARNING:   0 events lost \\u001b[31mRED";
  std::string data =
      WithValue(GoldenLine("header"), "host", "\"db7" + forged + "\"") +
      WithValue(GoldenLine("event"), "op", "\"read" + forged + "\"") +
      "{\"type\":\"event\",\"x\\u001b[2J\":nul}\n" + GoldenLine("stats");
  test_util::WriteFile(path, data);
  const std::string escaped = "\\nWARNING:   0 events lost \\x1b[31mRED";
  CliResult r = RunCli({"summary", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nWARNING:   0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hosts: db7 db7" + escaped + "\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  read" + escaped + "  "), std::string::npos) << r.out;
  // The corrupt line's warning names its key, escaped.
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1b[2J"), std::string::npos) << r.err;

  // A summary group's disk and op in baseline --csv: one line per row.
  std::string summary = GoldenLine("summary");
  const size_t disk = summary.find("\"disk\":\"") + 8;
  summary.insert(disk, "x\\n1,2\\u001b");
  test_util::WriteFile(path, summary);
  r = RunCli({"baseline", "--csv", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",\"x\\n1,2\\x1b"), std::string::npos) << r.out;
}

TEST(BioreportCliTest, ConvertRefusesToOverwrite) {
  test_util::TempDir dir;
  test_util::WriteFile(dir.Path("out.pb"), "x");
  const CliResult r = RunCli({"convert", "--to", "proto", "-o",
                              dir.Path("out.pb"), GoldenPath("events.jsonl")});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("exists and is not empty"), std::string::npos);
}

// The output rule biosnoop's -o follows (output_target.h): what cannot
// hold a stream is refused, exit 73, one line, nothing written.  (A
// block device, which a size-0 stat let through: the privileged
// OutputSafety.BioreportConvertRefusesABlockDevice.)
TEST(BioreportCliTest, ConvertRefusesOutputsThatCannotHoldAStream) {
  test_util::TempDir dir;
  for (const std::string& target : {dir.Path(""), std::string("/dev/zero")}) {
    const CliResult r = RunCli(
        {"convert", "--to", "jsonl", "-o", target, GoldenPath("events.pb")});
    EXPECT_EQ(r.code, kExitCantCreate) << r.err;
    EXPECT_EQ(
        r.err.rfind(
            "bioreport: cannot open output \"" + target + "\": it is a ", 0),
        0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace biosnoop::report
