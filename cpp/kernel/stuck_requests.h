#pragma once

// Requests that hang, as the kernel's in-flight table shows them: which
// issued entries have been on their device for at least --stuck-after,
// each returned once, so that a disk that stops answering shows in the
// stream at once and not only when (if ever) its requests complete.  The
// run turns what StuckFinder::Look() returns into stuck records
// (app/stuck_watch.h: decode, enrich, write).
//
// Looked for once a second (the run's tick): a request is reported at the
// first look that finds it at least --stuck-after since its issue, on a
// disk the kernel says is busy (sysfs `inflight` > 0: an idle disk's entry
// is a completion biosnoop missed, see missed_completions.h, not a hang).
// A flush request is never in `inflight`: it is reported unless the
// kernel's count of completed flushes says biosnoop missed its completion
// (InflightTable::UnseenFlushes).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "biosnoop_abi.h"
#include "inflight_table.h"
#include "probe_config.h"

namespace biosnoop {

// What the kernel's filters decide at completion (bpf passes_filters),
// applied to an in-flight entry: -p, --comm, --op, a partition's sectors
// and --cgroup (decided at submission, in the entry).  The disk filter
// needs no check: other disks have no entries.
bool StuckPassesFilters(const ProbeConfig& config,
                        const biosnoop_inflight_val& v);

// Which requests to report.  Pure: the caller reads the table.
class StuckTracker {
 public:
  explicit StuckTracker(uint64_t after_ns) : after_ns_(after_ns) {}

  // One look at the issued, not requeued entries at now_ns.  Returns those
  // in flight for at least after_ns since their issue and not returned
  // before (a request is reported once per issue; issued again after a
  // requeue, it may be again).  Forgets requests no longer in `issued`.
  std::vector<biosnoop_inflight_val> Observe(
      absl::Span<const biosnoop_inflight_val> issued, uint64_t now_ns);

 private:
  uint64_t after_ns_;
  // (request, issue time) of those reported and still in flight.
  absl::flat_hash_set<std::pair<uint64_t, uint64_t>> reported_;
};

// The periodic look at the table.
class StuckFinder {
 public:
  // after_ns 0: never looks.  `table` and `config` outlive this; `config`
  // is read at each look (a followed partition's sectors change in it).
  StuckFinder(InflightTable& table, const ProbeConfig& config,
              uint64_t after_ns, std::string sysfs_root = "/sys")
      : table_(table),
        config_(config),
        tracker_(after_ns),
        after_ns_(after_ns),
        sysfs_root_(std::move(sysfs_root)) {}

  // The entries newly stuck at now_ns (CLOCK_MONOTONIC), on their device
  // and within the filters, each once.  Errors are the in-flight table's.
  absl::StatusOr<std::vector<biosnoop_inflight_val>> Look(uint64_t now_ns);

 private:
  InflightTable& table_;
  const ProbeConfig& config_;
  StuckTracker tracker_;
  uint64_t after_ns_;
  std::string sysfs_root_;
};

}  // namespace biosnoop
