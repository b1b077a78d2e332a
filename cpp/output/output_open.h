#pragma once

// Opening an output path for appending, by the rule of output_target.h,
// without ever blocking on a FIFO.

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <vector>

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
// An existing file or FIFO is refused when another user could read or
// rewrite what biosnoop logs, as logrotate refuses such files: owned by a
// user other than root, the process's own and `own_uid` (the user biosnoop
// runs as after loading, -Z), or writable by every user or by a group
// other than root's:
//   FailedPreconditionError "cannot open output "x": it belongs to uid
//   1000, another user, ..." / "... it is writable by every user ...".
absl::StatusOr<OpenedOutput> OpenOutputPath(const std::string& path,
                                            absl::string_view verb = "open",
                                            uid_t own_uid = 0);

// OpenOutputPath() for `name` in the directory `dir_fd` (openat(2): an
// O_PATH descriptor of the output's directory, held since the start, so
// that the reopen needs no search permission above it and follows the
// directory if it is renamed; AT_FDCWD and a path work too).  `path`
// names the output in messages.
absl::StatusOr<OpenedOutput> OpenOutputAt(int dir_fd, const std::string& name,
                                          const std::string& path,
                                          absl::string_view verb,
                                          uid_t own_uid);

// The output path split for OpenOutputAt(): its directory ("." for a bare
// name) and the last component.  A path whose last component is empty,
// "." or ".." (a directory, refused anyway) gives an empty directory:
// open the whole path from the working directory.
struct OutputPlace {
  std::string dir;
  std::string name;
};
OutputPlace SplitOutputPath(const std::string& path);

// Whether a user (`uid`, primary group `gid`, supplementary `groups`)
// gets `mask` (R_OK, W_OK, X_OK, or'ed) on the inode `st` by its mode
// bits alone, as the kernel decides for a process without capabilities
// (ACLs are not looked at).
bool ModeAllows(const struct stat& st, int mask, uid_t uid, gid_t gid,
                const std::vector<gid_t>& groups);

// CheckOutputTarget() for the process's stdout (fd 1, already open).
absl::Status CheckStdoutTarget();

// `path` C-escaped and quoted, as messages name an output.
std::string QuotedPath(absl::string_view path);

}  // namespace biosnoop
