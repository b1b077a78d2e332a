#include "stuck_requests.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"

#include "decoder.h"
#include "missed_completions.h"
#include "status_macros.h"

namespace biosnoop {

bool StuckPassesFilters(const ProbeConfig& config, const biosnoop_inflight_val& v) {
  if (config.pid != 0 && v.pid != config.pid) return false;
  if (!config.comm.empty()) {
    // comm is NUL-padded; the filter is at most 15 bytes.
    const size_t n = strnlen(v.comm, sizeof(v.comm));
    if (absl::string_view(v.comm, n) != config.comm) return false;
  }
  if (config.op_filter == BIOSNOOP_FILTER_OP_READ && v.op != BIOSNOOP_OP_READ) {
    return false;
  }
  if (config.op_filter == BIOSNOOP_FILTER_OP_WRITE && v.op != BIOSNOOP_OP_WRITE) {
    return false;
  }
  return v.sector >= config.sector_start && v.sector < config.sector_end;
}

Event StuckEvent(const biosnoop_inflight_val& v, uint64_t now_ns) {
  Event e;
  e.complete_ns = now_ns;
  e.device_ns = now_ns > v.issue_ns ? now_ns - v.issue_ns : 0;
  // As the kernel computes an event's queue time (bpf on_complete).
  if (v.submit_ns != 0 && v.submit_ns <= v.issue_ns) {
    e.queue_ns = v.issue_ns - v.submit_ns;
  }
  CopyRequestFields(v, &e);
  return e;
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

absl::Status StuckWatch::Look(uint64_t now_ns, Enricher& enricher) {
  found_.clear();
  if (after_ns_ == 0 || now_ns < after_ns_) return absl::OkStatus();
  // The table is looked over whole (1.2 MB): not on a machine with no
  // request on a device, which is most seconds of most hosts.
  ASSIGN_OR_RETURN(std::vector<uint32_t> busy, probe_.DevsWithInflight());
  if (busy.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<biosnoop_inflight_val> issued,
                   probe_.ReadIssuedBefore(now_ns - after_ns_));
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
      flushes[v.dev].push_back({v.dev, v.rq, v.issue_ns, true, false,
                                static_cast<uint32_t>(i)});
      continue;
    }
    auto [it, inserted] = idle.try_emplace(v.dev, false);
    if (inserted) it->second = DiskIdle(v.dev, sysfs_root_).value_or(false);
    if (!it->second) on_device.push_back(v);
  }
  for (auto& [dev, held] : flushes) {
    const std::vector<InflightEntry> missed =
        PresumedMissedFlushes(held, probe_.UnseenFlushes(dev));
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
  for (const biosnoop_inflight_val& v : tracker_.Observe(wanted, now_ns)) {
    StuckRequest& s = found_.emplace_back();
    s.event = StuckEvent(v, now_ns);
    enricher.EnrichStuck(now_ns, &s);
  }
  return absl::OkStatus();
}

absl::Status StuckWatch::WriteFound(Sink& sink) {
  for (const StuckRequest& s : found_) {
    RETURN_IF_ERROR(sink.WriteStuck(s));
    ++reported_;
  }
  found_.clear();
  return absl::OkStatus();
}

}  // namespace biosnoop
