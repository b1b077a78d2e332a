// PreemptCountFromRunqueue() on BTF built here with libbpf's writer, laid
// out as each kernel lays its per-CPU section out: __preempt_count of its
// own (before 6.2, and since 6.15), or a member of struct pcpu_hot inside
// an anonymous struct in an anonymous union (6.2 to 6.14, Debian 12's
// 6.12 among them: read as unknown before this was looked for).

#include "preempt_count.h"

#include <bpf/btf.h>

#include <memory>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

struct BtfFree {
  void operator()(struct btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfFree>;

// A kernel whose .data..percpu holds `runqueues` at 0x1000 and, at 0x40,
// either __preempt_count or pcpu_hot (preempt_count 8 bytes into it).
BtfPtr Kernel(bool pcpu_hot) {
  BtfPtr b(btf__new_empty());
  struct btf* btf = b.get();
  const int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
  const int ptr = btf__add_ptr(btf, 0);
  const int rq = btf__add_struct(btf, "rq", 64);
  btf__add_field(btf, "cpu", int_id, 0, 0);
  int var_type = int_id;
  if (pcpu_hot) {
    const int inner = btf__add_struct(btf, nullptr, 16);
    btf__add_field(btf, "current_task", ptr, 0, 0);
    btf__add_field(btf, "preempt_count", int_id, 64, 0);
    btf__add_field(btf, "cpu_number", int_id, 96, 0);
    const int u = btf__add_union(btf, nullptr, 64);
    btf__add_field(btf, nullptr, inner, 0, 0);
    const int hot = btf__add_struct(btf, "pcpu_hot", 64);
    btf__add_field(btf, nullptr, u, 0, 0);
    var_type = hot;
  }
  const int rq_var =
      btf__add_var(btf, "runqueues", BTF_VAR_GLOBAL_ALLOCATED, rq);
  const int pc_var =
      btf__add_var(btf, pcpu_hot ? "pcpu_hot" : "__preempt_count",
                   BTF_VAR_GLOBAL_ALLOCATED, var_type);
  btf__add_datasec(btf, ".data..percpu", 0x2000);
  btf__add_datasec_var_info(btf, pc_var, 0x40, pcpu_hot ? 64 : 4);
  btf__add_datasec_var_info(btf, rq_var, 0x1000, 64);
  return b;
}

TEST(PreemptCount, OwnVariable) {
  EXPECT_EQ(PreemptCountFromRunqueue(Kernel(false).get()), 0x40 - 0x1000);
}

TEST(PreemptCount, InsidePcpuHotsAnonymousMembers) {
  EXPECT_EQ(PreemptCountFromRunqueue(Kernel(true).get()), 0x40 + 8 - 0x1000);
}

TEST(PreemptCount, NoPerCpuSectionIsUnknown) {
  BtfPtr b(btf__new_empty());
  btf__add_int(b.get(), "int", 4, BTF_INT_SIGNED);
  EXPECT_EQ(PreemptCountFromRunqueue(b.get()), 0);
  EXPECT_EQ(PreemptCountFromRunqueue(nullptr), 0);
}

}  // namespace
}  // namespace biosnoop
