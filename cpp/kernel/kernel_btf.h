#pragma once

// The running kernel's BTF, parsed with one copy of its bytes in memory.
//
// libbpf 1.1 (btf__load_vmlinux_btf) reads /sys/kernel/btf/vmlinux (5.5 MB
// on Linux 6.18) into a buffer and then copies it into the btf object, so
// both copies are resident while it parses: that moment was biosnoop's peak
// RSS.  Since Linux 6.16 the sysfs file can be mapped read-only; the
// mapping shows the kernel's own BTF pages (no memory is allocated for it),
// and btf__new() copies from it once.
//
// kernel_btf.cc also defines btf__load_vmlinux_btf() itself, calling
// LoadKernelBtf(): libbpf calls that public function through its PLT when
// it loads a program that needs kernel BTF (tp_btf, CO-RE), so biosnoop's
// definition is the one it gets, and its load peaks one copy lower too.

#include <cstdint>
#include <optional>

struct btf;

namespace biosnoop {

// Same contract as libbpf's btf__load_vmlinux_btf(): a new btf object that
// the caller frees with btf__free(), or nullptr with errno set.  Where the
// kernel cannot map its BTF (before 6.16) or the mapped data does not
// parse, it is libbpf's own btf__load_vmlinux_btf() (every location libbpf
// knows, /boot/vmlinux-* included), so the result never differs from it.
struct btf* LoadKernelBtf();

// libbpf's own btf__load_vmlinux_btf(), the definition biosnoop's
// interposes on: LoadKernelBtf()'s fallback.
struct btf* LibbpfLoadKernelBtf();

// Whether `vmlinux` (the kernel's BTF) has tracepoint `name` for tp_btf
// programs, which attach to the typedef btf_trace_<name>.
bool KernelHasTracepoint(const struct btf* vmlinux, const char* name);

// The byte offset of member `member` in struct `type` of `btf`, found
// through anonymous structs and unions too; nullopt when either is absent.
std::optional<int64_t> MemberOffset(const struct btf* btf, const char* type,
                                    const char* member);

}  // namespace biosnoop
