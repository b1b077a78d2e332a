#include "filter.h"

namespace biosnoop::report {

bool Filter::Matches(const v1::Event& e, int64_t ns) const {
  if (e.latency_us() < min_us) return false;
  if (!InWindow(ns)) return false;
  if (!disk.empty() && e.disk() != disk &&
      !(e.has_partition() && e.partition() == disk)) {
    return false;
  }
  if (pid && e.pid() != *pid) return false;
  if (comm && e.comm() != *comm) return false;
  if (!op.empty() && e.op() != op) return false;
  return true;
}

}  // namespace biosnoop::report
