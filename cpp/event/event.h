#pragma once

// The domain event: one slow block I/O completion, decoded from the kernel
// record (decoder.h) and independent of its byte layout, and its names
// for output (EnrichedEvent, filled by enricher.h).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "event_values.h"

namespace biosnoop {

// Same order and values as enum biosnoop_op in bpf/biosnoop_abi.h.
enum class Op : uint8_t {
  kRead = 0,
  kWrite = 1,
  kFlush = 2,
  kDiscard = 3,
  kSecureErase = 4,
  kWriteZeroes = 5,
  kZoneAppend = 6,
  kOther = 7,
};

// Normalised request flags (BIOSNOOP_FLAG_* in bpf/biosnoop_abi.h).
inline constexpr uint8_t kFlagPreflush = 1 << 0;
inline constexpr uint8_t kFlagFua = 1 << 1;
inline constexpr uint8_t kFlagRahead = 1 << 2;
inline constexpr uint8_t kFlagSync = 1 << 3;
inline constexpr uint8_t kFlagMeta = 1 << 4;

// What a block request holds from its issue on: who submitted it, where it
// goes, what it does.  An Event adds its completion; a StuckRequest
// (stuck_request.h) its time in flight so far.
struct Request {
  std::optional<uint64_t> queue_ns;  // submission -> issue, when known
  uint64_t sector = 0;  // start sector (512 B), relative to the whole disk
  uint32_t major = 0;   // whole disk
  uint32_t minor = 0;
  uint32_t bytes = 0;
  uint32_t pid = 0;  // tgid of the submitting task
  uint32_t tid = 0;
  uint32_t queue_depth =
      0;  // in flight on the disk at issue, this one included
  Op op = Op::kOther;
  uint8_t flags = 0;
  bool submit_known = false;  // pid/comm captured at submission (not at issue)
  std::array<char, 16> comm{};  // raw bytes, NUL-padded (may hold any byte)
  // The submitting task's cgroup v2 id (its directory's inode); 0 unknown.
  uint64_t cgroup_id = 0;
  // --ops: the call (FileOp::op_id) it was submitted under; 0: none.
  uint64_t op_id = 0;

  // The comm bytes up to the first NUL (at most 16).
  absl::string_view Comm() const;
};

// What the CPU was doing when the request completed; same values as
// BIOSNOOP_CTX_* in bpf/biosnoop_abi.h.
enum class CompletionContext : uint8_t {
  kUnknown = 0,
  kTask = 1,
  kSoftirq = 2,
  kHardirq = 3,
  // Not said at all: a record of a stream from before the field, read back
  // (bioreport).  Never the kernel's (the decoder maps what it does not
  // know to kUnknown); the event writers leave the field out.
  kAbsent = 255,
};

// "unknown", "task", "softirq", "hardirq"; "" for kAbsent.
absl::string_view CompletionContextName(CompletionContext c);

// What a request's first page holds, as the kernel side saw it; same
// values as BIOSNOOP_CONTENT_* in bpf/biosnoop_abi.h (kNotLooked: files
// off).  The enricher names kBlockDevice "metadata" or "device";
// kMetadata is metadata the kernel side knew as such (btrfs's btree, xfs's
// buffers, REQ_META writes of the device's cache).
enum class Content : uint8_t {
  kNotLooked = 0,
  kNone = 1,
  kFile = 2,
  kBlockDevice = 3,
  kUnknown = 4,
  kMetadata = 5,
};

// A file whose pages a request carries, as the kernel side named it.
struct FileRef {
  uint64_t ino = 0;
  uint32_t dev_major = 0;  // its file system (st_dev)
  uint32_t dev_minor = 0;
  bool direct = false;        // direct I/O of this file
  bool reached_root = false;  // names go up to its file system's root
  // Its name, then its parents' up to (not including) the root.
  std::vector<std::string> names;
};

// The task that dirtied a page (the kernel's dirtied-page ledger).
struct Dirtier {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::array<char, 16> comm{};  // raw bytes, NUL-padded
  uint64_t cgroup_id = 0;
  uint64_t dirtied_ns = 0;  // CLOCK_MONOTONIC
  uint64_t op_id = 0;       // --ops: the write call that dirtied it; 0: none

  absl::string_view Comm() const;
};

// What a reported request's pages hold (docs/guide/slow-fsync.md, "Files
// and dirtiers").
struct Attribution {
  Content content = Content::kNotLooked;
  uint32_t file_count = 0;  // distinct files; files lists the first ones
  bool incomplete = false;  // pages left unexamined: counts are lower bounds
  uint32_t bdev_major = 0;  // kBlockDevice: the device whose cache it is
  uint32_t bdev_minor = 0;
  std::vector<FileRef> files;
  std::optional<Dirtier> dirtier;  // of the first page
  uint32_t dirtier_count = 0;
  // --ops: the distinct write calls that dirtied its pages (the first 8)
  // and how many there were.
  std::vector<uint64_t> dirtier_op_ids;
  uint32_t dirtier_op_count = 0;
};

// An event's generic fields (proto/biosnoop.proto: `generic`), by
// EventValue (event_values.h, generated from the schema): each unknown
// until set, durations in nanoseconds.  Every writer expands
// BIOSNOOP_EVENT_VALUES over them, so a new one needs no code here.
class EventValues {
 public:
  std::optional<uint64_t> Get(EventValue v) const {
    const size_t i = static_cast<size_t>(v);
    if (!(known_ & (uint64_t{1} << i))) return std::nullopt;
    return values_[i];
  }
  void Set(EventValue v, uint64_t value) {
    const size_t i = static_cast<size_t>(v);
    values_[i] = value;
    known_ |= uint64_t{1} << i;
  }
  void Clear(EventValue v) {
    known_ &= ~(uint64_t{1} << static_cast<size_t>(v));
  }
  void ClearAll() { known_ = 0; }
  bool AnyKnown() const { return known_ != 0; }

 private:
  static_assert(kEventValueCount <= 64, "one bit each in known_");
  std::array<uint64_t, kEventValueCount> values_{};
  uint64_t known_ = 0;
};

// One completed request.
struct Event : Request {
  uint64_t complete_ns = 0;  // CLOCK_MONOTONIC at completion
  uint64_t device_ns = 0;    // issue -> completion
  // The generic fields: e.g. the driver's own time, where its tracepoints
  // are (NVMe), EventValue::kDriverPrepUs and kDriverDoneUs.
  EventValues values;
  uint8_t blk_status = 0;  // the kernel's blk_status_t; 0 = success
  CompletionContext completion_context = CompletionContext::kUnknown;
  Attribution attribution;

  // Latency the threshold was compared against: device time, plus queue
  // time when `include_queue` and the queue time is known.
  uint64_t LatencyNs(bool include_queue) const;
};

// "read", "write", "flush", "discard", "secure_erase", "write_zeroes",
// "zone_append", "other".
absl::string_view OpName(Op op);

// The longest OpName() ("secure_erase", "write_zeroes").
inline constexpr size_t kMaxOpNameLength = 12;

// The kernel's rwbs string (blk_fill_rwbs): e.g. "R", "WS", "FWFS", "RA".
// A view into a constant table: no allocation, no formatting per call.
absl::string_view Rwbs(Op op, uint8_t flags);

// The longest Rwbs(): preflush, a two-letter op, FUA, readahead, sync, meta.
inline constexpr size_t kMaxRwbsLength = 7;

// The longest BlkStatusToError() name ("ETOOMANYREFS").
inline constexpr size_t kMaxErrorNameLength = 12;

// blk_status_t -> errno, as the kernel's blk_status_to_errno() maps it.
struct BlkError {
  int errno_value;         // 0 for success
  absl::string_view name;  // "EIO"; empty for success
};
BlkError BlkStatusToError(uint8_t blk_status);

// A cgroup's names for output (cgroup_names.h): its path and the
// container and pod the path names.
struct CgroupLabel {
  bool known = false;        // the path was found (else: null in output)
  std::string path;          // relative to the v2 root; "/" for the root
  std::string container_id;  // 64 lowercase hex; empty: none
  std::string pod_uid;       // with dashes; empty: none
};

// How a file's path was resolved (FileLabel::kind).
enum class PathKind : uint8_t {
  kNone = 0,    // no name at all
  kAbsolute,    // its mount point joined with the path inside it
  kFsRelative,  // from its file system's root (not mounted here)
  kName,        // its own name only
};

// "", "absolute", "fs_relative", "name".
absl::string_view PathKindName(PathKind k);

// A file's path for output.
struct FileLabel {
  std::string path;
  PathKind kind = PathKind::kNone;
};

// An event's attribution for output (beside event.attribution).
struct AttributionLabel {
  // "file", "metadata", "device", "unknown", "none"; empty: not looked.
  absl::string_view content;
  std::vector<FileLabel> files;  // one per event.attribution.files
  CgroupLabel dirtier_cgroup;    // of the dirtier's cgroup id
  int64_t dirtied_realtime_ns = 0;
};

// Event enriched for output.
struct EnrichedEvent {
  Event event;
  std::string disk;       // "vda"; "254:0" when sysfs does not know it
  std::string partition;  // "vda1"; empty when the sector is in no partition
  // The devices stacked on the partition (or, with none, the disk),
  // nearest first: kernel names, each device-mapper one followed by its
  // mapper name ("dm-0", "vg0-data"); empty: none (stacked_devices.h).
  std::vector<std::string> stack;
  CgroupLabel cgroup;  // of event.cgroup_id
  AttributionLabel attribution;
  int64_t realtime_ns = 0;  // wall-clock time of the completion, ns since epoch
  uint64_t seq = 0;         // 1-based position in this run's output
  bool include_queue = false;  // latency_us includes the queue time (-Q)
};

}  // namespace biosnoop
