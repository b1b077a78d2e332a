#pragma once

// The run's signals: SIGINT/SIGTERM ask it to stop, SIGHUP to reopen the
// output.  SIGPIPE and SIGXFSZ are ignored: a closed pipe shows up as
// EPIPE and a file size limit (ulimit -f) as EFBIG, errors the output
// handles (whole records, loss counted), where the signals' default would
// kill the process mid-line.
//
// A stop must also end a write(2) blocked on a reader that takes nothing
// (`biosnoop | sleep 600`): see InterruptibleWrite.

#include "absl/time/time.h"

namespace biosnoop {

// Installs the handlers without SA_RESTART, so a signal cuts a blocking
// wait (the ring-buffer poll, a write to a full pipe) short.
void InstallSignalHandlers();

// The end of --duration: a stop request `after` from now, delivered as a
// signal (SIGALRM, handled as SIGTERM is) so that it interrupts a blocked
// write as SIGTERM would.  Needs InstallSignalHandlers().
void RequestStopAfter(absl::Duration after);

bool StopRequested();
// True once per SIGHUP received since the last call.
bool TakeReopenRequest();

// While one exists, around a write(2) that may block: once a stop is
// requested (before or during the write), the call is interrupted with
// EINTR (or returns a short count) every kWriteWakeup, so that the
// writer sees the stop and can decide how long to keep trying.  Without
// InstallSignalHandlers() it does nothing.  Not nestable.
class InterruptibleWrite {
 public:
  static constexpr absl::Duration kWriteWakeup = absl::Milliseconds(100);

  InterruptibleWrite();
  ~InterruptibleWrite();
  InterruptibleWrite(const InterruptibleWrite&) = delete;
  InterruptibleWrite& operator=(const InterruptibleWrite&) = delete;
};

}  // namespace biosnoop
