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
