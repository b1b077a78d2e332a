#pragma once

// The run's signals: SIGINT/SIGTERM ask it to stop, SIGHUP to reopen the
// output.  SIGPIPE and SIGXFSZ are ignored: a closed pipe shows up as
// EPIPE and a file size limit (ulimit -f) as EFBIG, errors the output
// handles (whole records, loss counted), where the signals' default would
// kill the process mid-line.

namespace biosnoop {

// Installs the handlers without SA_RESTART, so a signal cuts a blocking
// wait (the ring-buffer poll) short.
void InstallSignalHandlers();

bool StopRequested();
// True once per SIGHUP received since the last call.
bool TakeReopenRequest();

}  // namespace biosnoop
