#pragma once

// One run of biosnoop, in either mode (run_mode.h), as named steps:
//   Start      check what can fail before the output exists, open the
//              output, load and attach (privileges dropped), arm --duration
//   Tick       one turn of the poll loop: poll (records to the mode's
//              consumer), Rotate, once a second the rescue, the followed
//              partition and cgroup and the mode's own upkeep, the mode's
//              periodic records, the in-flight table's upkeep
//   Rotate     SIGHUP's reopen of the output (output_rotation.h)
//   Drain      the last looks for missed completions, detach, what is
//              left in the ring buffer
//   Summarise  the last records and the summary line on stderr
// until a signal, the end of --duration, the mode's own end (--count
// reports: RunMode::Finished), or a closed or failed output.

#include <cstdint>
#include <cstdio>
#include <optional>

#include "absl/status/status.h"
#include "cgroup_watch.h"
#include "options.h"
#include "output_rotation.h"
#include "partition_watch.h"
#include "run_mode.h"

namespace biosnoop {

class Runner {
 public:
  // All three outlive this.
  Runner(const Options& options, std::FILE* diag, RunMode& mode);

  // Start, Tick until stopped, Drain, Summarise.  Errors as Run()'s.
  absl::Status Execute();

 private:
  absl::Status Start();
  // One turn; false once the loop must end (output error, --duration).
  absl::StatusOr<bool> Tick();
  absl::Status Rotate(uint64_t now_ns);
  absl::Status Drain();
  absl::Status Summarise();

  RunMode& mode_;
  RunState run_;
  uint64_t end_ns_ = UINT64_MAX;
  uint64_t next_second_ = 0;
  std::optional<PartitionWatch> partition_;
  std::optional<CgroupWatch> cgroup_;
  std::optional<OutputRotation> rotation_;
};

// Runs until stopped, in the mode the options ask for.  Informational
// lines (lost-event warnings, the final summary) go to `diag`; errors are
// returned, tagged with their exit code where the status code alone would
// be ambiguous (see exit_codes.h); an output error is exit 74, a closed
// pipe a clean end.
absl::Status Run(const Options& options, std::FILE* diag);

}  // namespace biosnoop
