#pragma once

// The output file: buffered, line-atomic appends to a path or to stdout.
//
// Contract: only whole lines ever reach the file.  Callers hand over text
// made of complete '\n'-terminated lines; if a write fails part-way on a
// regular file (ENOSPC, EFBIG, EDQUOT, EIO, ...), the file is truncated back
// to the end of the last whole line written, so a reader (Filebeat, Vector,
// `bioreport`) never sees half a JSON object.  Lines accepted but not
// written are counted in lines_dropped().
//
// Not thread-safe: one writer thread.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace biosnoop {

class OutputFile {
 public:
  // Bytes buffered before a write(2) is issued.
  static constexpr size_t kBufferBytes = 64 * 1024;

  // "-" is stdout (fd 1, not closed by this object; use "./-" for a file
  // named "-").  Anything else is opened
  //   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, mode 0640:
  // appending (never truncating an existing log), created readable by the
  // owner's group but not by everyone, since I/O logs name processes and
  // disks.  The umask still applies; an existing file keeps its mode.
  // A symbolic link as the final path component is refused (never
  // followed): FailedPreconditionError "... is a symbolic link ...".
  // Other errors map errno to a status code, with a message like
  //   cannot open output "x": Permission denied
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(
      absl::string_view path);

  // Flushes what is buffered (errors are lost: call Flush() first to see
  // them), then closes the file unless it is stdout.
  ~OutputFile();

  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Buffers `whole_lines` (one or more lines, each ending in '\n'; empty is
  // a no-op) and writes the buffer when it is full.  InvalidArgumentError,
  // with nothing buffered, when the text does not end in '\n'.
  // Errors (from this call's write, if any):
  //   CancelledError("output closed by reader (broken pipe)") on EPIPE
  //     (the process must ignore SIGPIPE, or it dies before seeing this);
  //   otherwise the errno's status code with a message like
  //     writing "slow.jsonl": No space left on device
  // After an error, the lines that were being written are dropped (counted
  // in lines_dropped()); this call's own lines stay buffered when they fit.
  // The file stays open: a later call tries again (the disk may have space
  // by then).
  absl::Status Append(absl::string_view whole_lines);

  // Writes everything buffered.  Same errors as Append().
  absl::Status Flush();

  // For log rotation (SIGHUP after logrotate renamed the file, "create"
  // mode): flushes to the old file, then opens the path again with the same
  // flags and mode and closes the old one.  If the new open fails, output
  // keeps going to the old file and the open error is returned.
  // For stdout, only flushes.
  absl::Status Reopen();

  // The path given to Open() ("-" for stdout).
  const std::string& path() const { return path_; }
  bool is_stdout() const { return !owns_fd_; }

  // Lines / bytes that have fully reached the file (or pipe).
  uint64_t lines_written() const { return lines_written_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // Lines handed to Append() that were discarded after a write error
  // (including a line trimmed off after a partial write).
  uint64_t lines_dropped() const { return lines_dropped_; }
  // Lines accepted and still in the buffer.
  uint64_t lines_buffered() const { return buffered_lines_; }

 private:
  OutputFile(std::string path, int fd, bool owns_fd, bool is_regular);

  // Writes `data` (holding `lines` whole lines) to the fd; see Append().
  absl::Status WriteLines(absl::string_view data, uint64_t lines);
  // After a failed write to a regular file: cuts off the `partial_bytes`
  // of an incomplete line that precede the file offset.
  absl::Status TrimPartialLine(size_t partial_bytes);
  std::string DisplayName() const;

  std::string path_;
  int fd_;
  bool owns_fd_;
  bool is_regular_;  // a regular file: a partial line can be truncated away
  std::string buffer_;
  uint64_t buffered_lines_ = 0;
  uint64_t lines_written_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t lines_dropped_ = 0;
};

}  // namespace biosnoop
