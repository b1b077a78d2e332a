#include "cgroups.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cgroup_names.h"

namespace biosnoop::testing {

Cgroups::Cgroups() : mount_(FindCgroup2Mount()) {
  if (mount_.empty()) return;
  char name[64];
  snprintf(name, sizeof(name), "/biosnoop-test-%d", getpid());
  root_ = name;
  if (!Make(root_)) root_.clear();
}

Cgroups::~Cgroups() {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    // Any task still there goes back to the root first.
    std::ifstream procs(mount_ + *it + "/cgroup.procs");
    for (std::string pid; std::getline(procs, pid);) {
      std::ofstream(mount_ + "/cgroup.procs") << pid << "\n";
    }
    rmdir((mount_ + *it).c_str());
  }
}

std::string Cgroups::Add(const std::string& sub) {
  std::string path = root_;
  for (size_t start = 0; start < sub.size();) {
    size_t end = sub.find('/', start);
    if (end == std::string::npos) end = sub.size();
    path += "/" + sub.substr(start, end - start);
    if (!Make(path)) return "";
    start = end + 1;
  }
  return path;
}

uint64_t Cgroups::Id(const std::string& rel) const {
  struct stat st;
  return stat((mount_ + rel).c_str(), &st) == 0 ? st.st_ino : 0;
}

bool Cgroups::Remove(const std::string& rel) {
  std::erase(made_, rel);
  return rmdir((mount_ + rel).c_str()) == 0;
}

bool Cgroups::Make(const std::string& rel) {
  if (mkdir((mount_ + rel).c_str(), 0755) != 0 && errno != EEXIST) return false;
  made_.push_back(rel);
  return true;
}

ChildSetup InCgroup(const Cgroups& cg, const std::string& rel) {
  const std::string procs = cg.mount() + rel + "/cgroup.procs";
  return ChildSetup().Prepare("joining cgroup " + rel, [procs] {
    const int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    const bool moved = write(fd, "0\n", 2) == 2;  // "0": this task
    const int error = moved ? 0 : errno;
    close(fd);
    return error;
  });
}

pid_t RunChildIn(const Cgroups* cg, const std::string& rel, const char* comm,
                 const std::function<int()>& body) {
  ChildSetup setup =
      cg != nullptr && !rel.empty() ? InCgroup(*cg, rel) : ChildSetup();
  const std::string name = comm;
  setup.Named(absl::StrCat("child \"", absl::CEscape(name), "\""));
  Child child = Child::Function(
      [&] {
        prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
        return body();
      },
      std::move(setup));
  const ChildResult& r = child.Wait();
  if (r.Exited(0)) return r.pid;
  std::fprintf(stderr, "RunChildIn: %s\n", r.Describe().c_str());
  return -1;
}

pid_t ReadWithComm(const std::string& dev, const char* comm, int count) {
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 4096) != 0) return -1;
  const pid_t pid = RunChildIn(nullptr, "", comm, [&] {
    const int fd = open(dev.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) return 2;
    for (int i = 0; i < count; ++i) {
      if (pread(fd, buf, 4096, static_cast<off_t>(i) * 4096) != 4096) return 4;
    }
    return 0;
  });
  free(buf);
  return pid;
}

}  // namespace biosnoop::testing
