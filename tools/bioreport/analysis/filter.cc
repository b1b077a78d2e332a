// The filters' tests.  Events and stuck records share one template: their
// fields of the same names mean the same.

#include "filter.h"

#include <string>

namespace biosnoop::report {

namespace {

// `path` is `root` or below it.
bool InSubtree(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path.size() >= root.size() &&
         path.compare(0, root.size(), root) == 0 &&
         (path.size() == root.size() || path[root.size()] == '/');
}

// The filters events and stuck records share (their fields of the same
// names mean the same).
template <typename Message>
bool MatchesRequest(const Filter& f, const Message& m, int64_t ns) {
  if (!f.InWindow(ns)) return false;
  if (!f.host.empty() && m.host() != f.host) return false;
  if (!f.disk.empty() && m.disk() != f.disk &&
      !(m.has_partition() && m.partition() == f.disk)) {
    return false;
  }
  if (f.pid && m.pid() != *f.pid) return false;
  if (f.comm && m.comm() != *f.comm) return false;
  if (!f.op.empty() && m.op() != f.op) return false;
  if (!f.cgroup.empty() &&
      !(m.has_cgroup() && InSubtree(m.cgroup(), f.cgroup))) {
    return false;
  }
  if (!f.container.empty() &&
      !(m.has_container_id() &&
        m.container_id().compare(0, f.container.size(), f.container) == 0)) {
    return false;
  }
  return true;
}

// Some file of `e` has a path that starts with `prefix`.
bool HasFileUnder(const v1::Event& e, const std::string& prefix) {
  for (const v1::FileRef& f : e.files()) {
    if (f.path().compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

}  // namespace

bool Filter::Matches(const v1::Event& e, int64_t ns) const {
  if (e.latency_us() < min_us) return false;
  if (!file.empty() && !HasFileUnder(e, file)) return false;
  return MatchesRequest(*this, e, ns);
}

bool Filter::Matches(const v1::Stuck& k, int64_t ns) const {
  return MatchesRequest(*this, k, ns);
}

}  // namespace biosnoop::report
