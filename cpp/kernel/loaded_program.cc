// Loading and attaching the BPF object (loaded_program.h); libbpf's
// negative errno becomes a Status here and in libbpf_status.cc.

#include "loaded_program.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/membarrier.h>
#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "biosnoop_skeleton.h"
#include "exit_codes.h"
#include "libbpf_status.h"
#include "load_log.h"
#include "probe_settings.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

// Loading failed with ENOMEM.  Almost all of what biosnoop asks the kernel
// for is the ring buffer (2 MiB by default, up to 1 GiB), charged to the
// memory cgroup like any BPF map: if a ring buffer of that size alone
// cannot be had either, name it and the option that sizes it.  Exit 71
// (EX_OSERR): the system refused memory, which is neither a bug (70) nor a
// kernel without support (69, "this machine cannot run biosnoop").
absl::Status OutOfMemoryAtLoad(uint32_t ringbuf_bytes) {
  const int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "biosnoop_rb_try", 0, 0,
                                ringbuf_bytes, nullptr);
  const int err = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd);
  if (err == ENOMEM) {
    return WithExitCode(
        absl::ResourceExhaustedError(absl::StrCat(
            "the kernel could not allocate the ring buffer of ",
            ringbuf_bytes / 1024,
            " KiB (Cannot allocate memory; BPF memory counts against the "
            "memory cgroup's limit): try a smaller --ringbuf-kib (default "
            "2048)")),
        kExitOsError);
  }
  return WithExitCode(
      absl::ResourceExhaustedError(
          "load BPF program: Cannot allocate memory (the kernel is short of "
          "memory, or of the memory cgroup's allowance)"),
      kExitOsError);
}

// The kernel's statistics of a loaded program; all zero for one not
// loaded (a hook this kernel lacks) or when they cannot be read.
bpf_prog_info ProgInfo(const bpf_program* prog) {
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  const int fd = bpf_program__fd(prog);
  if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) != 0) return {};
  return info;
}

}  // namespace

uint64_t RecursionMisses(const bpf_program* prog) {
  return ProgInfo(prog).recursion_misses;
}

absl::StatusOr<std::unique_ptr<LoadedProgram>> LoadedProgram::Load(
    const KernelFeatures& features, int64_t preempt_count_from_rq,
    ProbeConfig* config, std::vector<KernelLack>* lacks) {
  for (;;) {
    ResetLoadRefusal();
    absl::StatusOr<std::unique_ptr<LoadedProgram>> loaded =
        LoadOnce(features, preempt_count_from_rq, *config);
    if (loaded.ok()) return loaded;
    const LoadRefusal refused = LastLoadRefusal();
    if (refused.program.empty()) return loaded.status();
    // The kernel's verifier refused a program: privilege was checked
    // before, so this kernel lacks something the program needs.  A program
    // of a setting that can be switched off costs the setting, not the run.
    ASSIGN_OR_RETURN(KernelLack lack, SwitchOffRefused(refused, config));
    lacks->push_back(std::move(lack));
  }
}

absl::StatusOr<std::unique_ptr<LoadedProgram>> LoadedProgram::LoadOnce(
    const KernelFeatures& features, int64_t preempt_count_from_rq,
    const ProbeConfig& config) {
  std::unique_ptr<LoadedProgram> p(new LoadedProgram());
  p->skel_ = biosnoop_bpf__open();
  if (p->skel_ == nullptr) return ErrnoStatus(errno, "open BPF program");
  RETURN_IF_ERROR(
      WriteSettings(config, features, preempt_count_from_rq, p->skel_));

  p->hooks_ = ChooseHooks(features, config);
  for (const HookChoice& h : p->hooks_) {
    bpf_program* prog =
        bpf_object__find_program_by_name(p->skel_->obj, h.row->program);
    if (prog == nullptr) {
      return absl::InternalError(
          absl::StrCat("no program ", h.row->program, " in the BPF object"));
    }
    bpf_program__set_autoload(prog, h.load);
  }
  if (int err = biosnoop_bpf__load(p->skel_)) {
    if (err == -ENOMEM) return OutOfMemoryAtLoad(config.ringbuf_bytes);
    return ErrnoStatus(err, "load BPF program");
  }
  // Loading parsed the kernel's BTF (megabytes) and freed it; hand the
  // memory back so the long-running process stays small.
  malloc_trim(0);
  for (const HookChoice& h : p->hooks_) {
    if (!h.attach_at_load) continue;
    RETURN_IF_ERROR(p->Attach(*h.row));
    if (h.row->attach == HookAttach::kDeferred) p->deferred_attached_ = true;
  }
  return p;
}

absl::Status LoadedProgram::Attach(const HookRow& row) {
  bpf_program* prog = bpf_object__find_program_by_name(skel_->obj, row.program);
  bpf_link* link = prog != nullptr ? bpf_program__attach(prog) : nullptr;
  if (link == nullptr) {
    return ErrnoStatus(prog != nullptr ? errno : ENOENT,
                       absl::StrCat("attach ", row.tracepoint));
  }
  links_.push_back(link);
  std::string name = absl::StrCat("tp_btf/", row.tracepoint);
  if (attached_.empty() || attached_.back() != name) {
    attached_.push_back(std::move(name));
  }
  return absl::OkStatus();
}

absl::Status LoadedProgram::AttachDeferred() {
  if (deferred_attached_) return absl::OkStatus();
  if (detached_) return absl::FailedPreconditionError("probe detached");
  for (const HookChoice& h : hooks_) {
    if (h.row->attach != HookAttach::kDeferred) continue;
    if (!h.load) {
      return absl::UnavailableError(
          absl::StrCat("no ", h.row->tracepoint, " tracepoint"));
    }
    RETURN_IF_ERROR(Attach(*h.row));
  }
  deferred_attached_ = true;
  return absl::OkStatus();
}

void LoadedProgram::Detach() {
  detached_ = true;
  deferred_attached_ = false;
  for (bpf_link* link : links_) bpf_link__destroy(link);
  links_.clear();
  // A program that started before its link went away may still be
  // running.  Tracepoint probes run with preemption disabled, so one RCU
  // grace period outlasts them all; MEMBARRIER_CMD_GLOBAL waits for one
  // (synchronize_rcu).  It is refused on nohz_full kernels: then wait far
  // longer than a program runs.
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0) usleep(20000);
}

LoadedProgram::~LoadedProgram() {
  for (bpf_link* link : links_) bpf_link__destroy(link);
  if (skel_ != nullptr) biosnoop_bpf__destroy(skel_);
}

uint64_t LoadedProgram::VerifiedInstructions() const {
  uint64_t total = 0;
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    total += ProgInfo(prog).verified_insns;
  }
  return total;
}

}  // namespace biosnoop
