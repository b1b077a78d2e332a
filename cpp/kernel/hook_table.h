#pragma once

// Which of the BPF object's programs a run loads and attaches, as one
// table: a row per program, naming its tracepoint, the run setting it
// serves, what the kernel must offer for it, and the program it stands in
// for on kernels that lack that one's tracepoint or argument types
// (docs/kernels.md).  Pure: no libbpf; the loader (loaded_program.h)
// applies the choice to the skeleton by program name.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernel_features.h"
#include "load_log.h"
#include "probe_config.h"

namespace biosnoop {

// When a loaded program is attached.
enum class HookAttach {
  kAtLoad,
  // Later, when first needed (the completion's rescue: Probe::
  // RescueIfSkipped), or at load with ProbeConfig::rescue_always.
  kDeferred,
  // Never: run on demand (BPF_PROG_TEST_RUN).
  kNever,
};

// The run setting a program serves: with the setting off, it is not
// loaded.  A refused program of ops, the ledger or the driver layer costs
// that setting (SwitchOffRefused); one of the others costs the run.
enum class HookServes {
  kEveryRun,     // the block layer's requests
  kFiles,        // ProbeConfig::files
  kLedger,       // ProbeConfig::ledger_entries > 0
  kDriverLayer,  // ProbeConfig::driver_layer
  kOps,          // ProbeConfig::ops
};

struct HookRow {
  const char* program;     // its name in bpf/ (and in the skeleton)
  const char* tracepoint;  // what it attaches to (tp_btf); nullptr: kNever
  HookServes serves;
  // What the kernel must offer for it (kernel_features.h); nullptr:
  // nothing beyond what Probe::Open() requires of every kernel.
  bool (*kernel_offers)(const KernelFeatures&);
  // The program this one stands in for: loaded only when that one is not.
  const char* replaces;
  HookAttach attach;
};

// Every program of the BPF object, each once, in attach order: a
// tracepoint runs its programs in the order they were attached, so the
// rescue comes right after the completion program it backs up.
absl::Span<const HookRow> HookTable();

// A row as this run takes it.
struct HookChoice {
  const HookRow* row;
  bool load;            // loaded (bpf_program__set_autoload)
  bool attach_at_load;  // loaded and attached with the load
};

// Every row of HookTable(), in its order, chosen for `features` and
// `config` (as AdaptToKernel left it).
std::vector<HookChoice> ChooseHooks(const KernelFeatures& features,
                                    const ProbeConfig& config);

// Whether this kernel's io_uring tracepoints have programs that load on
// it: io_uring_complete, and a submission tracepoint whose program loads
// (the _req one reads with bpf_rdonly_cast).
bool UringHooksFit(const KernelFeatures& features);

// The kernel's verifier refused `refused.program`.  When the program
// serves a setting that can be switched off (and is on), switches it off
// in *config and returns what this run then lacks (its name
// "verifier:PROGRAM").  Otherwise Unavailable, exit code kExitUnsupported,
// naming the program and the verifier's verdict.
absl::StatusOr<KernelLack> SwitchOffRefused(const LoadRefusal& refused,
                                            ProbeConfig* config);

}  // namespace biosnoop
