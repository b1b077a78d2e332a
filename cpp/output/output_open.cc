// Opening the output path safely: no symlink, no device that is not a log
// (output_open.h).

#include "output_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "output_target.h"

namespace biosnoop {
namespace {

// O_APPEND: several writers (or a restarted daemon) never overwrite each
// other's lines, and each write(2) lands at the current end.
// O_NOFOLLOW: the daemon runs as root; a symlink planted at the log path
// must not redirect root's writes to, say, /etc/shadow.
// O_NONBLOCK: a FIFO nobody reads fails with ENXIO instead of blocking
// the open (cleared once open: writes block as on any pipe).
constexpr int kOpenFlags =
    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
constexpr mode_t kCreateMode = 0640;

int OpenRetryingEintr(int dir_fd, const std::string& name, int flags) {
  int fd;
  do {
    fd = openat(dir_fd, name.c_str(), flags, kCreateMode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// An output that was there before biosnoop (root) appends to it: refused
// when another user could read or rewrite what it logs, as logrotate
// refuses such files.  Owned by another user than root and biosnoop's
// own (the user it is, or runs as after loading): that user reads the
// lines and can swap the file.  Writable by others, or by a group other
// than root: anyone may rewrite them.
absl::Status CheckOwnership(const struct stat& st, const std::string& what,
                            uid_t own_uid) {
  if (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != own_uid) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": it belongs to uid ", st.st_uid,
        ", another user, who could read what biosnoop logs and rewrite it; "
        "remove it (biosnoop creates its file 0640) or chown it to root"));
  }
  const bool other_write = (st.st_mode & S_IWOTH) != 0;
  const bool group_write = (st.st_mode & S_IWGRP) != 0 && st.st_gid != 0;
  if (other_write || group_write) {
    const std::string who =
        other_write ? "every user" : absl::StrCat("group ", st.st_gid);
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: it is writable by %s (mode %04o), who could rewrite what "
        "biosnoop logs; chmod go-w it",
        what, who, st.st_mode & 07777));
  }
  return absl::OkStatus();
}

}  // namespace

OpenedOutput::OpenedOutput(OpenedOutput&& other) noexcept
    : fd_(other.Release()),
      is_regular_(other.is_regular_),
      created_(other.created_) {}

OpenedOutput& OpenedOutput::operator=(OpenedOutput&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    is_regular_ = other.is_regular_;
    created_ = other.created_;
    fd_ = other.Release();
  }
  return *this;
}

OpenedOutput::~OpenedOutput() {
  if (fd_ >= 0) close(fd_);
}

int OpenedOutput::Release() { return std::exchange(fd_, -1); }

std::string QuotedPath(absl::string_view path) {
  // UTF-8 kept; a path holding a newline still makes a one-line message.
  return absl::StrCat("\"", absl::Utf8SafeCEscape(path), "\"");
}

OutputPlace SplitOutputPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  OutputPlace place;
  place.name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (place.name.empty() || place.name == "." || place.name == "..") {
    return OutputPlace{"", path};
  }
  place.dir = slash == std::string::npos ? "."
              : slash == 0               ? "/"
                                         : path.substr(0, slash);
  return place;
}

bool ModeAllows(const struct stat& st, int mask, uid_t uid, gid_t gid,
                const std::vector<gid_t>& groups) {
  // The kernel takes the first class that matches, owner, then group,
  // then others, even when a later one would allow more.
  int shift = 0;
  if (st.st_uid == uid) {
    shift = 6;
  } else if (st.st_gid == gid || std::find(groups.begin(), groups.end(),
                                           st.st_gid) != groups.end()) {
    shift = 3;
  }
  const int bits = static_cast<int>((st.st_mode >> shift) & 7);
  return (bits & mask) == mask;
}

absl::StatusOr<OpenedOutput> OpenOutputPath(const std::string& path,
                                            absl::string_view verb,
                                            uid_t own_uid) {
  return OpenOutputAt(AT_FDCWD, path, path, verb, own_uid);
}

absl::StatusOr<OpenedOutput> OpenOutputAt(int dir_fd, const std::string& name,
                                          const std::string& path,
                                          absl::string_view verb,
                                          uid_t own_uid) {
  const std::string what =
      absl::StrCat("cannot ", verb, " output ", QuotedPath(path));
  const std::string symlink_error = absl::StrCat(
      what,
      ": it is a symbolic link, which is never followed; give the path of "
      "the real file");
  // Judged before opening: opening a device may act (a tape rewinds, a
  // watchdog arms), and only a refused open is sure to write nothing.
  struct stat before;
  if (fstatat(dir_fd, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(before.st_mode)) {
      return absl::FailedPreconditionError(symlink_error);
    }
    if (absl::Status s = CheckOutputTarget(before, -1, false, what); !s.ok()) {
      return s;
    }
  }
  // O_EXCL first, to know whether this open created the file (a start
  // that fails afterwards removes a file it created and never wrote,
  // OutputFile::RemoveIfCreatedAndUnused).  O_EXCL never follows a
  // symbolic link: one at the path is EEXIST, and the plain open below
  // refuses it.
  bool created = true;
  int fd = OpenRetryingEintr(dir_fd, name, kOpenFlags | O_EXCL);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = OpenRetryingEintr(dir_fd, name, kOpenFlags);
  }
  if (fd < 0) {
    const int err = errno;
    // ELOOP also means "too many links" in a directory component; only
    // call it a symlink when the last component really is one.
    struct stat st;
    const bool at_path =
        fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (err == ELOOP && at_path && S_ISLNK(st.st_mode)) {
      return absl::FailedPreconditionError(symlink_error);
    }
    if (err == ENXIO && at_path && S_ISFIFO(st.st_mode)) {
      return absl::UnavailableError(absl::StrCat(
          what, ": it is a FIFO that no process has open for reading"));
    }
    if (at_path) {
      // Swapped since the first look: say what it is now, if refused.
      if (absl::Status s = CheckOutputTarget(st, -1, false, what); !s.ok()) {
        return s;
      }
    }
    return absl::ErrnoToStatus(err, what);
  }
  OpenedOutput opened(fd, /*is_regular=*/false, created);
  // The path may have been replaced between the look and the open: what
  // was opened is what counts.  Nothing has been written to it.
  struct stat st;
  if (fstat(fd, &st) != 0) return absl::ErrnoToStatus(errno, what);
  if (absl::Status s = CheckOutputTarget(st, fd, false, what); !s.ok()) {
    return s;
  }
  // Files and FIFOs only: a terminal (group tty may write it) and
  // /dev/null (0666) are not logs someone else keeps.
  if (!created && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    if (absl::Status s = CheckOwnership(st, what, own_uid); !s.ok()) {
      return s;
    }
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return absl::ErrnoToStatus(errno, what);
  }
  return OpenedOutput(opened.Release(), S_ISREG(st.st_mode), created);
}

absl::Status CheckStdoutTarget() {
  struct stat st;
  if (fstat(STDOUT_FILENO, &st) != 0) {
    return absl::ErrnoToStatus(errno, "stdout");
  }
  return CheckOutputTarget(st, STDOUT_FILENO, true, "stdout");
}

}  // namespace biosnoop
