#pragma once

// The BPF ring buffer of records (struct biosnoop_event bytes, as the
// kernel wrote them), read by this process: each record handed to a
// RecordConsumer.

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct ring_buffer;

namespace biosnoop {

// Where Poll() and Drain() hand each ring-buffer record.  A non-OK status
// stops the current poll and is returned from Poll() or Drain().  The
// run's consumer is RecordPipeline (app/record_pipeline.h): decode,
// enrich, sink.
class RecordConsumer {
 public:
  virtual ~RecordConsumer() = default;
  virtual absl::Status Consume(const void* data, size_t size) = 0;
};

class RecordRing {
 public:
  // Reads the ring buffer map `map_fd` (not owned).  `consumer` outlives
  // this; nullptr: records are dropped (the kernel emits none when events
  // are disabled).
  static absl::StatusOr<std::unique_ptr<RecordRing>> Open(
      int map_fd, RecordConsumer* consumer);
  ~RecordRing();
  RecordRing(const RecordRing&) = delete;
  RecordRing& operator=(const RecordRing&) = delete;

  // Waits up to timeout_ms for records and hands each to the consumer.
  // Returns how many were consumed.  An interrupted wait is not an error.
  absl::StatusOr<int> Poll(int timeout_ms);
  // Hands every record already in the ring buffer to the consumer.
  absl::StatusOr<int> Drain();

 private:
  explicit RecordRing(RecordConsumer* consumer) : consumer_(consumer) {}
  static int OnRecord(void* ctx, void* data, size_t size);
  // libbpf's count, or the consumer's error that stopped it.
  absl::StatusOr<int> Result(int n, const char* what);

  ring_buffer* rb_ = nullptr;
  RecordConsumer* consumer_;
  absl::Status consumer_status_;
};

}  // namespace biosnoop
