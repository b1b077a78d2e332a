#include "loop_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace biosnoop::slowdisk {

std::vector<std::string> LoopDevicesBackedBy(const std::string& path) {
  std::vector<std::string> devices;
  DIR* dir = opendir("/sys/block");
  if (dir == nullptr) return devices;
  while (dirent* e = readdir(dir)) {
    if (!absl::StartsWith(e->d_name, "loop")) continue;
    std::ifstream in(
        absl::StrCat("/sys/block/", e->d_name, "/loop/backing_file"));
    std::stringstream ss;
    ss << in.rdbuf();
    if (absl::StripTrailingAsciiWhitespace(ss.str()) == path) {
      devices.push_back(absl::StrCat("/dev/", e->d_name));
    }
  }
  closedir(dir);
  return devices;
}

absl::Status DetachLoopDevice(const std::string& device) {
  int fd = open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("open ", device, ": ", strerror(errno)));
  }
  int rc = ioctl(fd, LOOP_CLR_FD, 0);
  int err = errno;
  close(fd);
  if (rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("detach ", device, ": ", strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace biosnoop::slowdisk
