// The completion's rescue program (bpf/biosnoop.bpf.c) recovers the
// completions the kernel skips when one interrupts biosnoop's completion
// program on the same CPU.  Every attached program costs every I/O a run,
// so by default the rescue is attached only once the kernel has skipped a
// completion; --rescue always attaches it from the start.
//
// No device on the test machine completes requests in hardirq (loop and
// single-queue virtio complete in softirq, which does not nest in itself),
// so a real skip cannot be produced here.  These tests check what can be:
// which programs biosnoop has linked into the kernel, in which order, and
// that a rescue attached late, after biosnoop gave up its privileges, runs
// on every completion.

#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "bpf/bpf.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "session.h"

namespace biosnoop::testing {
namespace {

// Program names are cut to 15 characters by the kernel.
constexpr char kPrimary[] = "handle_rq_compl";
constexpr char kRescue[] = "rescue_rq_compl";

std::vector<LinkedProgram> OnComplete(pid_t pid) {
  std::vector<LinkedProgram> out;
  for (const LinkedProgram& p : LinkedPrograms(pid)) {
    if (p.tracepoint == "block_rq_complete") out.push_back(p);
  }
  return out;
}

std::string Describe(const std::vector<LinkedProgram>& progs) {
  std::string s;
  for (const LinkedProgram& p : progs) {
    s += p.tracepoint + ":" + p.name + "(link " + std::to_string(p.link_id) +
         ") ";
  }
  return s;
}

TEST(Rescue, ByDefaultOnlyTheCompletionProgramIsAttached) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  Biosnoop b({"--min-us", "0", "-d", disk.name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(disk.path(), true, 4096, 200).exit_code, 0);
  const std::vector<LinkedProgram> complete = OnComplete(b.pid());
  const std::vector<LinkedProgram> all = LinkedPrograms(b.pid());
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  EXPECT_NE(
      b.Stderr().find("completion rescue at the first skipped completion"),
      std::string::npos)
      << b.Stderr();
  // Only a completion the kernel skipped may bring the rescue in, and then
  // biosnoop says so.
  const bool skipped =
      b.Stderr().find("the kernel skipped") != std::string::npos;
  ASSERT_EQ(complete.size(), skipped ? 2u : 1u) << Describe(all) << b.Stderr();
  EXPECT_EQ(complete[0].name, kPrimary) << Describe(all);
  EXPECT_GE(all.size(), 3u) << Describe(all);  // submit, issue, complete
  EXPECT_TRUE(LoggedOrMissed(b.Events().size(), 200, b));
}

TEST(Rescue, AlwaysAttachesItRightAfterTheCompletionProgram) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  Biosnoop b({"--min-us", "0", "-d", disk.name(), "--rescue", "always"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  ASSERT_EQ(DirectDd(disk.path(), true, 4096, 200).exit_code, 0);
  const std::vector<LinkedProgram> complete = OnComplete(b.pid());
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  EXPECT_NE(b.Stderr().find("completion rescue attached"), std::string::npos)
      << b.Stderr();
  ASSERT_EQ(complete.size(), 2u) << Describe(complete);
  // A tracepoint calls its programs in the order they were attached, and
  // the rescue only works when it runs after the primary.
  EXPECT_EQ(complete[0].name, kPrimary) << Describe(complete);
  EXPECT_EQ(complete[1].name, kRescue) << Describe(complete);
  // With it there from the start, a skipped completion is lost only if
  // the rescue is skipped too (three levels of nesting).
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["missed_recursion"], 0) << b.Stderr();
  EXPECT_TRUE(LoggedOrMissed(b.Events().size(), 200, b));
}

// What RescueIfSkipped does at the first skip, done at once: the probe is
// opened as biosnoop opens it (switched to its default user and
// capabilities dropped right after attaching), in a child process, which
// then attaches the rescue.  With bpf_stats on,
// the rescue must run once for every completion of real reads.
TEST(Rescue, AttachedLateWithoutPrivilegeItRunsOnEveryCompletion) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(8);
  ASSERT_TRUE(disk.ok());
  // The child says its verdict on its stdout, then keeps the links until
  // the test kills it.
  Child child = Child::Function(
      [] {
        ProbeConfig config;
        absl::StatusOr<RunAs> run_as = ResolveRunAs("");
        if (!run_as.ok() || !run_as->switches) {
          (void)!write(STDOUT_FILENO, "u\n", 2);
          for (;;) pause();
        }
        absl::StatusOr<std::unique_ptr<Probe>> probe =
            OpenProbe(config, /*consumer=*/nullptr, stderr, 0, *run_as);
        char verdict[] = "o\n";
        if (!probe.ok()) {
          verdict[0] = 'p';
        } else if ((*probe)->rescue_attached()) {
          verdict[0] = 'e';  // attached too early
        } else if (absl::Status s = (*probe)->AttachRescue(); !s.ok()) {
          fprintf(stderr, "AttachRescue: %s\n", s.ToString().c_str());
          verdict[0] = 'a';
        }
        (void)!write(STDOUT_FILENO, verdict, 2);
        for (;;) pause();
        return 0;
      },
      ChildSetup().Capture(STDOUT_FILENO).Named("the late rescue's prober"));
  ASSERT_TRUE(child.started()) << child.result().Describe();
  const bool got = child.WaitForOutput("\n", kChildBound);
  const char verdict = got ? child.output()[0] : 0;
  std::vector<LinkedProgram> complete = OnComplete(child.pid());
  int stats_fd = -1;
  int64_t before = -1, after = -1, primary_before = -1, primary_after = -1;
  if (got && verdict == 'o' && complete.size() == 2) {
    stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
    primary_before = ProgramRunCount(complete[0].prog_id);
    before = ProgramRunCount(complete[1].prog_id);
    DirectDd(disk.path(), true, 4096, 100);
    after = ProgramRunCount(complete[1].prog_id);
    primary_after = ProgramRunCount(complete[0].prog_id);
    if (stats_fd >= 0) close(stats_fd);
  }
  child.Kill();

  ASSERT_TRUE(got) << child.result().Describe();
  ASSERT_EQ(verdict, 'o') << "p: open failed, e: rescue attached at open, "
                             "a: attaching without privilege failed";
  ASSERT_EQ(complete.size(), 2u) << Describe(complete);
  EXPECT_EQ(complete[0].name, kPrimary) << Describe(complete);
  EXPECT_EQ(complete[1].name, kRescue) << Describe(complete);
  ASSERT_GE(stats_fd, 0) << "bpf_enable_stats";
  ASSERT_GE(before, 0);
  ASSERT_GE(primary_before, 0);
  // The rescue runs on every completion the primary runs on, of every disk
  // (read after the rescue's count, the primary's may only be higher).
  // The reads went through both: at least 90 of the 100, since a
  // completion the kernel hides from BPF (seen once in a million reads,
  // BENCHMARKS.md) would be hidden from both alike.
  const int64_t rescued = after - before;
  const int64_t primary = primary_after - primary_before;
  EXPECT_GE(rescued, 90) << before << " -> " << after;
  EXPECT_LE(primary - rescued, 2)
      << "primary " << primary << " runs, rescue " << rescued;
  EXPECT_GE(primary, rescued);
}

}  // namespace
}  // namespace biosnoop::testing
