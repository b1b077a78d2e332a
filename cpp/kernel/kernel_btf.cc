// The running kernel's BTF, loaded once from a read-only mapping
// (kernel_btf.h).

#include "kernel_btf.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace biosnoop {
namespace {

constexpr char kVmlinuxBtf[] = "/sys/kernel/btf/vmlinux";

// nullptr when the kernel's BTF cannot be mapped or does not parse.
struct btf* ParseMappedVmlinuxBtf() {
  int fd = open(kVmlinuxBtf, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st;
  void* data = MAP_FAILED;
  size_t size = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= UINT32_MAX) {
    size = static_cast<size_t>(st.st_size);
    // Refused (ENODEV, EINVAL) by kernels before 6.16.
    data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  }
  close(fd);
  if (data == MAP_FAILED) return nullptr;
  struct btf* btf = btf__new(data, static_cast<uint32_t>(size));  // copies
  munmap(data, size);
  return btf;
}

// Through libbpf's print callback, as libbpf's own messages go (-vv).
__attribute__((format(printf, 1, 2))) void LibbpfDebug(const char* format,
                                                       ...) {
  const libbpf_print_fn_t print = libbpf_set_print(nullptr);
  libbpf_set_print(print);
  if (print == nullptr) return;
  va_list args;
  va_start(args, format);
  print(LIBBPF_DEBUG, format, args);
  va_end(args);
}

}  // namespace

struct btf* LibbpfLoadKernelBtf() {
  // The next definition after this executable's: libbpf.so's.
  using LoadFn = struct btf* (*)();
  static const LoadFn libbpf_load =
      reinterpret_cast<LoadFn>(dlsym(RTLD_NEXT, "btf__load_vmlinux_btf"));
  if (libbpf_load == nullptr) {
    errno = ENOENT;
    return nullptr;
  }
  return libbpf_load();
}

struct btf* LoadKernelBtf() {
  const int saved_errno = errno;
  if (struct btf* btf = ParseMappedVmlinuxBtf(); btf != nullptr) {
    // The line libbpf's loader logs on success: -vv output is unchanged.
    LibbpfDebug("libbpf: loading kernel BTF '%s': %d\n", kVmlinuxBtf, 0);
    errno = saved_errno;
    return btf;
  }
  return LibbpfLoadKernelBtf();
}

namespace {

// The byte offset of member `member` in the struct or union `id`, looked
// for through its anonymous members too.
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

}  // namespace

std::optional<int64_t> MemberOffset(const struct btf* btf, const char* type,
                                    const char* member) {
  const int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
  if (id < 0) return std::nullopt;
  return MemberOffsetIn(btf, id, member, 0);
}

bool KernelHasTracepoint(const struct btf* vmlinux, const char* name) {
  std::string type = "btf_trace_";
  type += name;
  return btf__find_by_name_kind(vmlinux, type.c_str(), BTF_KIND_TYPEDEF) >= 0;
}

}  // namespace biosnoop

// Interposes on libbpf's definition (see kernel_btf.h).  The executable's
// definition comes first in symbol lookup, and the linker exports it
// because libbpf.so defines the same symbol.
extern "C" struct btf* btf__load_vmlinux_btf(void) {
  return biosnoop::LoadKernelBtf();
}
