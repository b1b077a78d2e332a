#pragma once

// How long a write that waits for its reader may go on once the run is
// stopping: `grace` from the first time it waited after the stop, then it
// gives up.  The one rule for the output file and the stderr stream, so
// that a stop ends the run even when nobody reads either.

#include <cstdint>

#include "absl/time/time.h"
#include "wall_clock.h"

namespace biosnoop {

class StopGrace {
 public:
  // Never gives up: waits as long as the reader needs.
  StopGrace() = default;
  // `stopping` says whether the run is stopping (from any thread).
  StopGrace(bool (*stopping)(), absl::Duration grace)
      : stopping_(stopping),
        grace_ns_(static_cast<uint64_t>(absl::ToInt64Nanoseconds(grace))) {}

  // Whether a stop can end a wait at all.
  bool armed() const { return stopping_ != nullptr; }
  absl::Duration grace() const { return absl::Nanoseconds(grace_ns_); }

  // A write waited: if the run is stopping, the grace starts now (once).
  void NoteWaited() {
    if (give_up_at_ns_ == 0 && stopping_ != nullptr && stopping_()) {
      give_up_at_ns_ = MonotonicNs() + grace_ns_;
    }
  }
  // When the wait gives up (CLOCK_MONOTONIC ns), 0 while the grace has
  // not started.
  uint64_t give_up_at_ns() const { return give_up_at_ns_; }
  // The grace started and is over (for good: it never starts again).
  bool Expired() const {
    return give_up_at_ns_ != 0 && MonotonicNs() >= give_up_at_ns_;
  }

 private:
  bool (*stopping_)() = nullptr;
  uint64_t grace_ns_ = 0;
  uint64_t give_up_at_ns_ = 0;
};

}  // namespace biosnoop
