#include "output_watch.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr uint64_t kS = 1000000000;
// An arbitrary monotonic origin.
constexpr uint64_t kT0 = 5000 * kS;

LossReporter::Look At(uint64_t now, uint64_t write_started, uint64_t lost) {
  LossReporter::Look l;
  l.now_ns = now;
  l.write_started_ns = write_started;
  l.lost = lost;
  return l;
}

TEST(LossReporter, SaysNothingWithoutLoss) {
  LossReporter r("stdout", true);
  EXPECT_THAT(r.Next(At(kT0, 0, 0)), IsEmpty());
  // A write under way for a moment is the normal case.
  EXPECT_THAT(r.Next(At(kT0 + kS, kT0 + kS - 1000, 0)), IsEmpty());
  EXPECT_THAT(r.Next(At(kT0 + 2 * kS, 0, 0)), IsEmpty());
}

TEST(LossReporter, LossWithTheOutputMovingAdvisesABiggerRingBuffer) {
  LossReporter r("stdout", true);
  EXPECT_THAT(r.Next(At(kT0, 0, 7)),
              ElementsAre("biosnoop: lost 7 events (kernel ring buffer full); "
                          "7 lost since start. Raise --ringbuf-kib or "
                          "--min-us."));
  EXPECT_THAT(r.Next(At(kT0 + kS, 0, 7)), IsEmpty());
  EXPECT_THAT(r.Next(At(kT0 + 2 * kS, 0, 10)),
              ElementsAre(HasSubstr("lost 3 events (kernel ring buffer full); "
                                    "10 lost since start")));
}

TEST(LossReporter, LossDuringAShortWriteIsSaidOnceTheWriteIsDone) {
  LossReporter r("stdout", true);
  // Under way for 1.5 s: perhaps the start of a blocked episode.
  EXPECT_THAT(r.Next(At(kT0 + 1500000000, kT0, 40)), IsEmpty());
  EXPECT_THAT(r.Next(At(kT0 + 2500000000, 0, 40)),
              ElementsAre(HasSubstr("lost 40 events (kernel ring buffer "
                                    "full); 40 lost since start")));
}

TEST(LossReporter, ABlockedPipeIsSaidWhileItLastsAndItsLossWhenItEnds) {
  LossReporter r("stdout", true);
  EXPECT_THAT(r.Next(At(kT0, 0, 5)), SizeIs(1));  // 5 lost before
  const uint64_t started = kT0 + kS / 2;
  // 1.5 s in: not yet (the loss waits).
  EXPECT_THAT(r.Next(At(started + 1500000000, started, 9)), IsEmpty());
  // 2.5 s in.
  EXPECT_THAT(
      r.Next(At(started + 2500000000, started, 100)),
      ElementsAre("biosnoop: writing stdout has been blocked for 2 s: the "
                  "reader is not taking the output. Events wait in the "
                  "kernel's ring buffer meanwhile and are lost once it is "
                  "full (100 lost since start)."));
  // Within the repeat period: quiet, though loss goes on.
  EXPECT_THAT(r.Next(At(started + 6500000000, started, 400)), IsEmpty());
  // The reader took a little: a new write, blocked again.  Same episode.
  const uint64_t again = started + 7 * kS;
  EXPECT_THAT(r.Next(At(started + 7500000000, again, 500)), IsEmpty());
  EXPECT_THAT(r.Next(At(started + 12500000000, again, 900)),
              ElementsAre("biosnoop: writing stdout still blocked after 12 s; "
                          "800 events lost in the last 10 s, 900 since "
                          "start."));
  // It went through: the episode's loss in all, counted from before its
  // first blocked write (9 - 5 came before the first blocked line), and
  // no ring-buffer advice, which would not help.
  EXPECT_THAT(r.Next(At(started + 13500000000, 0, 950)),
              ElementsAre("biosnoop: writing stdout went through again after "
                          "about 13 s blocked; 945 events were lost "
                          "meanwhile (950 since start)."));
  EXPECT_THAT(r.Next(At(started + 14500000000, 0, 950)), IsEmpty());
  // Later loss with the output moving is the ring buffer's again.
  EXPECT_THAT(r.Next(At(started + 15500000000, 0, 951)),
              ElementsAre(HasSubstr("lost 1 events (kernel ring buffer")));
}

TEST(LossReporter, ABlockedFileBlamesTheFileSystem) {
  LossReporter r("\"/mnt/nfs/slow.jsonl\"", false);
  std::vector<std::string> lines = r.Next(At(kT0 + 3 * kS, kT0, 0));
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_THAT(lines[0], HasSubstr("writing \"/mnt/nfs/slow.jsonl\" has been "
                                  "blocked for 3 s: the file system has not "
                                  "completed the write."));
  EXPECT_THAT(lines[0], HasSubstr("(0 lost since start)"));
  EXPECT_THAT(r.Next(At(kT0 + 4 * kS, 0, 0)),
              ElementsAre(HasSubstr("went through again after about 4 s "
                                    "blocked; 0 events were lost")));
}

std::string ReadFile(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;)
    s.append(buf, n);
  return s;
}

// The SigBlk masks of this process's threads named `name` (their comm).
std::vector<std::string> SigBlkOfThreadsNamed(const std::string& name) {
  std::vector<std::string> masks;
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return masks;
  while (dirent* e = readdir(d)) {
    const std::string task = std::string("/proc/self/task/") + e->d_name;
    if (e->d_name[0] == '.') continue;
    std::string comm;
    std::getline(std::ifstream(task + "/comm"), comm);
    if (comm != name) continue;
    std::ifstream status(task + "/status");
    for (std::string line; std::getline(status, line);) {
      if (absl::StartsWith(line, "SigBlk:")) masks.push_back(line.substr(7));
    }
  }
  closedir(d);
  return masks;
}

TEST(OutputWatch, ReportsFromItsOwnThreadWithEverySignalBlocked) {
  std::FILE* diag = std::tmpfile();
  ASSERT_NE(diag, nullptr);
  const uint64_t started = 1;  // a write under way since boot: blocked
  {
    OutputWatch watch(
        LossReporter("stdout", true), [] { return started; },
        []() -> absl::StatusOr<uint64_t> { return 42; }, diag,
        /*period_ns=*/10000000);
    // The run's signals must all be blocked in the watch thread, or the
    // kernel may hand it the one that should cut the writer's wait short.
    const std::vector<std::string> masks =
        SigBlkOfThreadsNamed(OutputWatch::kThreadName);
    ASSERT_EQ(masks.size(), 1u);
    const uint64_t mask = std::stoull(masks[0], nullptr, 16);
    for (int sig : {SIGINT, SIGTERM, SIGALRM, SIGHUP}) {
      EXPECT_NE(mask >> (sig - 1) & 1, 0u) << "signal " << sig;
    }
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (ReadFile(diag).empty() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(ReadFile(diag).empty())
        << "awaited the watch's first line for 60 s";
    watch.Stop();
    const std::string out = ReadFile(diag);
    EXPECT_THAT(out, HasSubstr("writing stdout has been blocked for"));
    EXPECT_THAT(out, HasSubstr("(42 lost since start)"));
    // Stopped: its thread is gone (joined), so nothing more can come.
    EXPECT_TRUE(SigBlkOfThreadsNamed(OutputWatch::kThreadName).empty())
        << "the watch's thread outlived Stop()";
    EXPECT_EQ(ReadFile(diag), out);
  }
  EXPECT_TRUE(SigBlkOfThreadsNamed(OutputWatch::kThreadName).empty());
  // The creating thread's own mask is as it was.
  sigset_t now;
  pthread_sigmask(SIG_SETMASK, nullptr, &now);
  EXPECT_EQ(sigismember(&now, SIGINT), 0);
  EXPECT_EQ(sigismember(&now, SIGALRM), 0);
  std::fclose(diag);
}

}  // namespace
}  // namespace biosnoop
