#pragma once

// Direct reads from a process in a cgroup, for the tests of events'
// cgroups (cgroup_test.cc) and of --cgroup following its path
// (cgroup_follow_test.cc).

#include <string>

#include "absl/strings/str_cat.h"
#include "cgroups.h"
#include "harness.h"

namespace biosnoop::testing {

// Reads `count` blocks of `block` bytes of `dev` from block `skip` with
// O_DIRECT (dd), as a process that first moves itself into cgroup `rel`
// of `cg`; dd's exit status, as RunCommand gives it.
inline int DirectReadInCgroup(const Cgroups& cg, const std::string& rel,
                              const std::string& dev, int block, int count,
                              int skip) {
  return RunCommand({"sh", "-c",
                     absl::StrCat("echo $$ > ", cg.mount(), rel,
                                  "/cgroup.procs && exec dd if=", dev,
                                  " of=/dev/null iflag=direct status=none bs=",
                                  block, " count=", count, " skip=", skip)});
}

}  // namespace biosnoop::testing
