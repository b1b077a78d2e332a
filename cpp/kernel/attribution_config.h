#pragma once

// The load-time settings of the kernel side's files and dirtiers
// (bpf/attribution.bpf.h).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "probe_config.h"

struct biosnoop_bpf;

namespace biosnoop {

// The address of a kernel text symbol in `kallsyms` (/proc/kallsyms
// format: "ffffffff81766530 T name", a module's with " [module]" after);
// 0 when absent or hidden (an address of all zeros: kptr_restrict without
// CAP_SYSLOG).  With `module` set, only that module's symbol of the name
// (static functions of two modules may share a name).
uint64_t KernelSymbolAddress(absl::string_view kallsyms_path,
                             absl::string_view name,
                             absl::string_view module = "");

// Sets files_enabled, iomap_dio_end_io, bio_chain_end_io,
// dm_clone_end_io, btrfs_simple_end_io, btrfs_dio_end_io, ledger_enabled
// and ledger_mask, and sizes the ledger map (1 entry when off).
// ledger_entries must be 0 or a power of two (options.cc checks it).
absl::Status ConfigureAttribution(const ProbeConfig& config,
                                  biosnoop_bpf* skel);

}  // namespace biosnoop
