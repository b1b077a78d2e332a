#include "cgroups.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

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

pid_t RunChildIn(const Cgroups* cg, const std::string& rel, const char* comm,
                 const std::function<int()>& body) {
  const std::string procs =
      cg != nullptr && !rel.empty() ? cg->mount() + rel + "/cgroup.procs" : "";
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!procs.empty()) {
      const int fd = open(procs.c_str(), O_WRONLY);
      if (fd < 0 || write(fd, "0\n", 2) != 2) _exit(126);  // "0": this task
      close(fd);
    }
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    _exit(body());
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? pid : -1;
}

}  // namespace biosnoop::testing
