#pragma once

// Deterministic synthetic biosnoop streams, written through the real sinks
// (so they are byte for byte what biosnoop writes): the golden test
// fixtures and the benchmark inputs.  The same options and seed give the
// same stream on every machine (only mt19937_64's specified output is
// used, never the implementation-defined std distributions).

#include <cstdint>

#include "absl/status/status.h"
#include "sink.h"

namespace biosnoop::report {

struct SyntheticOptions {
  uint64_t events = 1000;
  uint64_t seed = 1;
  int64_t start_ns = 1795237200'000000000;  // 2026-11-21T05:00:00Z
  uint64_t stats_every = 0;  // a stats record every N events; 0: only final
  uint64_t lost = 0;         // reported in the final stats record
};

// Writes a header, the events, periodic stats and a final stats record.
absl::Status WriteSyntheticStream(const SyntheticOptions& options, Sink* sink);

}  // namespace biosnoop::report
