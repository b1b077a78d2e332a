// Every privileged test leaves the machine as it found it: the mounts and
// loop devices a test made are gone when its process ends.  ctest runs
// each test in a process of its own, so this environment, linked into
// every integration binary, compares the mounts and attached loop devices
// at the end of the process with those at its start, fails the test that
// left any (naming them), and then removes them.
//
// Why it matters: a mounted loop device whose backing file sat on a FUSE
// mount whose daemon is gone makes mkfs.btrfs refuse every device on the
// machine ("cannot check mount status ...: Transport endpoint is not
// connected": btrfs-progs stats the backing file of every mounted loop
// device), so one test's leftover failed every later btrfs test.

#include <sys/mount.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "harness.h"

namespace biosnoop::testing {
namespace {

struct Mount {
  std::string id;          // mountinfo's mount ID
  std::string mountpoint;  // as mountinfo escapes it
  std::string source;
  std::string fstype;
};

std::vector<Mount> Mounts() {
  std::vector<Mount> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 3) continue;
    out.push_back({f[0], f[4], *(dash + 2), *(dash + 1)});
  }
  return out;
}

// Attached loop devices (those with a backing file), as "loopN".
std::set<std::string> AttachedLoops() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/block", ec)) {
    const std::string name = e.path().filename();
    if (name.rfind("loop", 0) == 0 &&
        std::filesystem::exists(e.path() / "loop" / "backing_file", ec)) {
      out.insert(name);
    }
  }
  return out;
}

class LeakCheck : public ::testing::Environment {
 public:
  LeakCheck() {
    for (const Mount& m : Mounts()) mounts_.insert(m.id);
    loops_ = AttachedLoops();
  }

  void TearDown() override {
    // Only root's tests mount; a skipped test's process changes nothing.
    if (geteuid() != 0) return;
    // A loop device detached while busy (losetup -d sets autoclear) goes
    // at its last close, which may come a moment after the unmount.
    std::set<std::string> loops;
    WaitUntil(
        [&] {
          loops.clear();
          for (const std::string& loop : AttachedLoops()) {
            if (loops_.count(loop) == 0) loops.insert(loop);
          }
          return loops.empty();
        },
        5000);
    // Their backing files now: a FUSE mount detached below makes the
    // path relative.
    std::map<std::string, std::string> backing;
    for (const std::string& loop : loops) {
      backing[loop] = std::string(absl::StripSuffix(
          ReadFile("/sys/block/" + loop + "/loop/backing_file"), "\n"));
    }
    std::vector<Mount> left;
    for (const Mount& m : Mounts()) {
      if (mounts_.count(m.id) == 0) left.push_back(m);
    }
    // Deepest first: a file system mounted on a loop device over a FUSE
    // file goes before the FUSE mount.
    std::reverse(left.begin(), left.end());
    for (const Mount& m : left) {
      ADD_FAILURE() << "the test left " << m.fstype << " " << m.source
                    << " mounted on " << m.mountpoint << "; detaching it";
      umount2(m.mountpoint.c_str(), MNT_DETACH);
    }
    for (const auto& [loop, file] : backing) {
      ADD_FAILURE() << "the test left /dev/" << loop << " attached to " << file
                    << "; detaching it";
      RunCommand({"losetup", "-d", "/dev/" + loop});
    }
  }

 private:
  std::set<std::string> mounts_;
  std::set<std::string> loops_;
};

[[maybe_unused]] ::testing::Environment* const kLeakCheck =
    ::testing::AddGlobalTestEnvironment(new LeakCheck);

}  // namespace
}  // namespace biosnoop::testing
