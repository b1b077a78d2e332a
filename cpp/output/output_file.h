#pragma once

// The output file: buffered, record-atomic appends to a path or to stdout.
//
// Contract: only whole records ever reach the file.  A record is framed as
// the file's RecordFraming says: a '\n'-terminated line (JSON Lines), or a
// varint length followed by that many bytes (length-delimited protobuf).
// Callers hand over complete records; if a write fails part-way on a
// regular file (ENOSPC, EFBIG, EDQUOT, EIO, ...), the file is truncated back
// to the end of the last whole record written, so a reader (Filebeat,
// Vector, `bioreport`) never sees half a JSON object or half a message.
// Records accepted but not written are counted in records_dropped().
//
// A reader that takes nothing (`biosnoop | sleep 600`) blocks write(2)
// for as long as it likes; once the run is stopping (GiveUpWhenStopping)
// a blocked write gives up after a short grace instead, since a stop must
// end the run.
//
// Not thread-safe: one writer thread.  Only write_started_ns() may be
// read from another (a watcher that reports a blocked output).

#include <fcntl.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "output_open.h"
#include "stop_grace.h"

namespace biosnoop {

enum class RecordFraming {
  kLines,           // each record ends in '\n' and holds no other '\n'
  kVarintDelimited  // each record: base-128 varint length, then the bytes
};

class OutputFile {
 public:
  // Bytes buffered before a write(2) is issued.
  static constexpr size_t kBufferBytes = 64 * 1024;

  // "-" is stdout (fd 1, not closed by this object; use "./-" for a file
  // named "-").  Anything else is opened by OpenOutputPath()
  // (output_open.h): appending (never truncating an existing log),
  // created mode 0640, readable by the owner's group but not by everyone,
  // since I/O logs name processes and disks (the umask still applies; an
  // existing file keeps its mode), never through a symbolic link, never
  // waiting for a FIFO's reader.
  // What the output is must be fit for a stream (CheckOutputTarget,
  // output_target.h), stdout too: a block device, a directory, a socket
  // path or a character device other than /dev/null and terminals is
  // refused with FailedPreconditionError, before anything is written.
  // A symbolic link: FailedPreconditionError "... is a symbolic link ...".
  // A FIFO no process reads: UnavailableError (OpenWaitingForReader).
  // Other errors map errno to a status code, with a message like
  //   cannot open output "x": Permission denied
  // An existing file another user could read or rewrite is refused
  // (OpenOutputPath); `own_uid`'s files are biosnoop's own: the user it
  // runs as after loading (-Z).
  // The path's directory is opened first (O_PATH) and held: Reopen()
  // opens the name in it (OpenOutputAt), so that it needs no search
  // permission above the directory once biosnoop has switched user.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(
      absl::string_view path, RecordFraming framing = RecordFraming::kLines,
      uid_t own_uid = 0);

  // How often OpenWaitingForReader() looks for a reader.
  static constexpr absl::Duration kReaderPollInterval = absl::Milliseconds(50);

  // Open(), but while `path` is a FIFO no process reads, calls `waiting`
  // once (to say so) and tries again every kReaderPollInterval, until a
  // reader opens it (then returns the file) or `stopping()` is true:
  // CancelledError "no process opened the FIFO "x" for reading before the
  // stop".  A signal handled without SA_RESTART ends a pause early.
  static absl::StatusOr<std::unique_ptr<OutputFile>> OpenWaitingForReader(
      absl::string_view path, RecordFraming framing, bool (*stopping)(),
      absl::FunctionRef<void()> waiting, uid_t own_uid = 0);

  // Flushes what is buffered (errors are lost: call Flush() first to see
  // them), then closes the file unless it is stdout.
  ~OutputFile();

  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Buffers `whole_records` (one or more complete records in the file's
  // framing; empty is a no-op) and writes the buffer when it is full.
  // InvalidArgumentError, with nothing buffered, when the bytes are not
  // whole records (lines: not ending in '\n'; varint-delimited: a length
  // that is malformed or runs past the end).
  // Errors (from this call's write, if any):
  //   CancelledError("output closed by reader (broken pipe)") on EPIPE
  //     (the process must ignore SIGPIPE, or it dies before seeing this);
  //   otherwise the errno's status code with a message like
  //     writing "slow.jsonl": No space left on device
  // After an error, the records that were being written are dropped
  // (counted in records_dropped()); this call's own records stay buffered
  // when they fit.
  // The file stays open: a later call tries again (the disk may have space
  // by then).
  absl::Status Append(absl::string_view whole_records);

  // Append() for exactly one record that the caller formatted itself (the
  // sinks, once per event): the per-byte scan that finds record boundaries
  // is skipped, only the cheap framing check remains (lines: ends in '\n').
  // The caller guarantees a line holds no other '\n'.
  absl::Status AppendOne(absl::string_view record);

  // AppendOne() without the copy, for a sink that formats its record
  // straight into the buffer:
  //   absl::Status flushed;
  //   char* p = file->ReserveOne(bound, &flushed);   // room for `bound`
  //   char* end = Format(record, p);                 // at most `bound`
  //   absl::Status queued = file->CommitOne(p, end);
  // ReserveOne() writes the buffer out first when it lacks the room (that
  // write's error, as AppendOne() would return it, goes to *status; the
  // room is given all the same).  It returns nullptr when `bound` exceeds
  // what the buffer can ever hold: then use AppendOne().  Until CommitOne()
  // the bytes at p are not part of the file; a later ReserveOne() or
  // Append() without CommitOne() discards them.  CommitOne() checks the
  // framing as AppendOne() does (nothing queued on InvalidArgumentError).
  char* ReserveOne(size_t bound, absl::Status* status);
  absl::Status CommitOne(const char* begin, const char* end);

  // Writes everything buffered.  Same errors as Append().
  absl::Status Flush();

  // How long writes may keep blocking once the run is stopping: long
  // enough for a reader that is only slow (a log shipper's pause, a pager)
  // to take the rest of a record, and the stream's last records, short
  // enough that Ctrl-C, SIGTERM or --duration still end the run promptly
  // (systemd's stop timeout is 90 s by default).
  static constexpr absl::Duration kStopGrace = absl::Seconds(2);

  // Once `stopping()` is true, a write that blocks (a pipe or socket whose
  // reader takes nothing; never a regular file) keeps trying for `grace`
  // from the first time it blocks, then gives up: the records it could not
  // write are dropped (counted), and this and every later write fail at
  // once with DeadlineExceededError
  //   writing stdout: output stalled: ...
  // saying whether the last record that reached the reader is cut short (a
  // pipe cannot take back bytes it was given).  A blocked write(2) learns
  // of the stop by being interrupted (signals.h, InterruptibleWrite); on a
  // non-blocking fd, poll(2) waits at most until the grace ends.
  // Unset (the default), writes wait as long as the reader needs.
  void GiveUpWhenStopping(bool (*stopping)(),
                          absl::Duration grace = kStopGrace);

  // For log rotation (SIGHUP after logrotate renamed the file, "create"
  // mode): flushes to the old file, then opens the path again as Open()
  // does (the same refusals; the name in the held directory, as the user
  // the process is now) and closes the old one.  If the new open
  // fails, output keeps going to the old file, which stays open, and the
  // open error is returned ("cannot reopen output ...": the messages of
  // Open()); a later Reopen() tries again.  Call Flush() first to tell its
  // write errors from the open error.  For stdout, only flushes.
  // The open may block on a file system that does not answer: the run
  // opens on another thread (BackgroundOpen) and calls Adopt().
  absl::Status Reopen();

  // The second half of Reopen(): flushes to the old file, then writes to
  // `opened` (from OpenOutputPath() of path()) from now on and closes the
  // old one.  Returns the flush's error (the new file is adopted all the
  // same).  For stdout, only flushes (`opened` is closed).
  absl::Status Adopt(OpenedOutput opened);

  // For a start that fails after the output was opened (the probe cannot
  // load): removes the file if Open() (or the last Reopen()) created it,
  // nothing was ever buffered or written to it, and the path still names
  // it, empty.  Otherwise, and for stdout, does nothing.  Best effort: a
  // failed unlink leaves the empty file, as before.
  void RemoveIfCreatedAndUnused();

  // Before biosnoop switches to user `uid` (-Z): a file (or FIFO) the
  // last open created becomes `uid`'s (fchown; its group stays), so that
  // the user can open it again on SIGHUP and a later run takes it as its
  // own.  A file that was there before keeps its owner.  Errors are
  // fchown's ("giving output "x" to uid 1: Operation not permitted").
  absl::Status GiveTo(uid_t uid);
  // Whether the last open created the file.
  bool created() const { return created_; }

  // The path given to Open() ("-" for stdout).
  const std::string& path() const { return path_; }
  // The held directory (O_PATH) and the name in it that Reopen() opens;
  // AT_FDCWD and the whole path for stdout or a path with no last name.
  int dir_fd() const { return dir_fd_; }
  const std::string& name() const { return name_; }
  bool is_stdout() const { return !owns_fd_; }
  // As messages name the output: stdout, or the path quoted.
  std::string DisplayName() const;
  // A regular file (no reader to wait for; its writes still block on a
  // hung file system).
  bool is_regular() const { return is_regular_; }
  // A terminal (isatty) now: stdout or a path, as opened last.
  bool IsTerminal() const;
  // A terminal's width in columns now (TIOCGWINSZ); 0 when it is not a
  // terminal or does not say.
  int TerminalColumns() const;

  // When the write(2) under way began (CLOCK_MONOTONIC ns), 0 when none
  // is: a write that began seconds ago is blocked.  Safe to call from any
  // thread.
  uint64_t write_started_ns() const {
    return write_started_ns_.load(std::memory_order_relaxed);
  }

  RecordFraming framing() const { return framing_; }

  // Records / bytes that have fully reached the file (or pipe).
  uint64_t records_written() const { return records_written_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // Records handed to Append() that were discarded after a write error
  // (including a record trimmed off after a partial write).
  uint64_t records_dropped() const { return records_dropped_; }
  // Records accepted and still in the buffer.
  uint64_t records_buffered() const { return buffered_records_; }

 private:
  OutputFile(std::string path, RecordFraming framing, int fd, bool owns_fd,
             bool is_regular);

  // Writes `data` (holding `records` whole records) to the fd; see Append().
  absl::Status WriteRecords(absl::string_view data, uint64_t records);
  // After a failed write to a regular file: cuts off the `partial_bytes`
  // of an incomplete record that precede the file offset.
  absl::Status TrimPartialRecord(size_t partial_bytes);
  // How long poll(2) may wait for room on a non-blocking fd, in ms.
  int PollTimeoutMs() const;

  std::string path_;
  int dir_fd_ = AT_FDCWD;
  std::string name_;
  RecordFraming framing_;
  int fd_;
  bool owns_fd_;
  bool is_regular_;  // a regular file: a partial record can be truncated away
  bool created_ = false;  // the last open created the file
  // kBufferBytes of storage, allocated once; the first `used_` hold whole
  // records waiting for write(2).
  std::unique_ptr<char[]> buffer_;
  size_t used_ = 0;
  uint64_t buffered_records_ = 0;
  uint64_t records_written_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t records_dropped_ = 0;
  // GiveUpWhenStopping(): how long a blocked write goes on once stopping.
  StopGrace stop_grace_;
  // Once a write gave up: the error every later write returns at once.
  absl::Status stalled_;
  // See write_started_ns().
  std::atomic<uint64_t> write_started_ns_{0};
};

}  // namespace biosnoop
