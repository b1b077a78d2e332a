#include "unfollowed_fs.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace biosnoop {

std::string UnfollowedFsLine(uint32_t s_dev, absl::string_view mountinfo) {
  const uint32_t major = s_dev >> 20, minor = s_dev & 0xfffff;
  const std::string dev = absl::StrCat(major, ":", minor);
  std::string where = absl::StrCat("the file system ", dev);
  // "36 35 0:52 / /mnt/x rw,... shared:1 - fuse.slowdisk slowdisk rw,...":
  // the first mount of that device names it.
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n')) {
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 7 || f[2] != dev) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size()) continue;
    where = absl::StrCat(f[dash + 1], " at ", f[4]);
    break;
  }
  return absl::StrCat("biosnoop: --ops: calls on ", where,
                      " are not followed: no block device");
}

void NoteUnfollowedFs(Probe& probe, std::FILE* diag) {
  const std::vector<uint32_t> devs = probe.TakeUnfollowedFs();
  if (devs.empty()) return;
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  for (uint32_t dev : devs) {
    absl::FPrintF(diag, "%s\n", UnfollowedFsLine(dev, text.str()));
  }
}

}  // namespace biosnoop
