// The checks before a load (prerequisites.h).

#include "prerequisites.h"

#include <bpf/btf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <malloc.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernel_btf.h"
#include "preempt_count.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

bool HasCapability(const __user_cap_data_struct (&data)[2], int cap) {
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

absl::Status CheckPrivilege() {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return absl::InternalError(absl::StrCat("capget: ", strerror(errno)));
  }
  // CAP_BPF and CAP_PERFMON came in 5.8; before that CAP_SYS_ADMIN covers both.
  constexpr int kCapPerfmon = 38;
  constexpr int kCapBpf = 39;
  bool ok = HasCapability(data, CAP_SYS_ADMIN) ||
            (HasCapability(data, kCapBpf) && HasCapability(data, kCapPerfmon));
  if (!ok) {
    return absl::PermissionDeniedError(
        "permission denied: biosnoop loads a BPF program into the kernel and "
        "needs root, or the CAP_BPF and CAP_PERFMON capabilities: run it with "
        "sudo");
  }
  return absl::OkStatus();
}

constexpr char kVmlinuxBtf[] = "/sys/kernel/btf/vmlinux";
constexpr char kNeedBtf[] =
    "biosnoop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (the default "
    "on Debian 11+, Ubuntu 20.10+, RHEL 8.2+)";

absl::Status UnusableBtf(absl::string_view why) {
  return absl::UnavailableError(
      absl::StrCat(kVmlinuxBtf, " is not valid BTF (", why, "): ", kNeedBtf));
}

// Whether the file is BTF at all, from its header alone (the kernel's
// struct btf_header): a cheap check before anything is created, so that
// an empty or foreign file (seen bind-mounted over it in containers) is
// refused as missing BTF is, not after loading as "No such process".
// The full parse comes at load.
absl::Status CheckBtfHeader() {
  struct {
    uint16_t magic;
    uint8_t version;
    uint8_t flags;
    uint32_t hdr_len;
    uint32_t type_off, type_len, str_off, str_len;
  } h;
  static_assert(sizeof(h) == 24);
  const int fd = open(kVmlinuxBtf, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return UnusableBtf(strerror(errno));
  struct stat st;
  const bool sized = fstat(fd, &st) == 0;
  const ssize_t n = pread(fd, &h, sizeof(h), 0);
  const int err = errno;
  close(fd);
  if (n < 0) return UnusableBtf(strerror(err));
  if (n == 0) return UnusableBtf("it is empty");
  // Native byte order: the kernel's own BTF is never byte-swapped.
  if (static_cast<size_t>(n) < sizeof(h) || h.magic != 0xeB9F) {
    return UnusableBtf("no BTF header");
  }
  const uint64_t end =
      uint64_t{h.hdr_len} + std::max(uint64_t{h.type_off} + h.type_len,
                                     uint64_t{h.str_off} + h.str_len);
  if (h.version != 1 || h.hdr_len < sizeof(h) ||
      (sized && st.st_size > 0 && end > static_cast<uint64_t>(st.st_size))) {
    return UnusableBtf("a corrupt BTF header");
  }
  return absl::OkStatus();
}

absl::Status CheckBtf() {
  if (access(kVmlinuxBtf, R_OK) != 0) {
    return absl::UnavailableError(absl::StrCat("this kernel exposes no BTF (",
                                               kVmlinuxBtf,
                                               " is missing): ", kNeedBtf));
  }
  return CheckBtfHeader();
}

}  // namespace

absl::Status CheckPrerequisites() {
  RETURN_IF_ERROR(CheckPrivilege());
  return CheckBtf();
}

bool HaveSysAdmin() {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(SYS_capget, &header, data) == 0 &&
         HasCapability(data, CAP_SYS_ADMIN);
}

absl::StatusOr<RunningKernel> ReadRunningKernel() {
  // One copy of the BTF in memory (kernel_btf.h); loading parses it again
  // the same way.
  struct btf* vmlinux = LoadKernelBtf();
  if (vmlinux == nullptr) {
    // The header was fine (CheckBtf), the rest does not parse.  (errno is
    // that of libbpf's search of other places, ESRCH: nothing to say.)
    return UnusableBtf("its types do not parse");
  }
  RunningKernel kernel;
  kernel.features = ReadKernelFeatures(vmlinux);
  kernel.preempt_count_from_rq = PreemptCountFromRunqueue(vmlinux);
  btf__free(vmlinux);
  malloc_trim(0);  // before libbpf parses the same BTF again during load
  if (!kernel.features.block_rq) {
    return absl::UnavailableError(
        "this kernel has no block_rq_issue or block_rq_complete tracepoint "
        "in its BTF: biosnoop cannot follow block requests here");
  }
  return kernel;
}

}  // namespace biosnoop
