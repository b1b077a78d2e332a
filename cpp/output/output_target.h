#pragma once

// What a stream may be written to.  One rule for biosnoop's -o and
// stdout, and bioreport's convert -o (both open through OutputFile).
//
// Taken: a regular file, a FIFO (a log agent reading it), /dev/null, a
// terminal; on stdout also a socket (systemd's journal stream).
// Refused, with one sentence saying what the path is:
//  - a block device: a log appended there lands at offset 0 (block
//    devices ignore O_APPEND) and overwrites the disk's data;
//  - a directory, a socket given as a path (it cannot be opened);
//  - any other character device (a tape, a watchdog, /dev/mem ...):
//    nothing to read the log back from, and some act on open or write.

#include <sys/stat.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace biosnoop {

// `st` describes the output (lstat() before opening, fstat() after);
// `fd` is the opened descriptor, or -1 before the open (a character
// device is then judged by its number and sysfs class, after it by
// isatty(3)).  `is_stdout`: the process's stdout rather than a path.
// `what` starts the message: "cannot open output \"x\"" or "stdout".
// FailedPreconditionError "<what>: it is a block device: ..." when
// refused.
absl::Status CheckOutputTarget(const struct stat& st, int fd, bool is_stdout,
                               absl::string_view what);

}  // namespace biosnoop
