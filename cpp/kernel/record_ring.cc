// The ring buffer's reader (record_ring.h).

#include "record_ring.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <utility>

#include "libbpf_status.h"

namespace biosnoop {

absl::StatusOr<std::unique_ptr<RecordRing>> RecordRing::Open(
    int map_fd, RecordConsumer* consumer) {
  std::unique_ptr<RecordRing> ring(new RecordRing(consumer));
  ring->rb_ =
      ring_buffer__new(map_fd, &RecordRing::OnRecord, ring.get(), nullptr);
  if (ring->rb_ == nullptr) return ErrnoStatus(errno, "open ring buffer");
  return ring;
}

RecordRing::~RecordRing() {
  if (rb_ != nullptr) ring_buffer__free(rb_);
}

int RecordRing::OnRecord(void* ctx, void* data, size_t size) {
  auto* self = static_cast<RecordRing*>(ctx);
  // Events disabled: the kernel emits none (ProbeConfig::events_disabled).
  if (self->consumer_ == nullptr) return 0;
  absl::Status s = self->consumer_->Consume(data, size);
  if (s.ok()) return 0;
  self->consumer_status_ = std::move(s);
  return -ECANCELED;
}

absl::StatusOr<int> RecordRing::Result(int n, const char* what) {
  if (n == -ECANCELED && !consumer_status_.ok()) {
    absl::Status s = std::move(consumer_status_);
    consumer_status_ = absl::OkStatus();
    return s;
  }
  if (n < 0) return ErrnoStatus(n, what);
  return n;
}

absl::StatusOr<int> RecordRing::Poll(int timeout_ms) {
  int n = ring_buffer__poll(rb_, timeout_ms);
  // Records submitted without a wakeup (see wakeup_flags in the BPF
  // program) do not end the wait: collect them when it times out.
  if (n == 0 || n == -EINTR) n = ring_buffer__consume(rb_);
  if (n == -EINTR) return 0;
  return Result(n, "poll ring buffer");
}

absl::StatusOr<int> RecordRing::Drain() {
  return Result(ring_buffer__consume(rb_), "drain ring buffer");
}

}  // namespace biosnoop
