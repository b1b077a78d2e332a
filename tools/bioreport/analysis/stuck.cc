// Stuck records per disk, and the kLongest longest in a small sorted
// vector: a full one is entered only by a longer request.

#include "stuck.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace biosnoop::report {
namespace {

// Longest in flight first; then a fixed order, so that reports are the
// same whatever order the inputs were read in.
bool Before(const StuckRow& a, const StuckRow& b) {
  if (a.inflight_us != b.inflight_us) return a.inflight_us > b.inflight_us;
  return std::tie(a.ns, a.disk, a.sector, a.pid, a.tid, a.host) <
         std::tie(b.ns, b.disk, b.sector, b.pid, b.tid, b.host);
}

}  // namespace

void StuckCollector::Add(const v1::Stuck& k, int64_t ns) {
  ++count_;
  StuckDisk& d = disks_[{k.host(), k.disk()}];
  if (d.count == 0 || ns < d.first_ns) d.first_ns = ns;
  if (d.count == 0 || ns > d.last_ns) d.last_ns = ns;
  ++d.count;
  d.max_inflight_us = std::max(d.max_inflight_us, k.inflight_us());

  // Few rows are kept: a full list is only entered by a longer request.
  if (longest_.size() == kLongest &&
      k.inflight_us() < longest_.back().inflight_us) {
    return;
  }
  StuckRow row;
  row.ns = ns;
  row.host = k.host();
  row.disk = k.disk();
  row.partition = k.has_partition() ? k.partition() : "";
  row.op = k.op();
  row.sector = k.sector();
  row.bytes = k.bytes();
  row.inflight_us = k.inflight_us();
  row.pid = k.pid();
  row.tid = k.tid();
  row.comm = k.comm();
  longest_.insert(
      std::upper_bound(longest_.begin(), longest_.end(), row, Before),
      std::move(row));
  if (longest_.size() > kLongest) longest_.pop_back();
}

void StuckCollector::AddHeader(const v1::StreamHeader& h) {
  if (h.stuck_after_us() != 0) stuck_after_us_.insert(h.stuck_after_us());
}

}  // namespace biosnoop::report
