#pragma once

// What the running kernel offers the kernel side, read from its BTF before
// anything is loaded.  Every piece of bpf/ that depends on the kernel's
// version is adapted to here (another tracepoint, another program for other
// argument types) or switched off with a KernelLack, never found missing by
// a failed load: one binary runs on Debian 12's 6.1 and on 6.18.

#include <cstdint>
#include <string>
#include <vector>

struct btf;

namespace biosnoop {

struct ProbeConfig;

struct KernelFeatures {
  // block_rq_issue and block_rq_complete: without both, nothing runs.
  bool block_rq = false;
  bool block_rq_requeue = false;
  bool block_rq_merge = false;
  // block_io_start, fired in the submitter's context for every request
  // (Linux 6.5); before it, block_rq_insert, which a request issued
  // directly never passes.
  bool block_io_start = false;
  bool block_rq_insert = false;
  // The kfunc bpf_rdonly_cast (Linux 6.2): --ops reads a call's file with
  // plain loads; without it, with bpf_probe_read_kernel.
  bool rdonly_cast = false;
  // writeback_dirty_folio, the dirtied-page ledger's hook (a page's
  // tracepoint, writeback_dirty_page, before the folio conversion).
  bool writeback_dirty_folio = false;
  // The raw syscall tracepoints sys_enter and sys_exit (--ops).
  bool syscalls = false;
  // io_uring's submission tracepoint: "io_uring_submit_req" (Linux 6.4),
  // "io_uring_submit_sqe" (before), "" (no io_uring).
  std::string uring_submit;
  // io_uring_complete is there; it passes the posted CQE (Linux 6.13)
  // rather than the CQE's fields one by one.
  bool uring_complete = false;
  bool uring_complete_cqe = false;
  // NVMe's driver tracepoints nvme_setup_cmd and nvme_complete_rq, in the
  // kernel or in the nvme_core module's BTF (loaded: no NVMe disk without
  // it): events on NVMe then split out the driver's own time.
  bool nvme = false;
  bool nvme_in_module = false;  // only in nvme_core's BTF
  // device-mapper's clones (module dm_mod, loaded): where the clone lies
  // in its struct dm_target_io, that struct's io, and struct dm_io's
  // orig_bio, from dm_mod's BTF; all 0 without it.  Read here rather than
  // by CO-RE: libbpf looks for a type the kernel lacks in every module's
  // BTF, and listing those needs CAP_SYS_ADMIN.
  int64_t dm_tio_clone = 0;
  int64_t dm_tio_io = 0;
  int64_t dm_io_orig_bio = 0;
};

// The features of the kernel whose BTF is `vmlinux`; its modules' BTF
// from `module_btf_dir` (where the kernel shows it: /sys/kernel/btf).
KernelFeatures ReadKernelFeatures(
    const struct btf* vmlinux,
    const std::string& module_btf_dir = "/sys/kernel/btf");

// Something this kernel lacks that changes what this run does.  `name`
// goes into the stream header (kernel_lacks), `effect` onto stderr.
struct KernelLack {
  std::string name;
  std::string effect;
};

// What `features` lack for `config`, in a fixed order; switches off in
// `config` what cannot run (--ops without syscall tracepoints, the ledger
// without writeback_dirty_folio) instead of failing the load.
std::vector<KernelLack> AdaptToKernel(const KernelFeatures& features,
                                      ProbeConfig* config);

}  // namespace biosnoop
