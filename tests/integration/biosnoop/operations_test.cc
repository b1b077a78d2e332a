// Operational accidents and hostile input, on the real kernel: log
// rotation, a full output disk, hostile process names, privilege drop, a
// symlink planted at the output path.

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cgroups.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// Parses a JSONL file strictly: every line whole and valid.  A file still
// being written (`live`) may end in part of a record (a regular file grows
// a page at a time under a write): that part is left out.
std::vector<json> ParseLines(const std::string& path, bool live = false) {
  std::vector<json> out;
  std::string text = ReadFile(path);
  if (!text.empty() && text.back() != '\n') {
    EXPECT_TRUE(live) << path << " ends mid-line";
    text.erase(text.rfind('\n') + 1);
  }
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    try {
      json j = json::parse(line);
      if (j.value("type", "") == "event") out.push_back(std::move(j));
    } catch (const json::exception& e) {
      ADD_FAILURE() << path << ": invalid line: " << line;
    }
  }
  return out;
}

TEST(Operations, SighupRotationLosesNoEvent) {
  BIOSNOOP_REQUIRE_ROOT();
  // Every read takes 1 ms: a stream of slow I/O, each one logged.
  SlowDisk loop({.size_mib = 64, .read_delay_ms = 1});
  ASSERT_TRUE(loop.ok()) << loop.error();
  TempDir dir;
  ASSERT_TRUE(GiveToBiosnoopUser(dir.path()));  // as the package's
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "1000", "-d", loop.loop_name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  // A steady stream of I/O (batches of dd); the rotation lands in its
  // middle, while events are being written.
  constexpr int kBatches = 20, kPerBatch = 50;
  std::vector<pid_t> pids;
  std::atomic<int> done{0};
  std::thread io([&] {
    for (int i = 0; i < kBatches; ++i) {
      Workload w =
          DirectDd(loop.loop_path(), true, 4096, kPerBatch, i * kPerBatch);
      if (w.exit_code == 0) pids.push_back(w.pid);
      done = i + 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  while (done < kBatches / 2)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()),
            0);  // logrotate "create"
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  io.join();
  ASSERT_EQ(pids.size(), static_cast<size_t>(kBatches));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  std::vector<json> first = ParseLines(log + ".1");
  std::vector<json> second = ParseLines(log);
  std::vector<json> both = first;
  both.insert(both.end(), second.begin(), second.end());
  size_t mine = 0;
  for (pid_t pid : pids) {
    size_t n = EventsOfPid(both, pid).size();
    EXPECT_LE(n, static_cast<size_t>(kPerBatch)) << "dd " << pid;
    mine += n;
  }
  // Every read is in one of the two files, or among the completions the
  // kernel ran no program for (docs/reference/counters.md, "missed"): none
  // lost to rotation.
  EXPECT_TRUE(LoggedOrMissed(mine, kBatches * kPerBatch, b));
  EXPECT_FALSE(EventsOfPid(first, pids.front()).empty())
      << "nothing before rotation";
  EXPECT_FALSE(EventsOfPid(second, pids.back()).empty())
      << "nothing after rotation";
  std::set<int64_t> seqs;
  for (const json& e : both) seqs.insert(e["seq"].get<int64_t>());
  EXPECT_EQ(seqs.size(), both.size()) << "an event was written twice";
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["written"], both.size());
  EXPECT_EQ(s["lost"], 0);
  // Each file starts with its own header, so a rotated file reads alone;
  // the new one then says how many events the old one holds.
  for (const std::string& path : {log + ".1", log}) {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(json::parse(first)["type"], "header") << path;
  }
  {
    std::ifstream in(log);
    std::string header, opening;
    std::getline(in, header);
    std::getline(in, opening);
    const json stats = json::parse(opening);
    EXPECT_EQ(stats["type"], "stats") << opening;
    EXPECT_EQ(stats["written"], first.size()) << opening;
    EXPECT_EQ(stats["final"], false) << opening;
  }
  // bioreport finds nothing missing in the two files, and in the new one
  // alone, the old file's events as earlier ones, not as loss.
  const auto report = [](const std::vector<std::string>& inputs) {
    std::vector<std::string> args = {BIOREPORT_BIN, "json"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    std::optional<std::string> out = CommandOutput(args);
    return out.has_value() ? json::parse(*out) : json();
  };
  json r = report({log + ".1", log});
  EXPECT_EQ(r["events"], both.size()) << r;
  EXPECT_EQ(r["not_in_input"], 0) << r;
  EXPECT_EQ(r["before_input"], 0) << r;
  EXPECT_EQ(r["duplicate_events"], 0) << r;
  r = report({log});
  EXPECT_EQ(r["not_in_input"], 0) << r;
  EXPECT_EQ(r["before_input"], first.size()) << r;
  // The new file is created as the first one was: 0640.
  struct stat st;
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

// Every record of a JSONL file, strictly parsed (headers and stats too).
std::vector<json> AllRecords(const std::string& path) {
  std::vector<json> out;
  const std::string text = ReadFile(path);
  if (!text.empty()) {
    EXPECT_EQ(text.back(), '\n') << path << " ends mid-line";
  }
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    try {
      out.push_back(json::parse(line));
    } catch (const json::exception& e) {
      ADD_FAILURE() << path << ": invalid line: " << line;
    }
  }
  return out;
}

// Waits until `b`'s stderr holds `text` `times` times.
bool WaitForStderr(const Biosnoop& b, const std::string& text, int times,
                   int timeout_ms = 60000) {
  return WaitUntil(
      [&] {
        const std::string err = b.Stderr();
        int found = 0;
        for (size_t at = err.find(text); at != std::string::npos;
             at = err.find(text, at + 1)) {
          ++found;
        }
        return found >= times;
      },
      timeout_ms);
}

// stdout appended to a file (systemd's StandardOutput=append:, or `>>`)
// has no path to reopen, so logrotate rotates it with `copytruncate`: the
// file is copied, then cut to zero while biosnoop keeps writing.  SIGHUP
// then writes a header and a stats record into the stream, so that the
// cut file starts as a file of its own and says how many events came
// before it; the events themselves go on with no gap and no hole.
TEST(Operations, SighupOnAppendedStdoutStartsTheTruncatedFileAfresh) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk loop({.size_mib = 64, .read_delay_ms = 1});
  ASSERT_TRUE(loop.ok()) << loop.error();
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "1000", "-d", loop.loop_name()},
             {"sh", "-c", "exec \"$@\" >> " + log, "sh"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // Waits until `log` holds `n` events (biosnoop flushes every 10 ms).
  auto wait_events = [&](size_t n) {
    return WaitUntil([&] { return ParseLines(log, true).size() >= n; });
  };
  constexpr int kReads = 40;
  Workload before = DirectDd(loop.loop_path(), true, 4096, kReads, 0);
  ASSERT_EQ(before.exit_code, 0);
  ASSERT_TRUE(wait_events(kReads)) << ReadFile(log);
  // logrotate's copytruncate, with nothing written in between.
  ASSERT_EQ(RunCommand({"cp", log, log + ".1"}), 0);
  ASSERT_EQ(truncate(log.c_str(), 0), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  // The header and stats record SIGHUP writes into the cut file.
  ASSERT_TRUE(WaitUntil([&] { return !ReadFile(log).empty(); }))
      << "SIGHUP wrote nothing into the cut " << log << "\n"
      << b.Stderr();
  Workload after = DirectDd(loop.loop_path(), true, 4096, kReads, kReads);
  ASSERT_EQ(after.exit_code, 0);
  ASSERT_TRUE(wait_events(kReads)) << ReadFile(log);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::string text = ReadFile(log);
  EXPECT_EQ(text.find('\0'), std::string::npos) << "a hole in the file";
  const std::vector<json> old_records = AllRecords(log + ".1");
  const std::vector<json> new_records = AllRecords(log);
  ASSERT_GE(new_records.size(), 2u);
  EXPECT_EQ(new_records[0]["type"], "header") << new_records[0];
  EXPECT_EQ(new_records[0]["boot_id"], old_records.at(0)["boot_id"]);
  EXPECT_EQ(new_records[1]["type"], "stats") << new_records[1];
  const std::vector<json> old_events = ParseLines(log + ".1");
  const std::vector<json> new_events = ParseLines(log);
  EXPECT_EQ(new_records[1]["written"], old_events.size()) << new_records[1];
  EXPECT_TRUE(
      LoggedOrMissed(EventsOfPid(old_events, before.pid).size(), kReads, b));
  EXPECT_TRUE(
      LoggedOrMissed(EventsOfPid(new_events, after.pid).size(), kReads, b));
  // One stream across the two files: seq goes on where the copy ends.
  std::vector<int64_t> seqs;
  for (const auto* events : {&old_events, &new_events}) {
    for (const json& e : *events) seqs.push_back(e["seq"].get<int64_t>());
  }
  for (size_t i = 1; i < seqs.size(); ++i) {
    EXPECT_EQ(seqs[i], seqs[i - 1] + 1) << "at " << i;
  }
  // bioreport reads the cut file alone with nothing missing.
  std::optional<std::string> out = CommandOutput({BIOREPORT_BIN, "json", log});
  ASSERT_TRUE(out.has_value());
  const json r = json::parse(*out);
  EXPECT_EQ(r["not_in_input"], 0) << r;
  EXPECT_EQ(r["before_input"], old_events.size()) << r;
}

// logrotate with `create 0640 root adm`: `log` moved to `log`.1, a new
// `log` biosnoop cannot write (after loading it runs as its own user,
// without capabilities), then SIGHUP; returns once biosnoop has said so
// for the `nth` time.
void RotateOntoAFileItCannotWrite(const Biosnoop& b, const std::string& log,
                                  int nth) {
  ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0640);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchown(fd, 0, 0), 0);  // root's
  close(fd);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitForStderr(b, "cannot reopen", nth)) << b.Stderr();
}

// logrotate's `create 0640 root adm`: a new file biosnoop cannot write,
// since after loading it runs as its own user without capabilities; then
// a symlink at the path.  Each failed reopen is one line on
// stderr, and biosnoop keeps writing to the old file, which it still
// holds, losing nothing; the next SIGHUP tries again and, once the path is
// usable, moves to the new file.
TEST(Operations, FailedReopenKeepsWritingTheOldFileAndTriesAgain) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  ASSERT_TRUE(GiveToBiosnoopUser(dir.path()));
  const std::string log = dir.path() + "/slow.jsonl";
  const std::string victim = dir.path() + "/victim";
  { std::ofstream(victim) << "precious\n"; }
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::vector<pid_t> before;  // dd runs whose events belong in the old file
  const auto reads = [&](std::vector<pid_t>* pids) {
    Workload w = DirectDd(loop.path(), true, 4096, 50);
    ASSERT_EQ(w.exit_code, 0);
    pids->push_back(w.pid);
  };
  reads(&before);

  ASSERT_NO_FATAL_FAILURE(RotateOntoAFileItCannotWrite(b, log, 1));
  reads(&before);

  ASSERT_EQ(unlink(log.c_str()), 0);
  ASSERT_EQ(symlink(victim.c_str(), log.c_str()), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitForStderr(b, "cannot reopen", 2)) << b.Stderr();
  reads(&before);

  ASSERT_EQ(unlink(log.c_str()), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  // The new file is opened on a helper thread and taken over by the run
  // afterwards, which writes its header first: wait for that, not for the
  // file to exist.
  ASSERT_TRUE(WaitUntil([&] { return !ReadFile(log).empty(); }))
      << "SIGHUP's new file got no header:\n"
      << b.Stderr();
  std::vector<pid_t> after;
  reads(&after);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  // One line per failure, naming the path and the reason, and what to do.
  std::vector<std::string> said;
  for (absl::string_view line : absl::StrSplit(b.Stderr(), '\n')) {
    if (line.find("cannot reopen") != absl::string_view::npos) {
      said.emplace_back(line);
    }
  }
  ASSERT_EQ(said.size(), 2u) << b.Stderr();
  EXPECT_NE(said[0].find("\"" + log + "\""), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("Permission denied"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("without capabilities"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("old file"), std::string::npos) << said[0];
  EXPECT_NE(said[1].find("symbolic link"), std::string::npos) << said[1];
  EXPECT_EQ(ReadFile(victim), "precious\n");

  const std::vector<json> old_file = AllRecords(log + ".1");
  const std::vector<json> new_file = AllRecords(log);
  std::vector<json> old_events, new_events;
  for (const json& r : old_file) {
    if (r["type"] == "event") old_events.push_back(r);
  }
  for (const json& r : new_file) {
    if (r["type"] == "event") new_events.push_back(r);
  }
  // The old file: one header, then the events of every run before the
  // successful reopen, seq 1, 2, 3... without a gap.
  ASSERT_FALSE(old_file.empty());
  EXPECT_EQ(old_file.front()["type"], "header");
  size_t headers = 0;
  for (const json& r : old_file) headers += r["type"] == "header";
  EXPECT_EQ(headers, 1u);
  for (size_t i = 0; i < old_events.size(); ++i) {
    ASSERT_EQ(old_events[i]["seq"], i + 1) << old_events[i];
  }
  size_t mine = 0;
  for (pid_t pid : before) mine += EventsOfPid(old_events, pid).size();
  EXPECT_TRUE(LoggedOrMissed(mine, 50 * before.size(), b));
  for (pid_t pid : before) {
    EXPECT_TRUE(EventsOfPid(new_events, pid).empty()) << pid;
  }
  // The new file picks up at the next seq, and ends the run.
  ASSERT_GE(new_file.size(), 3u);
  EXPECT_EQ(new_file[0]["type"], "header");
  EXPECT_EQ(new_file[1]["type"], "stats");
  EXPECT_EQ(new_file[1]["written"], old_events.size());
  EXPECT_FALSE(EventsOfPid(new_events, after.front()).empty());
  if (!new_events.empty()) {
    EXPECT_EQ(new_events.front()["seq"], old_events.size() + 1);
  }
  EXPECT_EQ(new_file.back()["type"], "stats");
  EXPECT_EQ(new_file.back()["final"], true);
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["dropped"], 0) << b.Stderr();
  EXPECT_EQ(s["written"], old_events.size() + new_events.size()) << b.Stderr();
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << b.Stderr();
}

// The same failure with no later SIGHUP: the old file gets the rest of the
// run and its final stats record, and the run ends normally.
TEST(Operations, FailedReopenLeavesTheFinalStatsInTheOldFile) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(loop.path(), true, 4096, 50).exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(RotateOntoAFileItCannotWrite(b, log, 1));
  Workload late = DirectDd(loop.path(), true, 4096, 50);
  ASSERT_EQ(late.exit_code, 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::vector<json> old_file = AllRecords(log + ".1");
  ASSERT_FALSE(old_file.empty());
  EXPECT_EQ(old_file.back()["type"], "stats");
  EXPECT_EQ(old_file.back()["final"], true);
  std::vector<json> events;
  for (const json& r : old_file) {
    if (r["type"] == "event") events.push_back(r);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i]["seq"], i + 1) << events[i];
  }
  EXPECT_TRUE(LoggedOrMissed(EventsOfPid(events, late.pid).size(), 50, b));
  EXPECT_EQ(old_file.back()["written"], events.size());
  EXPECT_EQ(ReadFile(log), "");  // never written
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["dropped"], 0) << b.Stderr();
  EXPECT_EQ(s["written"], events.size()) << b.Stderr();
}

// Histogram mode: a failed reopen keeps the file it has, so the histogram
// printed at exit is not lost.
TEST(Operations, FailedReopenInHistogramModeKeepsTheFinalHistogram) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string log = dir.path() + "/hist.json";
  Biosnoop b({"--hist", "--json", "-d", loop.name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(loop.path(), true, 4096, 50).exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(RotateOntoAFileItCannotWrite(b, log, 1));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  const std::string text = ReadFile(log + ".1");
  ASSERT_FALSE(text.empty()) << b.Stderr();
  const json report = json::parse(text.substr(0, text.find('\n')), nullptr,
                                  /*allow_exceptions=*/false);
  ASSERT_TRUE(report.is_object()) << text;
  EXPECT_EQ(report.value("type", ""), "histogram") << text;
  EXPECT_EQ(ReadFile(log), "");
}

// biosnoop (with -v) writing its stdout into a pipe whose read end is
// returned in *read_fd and which nobody reads; stderr to err_path, or
// with none, into the pipe too (`biosnoop 2>&1 | reader`).
Child SpawnIntoPipe(const std::vector<std::string>& args, int* read_fd,
                    const std::string& err_path) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Child();
  std::vector<std::string> argv = {BIOSNOOP_BIN, "-v"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildSetup setup = ChildSetup().Null(0).Dup(1, fds[1]);
  if (err_path.empty()) {
    setup.Dup(2, fds[1]);
  } else {
    setup.Open(2, err_path, O_WRONLY | O_CREAT | O_TRUNC);
  }
  Child child = Child::Program(argv, std::move(setup));
  close(fds[1]);
  *read_fd = fds[0];
  return child;
}

// Whether the file at `path` holds `what` within `timeout_ms`.
bool FileSays(const std::string& path, const std::string& what,
              int timeout_ms) {
  return WaitUntil(
      [&] { return ReadFile(path).find(what) != std::string::npos; },
      timeout_ms);
}

// `biosnoop | sleep 600`: a reader that takes nothing blocks biosnoop's
// write(2) once the pipe is full.  A stop request (SIGTERM, or the end of
// --duration) still ends the run within a bounded time: biosnoop gives
// the write a short grace, then counts what it could not write as
// dropped, says the output stalled and exits 74.  What reached the pipe
// is whole records, except at most the last one, which biosnoop then says
// it cut.
TEST(Operations, StalledReaderDoesNotHoldOffAStop) {
  BIOSNOOP_REQUIRE_ROOT();
  for (const bool by_duration : {false, true}) {
    SCOPED_TRACE(by_duration ? "--duration" : "SIGTERM");
    LoopDevice loop(64);
    ASSERT_TRUE(loop.ok());
    TempDir dir;
    const std::string err_path = dir.path() + "/err";
    std::vector<std::string> args = {"--min-us", "0", "-d", loop.name()};
    constexpr int kDurationS = 6;
    if (by_duration) {
      args.insert(args.end(), {"--duration", std::to_string(kDurationS)});
    }
    int reader = -1;
    Child b = SpawnIntoPipe(args, &reader, err_path);
    ASSERT_TRUE(b.started()) << b.result().Describe();
    const pid_t pid = b.pid();
    if (!FileSays(err_path, "biosnoop: attached", 15000)) {
      b.Kill();
      close(reader);
      FAIL() << ReadFile(err_path);
    }
    // --duration counts from the attach, a little before the test sees it
    // (however long the attach took on a busy machine).
    const auto attached = std::chrono::steady_clock::now();
    // ~330 bytes an event: 2000 are far more than the pipe (64 KiB) and
    // biosnoop's buffer (64 KiB) hold.
    ASSERT_EQ(DirectDd(loop.path(), true, 4096, 2000).exit_code, 0);
    // The stop must find biosnoop blocked on the full pipe.
    ASSERT_TRUE(
        WaitUntil([&] { return ThreadsBlockedOnPipe(pid) >= 1; }, 20000))
        << "biosnoop never blocked writing to the pipe\n"
        << ReadFile(err_path);
    auto stop_at = attached + std::chrono::seconds(kDurationS);
    if (!by_duration) {
      ASSERT_EQ(kill(pid, SIGTERM), 0);
      stop_at = std::chrono::steady_clock::now();
    }
    // Killed and a failure past 20 s.
    const ChildResult& ended = b.Wait(absl::Seconds(20));
    const auto took = std::chrono::steady_clock::now() - stop_at;
    const std::string err = ReadFile(err_path);
    std::string out;
    char buf[65536];
    for (ssize_t n; (n = read(reader, buf, sizeof(buf))) > 0;)
      out.append(buf, n);
    close(reader);
    EXPECT_TRUE(ExitedWith(ended, 74)) << err;
    EXPECT_LT(took, std::chrono::seconds(6)) << err;
    EXPECT_NE(err.find("stalled"), std::string::npos) << err;

    // Whole records, each valid JSON, then perhaps one cut short, which
    // biosnoop owns up to.
    const size_t whole_end = out.rfind('\n') + 1;
    size_t events = 0;
    for (absl::string_view line :
         absl::StrSplit(absl::string_view(out).substr(0, whole_end), '\n',
                        absl::SkipEmpty())) {
      try {
        events += json::parse(line)["type"] == "event";
      } catch (const json::exception& e) {
        ADD_FAILURE() << "invalid line: " << line;
      }
    }
    if (whole_end < out.size()) {
      EXPECT_NE(err.find("cut"), std::string::npos) << err;
    }
    std::map<std::string, double> s = ParseSummary(err);
    ASSERT_TRUE(s.count("written")) << "no summary line:\n" << err;
    EXPECT_EQ(s["written"], events) << err;
    EXPECT_GT(s["dropped"], 0) << err;
    EXPECT_TRUE(EmittedAllAccountedFor(s)) << err;
  }
}

// A log shipper that stops reading blocks biosnoop's write(2) with no stop
// in sight.  biosnoop cannot write events meanwhile, and the kernel's ring
// buffer fills: it says so on stderr while it lasts (from a second
// thread, the writer being stuck), not only once the write goes through,
// and then says how many events were lost while the output was blocked,
// without advising a bigger ring buffer, which would not have helped.
TEST(Operations, ABlockedOutputAndItsLossAreSaidWhileItLasts) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string err_path = dir.path() + "/err";
  int reader = -1;
  Child b =
      SpawnIntoPipe({"--min-us", "0", "-d", loop.name(), "--ringbuf-kib", "64"},
                    &reader, err_path);
  ASSERT_TRUE(b.started()) << b.result().Describe();
  auto wait_for = [&err_path](const std::string& what, int timeout_ms) {
    return FileSays(err_path, what, timeout_ms);
  };
  if (!wait_for("biosnoop: attached", 15000)) {
    b.Kill();
    close(reader);
    FAIL() << ReadFile(err_path);
  }
  // ~330 bytes an event: 3000 are far more than the pipe (64 KiB),
  // biosnoop's buffer (64 KiB) and the ring buffer (64 KiB, ~580 records)
  // hold together.
  ASSERT_EQ(DirectDd(loop.path(), true, 4096, 3000).exit_code, 0);
  const bool said_blocked = wait_for("has been blocked for", 8000);
  const std::string while_blocked = ReadFile(err_path);

  // The reader comes back.
  std::string out;
  std::thread drain([&out, reader] {
    char buf[65536];
    for (ssize_t n; (n = read(reader, buf, sizeof(buf))) > 0;)
      out.append(buf, n);
  });
  const bool said_moving = wait_for("went through again", 8000);
  const ChildResult ended = b.Stop(SIGINT, absl::Seconds(20));
  drain.join();
  close(reader);
  const std::string err = ReadFile(err_path);

  ASSERT_TRUE(said_blocked) << err;
  EXPECT_NE(while_blocked.find("writing stdout has been blocked for"),
            std::string::npos)
      << while_blocked;
  EXPECT_NE(while_blocked.find("the reader is not taking the output"),
            std::string::npos)
      << while_blocked;
  ASSERT_TRUE(said_moving) << err;
  EXPECT_TRUE(ExitedWith(ended, 0)) << err;
  EXPECT_EQ(err.find("Raise --ringbuf-kib"), std::string::npos) << err;

  std::map<std::string, double> s = ParseSummary(err);
  ASSERT_TRUE(s.count("lost")) << "no summary line:\n" << err;
  EXPECT_GT(s["lost"], 0) << err;
  // The ring buffer can only have been full while the output was blocked:
  // all the loss is the episode's, as said when it ended.
  const size_t at = err.find("went through again");
  const size_t n = err.find("events were lost meanwhile", at);
  ASSERT_NE(n, std::string::npos) << err;
  const size_t num = err.rfind("; ", n) + 2;
  EXPECT_EQ(std::stod(err.substr(num, n - num)), s["lost"]) << err;

  size_t events = 0;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    events += json::parse(line)["type"] == "event";
  }
  EXPECT_EQ(s["written"], events) << err;
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << err;
}

// `biosnoop 2>&1 | shipper` with the shipper hung: stderr is the stalled
// pipe too, so the stop's own messages (the stall, the summary line) cannot
// be written either.  They are given up after the same grace, and the run
// still ends (exit 74, the output stalled).
TEST(Operations, StderrOnTheStalledPipeDoesNotHoldOffAStop) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  int reader = -1;
  Child b = SpawnIntoPipe({"--min-us", "0", "-d", loop.name()}, &reader,
                          /*err_path=*/"");
  ASSERT_TRUE(b.started()) << b.result().Describe();
  const pid_t pid = b.pid();
  // Read until -v's "attached" line, then never again.
  std::string out;
  char buf[65536];
  for (int waited = 0;
       out.find("biosnoop: attached") == std::string::npos && waited < 15000;
       waited += 100) {
    struct pollfd pfd = {reader, POLLIN, 0};
    if (poll(&pfd, 1, 100) == 1) {
      const ssize_t n = read(reader, buf, sizeof(buf));
      if (n <= 0) break;
      out.append(buf, n);
    }
  }
  if (out.find("biosnoop: attached") == std::string::npos) {
    b.Kill();
    close(reader);
    FAIL() << out;
  }
  ASSERT_EQ(DirectDd(loop.path(), true, 4096, 2000).exit_code, 0);
  // The stop must find biosnoop blocked on the full pipe; its messages
  // at the stop (the stall, the summary line) then meet the same pipe.
  ASSERT_TRUE(WaitUntil([&] { return ThreadsBlockedOnPipe(pid) >= 1; }, 20000))
      << "biosnoop never blocked writing to the pipe";
  const auto stop_at = std::chrono::steady_clock::now();
  // Killed and a failure past 20 s.
  const ChildResult& ended = b.Stop(SIGTERM, absl::Seconds(20));
  const auto took = std::chrono::steady_clock::now() - stop_at;
  for (ssize_t n; (n = read(reader, buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(reader);
  EXPECT_TRUE(ExitedWith(ended, 74));
  // The output's grace, then stderr's: 2 s each.
  EXPECT_LT(took, std::chrono::seconds(10));
  // What did reach the pipe: the -v lines, the header, events.
  EXPECT_NE(out.find("\"type\":\"event\""), std::string::npos);
}

TEST(Operations, FullOutputDiskIsAClearErrorWithWholeLines) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  ASSERT_EQ(mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64k"), 0);
  const std::string log = dir.path() + "/slow.jsonl";
  {
    Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log});
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    // ~330 bytes a line: 2000 events are about 10 times what fits.
    Workload dd = DirectDd(loop.path(), true, 4096, 2000);
    ASSERT_EQ(dd.exit_code, 0);
    int rc = b.Wait(10000);
    if (rc == -2) rc = b.Stop();
    EXPECT_EQ(rc, 74) << b.Stderr();
    EXPECT_NE(b.Stderr().find("No space left on device"), std::string::npos)
        << b.Stderr();
    EXPECT_NE(b.Stderr().find(log), std::string::npos) << b.Stderr();
    std::vector<json> lines = ParseLines(log);
    EXPECT_GT(lines.size(), 10u);
    std::map<std::string, double> s = b.Summary();
    EXPECT_EQ(s["written"], lines.size()) << b.Stderr();
    EXPECT_GT(s["dropped"], 0) << b.Stderr();
    // The records still in the ring buffer when the output failed are
    // dropped too, not left out of every count.
    EXPECT_TRUE(EmittedAllAccountedFor(s)) << b.Stderr();
  }
  umount2(dir.path().c_str(), MNT_DETACH);
}

// A file size limit (`ulimit -f`, systemd's LimitFSIZE=) is a full disk
// by another name: the write fails with EFBIG instead of the kernel
// killing biosnoop with SIGXFSZ mid-line, so the file is cut back to whole
// lines, the loss is counted and biosnoop says why (exit 74).
TEST(Operations, FileSizeLimitIsAnOutputErrorWithWholeLines) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  constexpr off_t kLimit = 100 * 1024;  // ulimit -f 100
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log},
             {"prlimit", "--fsize=" + std::to_string(kLimit)});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // ~330 bytes a line: 2000 events are several times what the limit allows.
  Workload dd = DirectDd(loop.path(), true, 4096, 2000);
  ASSERT_EQ(dd.exit_code, 0);
  int rc = b.Wait(10000);
  if (rc == -2) rc = b.Stop();
  EXPECT_EQ(rc, 74) << "killed by a signal (SIGXFSZ)?\n" << b.Stderr();
  EXPECT_NE(b.Stderr().find("File too large"), std::string::npos) << b.Stderr();
  EXPECT_NE(b.Stderr().find(log), std::string::npos) << b.Stderr();
  struct stat st;
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_LE(st.st_size, kLimit);
  std::vector<json> lines = ParseLines(log);  // every line whole and valid
  EXPECT_GT(lines.size(), 10u);
  std::map<std::string, double> s = b.Summary();
  ASSERT_TRUE(s.count("dropped")) << "no summary line:\n" << b.Stderr();
  EXPECT_EQ(s["written"], lines.size()) << b.Stderr();
  EXPECT_GT(s["dropped"], 0) << b.Stderr();
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << b.Stderr();
}

// A process name made of every kind of trouble.
constexpr char kHostileComm[] = "\"q\\\n\x01\x7f\xff\xfe\xc3x";

TEST(Operations, HostileProcessNamesComeOutAsValidJson) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk loop({.size_mib = 32, .read_delay_ms = 12});
  ASSERT_TRUE(loop.ok()) << loop.error();
  Biosnoop b({"--min-us", "10000", "-d", loop.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  pid_t hostile = ReadWithComm(loop.loop_path(), kHostileComm, 5);
  ASSERT_GT(hostile, 0);
  pid_t plain = ReadWithComm(loop.loop_path(), "caf\xc3\xa9-\xe2\x9c\x93", 3);
  ASSERT_GT(plain, 0);
  ASSERT_EQ(b.Stop(), 0);

  std::vector<json> all = b.Events();  // fails the test on any invalid line
  std::vector<json> mine = EventsOfPid(all, hostile);
  std::vector<json> good = EventsOfPid(all, plain);
  // Every read is an event, or counted as missed: a completion the kernel
  // ran no BPF program for (docs/reference/counters.md, "missed"); seen once
  // in ~10 full runs.
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(mine.size() + good.size() + s["missed"], 8u) << b.Stderr();
  EXPECT_LE(mine.size(), 5u) << b.Stderr();
  EXPECT_LE(good.size(), 3u) << b.Stderr();
  ASSERT_FALSE(mine.empty()) << b.Stderr();
  ASSERT_FALSE(good.empty()) << b.Stderr();
  for (const json& e : mine) {
    // The documented rule: valid UTF-8 kept (control characters escaped
    // by JSON, so they decode back), each invalid byte -> U+FFFD, and
    // comm_raw holds the exact bytes in hex.
    EXPECT_EQ(e["comm"].get<std::string>(),
              "\"q\\\n\x01\x7f\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx");
    EXPECT_EQ(e["comm_raw"], "22715c0a017ffffec378");
  }
  for (const json& e : good) {
    EXPECT_EQ(e["comm"], "caf\xc3\xa9-\xe2\x9c\x93");
    EXPECT_FALSE(e.contains("comm_raw"));
  }
  // And the raw text of each line holds no raw control byte.
  for (char c : b.Stdout()) {
    if (c != '\n') {
      EXPECT_GE(static_cast<unsigned char>(c), 0x20);
    }
  }
}

// /proc/<pid>/status, or with `tid`, that thread's.
std::map<std::string, std::string> ProcStatus(pid_t pid, pid_t tid = 0) {
  std::map<std::string, std::string> kv;
  std::string text = ReadFile(
      "/proc/" + std::to_string(pid) +
      (tid != 0 ? "/task/" + std::to_string(tid) : std::string()) + "/status");
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<std::string, std::string> p = absl::StrSplit(line, ":\t");
    kv[p.first] = p.second;
  }
  return kv;
}

TEST(Operations, RunningProcessHoldsNoPrivilege) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(32);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  // Capabilities are per thread: every one of them, the output watch's
  // too, which the event stream starts after the "attached" line.
  std::vector<pid_t> tids;
  auto list_threads = [&] {
    tids.clear();
    if (DIR* d =
            opendir(("/proc/" + std::to_string(b.pid()) + "/task").c_str())) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
      }
      closedir(d);
    }
    return tids.size() >= 2;
  };
  WaitUntil(list_threads);
  EXPECT_EQ(tids.size(), 2u) << "the writer and the output watch";
  for (pid_t tid : tids) {
    std::map<std::string, std::string> st = ProcStatus(b.pid(), tid);
    for (const char* set : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
      EXPECT_EQ(st[set], "0000000000000000") << set << " of thread " << tid;
    }
    EXPECT_EQ(st["NoNewPrivs"], "1") << tid;
  }
  // It still does its job without them.
  Workload dd = DirectDd(loop.path(), true, 4096, 20);
  ASSERT_EQ(dd.exit_code, 0);
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();
  EXPECT_EQ(EventsOfPid(b.Events(), dd.pid).size(), 20u);
  EXPECT_EQ(b.Summary()["completions"], 20) << b.Stderr();
}

// Loading costs CPU in proportion to the paths the kernel's verifier walks
// (the completion programs once walked 245,000 instructions: ~0.4 s of
// system time at every start).  The total for every filter and mode stays
// far below that; today it is about 5,000 without files and 26,000 with
// them (the attribution's loops are bpf_loop callbacks, verified once; as
// bounded loops they were 550,000); --ops adds its four programs and the
// calls' part of the block hooks, what calls wait for among them (the
// disk's waiters, a global function verified once: inlined, it cost
// 38,000 in each completion program), the throttle and write-sleep hooks,
// naming an overlay file's real file and registering a call on a stacked
// disk under the disks below it: about 105,000 in all on 6.18.
TEST(Operations, VerifierWorkAtLoadStaysSmall) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(8);
  ASSERT_TRUE(loop.ok());
  struct Setup {
    std::vector<std::string> args;
    uint64_t bound;
  };
  const std::vector<Setup> setups = {
      {{"--min-us", "0"}, 40000},
      {{"--min-us", "0", "--no-files"}, 40000},
      {{"--hist", "-D", "-F"}, 40000},
      {{"--min-us", "1000", "-Q", "-p", "1", "--comm", "dd", "--op", "write",
        "-d", loop.name()},
       40000},
      {{"--min-us", "0", "--ops"}, 125000},
      {{"--ops", "--comm", "dd", "--cgroup", "/", "-d", loop.name()}, 125000},
  };
  for (const Setup& setup : setups) {
    const std::vector<std::string>& args = setup.args;
    Biosnoop b(args);
    ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
    ASSERT_EQ(b.Stop(), 0) << b.Stderr();
    const std::string err = b.Stderr();
    const size_t at = err.find(" instructions verified");
    ASSERT_NE(at, std::string::npos) << err;
    const size_t start = err.rfind(' ', at - 1) + 1;
    const uint64_t verified = std::stoull(err.substr(start, at - start));
    EXPECT_GT(verified, 1000u) << err;  // every program is counted
    EXPECT_LT(verified, setup.bound) << absl::StrJoin(args, " ") << "\n" << err;
  }
}

// Stopped while a fast disk is busy, biosnoop writes every event it
// counted as emitted, and the ring buffer does not fill while it finishes
// (it keeps consuming during its last missed-completion check).
TEST(Operations, StoppedUnderLoadItWritesEveryEventItCounted) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(256);
  ASSERT_TRUE(loop.ok());
  Biosnoop b({"--min-us", "0", "-d", loop.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  std::thread load([&] {
    CommandOutput({"fio", "--name=load", "--filename=" + loop.path(),
                   "--rw=randread", "--bs=4k", "--direct=1",
                   "--ioengine=io_uring", "--iodepth=32", "--time_based",
                   "--runtime=5", "--output=/dev/null"});
  });
  // Stopped once the load is well under way, as the disk's own count of
  // completed reads shows (fio may take a while to start on a cold
  // machine: a fixed wait once stopped it before any I/O).
  const auto reads_done = [&] {
    std::ifstream stat("/sys/block/" + loop.name() + "/stat");
    uint64_t reads = 0;
    stat >> reads;
    return reads;
  };
  const uint64_t reads_before = reads_done();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (reads_done() - reads_before < 60000 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int rc = b.Stop();
  load.join();
  ASSERT_EQ(rc, 0) << b.Stderr();
  std::map<std::string, double> s = b.Summary();
  EXPECT_GT(s["emitted"], 50000) << "not under load:\n" << b.Stderr();
  EXPECT_EQ(s["lost"], 0) << b.Stderr();
  EXPECT_EQ(s["dropped"], 0) << b.Stderr();
  EXPECT_EQ(s["written"], s["emitted"]) << b.Stderr();
  EXPECT_EQ(b.Events().size(), s["written"]) << b.Stderr();
}

TEST(Operations, SymlinkAtTheOutputPathIsRefused) {
  BIOSNOOP_REQUIRE_ROOT();
  TempDir dir;
  const std::string victim = dir.path() + "/victim";
  const std::string log = dir.path() + "/slow.jsonl";
  { std::ofstream(victim) << "precious\n"; }
  ASSERT_EQ(symlink(victim.c_str(), log.c_str()), 0);
  Biosnoop b({"--min-us", "0", "-o", log});
  EXPECT_EQ(b.Wait(), 73) << b.Stderr();
  EXPECT_NE(b.Stderr().find("symbolic link"), std::string::npos) << b.Stderr();
  EXPECT_EQ(ReadFile(victim), "precious\n");
}

TEST(Operations, NewOutputFileIsNotWorldReadable) {
  BIOSNOOP_REQUIRE_ROOT();
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-o", log, "--duration", "1"});
  ASSERT_EQ(b.Wait(), 0) << b.Stderr();
  struct stat st;
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0007, 0u);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

}  // namespace
}  // namespace biosnoop::testing
