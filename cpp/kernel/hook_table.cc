// The hook table (hook_table.h).  Each kernel-dependent row says why it
// differs in docs/kernels.md ("Each version-dependent piece").

#include "hook_table.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "exit_codes.h"

namespace biosnoop {
namespace {

using A = HookAttach;
using S = HookServes;

bool IoStart(const KernelFeatures& f) { return f.block_io_start; }
bool RqInsert(const KernelFeatures& f) { return f.block_rq_insert; }
bool RqRequeue(const KernelFeatures& f) { return f.block_rq_requeue; }
bool RqMerge(const KernelFeatures& f) { return f.block_rq_merge; }
bool Nvme(const KernelFeatures& f) { return f.nvme; }
bool RdonlyCast(const KernelFeatures& f) { return f.rdonly_cast; }
bool UringReq(const KernelFeatures& f) {
  return UringHooksFit(f) && f.uring_submit == "io_uring_submit_req";
}
bool UringSqe(const KernelFeatures& f) {
  return UringHooksFit(f) && f.uring_submit == "io_uring_submit_sqe";
}
bool UringCqe(const KernelFeatures& f) {
  return UringHooksFit(f) && f.uring_complete_cqe;
}

constexpr HookRow kHooks[] = {
    {"handle_rq_issue", "block_rq_issue", S::kEveryRun, nullptr, nullptr,
     A::kAtLoad},
    {"handle_rq_complete", "block_rq_complete", S::kEveryRun, nullptr, nullptr,
     A::kAtLoad},
    {"rescue_rq_complete", "block_rq_complete", S::kEveryRun, nullptr, nullptr,
     A::kDeferred},
    // Submission: block_io_start since 6.5, else block_rq_insert (and the
    // issue program for requests issued directly: queue_from_alloc).
    {"handle_io_start", "block_io_start", S::kEveryRun, IoStart, nullptr,
     A::kAtLoad},
    {"handle_rq_insert", "block_rq_insert", S::kEveryRun, RqInsert,
     "handle_io_start", A::kAtLoad},
    {"handle_rq_requeue", "block_rq_requeue", S::kEveryRun, RqRequeue, nullptr,
     A::kAtLoad},
    {"handle_rq_merge", "block_rq_merge", S::kEveryRun, RqMerge, nullptr,
     A::kAtLoad},
    // AdaptToKernel turns the ledger off without writeback_dirty_folio.
    {"handle_dirty_folio", "writeback_dirty_folio", S::kLedger, nullptr,
     nullptr, A::kAtLoad},
    // The driver's layer on NVMe disks (their I/O alone runs these).
    {"handle_nvme_setup", "nvme_setup_cmd", S::kDriverLayer, Nvme, nullptr,
     A::kAtLoad},
    {"handle_nvme_complete", "nvme_complete_rq", S::kDriverLayer, Nvme, nullptr,
     A::kAtLoad},
    // Calls: the raw syscall tracepoints (AdaptToKernel turns --ops off
    // without them), read with plain loads where bpf_rdonly_cast exists.
    {"handle_sys_enter", "sys_enter", S::kOps, RdonlyCast, nullptr, A::kAtLoad},
    {"handle_sys_enter_nocast", "sys_enter", S::kOps, nullptr,
     "handle_sys_enter", A::kAtLoad},
    {"handle_sys_exit", "sys_exit", S::kOps, nullptr, nullptr, A::kAtLoad},
    // A call's bios until they are requests (its throttle layer).
    {"handle_bio_queue", "block_bio_queue", S::kOps, nullptr, nullptr,
     A::kAtLoad},
    {"handle_getrq", "block_getrq", S::kOps, nullptr, nullptr, A::kAtLoad},
    {"handle_bio_backmerge", "block_bio_backmerge", S::kOps, nullptr, nullptr,
     A::kAtLoad},
    {"handle_bio_frontmerge", "block_bio_frontmerge", S::kOps, nullptr, nullptr,
     A::kAtLoad},
    // A write call's sleeps for writeback (its others_writeback and
    // writeback layers).
    {"handle_balance_dirty", "balance_dirty_pages", S::kOps, nullptr, nullptr,
     A::kAtLoad},
    {"handle_folio_wait_writeback", "folio_wait_writeback", S::kOps, nullptr,
     nullptr, A::kAtLoad},
    // io_uring's: the submission tracepoint's name changed in 6.4, the
    // completion's arguments in 6.13.
    {"handle_uring_submit", "io_uring_submit_req", S::kOps, UringReq, nullptr,
     A::kAtLoad},
    {"handle_uring_submit_sqe", "io_uring_submit_sqe", S::kOps, UringSqe,
     "handle_uring_submit", A::kAtLoad},
    {"handle_uring_complete", "io_uring_complete", S::kOps, UringCqe, nullptr,
     A::kAtLoad},
    {"handle_uring_complete_fields", "io_uring_complete", S::kOps,
     UringHooksFit, "handle_uring_complete", A::kAtLoad},
    // A stuck request's walk (InflightTable::StuckFiles), run on demand.
    {"attr_stuck", nullptr, S::kFiles, nullptr, nullptr, A::kNever},
};

bool SettingOn(HookServes serves, const ProbeConfig& config) {
  switch (serves) {
    case S::kEveryRun:
      return true;
    case S::kFiles:
      return config.files;
    case S::kLedger:
      return config.ledger_entries > 0;
    case S::kDriverLayer:
      return config.driver_layer;
    case S::kOps:
      return config.ops;
  }
  return false;
}

const HookRow* FindRow(const char* program) {
  for (const HookRow& row : kHooks) {
    if (std::strcmp(row.program, program) == 0) return &row;
  }
  return nullptr;
}

bool Wanted(const HookRow& row, const KernelFeatures& features,
            const ProbeConfig& config) {
  if (!SettingOn(row.serves, config)) return false;
  if (row.kernel_offers != nullptr && !row.kernel_offers(features)) {
    return false;
  }
  if (row.replaces == nullptr) return true;
  const HookRow* primary = FindRow(row.replaces);
  return primary == nullptr || !Wanted(*primary, features, config);
}

std::string WithVerdict(const LoadRefusal& refused) {
  return refused.verdict.empty()
             ? refused.program
             : absl::StrCat(refused.program, " (", refused.verdict, ")");
}

}  // namespace

absl::Span<const HookRow> HookTable() { return kHooks; }

bool UringHooksFit(const KernelFeatures& f) {
  return f.uring_complete &&
         (f.uring_submit == "io_uring_submit_sqe" ||
          (f.uring_submit == "io_uring_submit_req" && f.rdonly_cast));
}

std::vector<HookChoice> ChooseHooks(const KernelFeatures& features,
                                    const ProbeConfig& config) {
  std::vector<HookChoice> out;
  for (const HookRow& row : kHooks) {
    const bool load = Wanted(row, features, config);
    const bool now = row.attach == A::kAtLoad ||
                     (row.attach == A::kDeferred && config.rescue_always);
    out.push_back({&row, load, load && now});
  }
  return out;
}

absl::StatusOr<KernelLack> SwitchOffRefused(const LoadRefusal& refused,
                                            ProbeConfig* config) {
  const HookRow* row = FindRow(refused.program.c_str());
  const HookServes serves = row != nullptr ? row->serves : S::kEveryRun;
  std::string effect;
  if (serves == S::kOps && config->ops) {
    config->ops = false;
    effect = "--ops is off, no call is followed";
  } else if (serves == S::kLedger && config->ledger_entries > 0) {
    config->ledger_entries = 0;
    effect = "no dirtied-page ledger, writes name no dirtier";
  } else if (serves == S::kDriverLayer && config->driver_layer) {
    config->driver_layer = false;
    effect = "events on NVMe do not split out the driver's time";
  } else {
    return WithExitCode(
        absl::UnavailableError(absl::StrCat(
            "load BPF program: the kernel's verifier refused ",
            WithVerdict(refused),
            ": this kernel lacks something biosnoop needs (biosnoop -vv "
            "prints the verifier's log)")),
        kExitUnsupported);
  }
  return KernelLack{absl::StrCat("verifier:", refused.program),
                    absl::StrCat("the kernel's verifier refused ",
                                 WithVerdict(refused), ": ", effect)};
}

}  // namespace biosnoop
