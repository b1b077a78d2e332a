// The load-time settings of the kernel side's calls (ops_config.h).

#include "ops_config.h"

#include <bpf/libbpf.h>
#include <sys/syscall.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "biosnoop_abi.h"
#include "biosnoop_skeleton.h"

namespace biosnoop {

namespace {

constexpr SyscallCall kFollowed[] = {
    {SYS_read, BIOSNOOP_CALL_READ},
    {SYS_write, BIOSNOOP_CALL_WRITE},
    {SYS_pread64, BIOSNOOP_CALL_PREAD64},
    {SYS_pwrite64, BIOSNOOP_CALL_PWRITE64},
    {SYS_readv, BIOSNOOP_CALL_READV},
    {SYS_writev, BIOSNOOP_CALL_WRITEV},
    {SYS_preadv, BIOSNOOP_CALL_PREADV},
    {SYS_pwritev, BIOSNOOP_CALL_PWRITEV},
    // preadv2 and pwritev2 are preadv and pwritev with flags (glibc and
    // Python use them for preadv/pwritev): reported as those.
    {SYS_preadv2, BIOSNOOP_CALL_PREADV},
    {SYS_pwritev2, BIOSNOOP_CALL_PWRITEV},
    {SYS_fsync, BIOSNOOP_CALL_FSYNC},
    {SYS_fdatasync, BIOSNOOP_CALL_FDATASYNC},
    {SYS_sync_file_range, BIOSNOOP_CALL_SYNC_FILE_RANGE},
    {SYS_io_uring_enter, BIOSNOOP_CALL_IO_URING_ENTER},
};

}  // namespace

const SyscallCall* FollowedSyscalls(int* count) {
  *count = sizeof(kFollowed) / sizeof(kFollowed[0]);
  return kFollowed;
}

absl::Status ConfigureOps(const ProbeConfig& config, biosnoop_bpf* skel) {
  uint32_t entries = 1;
  if (config.ops) {
    entries = kOpsInProgress;
    skel->rodata->ops_enabled = 1;
    skel->rodata->op_min_ns = config.op_min_ns;
    auto& calls = skel->rodata->syscall_calls;
    std::memset(calls, 0, sizeof(calls));
    for (const SyscallCall& s : kFollowed) {
      if (s.nr >= 0 && s.nr < BIOSNOOP_MAX_SYSCALL_NR) calls[s.nr] = s.call;
    }
    skel->rodata->filter_bdev = config.partition_dev;
  }
  if (int err = bpf_map__set_max_entries(skel->maps.ops, entries)) {
    return absl::InternalError(
        absl::StrCat("size the table of calls: ", std::strerror(-err)));
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
