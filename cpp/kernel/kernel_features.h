#pragma once

// What the running kernel offers the kernel side, read from its BTF before
// anything is loaded.  Every piece of bpf/ that depends on the kernel's
// version is adapted to here (another tracepoint, another program for other
// argument types) or switched off with a KernelLack, never found missing by
// a failed load: one binary runs on Debian 12's 6.1 and on 6.18.

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
