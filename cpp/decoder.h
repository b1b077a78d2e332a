#pragma once

// Raw ring-buffer record -> Event.  Pure: no I/O, no state.

#include <cstddef>

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

}  // namespace biosnoop
