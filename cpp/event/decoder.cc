// The kernel's record and in-flight entry -> Event and StuckRequest; the one
// place in event/ that sees their layout (decoder.h).

#include "decoder.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "biosnoop_abi.h"

namespace biosnoop {

static_assert(
    sizeof(biosnoop_event) == 112,
    "struct biosnoop_event layout changed: bump BIOSNOOP_ABI_VERSION");
static_assert(BIOSNOOP_OP_OTHER == static_cast<int>(Op::kOther));
static_assert(BIOSNOOP_FLAG_META == kFlagMeta);
static_assert(BIOSNOOP_CTX_HARDIRQ ==
              static_cast<int>(CompletionContext::kHardirq));
static_assert(BIOSNOOP_CTX_SOFTIRQ ==
              static_cast<int>(CompletionContext::kSoftirq));
static_assert(BIOSNOOP_CTX_TASK == static_cast<int>(CompletionContext::kTask));

absl::Status DecodeRecordInto(const void* data, size_t size, Event* out) {
  if (size < sizeof(biosnoop_event)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "short record: %d bytes, expected %d", size, sizeof(biosnoop_event)));
  }
  // The ring buffer only guarantees 8-byte alignment; copy to be safe for
  // any caller (tests hand in arbitrary buffers).
  biosnoop_event raw;
  std::memcpy(&raw, data, sizeof(raw));
  if (raw.abi_version != BIOSNOOP_ABI_VERSION) {
    return absl::FailedPreconditionError(
        absl::StrFormat("record ABI version %d, this biosnoop speaks %d",
                        raw.abi_version, BIOSNOOP_ABI_VERSION));
  }
  if (raw.kind != BIOSNOOP_REC_EVENT) {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown record kind %d", raw.kind));
  }
  if (raw.size < sizeof(biosnoop_event) || raw.size > size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("record says it is %d bytes, got %d", raw.size, size));
  }

  Event& e = *out;
  e.complete_ns = raw.complete_ns;
  e.device_ns = raw.device_ns;
  if (raw.queue_ns != BIOSNOOP_QUEUE_UNKNOWN) {
    e.queue_ns = raw.queue_ns;
  } else {
    e.queue_ns.reset();
  }
  e.blk_status = raw.blk_status;
  e.completion_context =
      raw.completion_context <= BIOSNOOP_CTX_HARDIRQ
          ? static_cast<CompletionContext>(raw.completion_context)
          : CompletionContext::kUnknown;
  CopyRequestFields(raw, &e);
  return absl::OkStatus();
}

absl::StatusOr<Event> DecodeRecord(const void* data, size_t size) {
  Event e;
  if (absl::Status s = DecodeRecordInto(data, size, &e); !s.ok()) return s;
  return e;
}

StuckRequest DecodeStuck(const biosnoop_inflight_val& v, uint64_t found_ns) {
  StuckRequest s;
  s.found_ns = found_ns;
  s.inflight_ns = found_ns > v.issue_ns ? found_ns - v.issue_ns : 0;
  // As the kernel computes an event's queue time (bpf on_complete).
  if (v.submit_ns != 0 && v.submit_ns <= v.issue_ns) {
    s.request.queue_ns = v.issue_ns - v.submit_ns;
  }
  CopyRequestFields(v, &s.request);
  return s;
}

}  // namespace biosnoop
