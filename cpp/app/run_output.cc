// The run's output opened at start, waiting for a FIFO's reader as a run would
// (run_output.h).

#include "run_output.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exit_codes.h"
#include "privileges.h"
#include "signals.h"
#include "status_macros.h"
#include "wall_clock.h"

namespace biosnoop {

absl::StatusOr<RunOutput> OpenRunOutput(const Options& options,
                                        RecordFraming framing,
                                        std::FILE* diag) {
  // Checked at start (Runner::Start) before the output is opened; the
  // user database says the same now.
  ASSIGN_OR_RETURN(const RunAs run_as, ResolveRunAs(options.user));
  uint64_t wait_start_ns = 0;  // 0: no wait
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::OpenWaitingForReader(
          options.output, framing, &StopRequested,
          [&] {
            wait_start_ns = MonotonicNs();
            absl::FPrintF(diag,
                          "biosnoop: waiting for a process to open the FIFO "
                          "%s for reading; tracing starts when one does%s\n",
                          QuotedPath(options.output),
                          options.duration.has_value()
                              ? " (--duration counts the wait)"
                              : "");
            // The run must end on time even if no reader ever comes.
            if (options.duration.has_value()) {
              RequestStopAfter(*options.duration);
            }
          },
          run_as.uid);
  if (absl::IsCancelled(file.status())) {
    return absl::CancelledError(
        absl::StrCat(file.status().message(), "; nothing was traced"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> opened, std::move(file),
                   WithExitCode(_, kExitCantCreate));
  // A stop (signal, --duration) must end the run even when the reader
  // has stopped reading.
  opened->GiveUpWhenStopping(&StopRequested);
  const absl::Duration waited =
      wait_start_ns == 0 ? absl::ZeroDuration()
                         : absl::Nanoseconds(MonotonicNs() - wait_start_ns);
  return RunOutput{std::move(opened), waited};
}

std::optional<absl::Duration> DurationLeft(const Options& options,
                                           absl::Duration waited) {
  if (!options.duration.has_value()) return std::nullopt;
  return std::max(*options.duration - waited, absl::Nanoseconds(1));
}

}  // namespace biosnoop
