#pragma once

// The served disk: its bytes (anonymous memory, sparse until written), the
// live Settings, and counters of what was served.  Thread-safe: FUSE worker
// threads admit requests while the delay thread completes them and a shell
// rewrites the settings.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "settings.h"

namespace biosnoop::slowdisk {

enum class Op { kRead, kWrite, kFlush };

// What happens to one admitted request, decided when it arrives.
struct Plan {
  Op op = Op::kRead;
  uint64_t delay_us = 0;  // hold the reply this long
  bool fail = false;      // then answer EIO instead of serving it
};

struct CounterSnapshot {
  uint64_t reads = 0;        // READ requests answered (including failed ones)
  uint64_t writes = 0;       // WRITE requests answered (including failed ones)
  uint64_t flushes = 0;      // FSYNC requests answered
  uint64_t errors = 0;       // reads and writes answered with EIO
  uint64_t read_bytes = 0;   // bytes of successful reads
  uint64_t write_bytes = 0;  // bytes of successful writes
  uint64_t in_flight = 0;    // admitted, not yet answered
  uint64_t max_in_flight = 0;  // peak of in_flight since start or reset
};

class Disk {
 public:
  // A zero-filled disk of size_bytes (> 0) with the given settings.
  static absl::StatusOr<std::unique_ptr<Disk>> Create(uint64_t size_bytes,
                                                      const Settings& initial);
  ~Disk();
  Disk(const Disk&) = delete;
  Disk& operator=(const Disk&) = delete;

  uint64_t size() const { return size_; }

  // Decides delay and failure for a request arriving now under the current
  // settings, and counts it in flight.  Every Admit needs one Complete.
  Plan Admit(Op op, uint64_t offset, uint64_t length);
  // Counts an admitted request as answered; bytes is what was transferred.
  void Complete(const Plan& plan, uint64_t bytes);

  // The bytes at [offset, offset + length), which the caller has clipped to
  // size().  Valid for the Disk's lifetime.
  const char* Data(uint64_t offset) const { return data_ + offset; }
  // Copies buf into [offset, offset + length), clipped by the caller.
  void Store(uint64_t offset, const char* buf, size_t length);

  // Settings and counters as "key=value" lines: what reading `control`
  // returns.
  std::string ControlText() const;
  // Applies a write to `control` (syntax: ApplyControlText).
  absl::Status ApplyControl(absl::string_view text);

  CounterSnapshot Counters() const;

 private:
  Disk(char* data, uint64_t size, const Settings& initial);

  char* const data_;
  const uint64_t size_;

  mutable std::mutex mu_;
  Settings settings_;  // guarded by mu_

  std::atomic<uint64_t> reads_{0}, writes_{0}, flushes_{0}, errors_{0};
  std::atomic<uint64_t> read_bytes_{0}, write_bytes_{0};
  std::atomic<uint64_t> in_flight_{0}, max_in_flight_{0};
};

}  // namespace biosnoop::slowdisk
