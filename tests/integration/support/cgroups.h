#pragma once

// Cgroup v2 directories a test makes, and processes it runs in them.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "child_process.h"
#include "harness.h"

namespace biosnoop::testing {

// A cgroup v2 directory tree the test makes, removed (deepest first) at
// the end, its tasks moved back to the root first; `rel` paths are
// relative to the v2 root.
class Cgroups {
 public:
  Cgroups();
  ~Cgroups();
  Cgroups(const Cgroups&) = delete;
  Cgroups& operator=(const Cgroups&) = delete;

  bool ok() const { return !root_.empty(); }
  const std::string& mount() const { return mount_; }
  const std::string& root() const { return root_; }  // "/biosnoop-test-<pid>"

  // Makes root()/`sub` (and its parents); returns its path from the v2
  // root, empty on failure.
  std::string Add(const std::string& sub);
  // The cgroup's id (its directory's inode number), 0 if it is not there.
  uint64_t Id(const std::string& rel) const;
  // Removes an (empty) cgroup now.
  bool Remove(const std::string& rel);

 private:
  bool Make(const std::string& rel);
  std::string mount_;
  std::string root_;
  std::vector<std::string> made_;
};

// Skips (fails under CI=true) a test that found no cgroup v2 hierarchy.
#define REQUIRE_CGROUPS(cg)                                        \
  do {                                                             \
    if (!(cg).ok()) {                                              \
      if (::biosnoop::testing::InCi())                             \
        FAIL() << "no cgroup v2 hierarchy to make cgroups in";     \
      GTEST_SKIP() << "no cgroup v2 hierarchy to make cgroups in"; \
    }                                                              \
  } while (0)

// A child's setup (child_process.h) that moves the child into the cgroup
// `rel` of `cg` before it runs its program or function.
ChildSetup InCgroup(const Cgroups& cg, const std::string& rel);

// Runs `body` in a child process that first moves itself into the cgroup
// `rel` of `cg` (none when `rel` is empty) and names itself `comm`; waits
// for it (bounded: Child::Wait).  `body` runs after fork() in a process
// that may have threads: it must only make system calls (buffers and
// paths prepared beforehand) and returns the child's exit code.  Returns
// the child's pid when it exited with 0, else -1 (and says why on
// stderr).
pid_t RunChildIn(const Cgroups* cg, const std::string& rel, const char* comm,
                 const std::function<int()>& body);

// `count` 4 KiB direct reads of `dev` (from its start) by a child named
// `comm`; its pid, or -1.
pid_t ReadWithComm(const std::string& dev, const char* comm, int count);

}  // namespace biosnoop::testing
