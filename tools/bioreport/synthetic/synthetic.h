#pragma once

// Deterministic synthetic biosnoop streams, written through the real sinks
// (so they are byte for byte what biosnoop writes): the golden test
// fixtures and the benchmark inputs.  The same options and seed give the
// same stream on every machine (only mt19937_64's specified output is
// used, never the implementation-defined std distributions).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "sink.h"

namespace biosnoop::report {

struct SyntheticOptions {
  uint64_t events = 1000;
  uint64_t seed = 1;
  int64_t start_ns = 1795237200'000000000;  // 2026-11-21T05:00:00Z
  uint64_t stats_every = 0;  // a stats record every N events; 0: only final
  uint64_t lost = 0;         // reported in the final stats record
  // A summary record every N events, and one at the end; 0: none.
  uint64_t summary_every = 0;
  // Summaries carry fine latency buckets, as biosnoop writes them since
  // issue #40; without, they are an older biosnoop's (the golden
  // fixtures, kept so that bioreport's fallback stays tested).
  bool fine = false;
  // The header's host and boot id.  The events' host is the sink's: give
  // it the same name.  Another host (the fleet case) has another boot id.
  std::string host = "db7";
  std::string boot_id = "3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b";
};

// Writes a header, the events, periodic stats and a final stats record;
// with summary_every, summary records too, consistent with the events and
// the stats: each interval counts its events as slow completions, 9 fast
// completions (under the 10 ms threshold) beside each event, on the same
// disk, and the last interval the `lost` slow completions, so that the
// summaries' counts add up to the final stats' completions.  The events
// are the same with or without summaries (summaries draw from a random
// stream of their own).
absl::Status WriteSyntheticStream(const SyntheticOptions& options, Sink* sink);

}  // namespace biosnoop::report
