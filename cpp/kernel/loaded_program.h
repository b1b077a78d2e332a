#pragma once

// The BPF object as one run loads it: the skeleton's lifetime, its load
// (settings written, the hook table's programs loaded, a program the
// verifier refuses turned into a lack where it can be), and its links.
// RAII: destroying it detaches every program and frees the maps.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hook_table.h"
#include "kernel_features.h"
#include "probe_config.h"

struct biosnoop_bpf;
struct bpf_link;
struct bpf_program;

namespace biosnoop {

class LoadedProgram {
 public:
  // Opens the BPF object, writes its settings (probe_settings.h), loads
  // the programs ChooseHooks() wants and attaches those it attaches at
  // load.  When the verifier refuses a program whose setting can be
  // switched off (SwitchOffRefused), switches it off in *config, appends
  // the lack to *lacks, and loads again.  Errors: ResourceExhausted (exit
  // 71) when the kernel is short of memory, Unavailable (exit 69) for a
  // refused program every run needs, else as ErrnoStatus.
  static absl::StatusOr<std::unique_ptr<LoadedProgram>> Load(
      const KernelFeatures& features, int64_t preempt_count_from_rq,
      ProbeConfig* config, std::vector<KernelLack>* lacks);
  ~LoadedProgram();
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  // Attaches the loaded programs left for later (HookAttach::kDeferred);
  // OK if they are.  FailedPrecondition after Detach(); Unavailable when
  // such a program was not loaded.
  absl::Status AttachDeferred();
  // Whether AttachDeferred() (or rescue_always) attached them.
  bool deferred_attached() const { return deferred_attached_; }

  // Detaches every program and returns once none is still running.  The
  // maps stay readable.
  void Detach();
  bool detached() const { return detached_; }

  // The hooks attached, e.g. "tp_btf/block_io_start", in attach order.
  const std::vector<std::string>& attached() const { return attached_; }

  // Instructions the kernel's verifier walked to load the programs, summed
  // (bpf_prog_info.verified_insns, Linux 5.16+; 0 before).
  uint64_t VerifiedInstructions() const;

  // The loaded object: its maps, programs and settings.
  biosnoop_bpf* skel() const { return skel_; }

 private:
  LoadedProgram() = default;
  // One load with `config` as it stands.
  static absl::StatusOr<std::unique_ptr<LoadedProgram>> LoadOnce(
      const KernelFeatures& features, int64_t preempt_count_from_rq,
      const ProbeConfig& config);
  absl::Status Attach(const HookRow& row);

  biosnoop_bpf* skel_ = nullptr;
  std::vector<HookChoice> hooks_;
  std::vector<bpf_link*> links_;
  std::vector<std::string> attached_;
  bool deferred_attached_ = false;
  bool detached_ = false;
};

// How often the kernel skipped `prog` because a program already ran on
// that CPU (bpf_prog_info.recursion_misses, Linux 5.12+); 0 for a program
// not loaded, or when it cannot be read.
uint64_t RecursionMisses(const bpf_program* prog);

}  // namespace biosnoop
