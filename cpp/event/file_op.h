#pragma once

// The domain call (proto message Op, --ops): one application call on a
// file that took at least --op-min-us, with its latency split into layers,
// decoded from the kernel's op record (decoder.h) and named by the
// enricher (EnrichedOp).  Independent of the record's byte layout.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "event.h"

namespace biosnoop {

// The calls followed; same values as enum biosnoop_call in
// bpf/biosnoop_abi.h.
enum class Call : uint8_t {
  kNone = 0,
  kRead = 1,
  kWrite = 2,
  kPread64 = 3,
  kPwrite64 = 4,
  kReadv = 5,
  kWritev = 6,
  kPreadv = 7,
  kPwritev = 8,
  kFsync = 9,
  kFdatasync = 10,
  kSyncFileRange = 11,
  kUringRead = 12,
  kUringWrite = 13,
  kUringFsync = 14,
};

// "read", ..., "sync_file_range", "io_uring_read", "io_uring_write",
// "io_uring_fsync"; "unknown" for anything else.
absl::string_view CallName(Call c);

// FileOp::throttle_qos bits, as BIOSNOOP_QOS_* in bpf/biosnoop_abi.h.
inline constexpr uint32_t kQosWbt = 1;
inline constexpr uint32_t kQosIoLatency = 2;
inline constexpr uint32_t kQosIoCost = 4;

// The names of the controllers in `qos` (kQos* bits), in bit order:
// "wbt", "io.latency", "io.cost" (Op.throttle_controllers).
std::vector<std::string> QosNames(uint32_t qos);

// The fsync family: fsync, fdatasync, sync_file_range, io_uring_fsync
// (calls with a writeback layer and no offset).
bool IsSyncCall(Call c);

// One layer of a call (proto OpLayer): its requests and how long the call
// had one in flight.
// One task behind a layer's requests that the call did not submit itself
// (proto OpCulprit).
struct OpCulprit {
  uint32_t pid = 0;
  std::array<char, 16> comm{};  // raw bytes, NUL-padded
  uint64_t cgroup_id = 0;
  CgroupLabel cgroup;    // named by the enricher
  bool dirtier = false;  // true: dirtied the pages; false: submitted them
  uint32_t requests = 0;
  uint64_t bytes = 0;
  uint64_t wait_ns = 0;

  absl::string_view Comm() const;
};

struct OpLayer {
  uint32_t requests = 0;
  uint64_t bytes = 0;
  uint64_t queue_ns_sum = 0;
  uint64_t queue_ns_max = 0;
  uint64_t device_ns_sum = 0;
  uint64_t device_ns_max = 0;
  uint64_t wait_ns = 0;
  // At most 4, the most waited-for first.
  std::vector<OpCulprit> culprits;
};

struct FileOp {
  uint64_t op_id = 0;
  Call call = Call::kNone;
  bool uring = false;  // an io_uring request, not a syscall
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::array<char, 16> comm{};  // raw bytes, NUL-padded
  uint64_t cgroup_id = 0;
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC
  uint64_t end_ns = 0;
  int64_t result = 0;  // bytes, 0, or -errno
  std::optional<uint64_t> offset;
  uint64_t bytes_requested = 0;
  bool bytes_requested_partial = false;
  // The file system's disk: whole disk and the block device (partition).
  uint32_t disk_major = 0;
  uint32_t disk_minor = 0;
  uint32_t part_major = 0;
  uint32_t part_minor = 0;
  // The call's file; `named` false when it could not be named at return
  // (file.ino and file.dev_* still hold what entry saw).
  FileRef file;
  bool named = false;
  // A call on overlayfs: the real file its file stands for (the upper one
  // once written, else the lower), on the file system that holds it, as
  // its own stat() gives it.  Absent for other file systems.
  std::optional<FileRef> real_file;
  OpLayer block;
  // Disks of the block layer's requests (kernel dev_t), at most 4, and how
  // many there were.
  std::vector<uint32_t> block_devs;
  uint32_t block_dev_count = 0;
  OpLayer writeback;
  uint32_t dirty_known = 0;       // writeback requests with a known dirtying
  uint64_t dirty_age_max_ns = 0;  // valid when dirty_known > 0
  uint64_t dirty_age_min_ns = 0;
  // What it waited for besides its own data (issue #39): the journal or
  // log and metadata, cache flushes, and other files' writeback.
  OpLayer journal;
  OpLayer flush;
  OpLayer others_writeback;
  // Its bios' waits before they became requests (rq_qos throttling: wbt,
  // io.latency, io.cost; or a free tag): requests counts bios, and the
  // controllers the queues had on (kQos* bits) when a bio waited.
  OpLayer throttle;
  uint32_t throttle_qos = 0;

  absl::string_view Comm() const;
  uint64_t LatencyNs() const {
    return end_ns > start_ns ? end_ns - start_ns : 0;
  }
  // LatencyNs() minus every layer's wait_ns, never below 0.
  uint64_t OtherNs() const;
  // The same in whole microseconds, from the others as they are written
  // (each rounded down to us): latency_us = the layers' wait_us +
  // other_us holds exactly in the output.
  uint64_t OtherUs() const;
  // Its layers, in the order of the proto's fields: block, writeback,
  // journal, flush, others_writeback, throttle.
  std::array<const OpLayer*, 6> Layers() const;
  // The bytes it read or wrote: result when not an error, else 0.
  uint64_t BytesDone() const {
    return result > 0 ? static_cast<uint64_t>(result) : 0;
  }
  // The positive errno when it failed (result < 0), else 0.
  int ErrorCode() const;
};

// An errno's name ("EIO", "EINTR"); empty for 0; "E<n>" for a number the
// C library does not name.
std::string ErrnoName(int errno_value);

// A call enriched for output.
struct EnrichedOp {
  FileOp op;
  std::string disk;       // as EnrichedEvent::disk
  std::string partition;  // empty when none
  CgroupLabel cgroup;
  FileLabel file;                        // file path (kind kNone: not named)
  FileLabel real_file;                   // op.real_file's path, when it has one
  std::vector<std::string> block_disks;  // names of op.block_devs
  int64_t realtime_ns = 0;               // wall clock of end_ns
  int64_t start_realtime_ns = 0;         // wall clock of start_ns
};

}  // namespace biosnoop
