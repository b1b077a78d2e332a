// Why the upkeep does what it does; the contract is in inflight_upkeep.h.

#include "inflight_upkeep.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "status_macros.h"

namespace biosnoop {

InflightUpkeep::InflightUpkeep(InflightTable& table, uint64_t max_age_ns,
                               uint64_t start_ns)
    : table_(table),
      max_age_ns_(max_age_ns),
      expire_every_ns_(std::min(kExpireEveryNs, max_age_ns / 2)),
      next_missed_check_(start_ns + kTickNs),
      next_expire_(start_ns + expire_every_ns_) {}

absl::Status InflightUpkeep::Run(uint64_t now_ns) {
  if (now_ns >= next_missed_check_) {
    next_missed_check_ = now_ns + kTickNs;
    RETURN_IF_ERROR(FindMissedCompletions());
  }
  if (now_ns >= next_expire_) {
    next_expire_ = now_ns + expire_every_ns_;
    ASSIGN_OR_RETURN(uint64_t removed, table_.Expire(now_ns, max_age_ns_));
    expired_ += removed;
  }
  return absl::OkStatus();
}

absl::Status InflightUpkeep::ObserveAtExit() { return FindMissedCompletions(); }

absl::StatusOr<uint64_t> InflightUpkeep::CountUnfinished(uint64_t now_ns) {
  return table_.CountUnfinished(now_ns, kTickNs);
}

// One observation for the finder: disks biosnoop holds requests for, the
// idle ones among them (read first), then their issued requests.
absl::Status InflightUpkeep::FindMissedCompletions() {
  ASSIGN_OR_RETURN(std::vector<uint32_t> devs, table_.DevsWithInflight());
  absl::flat_hash_set<uint32_t> idle;
  for (uint32_t dev : devs) {
    if (DiskIdle(dev).value_or(false)) idle.insert(dev);
  }
  if (idle.empty()) {
    finder_.Reset();
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<InflightEntry> issued, table_.ReadIssued(idle));
  // Reads and writes on an idle disk are done; a flush (never in the
  // kernel's `inflight`) only as far as the kernel's count of completed
  // flushes says it finished more than biosnoop saw.
  std::vector<InflightEntry> candidates;
  absl::flat_hash_map<uint32_t, std::vector<InflightEntry>> flushes;
  for (const InflightEntry& e : issued) {
    if (e.flush) {
      flushes[e.dev].push_back(e);
    } else {
      candidates.push_back(e);
    }
  }
  for (auto& [dev, held] : flushes) {
    for (const InflightEntry& e :
         PresumedMissedFlushes(std::move(held), table_.UnseenFlushes(dev))) {
      candidates.push_back(e);
    }
  }
  std::vector<InflightEntry> confirmed = finder_.Observe(candidates, idle);
  ASSIGN_OR_RETURN(uint64_t removed, table_.Remove(confirmed));
  missed_completions_ += removed;
  // Requests still held per disk, those just removed aside.
  absl::flat_hash_map<uint32_t, size_t> still_held;
  for (const InflightEntry& e : issued) ++still_held[e.dev];
  for (const InflightEntry& e : confirmed) {
    if (--still_held[e.dev] == 0) still_held.erase(e.dev);
  }
  for (uint32_t dev : idle) {
    if (!still_held.contains(dev)) RETURN_IF_ERROR(table_.ResetDepth(dev));
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
