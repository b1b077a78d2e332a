// The running kernel's features from its BTF, and what this run does
// without the ones it lacks (kernel_features.h).

#include "kernel_features.h"

#include <bpf/btf.h>

#include <optional>

#include "hook_table.h"
#include "kernel_btf.h"
#include "probe_config.h"

namespace biosnoop {
namespace {

// The prototype of tracepoint `name`'s probe (its typedef btf_trace_<name>
// is a pointer to it), or nullptr.
const btf_type* TracepointProto(const struct btf* vmlinux, const char* name) {
  std::string type = "btf_trace_";
  type += name;
  const int id =
      btf__find_by_name_kind(vmlinux, type.c_str(), BTF_KIND_TYPEDEF);
  if (id < 0) return nullptr;
  const btf_type* t =
      btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
  if (t == nullptr || !btf_is_ptr(t)) return nullptr;
  t = btf__type_by_id(vmlinux, t->type);
  return t != nullptr && btf_is_func_proto(t) ? t : nullptr;
}

// Whether argument `index` of a probe's prototype (0: the tracepoint's own
// data pointer) is a pointer, through typedefs and qualifiers.
bool ArgIsPointer(const struct btf* vmlinux, const btf_type* proto, int index) {
  if (index >= btf_vlen(proto)) return false;
  const int id = btf__resolve_type(vmlinux, btf_params(proto)[index].type);
  if (id < 0) return false;
  const btf_type* t = btf__type_by_id(vmlinux, id);
  return t != nullptr && btf_is_ptr(t);
}

// NVMe's two driver tracepoints (KernelFeatures::nvme*): in the kernel's
// BTF, or in the nvme_core module's (split BTF on top of the kernel's,
// parsed once), which libbpf attaches to as well.
void ReadNvme(const struct btf* vmlinux, const std::string& dir,
              KernelFeatures* f) {
  auto both = [](const struct btf* btf) {
    return KernelHasTracepoint(btf, "nvme_setup_cmd") &&
           KernelHasTracepoint(btf, "nvme_complete_rq");
  };
  if (both(vmlinux)) {
    f->nvme = true;
    return;
  }
  const std::string path = dir + "/nvme_core";
  struct btf* split =
      btf__parse_split(path.c_str(), const_cast<struct btf*>(vmlinux));
  if (split == nullptr) return;
  f->nvme = f->nvme_in_module = both(split);
  btf__free(split);
}

// dm_mod's struct offsets (KernelFeatures::dm_*), when its BTF has them.
void ReadDmOffsets(const struct btf* vmlinux, const std::string& dir,
                   KernelFeatures* f) {
  const std::string path = dir + "/dm_mod";
  struct btf* dm =
      btf__parse_split(path.c_str(), const_cast<struct btf*>(vmlinux));
  if (dm == nullptr) return;
  const std::optional<int64_t> clone =
      MemberOffset(dm, "dm_target_io", "clone");
  const std::optional<int64_t> io = MemberOffset(dm, "dm_target_io", "io");
  const std::optional<int64_t> orig = MemberOffset(dm, "dm_io", "orig_bio");
  btf__free(dm);
  if (!clone || !io || !orig || *clone <= 0) return;
  f->dm_tio_clone = *clone;
  f->dm_tio_io = *io;
  f->dm_io_orig_bio = *orig;
}

}  // namespace

KernelFeatures ReadKernelFeatures(const struct btf* vmlinux,
                                  const std::string& module_btf_dir) {
  KernelFeatures f;
  f.block_rq = KernelHasTracepoint(vmlinux, "block_rq_issue") &&
               KernelHasTracepoint(vmlinux, "block_rq_complete");
  f.block_rq_requeue = KernelHasTracepoint(vmlinux, "block_rq_requeue");
  f.block_rq_merge = KernelHasTracepoint(vmlinux, "block_rq_merge");
  f.block_io_start = KernelHasTracepoint(vmlinux, "block_io_start");
  f.block_rq_insert = KernelHasTracepoint(vmlinux, "block_rq_insert");
  f.rdonly_cast =
      btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) >= 0;
  f.writeback_dirty_folio =
      KernelHasTracepoint(vmlinux, "writeback_dirty_folio");
  f.syscalls = KernelHasTracepoint(vmlinux, "sys_enter") &&
               KernelHasTracepoint(vmlinux, "sys_exit");
  // Renamed in Linux 6.4 (commit "io_uring: rename
  // trace_io_uring_submit_sqe() tracepoint"); the request comes first in
  // both.
  for (const char* name : {"io_uring_submit_req", "io_uring_submit_sqe"}) {
    if (KernelHasTracepoint(vmlinux, name)) {
      f.uring_submit = name;
      break;
    }
  }
  // (data, ctx, req, cqe) since 6.13; (data, ctx, req, user_data, res,
  // cflags, extra1, extra2) before: the fourth is a pointer only in the
  // first.
  if (const btf_type* proto = TracepointProto(vmlinux, "io_uring_complete")) {
    f.uring_complete = true;
    f.uring_complete_cqe =
        btf_vlen(proto) == 4 && ArgIsPointer(vmlinux, proto, 3);
  }
  ReadNvme(vmlinux, module_btf_dir, &f);
  ReadDmOffsets(vmlinux, module_btf_dir, &f);
  return f;
}

std::vector<KernelLack> AdaptToKernel(const KernelFeatures& f,
                                      ProbeConfig* config) {
  std::vector<KernelLack> lacks;
  if (!f.block_io_start) {
    lacks.push_back(
        {"block_io_start",
         "no block_io_start tracepoint (Linux 6.5): a request is seen "
         "submitted at block_rq_insert, and one issued directly (no "
         "scheduler) is timed from its allocation and named after the task "
         "that issued it"});
  }
  if (config->ops && !f.syscalls) {
    config->ops = false;
    lacks.push_back({"sys_enter",
                     "no sys_enter/sys_exit tracepoints: --ops is off, no "
                     "call is followed"});
  }
  if (config->ops && !f.rdonly_cast) {
    lacks.push_back({"bpf_rdonly_cast",
                     "no bpf_rdonly_cast kfunc (Linux 6.2): --ops reads each "
                     "call's file with bpf_probe_read_kernel (same result, "
                     "slower)"});
  }
  // The _sqe program reads without the kfunc; the _req one needs it,
  // which every kernel that has _req has.
  if (config->ops && !UringHooksFit(f)) {
    lacks.push_back({"io_uring",
                     "no io_uring tracepoints: --ops does not follow io_uring "
                     "requests"});
  }
  if (config->ledger_entries > 0 && !f.writeback_dirty_folio) {
    config->ledger_entries = 0;
    lacks.push_back({"writeback_dirty_folio",
                     "no writeback_dirty_folio tracepoint: no dirtied-page "
                     "ledger, writes name no dirtier"});
  }
  return lacks;
}

}  // namespace biosnoop
