#pragma once

// Opening an output path for appending, by the rule of output_target.h,
// without ever blocking on a FIFO.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace biosnoop {

// An open output descriptor; closed on destruction unless Release()d.
class OpenedOutput {
 public:
  OpenedOutput(int fd, bool is_regular, bool created)
      : fd_(fd), is_regular_(is_regular), created_(created) {}
  OpenedOutput(OpenedOutput&& other) noexcept;
  OpenedOutput& operator=(OpenedOutput&& other) noexcept;
  ~OpenedOutput();

  int fd() const { return fd_; }
  bool is_regular() const { return is_regular_; }
  // This open created the file (it did not exist).
  bool created() const { return created_; }
  // Hands the descriptor over: it is not closed by this object any more.
  int Release();

 private:
  int fd_;
  bool is_regular_;
  bool created_;
};

// Opens `path`
//   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, mode 0640
// (appending, never truncating, never through a symbolic link as the last
// component).  What is at the path is checked before the open (lstat),
// so a device that acts on open is never opened, and again after it
// (fstat), in case the path changed in between.  The open is made with
// O_NONBLOCK, cleared afterwards, so it never waits for a FIFO's reader.
// `verb` ("open", "reopen") goes into messages:
//   FailedPreconditionError: a symbolic link, or a refused target
//     (CheckOutputTarget: "cannot open output "x": it is a block device ...");
//   UnavailableError: a FIFO no process has open for reading (try later);
//   otherwise errno's status, "cannot open output "x": Permission denied".
absl::StatusOr<OpenedOutput> OpenOutputPath(const std::string& path,
                                            absl::string_view verb = "open");

// CheckOutputTarget() for the process's stdout (fd 1, already open).
absl::Status CheckStdoutTarget();

// `path` C-escaped and quoted, as messages name an output.
std::string QuotedPath(absl::string_view path);

}  // namespace biosnoop
