#pragma once

// The kernel's structures -> domain values: a ring-buffer record -> Event,
// an in-flight table entry -> StuckRequest.  Pure: no I/O, no state.  The
// structures' layout (bpf/biosnoop_abi.h) is seen only in decoder.cc, so
// this header does not bring the ABI to the layers above.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/statusor.h"
#include "event.h"
#include "file_op.h"
#include "stuck_request.h"

struct biosnoop_inflight_val;  // bpf/biosnoop_abi.h

namespace biosnoop {

// Decodes one record as the kernel program wrote it (struct biosnoop_event
// in bpf/biosnoop_abi.h).  Errors: InvalidArgument for a record shorter than
// the layout or of an unknown kind, FailedPrecondition for a record of
// another ABI version (a kernel program from a different build).
absl::StatusOr<Event> DecodeRecord(const void* data, size_t size);

// The same, into *out (every field set on success; *out unspecified on
// error).  The consumer's per-event path: no Event is built and copied.
absl::Status DecodeRecordInto(const void* data, size_t size, Event* out);

// What a ring-buffer record is: every kind's record holds its kind in the
// byte at kRecordKindOffset (BIOSNOOP_REC_* in bpf/biosnoop_abi.h).
enum class RecordKind : uint8_t {
  kUnknown = 0,  // too short to say, or a kind this biosnoop does not know
  kEvent = 1,    // struct biosnoop_event: DecodeRecordInto
  kOp = 2,       // struct biosnoop_op_record (--ops): DecodeOpRecordInto
};
inline constexpr size_t kRecordKindOffset = 4;
RecordKind RecordKindOf(const void* data, size_t size);

// Decodes one op record (struct biosnoop_op_record and the file's names
// after it) into *out, every field set on success (*out unspecified on
// error).  Errors as DecodeRecordInto's: InvalidArgument for a record
// shorter than the layout, of another kind, whose size or names_len does
// not add up, or of an unknown call; FailedPrecondition for another ABI
// version.  The file's names are read as an event's files' (a name running
// past the end stops the chain); a file not named at return
// (BIOSNOOP_OPF_NAMED clear) keeps its inode and device but no names.
absl::Status DecodeOpRecordInto(const void* data, size_t size, FileOp* out);

// A Request's fields a kernel structure holds under the same names as
// struct biosnoop_event (the record, or an in-flight table entry): sector,
// dev (split into major and minor), bytes, pid, tid, queue_depth, op
// (anything unknown is kOther), flags, submit_known, comm and cgroup_id.
// queue_ns is the caller's: each structure keeps the times its own way.
template <typename Raw>
void CopyRequestFields(const Raw& raw, Request* e) {
  e->sector = raw.sector;
  e->major = raw.dev >> 20;
  e->minor = raw.dev & ((1u << 20) - 1);
  e->bytes = raw.bytes;
  e->pid = raw.pid;
  e->tid = raw.tid;
  e->queue_depth = raw.queue_depth;
  e->op = raw.op <= static_cast<uint8_t>(Op::kOther) ? static_cast<Op>(raw.op)
                                                     : Op::kOther;
  e->flags = raw.flags;
  e->submit_known = raw.submit_known != 0;
  static_assert(sizeof(raw.comm) == sizeof(e->comm));
  std::memcpy(e->comm.data(), raw.comm, sizeof(raw.comm));
  e->cgroup_id = raw.cgroup_id;
  e->op_id = raw.op_id;
}

// An issued in-flight table entry found still in flight at found_ns
// (CLOCK_MONOTONIC): its Request fields, queue_ns when its submission was
// seen before its issue (as the kernel computes an event's), and
// inflight_ns = found_ns - issue (0 if found_ns is earlier).  Names and
// wall-clock time are the enricher's.
StuckRequest DecodeStuck(const biosnoop_inflight_val& entry, uint64_t found_ns);

// A stuck request's files (InflightTable::StuckFiles: struct biosnoop_attr
// and its names, as in a record) into s->attribution; `size` 0: not looked.
// Errors: InvalidArgument when they do not add up (s->attribution is then
// not looked).
absl::Status DecodeStuckFiles(const void* data, size_t size, StuckRequest* s);

}  // namespace biosnoop
