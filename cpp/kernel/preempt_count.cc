// Per-CPU offsets from vmlinux BTF (preempt_count.h).

#include "preempt_count.h"

#include <bpf/btf.h>

#include <cstring>
#include <optional>

#include "kernel_btf.h"

namespace biosnoop {
namespace {

// The offset of per-CPU variable `name` in the .data..percpu section.
std::optional<int64_t> PercpuOffset(const struct btf* btf, const char* name) {
  const int sec =
      btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
  if (sec < 0) return std::nullopt;
  const struct btf_type* t = btf__type_by_id(btf, sec);
  const struct btf_var_secinfo* v = btf_var_secinfos(t);
  for (int i = 0; i < btf_vlen(t); ++i, ++v) {
    const struct btf_type* var = btf__type_by_id(btf, v->type);
    if (var == nullptr) continue;
    const char* var_name = btf__name_by_offset(btf, var->name_off);
    if (var_name != nullptr && std::strcmp(var_name, name) == 0) {
      return v->offset;
    }
  }
  return std::nullopt;
}

}  // namespace

int64_t PreemptCountFromRunqueue(const struct btf* vmlinux) {
  if (vmlinux == nullptr) return 0;
  const std::optional<int64_t> rq = PercpuOffset(vmlinux, "runqueues");
  if (!rq) return 0;
  // x86 keeps the count in per-CPU `__preempt_count`, except Linux 6.2 to
  // 6.14, where it was a member of the per-CPU `struct pcpu_hot` (added in
  // 6.2 by "x86: Put hot per CPU variables into a struct", dissolved in
  // 6.15).  Other architectures keep it in thread_info: no per-CPU one.
  std::optional<int64_t> pc = PercpuOffset(vmlinux, "__preempt_count");
  if (!pc) {
    const std::optional<int64_t> hot = PercpuOffset(vmlinux, "pcpu_hot");
    const std::optional<int64_t> member =
        MemberOffset(vmlinux, "pcpu_hot", "preempt_count");
    if (hot && member) pc = *hot + *member;
  }
  if (!pc || *pc == *rq) return 0;
  return *pc - *rq;
}

}  // namespace biosnoop
