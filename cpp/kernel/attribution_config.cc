#include "attribution_config.h"

#include <bpf/libbpf.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "biosnoop_skeleton.h"
#include "libbpf_status.h"

namespace biosnoop {

uint64_t KernelSymbolAddress(absl::string_view kallsyms_path,
                             absl::string_view name, absl::string_view module) {
  std::ifstream in{std::string(kallsyms_path)};
  std::string addr, type, sym, rest;
  const std::string want_module =
      module.empty() ? "" : absl::StrCat("[", module, "]");
  while (in >> addr >> type >> sym) {
    // Module symbols carry a trailing "[module]" on the same line.
    std::getline(in, rest);
    if (sym != name) continue;
    if (!want_module.empty() &&
        absl::StripAsciiWhitespace(rest) != want_module) {
      continue;
    }
    return std::strtoull(addr.c_str(), nullptr, 16);
  }
  return 0;
}

absl::Status ConfigureAttribution(const ProbeConfig& config,
                                  biosnoop_bpf* skel) {
  skel->rodata->files_enabled = config.files ? 1 : 0;
  if (config.files) {
    // Direct I/O through iomap; without the address such requests read as
    // "unknown" (docs/guide/slow-fsync.md, "Files and dirtiers").
    skel->rodata->iomap_dio_end_io =
        KernelSymbolAddress("/proc/kallsyms", "iomap_dio_bio_end_io");
    // The front part of a split bio is chained to the rest, which holds
    // the direct I/O (bio_split, bio_chain).
    skel->rodata->bio_chain_end_io =
        KernelSymbolAddress("/proc/kallsyms", "bio_chain_endio");
    // Device-mapper's clones (dm-linear, LVM): the file system's bio, with
    // the direct I/O, is behind the clone the member disk gets.  dm_mod
    // loaded later is not followed.
    skel->rodata->dm_clone_end_io =
        KernelSymbolAddress("/proc/kallsyms", "clone_endio", "dm_mod");
    // btrfs submits its own bios, not iomap's: since Linux 6.3 (the
    // rework of btrfs's bio submission into fs/btrfs/bio.c, "btrfs: add a
    // btrfs_inode pointer to struct btrfs_bio") each is a btrfs_bio with
    // its inode and its own end_io.  A btrfs module loaded later is not
    // followed.
    skel->rodata->btrfs_simple_end_io =
        KernelSymbolAddress("/proc/kallsyms", "btrfs_simple_end_io");
    skel->rodata->btrfs_dio_end_io =
        KernelSymbolAddress("/proc/kallsyms", "btrfs_dio_end_io");
  }
  // One cache line per entry (the inode's generation fits beside a 32-bit
  // index): ledger_note writes one per dirtied page.
  static_assert(sizeof(biosnoop_ledger_entry) == 64);
  static_assert(alignof(biosnoop_ledger_entry) == 8);
  const uint32_t entries = config.ledger_entries;
  skel->rodata->ledger_enabled = config.files && entries > 0 ? 1 : 0;
  skel->rodata->ledger_mask = entries > 0 ? entries - 1 : 0;
  if (int err = bpf_map__set_max_entries(skel->maps.ledger,
                                         entries > 0 ? entries : 1)) {
    return ErrnoStatus(err, "size the dirtied-page ledger");
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
