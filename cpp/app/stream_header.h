#pragma once

// Filling the stream header and stats records from a run's options and
// counters (the values; sinks format them).

#include <cstdint>
#include <string>

#include "counters.h"
#include "options.h"
#include "probe.h"
#include "stream_info.h"

namespace biosnoop {

// host, boot id (/proc/sys/kernel/random/boot_id), kernel release, version,
// a random run id and the options in force.
StreamInfo MakeStreamInfo(const Options& options, const std::string& host,
                          int64_t start_realtime_ns);

// Consumer-side figures the kernel does not count.
struct ConsumerCounts {
  uint64_t decode_errors = 0;
  uint64_t expired = 0;
  uint64_t written = 0;
  uint64_t dropped = 0;
  uint64_t unfinished = 0;
  // Completions found missed in the in-flight table (MissedCompletionFinder).
  uint64_t missed_completions = 0;
  // --ops: whether calls are followed, and op records written.
  bool ops = false;
  uint64_t ops_written = 0;
};

// Every completion biosnoop knows it did not see, whatever the cause:
// skipped by the kernel and not rescued, hidden behind a reuse of its
// request, or found in the in-flight table after the disk finished it.
uint64_t TotalMissed(const Counters& kernel, const MissedHooks& missed,
                     uint64_t missed_completions);

// `run_id` is the run's StreamInfo::run_id.
StatsSnapshot MakeStats(const Counters& kernel, const MissedHooks& missed,
                        const ConsumerCounts& consumer, int64_t realtime_ns,
                        double elapsed_s, bool final,
                        const std::string& run_id);

// 16 random lowercase hex digits (getrandom), for StreamInfo::run_id.
std::string NewRunId();

}  // namespace biosnoop
