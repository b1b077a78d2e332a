// The filters' tests.  Events and stuck records share one template: their
// fields of the same names mean the same.

#include "filter.h"

namespace biosnoop::report {

namespace {

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
  return true;
}

}  // namespace

bool Filter::Matches(const v1::Event& e, int64_t ns) const {
  if (e.latency_us() < min_us) return false;
  return MatchesRequest(*this, e, ns);
}

bool Filter::Matches(const v1::Stuck& k, int64_t ns) const {
  return MatchesRequest(*this, k, ns);
}

}  // namespace biosnoop::report
