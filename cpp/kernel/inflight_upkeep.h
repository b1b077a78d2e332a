#pragma once

// The upkeep of the kernel's in-flight table, the same in every run mode,
// so that every I/O biosnoop did not see whole is counted somewhere:
//  - missed: completions the kernel finished without running biosnoop's
//    hook (missed_completions.h), looked for once a second on idle disks
//    and removed from the table; an idle disk left with no request gets
//    its queue-depth counter zeroed;
//  - expired: requests older than max_age (a device removed mid-I/O),
//    removed so the bounded table cannot fill;
//  - unfinished: at exit, requests issued over kTickNs ago and still held.

#include <sys/types.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inflight_table.h"
#include "missed_completions.h"

namespace biosnoop {

// Between two looks at the in-flight table at exit (InflightUpkeep::
// ObserveAtExit): long enough for a completion whose hook is about to run.
inline constexpr useconds_t kMissedRecheckUs = 50000;

// Housekeeping period of both modes (rescue, missed completions), and the
// age past which a request still held at exit counts as unfinished.
inline constexpr uint64_t kTickNs = 1000000000;  // 1 s

// How often the in-flight table is swept for requests older than
// --max-inflight-age (at most half that age apart).
inline constexpr uint64_t kExpireEveryNs = 30000000000;  // 30 s

class InflightUpkeep {
 public:
  // `table` outlives this; times are CLOCK_MONOTONIC ns.
  InflightUpkeep(InflightTable& table, uint64_t max_age_ns, uint64_t start_ns);

  // From the poll loop: each check when it is due.
  absl::Status Run(uint64_t now_ns);
  // One more look for missed completions.  At exit call it twice,
  // kMissedRecheckUs apart, with the programs still attached (else every
  // completion in between would look missed).
  absl::Status ObserveAtExit();
  // Requests issued over kTickNs before now_ns and still held.
  absl::StatusOr<uint64_t> CountUnfinished(uint64_t now_ns);

  uint64_t missed_completions() const { return missed_completions_; }
  uint64_t expired() const { return expired_; }

 private:
  absl::Status FindMissedCompletions();

  InflightTable& table_;
  MissedCompletionFinder finder_;
  const uint64_t max_age_ns_;
  const uint64_t expire_every_ns_;
  uint64_t next_missed_check_;
  uint64_t next_expire_;
  uint64_t missed_completions_ = 0;
  uint64_t expired_ = 0;
};

}  // namespace biosnoop
