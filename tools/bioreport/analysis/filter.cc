// The filters' tests.  Events and stuck records share one template: their
// fields of the same names mean the same.

#include "filter.h"

#include <string>

#include "absl/strings/string_view.h"

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
// (Ops too, but for the op, which they name otherwise.)
template <typename Message>
bool MatchesTask(const Filter& f, const Message& m, int64_t ns) {
  if (!f.InWindow(ns)) return false;
  if (!f.host.empty() && m.host() != f.host) return false;
  if (!f.disk.empty() && m.disk() != f.disk &&
      !(m.has_partition() && m.partition() == f.disk)) {
    return false;
  }
  if (f.pid && m.pid() != *f.pid) return false;
  if (f.comm && m.comm() != *f.comm) return false;
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

template <typename Message>
bool MatchesRequest(const Filter& f, const Message& m, int64_t ns) {
  if (!f.op.empty() && m.op() != f.op) return false;
  return MatchesTask(f, m, ns);
}

// The block operation a call's data takes: "read", "write", "flush" (the
// sync family), "" for a call not named in the schema.
absl::string_view CallOp(absl::string_view call) {
  for (const char* c :
       {"read", "pread64", "readv", "preadv", "io_uring_read"}) {
    if (call == c) return "read";
  }
  for (const char* c :
       {"write", "pwrite64", "writev", "pwritev", "io_uring_write"}) {
    if (call == c) return "write";
  }
  for (const char* c :
       {"fsync", "fdatasync", "sync_file_range", "io_uring_fsync"}) {
    if (call == c) return "flush";
  }
  return "";
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

bool Filter::Matches(const v1::Op& o, int64_t ns) const {
  if (o.latency_us() < min_us) return false;
  if (!file.empty() && o.file().path().compare(0, file.size(), file) != 0) {
    return false;
  }
  if (!op.empty() && CallOp(o.call()) != op) return false;
  return MatchesTask(*this, o, ns);
}

}  // namespace biosnoop::report
