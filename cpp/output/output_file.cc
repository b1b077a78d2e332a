// The output file: whole records or none, its buffer, its errors and the stop
// (output_file.h).

#include "output_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "output_open.h"
#include "signals.h"
#include "status_macros.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

// The complete records at the start of `data`: how many, and the bytes
// they span.  Append() needs it to validate its input and a failed write to
// know where the last whole record ended; neither is on a per-byte hot path
// (a line is counted with std::count, a protobuf record costs one varint).
struct WholeRecords {
  uint64_t count = 0;
  size_t bytes = 0;
};

WholeRecords ScanRecords(RecordFraming framing, absl::string_view data) {
  WholeRecords whole;
  if (framing == RecordFraming::kLines) {
    const size_t last_newline = data.rfind('\n');
    if (last_newline == absl::string_view::npos) return whole;
    whole.bytes = last_newline + 1;
    whole.count = static_cast<uint64_t>(
        std::count(data.begin(), data.begin() + whole.bytes, '\n'));
    return whole;
  }
  size_t pos = 0;
  while (pos < data.size()) {
    uint64_t length = 0;
    size_t i = pos;
    int shift = 0;
    bool complete = false;
    while (i < data.size() && shift < 64) {
      const auto byte = static_cast<unsigned char>(data[i++]);
      length |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0) {
        complete = true;
        break;
      }
    }
    if (!complete || length > data.size() - i) break;
    pos = i + static_cast<size_t>(length);
    whole.bytes = pos;
    ++whole.count;
  }
  return whole;
}

constexpr char kNotWholeLines[] =
    "output text must be whole lines ending in a newline";

// One record, as AppendOne() and CommitOne() take it: in JSON Lines, a
// line.  Length-delimited records cannot be told whole from their end.
absl::Status CheckOneRecord(RecordFraming framing, char last_byte) {
  if (framing == RecordFraming::kLines && last_byte != '\n') {
    return absl::InvalidArgumentError(kNotWholeLines);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(
    absl::string_view path, RecordFraming framing, uid_t own_uid) {
  if (path.empty()) {
    return absl::InvalidArgumentError("output path is empty");
  }
  if (path == "-") {
    // The shell opened it (`> /dev/sdb` is as destructive as -o /dev/sdb).
    if (absl::Status s = CheckStdoutTarget(); !s.ok()) return s;
    struct stat st;
    const bool is_regular =
        fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode);  // `> x.jsonl`
    return std::unique_ptr<OutputFile>(new OutputFile(
        "-", framing, STDOUT_FILENO, /*owns_fd=*/false, is_regular));
  }
  std::string p(path);
  OutputPlace place = SplitOutputPath(p);
  int dir_fd = AT_FDCWD;
  if (!place.dir.empty()) {
    dir_fd = open(place.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("cannot open output ", QuotedPath(p)));
    }
  }
  absl::StatusOr<OpenedOutput> opened =
      OpenOutputAt(dir_fd, place.name, p, "open", own_uid);
  if (!opened.ok()) {
    if (dir_fd >= 0) close(dir_fd);
    return opened.status();
  }
  const bool is_regular = opened->is_regular();
  const bool created = opened->created();
  auto file = std::unique_ptr<OutputFile>(new OutputFile(
      std::move(p), framing, opened->Release(), /*owns_fd=*/true, is_regular));
  file->created_ = created;
  file->dir_fd_ = dir_fd;
  file->name_ = std::move(place.name);
  return file;
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::OpenWaitingForReader(
    absl::string_view path, RecordFraming framing, bool (*stopping)(),
    absl::FunctionRef<void()> waiting, uid_t own_uid) {
  bool said = false;
  for (;;) {
    absl::StatusOr<std::unique_ptr<OutputFile>> file =
        Open(path, framing, own_uid);
    if (file.ok() || !absl::IsUnavailable(file.status())) return file;
    if (!said) {
      waiting();
      said = true;
    }
    if (stopping()) {
      return absl::CancelledError(absl::StrCat("no process opened the FIFO ",
                                               QuotedPath(path),
                                               " for reading before the stop"));
    }
    // A stop signal cuts the sleep short (no SA_RESTART); one that lands
    // just before it is seen at most one interval late.
    const struct timespec interval = {
        0, static_cast<long>(absl::ToInt64Nanoseconds(kReaderPollInterval))};
    nanosleep(&interval, nullptr);
  }
}
OutputFile::OutputFile(std::string path, RecordFraming framing, int fd,
                       bool owns_fd, bool is_regular)
    : path_(std::move(path)),
      framing_(framing),
      fd_(fd),
      owns_fd_(owns_fd),
      is_regular_(is_regular),
      // Not value-initialised: every byte is written before it is read.
      buffer_(new char[kBufferBytes]) {}

bool OutputFile::IsTerminal() const { return isatty(fd_) == 1; }

int OutputFile::TerminalColumns() const {
  struct winsize ws {};
  if (ioctl(fd_, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

OutputFile::~OutputFile() {
  (void)Flush();
  if (owns_fd_) close(fd_);
  if (dir_fd_ >= 0) close(dir_fd_);
}

std::string OutputFile::DisplayName() const {
  return owns_fd_ ? QuotedPath(path_) : std::string("stdout");
}

absl::Status OutputFile::Append(absl::string_view whole_records) {
  if (whole_records.empty()) return absl::OkStatus();
  const WholeRecords whole = ScanRecords(framing_, whole_records);
  if (whole.bytes != whole_records.size()) {
    return absl::InvalidArgumentError(
        framing_ == RecordFraming::kLines
            ? kNotWholeLines
            : "output bytes must be whole length-delimited records");
  }
  const uint64_t records = whole.count;

  absl::Status status;
  if (used_ + whole_records.size() > kBufferBytes) {
    status = Flush();  // on error the buffer's records are already dropped
  }
  if (whole_records.size() >= kBufferBytes) {
    // Too big to be worth copying: straight to the file.
    if (!status.ok()) {
      records_dropped_ += records;
      return status;
    }
    return WriteRecords(whole_records, records);
  }
  // Even after a failed flush, keep this call's records for the next attempt.
  std::memcpy(buffer_.get() + used_, whole_records.data(),
              whole_records.size());
  used_ += whole_records.size();
  buffered_records_ += records;
  return status;
}

absl::Status OutputFile::AppendOne(absl::string_view record) {
  if (record.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(CheckOneRecord(framing_, record.back()));
  absl::Status status;
  if (used_ + record.size() > kBufferBytes) status = Flush();
  if (record.size() >= kBufferBytes) {
    if (!status.ok()) {
      ++records_dropped_;
      return status;
    }
    return WriteRecords(record, 1);
  }
  std::memcpy(buffer_.get() + used_, record.data(), record.size());
  used_ += record.size();
  ++buffered_records_;
  return status;
}

char* OutputFile::ReserveOne(size_t bound, absl::Status* status) {
  if (bound >= kBufferBytes) return nullptr;  // as AppendOne: not buffered
  if (used_ + bound > kBufferBytes) *status = Flush();
  return buffer_.get() + used_;
}

absl::Status OutputFile::CommitOne(const char* begin, const char* end) {
  if (begin != buffer_.get() + used_ || end < begin ||
      static_cast<size_t>(end - buffer_.get()) > kBufferBytes) {
    return absl::InternalError("CommitOne without its ReserveOne");
  }
  if (end == begin) return absl::OkStatus();
  RETURN_IF_ERROR(CheckOneRecord(framing_, end[-1]));
  used_ += static_cast<size_t>(end - begin);
  ++buffered_records_;
  return absl::OkStatus();
}

absl::Status OutputFile::Flush() {
  if (used_ == 0) return absl::OkStatus();
  absl::Status status =
      WriteRecords(absl::string_view(buffer_.get(), used_), buffered_records_);
  used_ = 0;
  buffered_records_ = 0;
  return status;
}

void OutputFile::GiveUpWhenStopping(bool (*stopping)(), absl::Duration grace) {
  stop_grace_ = StopGrace(stopping, grace);
}

int OutputFile::PollTimeoutMs() const {
  if (const uint64_t give_up_at = stop_grace_.give_up_at_ns();
      give_up_at != 0) {
    const uint64_t now = MonotonicNs();
    return now >= give_up_at
               ? 0
               : static_cast<int>((give_up_at - now) / 1000000 + 1);
  }
  // A stop signal interrupts poll(2), but one landing just before the call
  // would not: look again now and then.
  if (stop_grace_.armed()) {
    return static_cast<int>(
        absl::ToInt64Milliseconds(InterruptibleWrite::kWriteWakeup));
  }
  return -1;
}

absl::Status OutputFile::WriteRecords(absl::string_view data,
                                      uint64_t records) {
  if (!stalled_.ok()) {
    // Nothing more after a stalled write: it may have cut a record short,
    // and what came next would be glued to it.
    records_dropped_ += records;
    return stalled_;
  }
  // A regular file has no reader to wait for (and the kernel does not
  // interrupt its writes); anything else may block until a stop cuts in.
  std::optional<InterruptibleWrite> interruptible;
  if (stop_grace_.armed() && !is_regular_) interruptible.emplace();
  write_started_ns_.store(MonotonicNs(), std::memory_order_relaxed);
  size_t done = 0;
  int err = 0;
  bool gave_up = false;
  while (done < data.size()) {
    if (stop_grace_.Expired()) {
      gave_up = true;
      break;
    }
    const ssize_t n = write(fd_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      // Short: the pipe filled and a signal ended the wait.
      if (done < data.size()) stop_grace_.NoteWaited();
      continue;
    }
    if (n < 0 && errno == EINTR) {
      stop_grace_.NoteWaited();
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // stdout may be a non-blocking pipe inherited from the caller.
      stop_grace_.NoteWaited();
      struct pollfd pfd = {fd_, POLLOUT, 0};
      (void)poll(&pfd, 1, PollTimeoutMs());
      continue;
    }
    err = n < 0 ? errno : EIO;  // write(2) returning 0 makes no progress
    break;
  }
  write_started_ns_.store(0, std::memory_order_relaxed);
  if (err == 0 && !gave_up) {
    records_written_ += records;
    bytes_written_ += data.size();
    return absl::OkStatus();
  }

  // Count what is whole in the file; the rest is dropped.
  const WholeRecords whole = ScanRecords(framing_, data.substr(0, done));
  records_written_ += whole.count;
  bytes_written_ += whole.bytes;
  records_dropped_ += records - whole.count;

  if (gave_up) {
    // Not a regular file (those never wait), so a cut record cannot be
    // trimmed: say so, since the reader may see it if it ever reads.
    const size_t cut = done - whole.bytes;
    stalled_ = absl::DeadlineExceededError(absl::StrCat(
        "writing ", DisplayName(), ": output stalled: the reader did not ",
        "take what was left within ", absl::FormatDuration(stop_grace_.grace()),
        " of the stop request; the events not written are counted as "
        "dropped",
        cut > 0 ? absl::StrFormat("; the last record written is cut short "
                                  "(%d bytes of it reached the reader)",
                                  cut)
                : ""));
    return stalled_;
  }

  absl::Status trim;
  if (done > whole.bytes && is_regular_) {
    trim = TrimPartialRecord(done - whole.bytes);
  }

  if (err == EPIPE) {
    return absl::CancelledError("output closed by reader (broken pipe)");
  }
  absl::Status status =
      absl::ErrnoToStatus(err, absl::StrCat("writing ", DisplayName()));
  if (!trim.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(status.message(), "; ", trim.message()));
  }
  return status;
}

absl::Status OutputFile::TrimPartialRecord(size_t partial_bytes) {
  const off_t partial = static_cast<off_t>(partial_bytes);
  // After write(2) the offset is just past our last byte, also with
  // O_APPEND; the partial record is the `partial` bytes before it.
  const off_t end = lseek(fd_, 0, SEEK_CUR);
  int err = end < 0 ? errno : (end < partial ? EIO : 0);
  if (err == 0 && ftruncate(fd_, end - partial) != 0) err = errno;
  // Without O_APPEND (stdout redirected with '>'), the next write would
  // otherwise leave a hole of NULs where the partial record was.
  if (err == 0 && lseek(fd_, end - partial, SEEK_SET) < 0) err = errno;
  if (err != 0) {
    return absl::ErrnoToStatus(err,
                               "a partial record remains: cannot truncate it");
  }
  return absl::OkStatus();
}

absl::Status OutputFile::Reopen() {
  absl::Status flushed = Flush();  // these records belong in the rotated file
  if (!owns_fd_) return flushed;
  ASSIGN_OR_RETURN(OpenedOutput opened,
                   OpenOutputAt(dir_fd_, name_, path_, "reopen", geteuid()));
  absl::Status adopted = Adopt(std::move(opened));
  return flushed.ok() ? adopted : flushed;
}

absl::Status OutputFile::Adopt(OpenedOutput opened) {
  absl::Status flushed = Flush();
  if (!owns_fd_) return flushed;  // stdout: nothing to replace
  close(fd_);
  is_regular_ = opened.is_regular();
  created_ = opened.created();
  fd_ = opened.Release();
  return flushed;
}

absl::Status OutputFile::GiveTo(uid_t uid) {
  if (!owns_fd_ || !created_) return absl::OkStatus();
  if (fchown(fd_, uid, static_cast<gid_t>(-1)) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("giving output ", DisplayName(), " to uid ", uid));
  }
  return absl::OkStatus();
}

void OutputFile::RemoveIfCreatedAndUnused() {
  if (!owns_fd_ || !created_ || used_ != 0 || bytes_written_ != 0 ||
      records_dropped_ != 0) {
    return;
  }
  // Only if the path still names this file, and it is still empty: another
  // process may have replaced or written it since.
  struct stat ours;
  struct stat at_path;
  if (fstat(fd_, &ours) != 0 ||
      fstatat(dir_fd_, name_.c_str(), &at_path, AT_SYMLINK_NOFOLLOW) != 0) {
    return;
  }
  if (ours.st_dev != at_path.st_dev || ours.st_ino != at_path.st_ino ||
      at_path.st_size != 0) {
    return;
  }
  if (unlinkat(dir_fd_, name_.c_str(), 0) == 0) created_ = false;
}

}  // namespace biosnoop
