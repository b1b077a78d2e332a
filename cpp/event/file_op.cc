// Call names and a call's derived figures (file_op.h).

#include "file_op.h"

#include <string.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace biosnoop {

absl::string_view CallName(Call c) {
  switch (c) {
    case Call::kRead:
      return "read";
    case Call::kWrite:
      return "write";
    case Call::kPread64:
      return "pread64";
    case Call::kPwrite64:
      return "pwrite64";
    case Call::kReadv:
      return "readv";
    case Call::kWritev:
      return "writev";
    case Call::kPreadv:
      return "preadv";
    case Call::kPwritev:
      return "pwritev";
    case Call::kFsync:
      return "fsync";
    case Call::kFdatasync:
      return "fdatasync";
    case Call::kSyncFileRange:
      return "sync_file_range";
    case Call::kUringRead:
      return "io_uring_read";
    case Call::kUringWrite:
      return "io_uring_write";
    case Call::kUringFsync:
      return "io_uring_fsync";
    case Call::kNone:
      break;
  }
  return "unknown";
}

bool IsSyncCall(Call c) {
  return c == Call::kFsync || c == Call::kFdatasync ||
         c == Call::kSyncFileRange || c == Call::kUringFsync;
}

absl::string_view FileOp::Comm() const {
  return absl::string_view(comm.data(), strnlen(comm.data(), comm.size()));
}

absl::string_view OpCulprit::Comm() const {
  return absl::string_view(comm.data(), strnlen(comm.data(), comm.size()));
}

uint64_t FileOp::OtherUs() const {
  const uint64_t latency = LatencyNs() / 1000;
  uint64_t waited = 0;
  for (const OpLayer* l : Layers()) waited += l->wait_ns / 1000;
  return latency > waited ? latency - waited : 0;
}

uint64_t FileOp::OtherNs() const {
  const uint64_t latency = LatencyNs();
  // The layers' waits never overlap (the kernel side gives each segment
  // of the call's time to one layer), so their sum is at most the
  // latency; a clamp all the same, should the clocks of entry and
  // completion disagree, and against a malformed record's overflow.
  uint64_t waited = 0;
  for (const OpLayer* l : Layers()) {
    if (waited + l->wait_ns < waited) return 0;
    waited += l->wait_ns;
  }
  return latency > waited ? latency - waited : 0;
}

std::array<const OpLayer*, 6> FileOp::Layers() const {
  return {&block, &writeback, &journal, &flush, &others_writeback, &throttle};
}

std::vector<std::string> QosNames(uint32_t qos) {
  std::vector<std::string> names;
  if ((qos & kQosWbt) != 0) names.emplace_back("wbt");
  if ((qos & kQosIoLatency) != 0) names.emplace_back("io.latency");
  if ((qos & kQosIoCost) != 0) names.emplace_back("io.cost");
  return names;
}

int FileOp::ErrorCode() const {
  // The kernel returns -errno in [-4095, -1]; anything further below is
  // not an errno (no syscall of these returns such a value).
  return result < 0 && result >= -4095 ? static_cast<int>(-result) : 0;
}

std::string ErrnoName(int errno_value) {
  if (errno_value == 0) return "";
  // glibc >= 2.32; the same names whatever the locale.
  if (const char* name = strerrorname_np(errno_value); name != nullptr) {
    return name;
  }
  return absl::StrCat("E", errno_value);
}

}  // namespace biosnoop
