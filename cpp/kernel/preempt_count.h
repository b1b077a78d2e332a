#pragma once

// Where a CPU's preempt count lies relative to its runqueue, for the
// kernel side's completion context (biosnoop.bpf.c, completion_context):
// both are static per-CPU variables, so on every CPU they lie as far apart
// as their offsets in vmlinux BTF's .data..percpu section say.  (Per-CPU
// variables cannot be named through __ksym without CONFIG_KALLSYMS_ALL.)

#include <cstdint>

struct btf;

namespace biosnoop {

// &preempt_count - &runqueues on any CPU, in bytes; 0 when vmlinux BTF
// lacks either (then every completion context reads as unknown).
int64_t PreemptCountFromRunqueue(const struct btf* vmlinux);

}  // namespace biosnoop
