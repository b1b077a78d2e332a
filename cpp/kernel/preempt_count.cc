// Per-CPU offsets from vmlinux BTF (preempt_count.h).

#include "preempt_count.h"

#include <bpf/btf.h>

#include <cstring>
#include <optional>

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

// The byte offset of member `member` in the struct or union `id`, looked
// for through its anonymous members too (6.2's struct pcpu_hot holds
// preempt_count in an anonymous struct inside an anonymous union).
std::optional<int64_t> MemberOffsetIn(const struct btf* btf, int id,
                                      const char* member, int depth) {
  const struct btf_type* t = btf__type_by_id(btf, id);
  if (t == nullptr || !(btf_is_struct(t) || btf_is_union(t)) || depth > 4) {
    return std::nullopt;
  }
  const struct btf_member* m = btf_members(t);
  for (int i = 0; i < btf_vlen(t); ++i, ++m) {
    const char* name = btf__name_by_offset(btf, m->name_off);
    const int64_t here = btf_member_bit_offset(t, i) / 8;
    if (name != nullptr && std::strcmp(name, member) == 0) return here;
    if (name == nullptr || name[0] == '\0') {
      const int inner = btf__resolve_type(btf, m->type);
      if (inner < 0) continue;
      if (std::optional<int64_t> off =
              MemberOffsetIn(btf, inner, member, depth + 1)) {
        return here + *off;
      }
    }
  }
  return std::nullopt;
}

// The byte offset of member `member` in struct `type`.
std::optional<int64_t> MemberOffset(const struct btf* btf, const char* type,
                                    const char* member) {
  const int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
  if (id < 0) return std::nullopt;
  return MemberOffsetIn(btf, id, member, 0);
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
