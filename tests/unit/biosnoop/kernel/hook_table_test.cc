// The hook table's choice of programs for each kernel the matrix boots
// (docs/kernels.md) and each run setting, without loading anything; and
// that the table names every program of the BPF object, once.

#include "hook_table.h"

#include <bpf/libbpf.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "biosnoop_skeleton.h"
#include "exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using ::testing::Not;

// As ReadKernelFeatures() finds Debian 12's 6.1, its 6.12 backport, and
// this machine's 6.18 (kernel_features_test.cc builds their BTF).
KernelFeatures Debian61() {
  KernelFeatures f;
  f.block_rq = f.block_rq_requeue = f.block_rq_merge = true;
  f.block_rq_insert = true;
  f.writeback_dirty_folio = f.syscalls = true;
  f.uring_submit = "io_uring_submit_sqe";
  f.uring_complete = true;
  f.nvme = true;
  return f;
}

KernelFeatures Debian612() {
  KernelFeatures f = Debian61();
  f.block_io_start = true;
  f.rdonly_cast = true;
  f.uring_submit = "io_uring_submit_req";
  return f;
}

KernelFeatures Linux618() {
  KernelFeatures f = Debian612();
  f.uring_complete_cqe = true;
  f.nvme = false;  // no NVMe driver in the CI machine's kernel
  return f;
}

ProbeConfig Everything() {
  ProbeConfig c;
  c.ops = true;
  c.ledger_entries = 65536;
  return c;
}

std::vector<std::string> Loaded(const KernelFeatures& f, const ProbeConfig& c) {
  std::vector<std::string> names;
  for (const HookChoice& h : ChooseHooks(f, c)) {
    if (h.load) names.push_back(h.row->program);
  }
  return names;
}

std::vector<std::string> AttachedAtLoad(const KernelFeatures& f,
                                        const ProbeConfig& c) {
  std::vector<std::string> names;
  for (const HookChoice& h : ChooseHooks(f, c)) {
    if (h.attach_at_load) names.push_back(h.row->program);
  }
  return names;
}

TEST(HookTable, NamesEveryProgramOfTheObjectOnce) {
  // Opening parses the object; loading (and privilege) is not needed.
  biosnoop_bpf* skel = biosnoop_bpf__open();
  ASSERT_NE(skel, nullptr);
  std::multiset<std::string> in_object, in_table;
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel->obj) {
    in_object.insert(bpf_program__name(prog));
  }
  biosnoop_bpf__destroy(skel);
  for (const HookRow& row : HookTable()) {
    in_table.insert(row.program);
    EXPECT_EQ(row.tracepoint == nullptr, row.attach == HookAttach::kNever)
        << row.program;
  }
  EXPECT_EQ(in_table, in_object);
}

TEST(HookTable, ReplacementsNameARowOfTheTableThatTheyFollow) {
  std::set<std::string> before;
  for (const HookRow& row : HookTable()) {
    if (row.replaces != nullptr) {
      EXPECT_TRUE(before.count(row.replaces)) << row.program;
    }
    before.insert(row.program);
  }
}

TEST(HookTable, Linux618WithEverything) {
  EXPECT_THAT(
      Loaded(Linux618(), Everything()),
      ElementsAre("handle_rq_issue", "handle_rq_complete", "rescue_rq_complete",
                  "handle_io_start", "handle_rq_requeue", "handle_rq_merge",
                  "handle_dirty_folio", "handle_sys_enter", "handle_sys_exit",
                  "handle_bio_queue", "handle_getrq", "handle_bio_backmerge",
                  "handle_bio_frontmerge", "handle_balance_dirty",
                  "handle_folio_wait_writeback", "handle_uring_submit",
                  "handle_uring_complete", "attr_stuck"));
}

TEST(HookTable, TheThrottleHooksServeOpsAlone) {
  ProbeConfig c = Everything();
  c.ops = false;
  for (const std::string& name : Loaded(Debian61(), c)) {
    EXPECT_EQ(name.find("bio_"), std::string::npos) << name;
    EXPECT_NE(name, "handle_getrq");
  }
  EXPECT_THAT(Loaded(Debian61(), Everything()),
              IsSupersetOf({"handle_bio_queue", "handle_getrq",
                            "handle_bio_backmerge", "handle_bio_frontmerge"}));
}

TEST(HookTable, Debian612TakesTheCompletionByFields) {
  EXPECT_THAT(
      Loaded(Debian612(), Everything()),
      IsSupersetOf({"handle_io_start", "handle_sys_enter",
                    "handle_uring_submit", "handle_uring_complete_fields",
                    "handle_nvme_setup", "handle_nvme_complete"}));
  EXPECT_THAT(Loaded(Debian612(), Everything()),
              Not(::testing::Contains("handle_uring_complete")));
}

TEST(HookTable, Debian61TakesEveryOlderProgram) {
  const std::vector<std::string> loaded = Loaded(Debian61(), Everything());
  EXPECT_THAT(loaded,
              IsSupersetOf({"handle_rq_insert", "handle_sys_enter_nocast",
                            "handle_uring_submit_sqe",
                            "handle_uring_complete_fields"}));
  for (const char* newer : {"handle_io_start", "handle_sys_enter",
                            "handle_uring_submit", "handle_uring_complete"}) {
    EXPECT_THAT(loaded, Not(::testing::Contains(newer)));
  }
}

TEST(HookTable, OneProgramOfEachPairOnEveryKernel) {
  for (const KernelFeatures& f : {Debian61(), Debian612(), Linux618()}) {
    const std::vector<std::string> loaded = Loaded(f, Everything());
    const std::set<std::string> set(loaded.begin(), loaded.end());
    for (const HookRow& row : HookTable()) {
      if (row.replaces == nullptr) continue;
      EXPECT_NE(set.count(row.program) + set.count(row.replaces), 0u)
          << row.program << " nor " << row.replaces;
      EXPECT_NE(set.count(row.program) + set.count(row.replaces), 2u)
          << row.program << " and " << row.replaces;
    }
  }
}

TEST(HookTable, EachSettingOffLeavesItsProgramsOut) {
  ProbeConfig c;  // files on; no ops, no ledger
  c.driver_layer = false;
  EXPECT_THAT(
      Loaded(Debian612(), c),
      ElementsAre("handle_rq_issue", "handle_rq_complete", "rescue_rq_complete",
                  "handle_io_start", "handle_rq_requeue", "handle_rq_merge",
                  "attr_stuck"));
  c.files = false;
  EXPECT_THAT(Loaded(Debian612(), c), Not(::testing::Contains("attr_stuck")));
  c.driver_layer = true;
  EXPECT_THAT(Loaded(Debian612(), c),
              IsSupersetOf({"handle_nvme_setup", "handle_nvme_complete"}));
}

TEST(HookTable, WithoutIoUringProgramsOpsFollowsCallsAlone) {
  KernelFeatures f = Debian612();
  f.rdonly_cast = false;  // _req's program reads with the kfunc
  EXPECT_FALSE(UringHooksFit(f));
  const std::vector<std::string> loaded = Loaded(f, Everything());
  EXPECT_THAT(loaded,
              IsSupersetOf({"handle_sys_enter_nocast", "handle_sys_exit"}));
  for (const std::string& name : loaded) {
    EXPECT_EQ(name.find("uring"), std::string::npos) << name;
  }
  EXPECT_TRUE(UringHooksFit(Debian61()));
  EXPECT_TRUE(UringHooksFit(Linux618()));
}

TEST(HookTable, TheRescueIsAttachedAtLoadOnlyWhenAlwaysWanted) {
  ProbeConfig c;
  EXPECT_THAT(
      AttachedAtLoad(Linux618(), c),
      ElementsAre("handle_rq_issue", "handle_rq_complete", "handle_io_start",
                  "handle_rq_requeue", "handle_rq_merge"));
  c.rescue_always = true;
  EXPECT_THAT(
      AttachedAtLoad(Linux618(), c),
      ElementsAre("handle_rq_issue", "handle_rq_complete", "rescue_rq_complete",
                  "handle_io_start", "handle_rq_requeue", "handle_rq_merge"));
}

TEST(SwitchOffRefused, ARefusedProgramCostsTheSettingItServes) {
  ProbeConfig c = Everything();
  absl::StatusOr<KernelLack> lack = SwitchOffRefused(
      {"handle_uring_complete", "R7 invalid mem access 'scalar'"}, &c);
  ASSERT_TRUE(lack.ok()) << lack.status();
  EXPECT_EQ(lack->name, "verifier:handle_uring_complete");
  EXPECT_EQ(lack->effect,
            "the kernel's verifier refused handle_uring_complete (R7 invalid "
            "mem access 'scalar'): --ops is off, no call is followed");
  EXPECT_FALSE(c.ops);

  lack = SwitchOffRefused({"handle_dirty_folio", ""}, &c);
  ASSERT_TRUE(lack.ok()) << lack.status();
  EXPECT_EQ(c.ledger_entries, 0u);
  EXPECT_EQ(lack->effect,
            "the kernel's verifier refused handle_dirty_folio: no "
            "dirtied-page ledger, writes name no dirtier");

  lack = SwitchOffRefused({"handle_nvme_complete", ""}, &c);
  ASSERT_TRUE(lack.ok()) << lack.status();
  EXPECT_FALSE(c.driver_layer);
}

TEST(SwitchOffRefused, AProgramEveryRunNeedsCostsTheRun) {
  for (const char* program :
       {"handle_rq_complete", "attr_stuck", "not_in_the_table"}) {
    ProbeConfig c = Everything();
    absl::StatusOr<KernelLack> lack =
        SwitchOffRefused({program, "unknown func"}, &c);
    ASSERT_FALSE(lack.ok()) << program;
    EXPECT_EQ(lack.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(ExitCodeFor(lack.status()), kExitUnsupported);
    EXPECT_THAT(std::string(lack.status().message()),
                ::testing::HasSubstr(
                    absl::StrCat("refused ", program, " (unknown func)")));
  }
  // A setting already off cannot be switched off again: the run fails
  // rather than loop.
  ProbeConfig c;
  EXPECT_FALSE(SwitchOffRefused({"handle_sys_exit", ""}, &c).ok());
}

}  // namespace
}  // namespace biosnoop
