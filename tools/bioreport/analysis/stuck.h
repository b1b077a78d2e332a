#pragma once

// The stuck records of a stream set: requests biosnoop found still in
// flight past its --stuck-after (one record per request while it hangs).
// They are not events: kept here, apart from the Aggregator's event
// figures, for the reports' stuck section (report_stuck.cc).

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "biosnoop.pb.h"

namespace biosnoop::report {

// One stuck request, as a report shows it.
struct StuckRow {
  int64_t ns = 0;  // when biosnoop found it in flight
  std::string host;
  std::string disk;
  std::string partition;  // "" when none
  std::string op;
  uint64_t sector = 0;
  uint32_t bytes = 0;
  uint64_t inflight_us = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string comm;
};

// Per host and disk.
struct StuckDisk {
  uint64_t count = 0;
  uint64_t max_inflight_us = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
};

class StuckCollector {
 public:
  // The longest requests kept (Longest()).
  static constexpr size_t kLongest = 5;

  // A stuck record that passed the filters; `ns` is its timestamp.
  void Add(const v1::Stuck& k, int64_t ns);
  // A header: its stuck_after_us (0, off or from before stuck records, is
  // not kept).
  void AddHeader(const v1::StreamHeader& h);

  uint64_t count() const { return count_; }
  // (host, disk) -> figures, sorted: two hosts' loop0 are two disks.
  using DiskKey = std::pair<std::string, std::string>;
  const std::map<DiskKey, StuckDisk>& disks() const { return disks_; }
  // The kLongest requests in flight longest, longest first (ties: the
  // earliest found first, then by disk and sector).
  const std::vector<StuckRow>& Longest() const { return longest_; }
  // The distinct non-zero --stuck-after values (us) of the runs' headers.
  const std::set<uint64_t>& stuck_after_us() const { return stuck_after_us_; }

 private:
  uint64_t count_ = 0;
  std::map<DiskKey, StuckDisk> disks_;
  std::vector<StuckRow> longest_;
  std::set<uint64_t> stuck_after_us_;
};

}  // namespace biosnoop::report
