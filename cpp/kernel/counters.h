#pragma once

// The kernel program's per-CPU counters, summed over CPUs.

#include <array>
#include <cstdint>
#include <string>

#include "biosnoop_abi.h"

namespace biosnoop {

struct Counters {
  std::array<uint64_t, BIOSNOOP_CTR_MAX> v{};

  uint64_t completions() const { return v[BIOSNOOP_CTR_COMPLETIONS]; }
  uint64_t emitted() const { return v[BIOSNOOP_CTR_EMITTED]; }
  uint64_t lost() const { return v[BIOSNOOP_CTR_LOST]; }
  uint64_t orphans() const { return v[BIOSNOOP_CTR_ORPHANS]; }
  uint64_t below_threshold() const { return v[BIOSNOOP_CTR_BELOW_THRESHOLD]; }
  uint64_t filtered() const { return v[BIOSNOOP_CTR_FILTERED]; }
  // --ops: op records queued, lost (ring buffer full); calls not followed.
  uint64_t ops_emitted() const { return v[BIOSNOOP_CTR_OPS_EMITTED]; }
  uint64_t ops_lost() const { return v[BIOSNOOP_CTR_OPS_LOST]; }
  uint64_t ops_untracked() const { return v[BIOSNOOP_CTR_OPS_UNTRACKED]; }
  uint64_t ops_unfollowed() const { return v[BIOSNOOP_CTR_OPS_UNFOLLOWED]; }
};

// snake_case name of a counter, as printed in the summary line.
const char* CounterName(int index);

}  // namespace biosnoop
