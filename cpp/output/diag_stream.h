#pragma once

// The stream the run's messages go to: stderr, as a stdio stream that a
// stop does not wait on for ever.
//
// stderr may be a pipe nobody reads: the very pipe of the output
// (`biosnoop 2>&1 | shipper` with the shipper hung), or a pipe of its own.
// A message written there would block write(2) until the reader reads,
// and the summary line at a stop with it, so a SIGTERM would not end the
// run.  Here each write waits for room with poll(2) in steps of 100 ms
// and writes at most PIPE_BUF bytes at a time (which a pipe with room
// takes without blocking); once the run is stopping, a wait for room
// lasts at most `grace` in all, and then the stream gives up: that text
// and all later text are dropped (no one is reading them).  Before a
// stop, a write waits as long as the reader needs, as stderr always did.

#include <cstdio>

#include "absl/time/time.h"

namespace biosnoop {

// A line-buffered stream writing to `fd` (not closed by fclose).
// `stopping` is called from any thread that writes.  nullptr if the
// stream cannot be made (then use stderr itself).
std::FILE* OpenDiagStream(int fd, bool (*stopping)(), absl::Duration grace);

}  // namespace biosnoop
