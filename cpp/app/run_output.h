#pragma once

// The run's output, opened at start (both modes): refused targets exit 73
// (OutputFile::Open), and a FIFO no process reads yet is waited for.
//
// A log agent that opens the FIFO a little after biosnoop starts is a
// normal deployment, so biosnoop waits for a reader before it loads the
// program (said on stderr), and the wait ends as a run would: SIGINT,
// SIGTERM or --duration (which counts the wait) end it, and the run ends
// there with exit 0, saying that no reader came and nothing was traced.

#include <cstdio>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "options.h"
#include "output_file.h"

namespace biosnoop {

struct RunOutput {
  std::unique_ptr<OutputFile> file;
  absl::Duration waited;  // for a reader of the FIFO
};

// Opens options.output, with OutputFile::GiveUpWhenStopping(StopRequested).
// An existing file of the user the run switches to (-Z, ResolveRunAs) is
// biosnoop's own, as root's is.
// Needs InstallSignalHandlers(): a stop during the wait is seen through
// StopRequested(), and --duration's timer is armed when the wait begins.
// Errors carry exit code 73 (exit_codes.h), except the stop during the
// wait: CancelledError "no process opened the FIFO ... before the stop;
// nothing was traced" (exit 0).
absl::StatusOr<RunOutput> OpenRunOutput(const Options& options,
                                        RecordFraming framing, std::FILE* diag);

// --duration less the wait for a reader (at least 1 ns: the stop is then
// due at once), nullopt without --duration.
std::optional<absl::Duration> DurationLeft(const Options& options,
                                           absl::Duration waited);

}  // namespace biosnoop
