// How the look tells a hung request from a missed completion; the
// contract is in stuck_requests.h.

#include "stuck_requests.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "missed_completions.h"
#include "status_macros.h"

namespace biosnoop {

bool StuckPassesFilters(const ProbeConfig& config,
                        const biosnoop_inflight_val& v) {
  if (config.pid != 0 && v.pid != config.pid) return false;
  if (!config.comm.empty()) {
    // comm is NUL-padded; the filter is at most 15 bytes.
    const size_t n = strnlen(v.comm, sizeof(v.comm));
    if (absl::string_view(v.comm, n) != config.comm) return false;
  }
  if (config.op_filter == BIOSNOOP_FILTER_OP_READ && v.op != BIOSNOOP_OP_READ) {
    return false;
  }
  if (config.op_filter == BIOSNOOP_FILTER_OP_WRITE &&
      v.op != BIOSNOOP_OP_WRITE) {
    return false;
  }
  // Decided at submission against the id of then (the kernel's filter).
  if (config.cgroup_id != 0 && v.outside_cgroup) return false;
  return v.sector >= config.sector_start && v.sector < config.sector_end;
}

std::vector<biosnoop_inflight_val> StuckTracker::Observe(
    absl::Span<const biosnoop_inflight_val> issued, uint64_t now_ns) {
  std::vector<biosnoop_inflight_val> out;
  absl::flat_hash_set<std::pair<uint64_t, uint64_t>> still;
  for (const biosnoop_inflight_val& v : issued) {
    if (v.issue_ns == 0 || v.requeued || now_ns < v.issue_ns ||
        now_ns - v.issue_ns < after_ns_) {
      continue;
    }
    const std::pair<uint64_t, uint64_t> id(v.rq, v.issue_ns);
    still.insert(id);
    if (!reported_.contains(id)) out.push_back(v);
  }
  // What was reported and is gone has completed (or been removed): its
  // identity can never come back, since a new issue has a new time.
  reported_ = std::move(still);
  return out;
}

absl::StatusOr<std::vector<biosnoop_inflight_val>> StuckFinder::Look(
    uint64_t now_ns) {
  if (after_ns_ == 0 || now_ns < after_ns_)
    return std::vector<biosnoop_inflight_val>();
  // The table is looked over whole (1.2 MB): not on a machine with no
  // request on a device, which is most seconds of most hosts.
  ASSIGN_OR_RETURN(std::vector<uint32_t> busy, table_.DevsWithInflight());
  if (busy.empty()) return std::vector<biosnoop_inflight_val>();
  ASSIGN_OR_RETURN(std::vector<biosnoop_inflight_val> issued,
                   table_.ReadIssuedBefore(now_ns - after_ns_));
  // Which of them are on the device.  A read or write on a disk the kernel
  // says is idle holds nothing: the entry is a completion biosnoop missed,
  // which the missed-completion finder will remove; unknown (no
  // accounting): the entry is all there is to go by.  A flush is never in
  // the kernel's `inflight`: the kernel's count of completed flushes says
  // how many of a disk's flush entries are completions biosnoop missed.
  std::vector<biosnoop_inflight_val> on_device;
  absl::flat_hash_map<uint32_t, bool> idle;
  absl::flat_hash_map<uint32_t, std::vector<InflightEntry>> flushes;
  for (size_t i = 0; i < issued.size(); ++i) {
    const biosnoop_inflight_val& v = issued[i];
    if (v.op == BIOSNOOP_OP_FLUSH) {
      // (slot: its index in `issued`)
      flushes[v.dev].push_back(
          {v.dev, v.rq, v.issue_ns, true, false, static_cast<uint32_t>(i)});
      continue;
    }
    auto [it, inserted] = idle.try_emplace(v.dev, false);
    if (inserted) it->second = DiskIdle(v.dev, sysfs_root_).value_or(false);
    if (!it->second) on_device.push_back(v);
  }
  for (auto& [dev, held] : flushes) {
    const std::vector<InflightEntry> missed =
        PresumedMissedFlushes(held, table_.UnseenFlushes(dev));
    for (const InflightEntry& e : held) {
      bool was_missed = false;
      for (const InflightEntry& m : missed) was_missed |= m.slot == e.slot;
      if (!was_missed) on_device.push_back(issued[e.slot]);
    }
  }
  std::vector<biosnoop_inflight_val> wanted;
  for (const biosnoop_inflight_val& v : on_device) {
    if (StuckPassesFilters(config_, v)) wanted.push_back(v);
  }
  return tracker_.Observe(wanted, now_ns);
}

}  // namespace biosnoop
