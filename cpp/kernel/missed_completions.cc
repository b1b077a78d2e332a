// Completions the kernel finished without our hook, found on idle disks
// (missed_completions.h).

#include "missed_completions.h"

#include <algorithm>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace biosnoop {

std::vector<InflightEntry> MissedCompletionFinder::Observe(
    const std::vector<InflightEntry>& issued,
    const absl::flat_hash_set<uint32_t>& idle) {
  std::vector<InflightEntry> confirmed;
  absl::flat_hash_set<Identity> next;
  for (const InflightEntry& e : issued) {
    if (!idle.contains(e.dev)) continue;
    Identity id{e.dev, e.rq, e.issue_ns};
    if (candidates_.contains(id)) {
      confirmed.push_back(e);
    } else {
      next.insert(id);
    }
  }
  candidates_ = std::move(next);
  return confirmed;
}

std::optional<bool> DiskIdle(uint32_t dev, const std::string& sysfs_root) {
  const std::string dir =
      absl::StrCat(sysfs_root, "/dev/block/", dev >> 20, ":", dev & 0xfffff);
  std::ifstream iostats(dir + "/queue/iostats");
  int stats_on = 0;
  if (!(iostats >> stats_on) || stats_on != 1) return std::nullopt;
  std::ifstream inflight(dir + "/inflight");
  uint64_t reads = 0, writes = 0;
  if (!(inflight >> reads >> writes)) return std::nullopt;
  return reads == 0 && writes == 0;
}

std::optional<uint64_t> DiskFlushesDone(uint32_t dev,
                                        const std::string& sysfs_root) {
  std::ifstream stat(absl::StrCat(sysfs_root, "/dev/block/", dev >> 20, ":",
                                  dev & 0xfffff, "/stat"));
  uint64_t field = 0;
  for (int i = 1; i <= 16; ++i) {
    if (!(stat >> field)) return std::nullopt;
  }
  return field;
}

std::vector<InflightEntry> PresumedMissedFlushes(
    std::vector<InflightEntry> flushes, uint64_t unseen) {
  std::sort(flushes.begin(), flushes.end(),
            [](const InflightEntry& a, const InflightEntry& b) {
              return a.issue_ns < b.issue_ns;
            });
  if (flushes.size() > unseen) flushes.resize(unseen);
  return flushes;
}

}  // namespace biosnoop
