// What an output path or fd is, and whether it may hold a log
// (output_target.h).

#include "output_target.h"

#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace biosnoop {
namespace {

// Linux's device numbers (include/uapi/linux/major.h and devices.txt).
constexpr unsigned kMemMajor = 1;  // 1:3 is /dev/null
constexpr unsigned kNullMinor = 3;
constexpr unsigned kTtyAuxMajor = 5;  // 5:2 is /dev/ptmx
constexpr unsigned kPtmxMinor = 2;
constexpr unsigned kPtySlaveMajor = 136;  // /dev/pts/N: 136..143
constexpr unsigned kPtySlaveMajors = 8;

bool IsDevNull(dev_t rdev) {
  return major(rdev) == kMemMajor && minor(rdev) == kNullMinor;
}

// A terminal, judged without opening it (opening some character devices
// acts: a tape rewinds, a watchdog arms).  /dev/pts/N are in no sysfs
// class; every other tty is in /sys/class/tty.  /dev/ptmx is in it too,
// but opening it makes a new pseudo-terminal whose output nobody reads.
bool IsTerminalDevice(dev_t rdev) {
  const unsigned maj = major(rdev);
  const unsigned min = minor(rdev);
  if (maj >= kPtySlaveMajor && maj < kPtySlaveMajor + kPtySlaveMajors) {
    return true;
  }
  if (maj == kTtyAuxMajor && min == kPtmxMinor) return false;
  const std::string link =
      absl::StrCat("/sys/dev/char/", maj, ":", min, "/subsystem");
  char target[PATH_MAX];
  const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return false;
  return absl::EndsWith(absl::string_view(target, static_cast<size_t>(n)),
                        "/class/tty");
}

absl::Status Refuse(absl::string_view what, absl::string_view why,
                    bool is_stdout) {
  return absl::FailedPreconditionError(
      absl::StrCat(what, ": it is ", why, "; ",
                   is_stdout ? "redirect stdout to a file, or give -o FILE"
                             : "give the path of a file"));
}

}  // namespace

absl::Status CheckOutputTarget(const struct stat& st, int fd, bool is_stdout,
                               absl::string_view what) {
  const mode_t type = st.st_mode & S_IFMT;
  switch (type) {
    case S_IFREG:
    case S_IFIFO:
      return absl::OkStatus();
    case S_IFBLK:
      return Refuse(what,
                    "a block device, and a log written there would "
                    "overwrite the data on it from its first byte",
                    is_stdout);
    case S_IFDIR:
      return Refuse(what, "a directory", is_stdout);
    case S_IFSOCK:
      if (is_stdout) return absl::OkStatus();  // the journal's stream
      return Refuse(what, "a socket, which cannot be opened as a file",
                    is_stdout);
    case S_IFCHR: {
      if (IsDevNull(st.st_rdev)) return absl::OkStatus();
      const bool terminal =
          fd >= 0 ? isatty(fd) == 1 : IsTerminalDevice(st.st_rdev);
      if (terminal) return absl::OkStatus();
      return Refuse(what,
                    "a character device that cannot hold a log (of those, "
                    "only /dev/null and terminals are taken)",
                    is_stdout);
    }
    default:
      return Refuse(what, "not a file, a FIFO, a terminal or /dev/null",
                    is_stdout);
  }
}

}  // namespace biosnoop
