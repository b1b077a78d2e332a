// LoadKernelBtf() against libbpf's own parse of the running kernel's BTF,
// and the interposition that makes libbpf's loader use it.

#include "kernel_btf.h"

#include <bpf/btf.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

constexpr char kVmlinuxBtf[] = "/sys/kernel/btf/vmlinux";

struct BtfFree {
  void operator()(struct btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfFree>;

bool HaveKernelBtf() { return access(kVmlinuxBtf, R_OK) == 0; }

TEST(KernelBtf, SameTypesAndBytesAsLibbpfReadingTheFile) {
  if (!HaveKernelBtf())
    GTEST_SKIP() << "this kernel exposes no " << kVmlinuxBtf;
  BtfPtr ours(LoadKernelBtf());
  ASSERT_NE(ours, nullptr) << strerror(errno);
  BtfPtr libbpf(btf__parse_raw(kVmlinuxBtf));  // read(2) into a buffer
  ASSERT_NE(libbpf, nullptr) << strerror(errno);

  EXPECT_EQ(btf__type_cnt(ours.get()), btf__type_cnt(libbpf.get()));
  uint32_t ours_size = 0, libbpf_size = 0;
  const void* ours_data = btf__raw_data(ours.get(), &ours_size);
  const void* libbpf_data = btf__raw_data(libbpf.get(), &libbpf_size);
  ASSERT_EQ(ours_size, libbpf_size);
  EXPECT_EQ(std::memcmp(ours_data, libbpf_data, ours_size), 0);
  // What the feature probe looks for: a block tracepoint's typedef.
  EXPECT_GE(btf__find_by_name_kind(ours.get(), "btf_trace_block_rq_issue",
                                   BTF_KIND_TYPEDEF),
            0);
}

// The fallback for kernels that cannot map their BTF is libbpf's own
// loader, found past this executable's definition, and gives the same BTF.
TEST(KernelBtf, FallbackIsLibbpfsOwnLoaderWithTheSameResult) {
  if (!HaveKernelBtf())
    GTEST_SKIP() << "this kernel exposes no " << kVmlinuxBtf;
  BtfPtr ours(LoadKernelBtf());
  ASSERT_NE(ours, nullptr) << strerror(errno);
  BtfPtr libbpf(LibbpfLoadKernelBtf());
  ASSERT_NE(libbpf, nullptr) << strerror(errno);
  uint32_t ours_size = 0, libbpf_size = 0;
  const void* ours_data = btf__raw_data(ours.get(), &ours_size);
  const void* libbpf_data = btf__raw_data(libbpf.get(), &libbpf_size);
  ASSERT_EQ(ours_size, libbpf_size);
  EXPECT_EQ(std::memcmp(ours_data, libbpf_data, ours_size), 0);

  void* next = dlsym(RTLD_NEXT, "btf__load_vmlinux_btf");
  Dl_info info{};
  ASSERT_NE(dladdr(next, &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find("libbpf"), std::string::npos)
      << info.dli_fname;
}

// libbpf calls btf__load_vmlinux_btf() through its PLT when it loads a
// tp_btf program; the definition it gets is the first in the global scope.
// That must be this executable's, not libbpf.so's.
TEST(KernelBtf, LibbpfResolvesItsVmlinuxLoaderToOurs) {
  void* resolved = dlsym(RTLD_DEFAULT, "btf__load_vmlinux_btf");
  ASSERT_NE(resolved, nullptr);
  Dl_info resolved_info{}, main_info{};
  ASSERT_NE(dladdr(resolved, &resolved_info), 0);
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&LoadKernelBtf), &main_info), 0);
  EXPECT_STREQ(resolved_info.dli_fname, main_info.dli_fname)
      << "btf__load_vmlinux_btf resolves to " << resolved_info.dli_fname;

  if (!HaveKernelBtf())
    GTEST_SKIP() << "this kernel exposes no " << kVmlinuxBtf;
  BtfPtr btf(reinterpret_cast<struct btf* (*)()>(resolved)());
  ASSERT_NE(btf, nullptr) << strerror(errno);
  EXPECT_GT(btf__type_cnt(btf.get()), 1u);
}

}  // namespace
}  // namespace biosnoop
