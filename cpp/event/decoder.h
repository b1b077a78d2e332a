#pragma once

// Raw ring-buffer record -> Event.  Pure: no I/O, no state.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/statusor.h"
#include "event.h"

namespace biosnoop {

// Decodes one record as the kernel program wrote it (struct biosnoop_event
// in bpf/biosnoop_abi.h).  Errors: InvalidArgument for a record shorter than
// the layout or of an unknown kind, FailedPrecondition for a record of
// another ABI version (a kernel program from a different build).
absl::StatusOr<Event> DecodeRecord(const void* data, size_t size);

// The same, into *out (every field set on success; *out unspecified on
// error).  The consumer's per-event path: no Event is built and copied.
absl::Status DecodeRecordInto(const void* data, size_t size, Event* out);

// The request's fields a kernel structure holds under the same names as
// struct biosnoop_event (the record, or an in-flight table entry): sector,
// dev (split into major and minor), bytes, pid, tid, queue_depth, op
// (anything unknown is kOther), flags, submit_known and comm.  The times
// are the caller's: they mean different things in each structure.
template <typename Raw>
void CopyRequestFields(const Raw& raw, Event* e) {
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
}

}  // namespace biosnoop
