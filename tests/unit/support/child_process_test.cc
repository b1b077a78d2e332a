// The tests' child-process helper keeps its contract: descriptors as set
// up, exit status and output collected, every wait bounded, nothing left
// running.

#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace biosnoop::testing {
namespace {

using End = ChildResult::End;

TEST(ChildProcess, AProgramsExitStatusAndCapturedOutput) {
  const ChildResult r =
      RunProgram({"sh", "-c", "echo out; echo err >&2; exit 3"},
                 ChildSetup().Capture(1).Capture(2));
  EXPECT_TRUE(r.Exited(3)) << r.Describe();
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_TRUE(absl::StrContains(r.Describe(), "exited with 3")) << r.Describe();
  EXPECT_FALSE(ExitedWith(r, 0));
}

TEST(ChildProcess, AProgramThatCannotBeRunDidNotStart) {
  const ChildResult r = RunProgram({"/no/such/program"});
  EXPECT_EQ(r.end, End::kNotStarted);
  EXPECT_EQ(r.error, "exec: No such file or directory");
  EXPECT_EQ(r.Describe(),
            "/no/such/program (pid " + std::to_string(r.pid) +
                "): could not start: exec: No such file or directory");
}

TEST(ChildProcess, AFunctionsExitStatusAndReport) {
  Child c = Child::Function([] { return 7; });
  ASSERT_TRUE(c.started());
  EXPECT_TRUE(c.Wait().Exited(7));
  const ChildResult r = RunInChild([] { return std::string("a report"); });
  EXPECT_TRUE(ExitedWith(r, 0));
  EXPECT_EQ(r.report, "a report");
}

TEST(ChildProcess, DescriptorsAreSetUpAsAsked) {
  char path[] = "/tmp/child-process-test-XXXXXX";
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  ASSERT_EQ(write(file, "in file\n", 8), 8);
  // 0 from the file, 1 and 3 captured, 2 to /dev/null, 4 opened and then
  // closed (the last action on a descriptor is what it is).
  const ChildResult r =
      RunProgram({"sh", "-c", "cat; echo to-3 >&3; echo to-4 >&4 || echo no-4"},
                 ChildSetup()
                     .Open(0, path, O_RDONLY)
                     .Capture(1)
                     .Capture(3)
                     .Null(2)
                     .Open(4, "/dev/null", O_WRONLY)
                     .Close(4));
  EXPECT_TRUE(ExitedWith(r, 0));
  EXPECT_EQ(r.output, "in file\nto-3\nno-4\n");
  close(file);
  unlink(path);
}

// What a pipe holds now (its write ends closed).
std::string ReadAll(int fd) {
  std::string s;
  char buf[256];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) s.append(buf, n);
  return s;
}

TEST(ChildProcess, DupTakesEverySourceBeforeReplacingATarget) {
  int a[2], b[2];
  ASSERT_EQ(pipe(a), 0);
  ASSERT_EQ(pipe(b), 0);
  // The test's 150 writes to pipe a and its 151 to pipe b; the child's
  // are swapped.
  ASSERT_EQ(dup2(a[1], 150), 150);
  ASSERT_EQ(dup2(b[1], 151), 151);
  close(a[1]);
  close(b[1]);
  const ChildResult r = RunInChild(
      [] {
        const bool ok =
            write(150, "to 150", 6) == 6 && write(151, "to 151", 6) == 6;
        return std::string(ok ? "" : "write failed");
      },
      ChildSetup().Dup(150, 151).Dup(151, 150));
  EXPECT_TRUE(ExitedWith(r, 0));
  EXPECT_EQ(r.report, "");
  close(150);
  close(151);
  EXPECT_EQ(ReadAll(a[0]), "to 151");
  EXPECT_EQ(ReadAll(b[0]), "to 150");
  close(a[0]);
  close(b[0]);
}

TEST(ChildProcess, CloseOthersLeavesOnlyWhatWasSetUp) {
  const int stray = open("/dev/null", O_RDONLY);  // inherited without it
  ASSERT_GE(stray, 0);
  const int kept = open("/dev/null", O_RDONLY);
  ASSERT_GE(kept, 0);
  EXPECT_EQ(
      RunInChild([stray] {
        return std::string(fcntl(stray, F_GETFD) == -1 ? "closed" : "open");
      }).report,
      "open");
  const ChildResult without = RunInChild(
      [stray] {
        return std::string(fcntl(stray, F_GETFD) == -1 ? "closed" : "open") +
               (fcntl(9, F_GETFD) == -1 ? " 9 closed" : " 9 open");
      },
      ChildSetup().Dup(9, kept).CloseOthers());
  EXPECT_EQ(without.report, "closed 9 open");
  close(stray);
  close(kept);
}

TEST(ChildProcess, AProgramStartsWithNoSignalIgnoredOrBlocked) {
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGPIPE, &ignore, &old), 0);
  const ChildResult r =
      RunProgram({"grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"},
                 ChildSetup().Capture(1));
  sigaction(SIGPIPE, &old, nullptr);
  EXPECT_TRUE(ExitedWith(r, 0));
  EXPECT_EQ(r.output, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST(ChildProcess, APrepareStepThatFailsStartsNothing) {
  Child c = Child::Program(
      {"true"}, ChildSetup().Prepare("joining", [] { return EACCES; }));
  const ChildResult& r = c.Wait();
  EXPECT_EQ(r.end, End::kNotStarted);
  EXPECT_EQ(r.error, "joining: Permission denied");
  const ChildResult f =
      RunInChild([] { return std::string("ran"); },
                 ChildSetup().Prepare("joining", [] { return ENOENT; }));
  EXPECT_EQ(f.end, End::kNotStarted);
  EXPECT_EQ(f.error, "joining: No such file or directory");
  EXPECT_EQ(f.report, "");
}

// A child that never ends by itself: pause() until a signal.
int Forever() {
  for (;;) pause();
}

TEST(ChildProcess, PastItsBoundAChildIsKilledAndTheTestFails) {
  pid_t pid = -1;
  ChildResult r;
  EXPECT_NONFATAL_FAILURE(
      {
        Child c = Child::Function(&Forever, ChildSetup().Named("a hung child"));
        pid = c.pid();
        r = c.Wait(absl::Milliseconds(100));
      },
      "a hung child (pid");
  EXPECT_EQ(r.end, End::kKilledAtBound);
  EXPECT_TRUE(
      absl::StrContains(r.Describe(), "was still running after 100ms: killed"))
      << r.Describe();
  EXPECT_EQ(kill(pid, 0), -1);  // reaped: gone
  EXPECT_EQ(errno, ESRCH);
}

TEST(ChildProcess, LookingWaitsNeitherKillNorFail) {
  Child c = Child::Function(
      [] {
        (void)!write(1, "ready\n", 6);
        return Forever();
      },
      ChildSetup().Capture(1));
  EXPECT_TRUE(c.WaitForOutput("ready\n", kChildBound));
  EXPECT_FALSE(c.WaitExit(absl::Milliseconds(20)));
  EXPECT_FALSE(c.WaitForOutput("never said", absl::Milliseconds(20)));
  EXPECT_TRUE(c.Running());
  const ChildResult& r = c.Stop(SIGTERM);
  EXPECT_EQ(r.end, End::kSignaled);
  EXPECT_EQ(r.code, SIGTERM);
  EXPECT_EQ(r.output, "ready\n");
}

TEST(ChildProcess, AChildStillRunningWhenItsChildGoesIsKilled) {
  pid_t pid = -1;
  {
    Child c = Child::Function(&Forever);
    pid = c.pid();
    ASSERT_GT(pid, 0);
    Child moved = std::move(c);
    EXPECT_FALSE(c.started());
    EXPECT_TRUE(moved.Running());
  }
  EXPECT_EQ(kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(ChildProcess, MuchOutputIsReadWhileWaiting) {
  // Far more than a pipe holds: a test that only read at the end would
  // wait for ever.
  const ChildResult r = RunProgram({"head", "-c", "4194304", "/dev/zero"},
                                   ChildSetup().Capture(1), absl::Seconds(60));
  EXPECT_TRUE(ExitedWith(r, 0));
  EXPECT_EQ(r.output.size(), 4194304u);
}

}  // namespace
}  // namespace biosnoop::testing
