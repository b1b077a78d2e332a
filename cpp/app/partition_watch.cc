// -d PART followed while running: sysfs read again, the change applied to the
// kernel filter, the stuck filter and the names (partition_watch.h).

#include "partition_watch.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop {
namespace {

std::string Range(uint64_t start, uint64_t end) {
  return absl::StrCat("[", start, ", ", end, ")");
}

}  // namespace

PartitionWatch::PartitionWatch(const ProbeConfig& config,
                               std::string sysfs_root)
    : names_(std::move(sysfs_root)),
      partition_(config.partition),
      dev_(config.dev),
      start_(config.sector_start),
      end_(config.sector_end) {}

std::optional<PartitionWatch::Change> PartitionWatch::Check() {
  if (partition_.empty()) return std::nullopt;
  absl::StatusOr<ResolvedDisk> now = names_.Resolve(partition_);
  // Its name on another disk cannot happen (a partition is named after its
  // disk), but a disk detached and another attached under the same name
  // with another number can: the kernel filter's disk cannot follow that.
  const bool here = now.ok() && !now->partition.empty() &&
                    ((now->major << 20) | now->minor) == dev_;
  if (!here && !now.ok() && !absl::IsNotFound(now.status())) {
    return std::nullopt;  // half-written sysfs: look again next time
  }
  Change change;
  if (!here) {
    if (!exists_) return std::nullopt;
    exists_ = false;
    start_ = end_ = 0;
    change.message = absl::StrCat(
        "biosnoop: partition ", partition_,
        " no longer exists: no I/O matches -d until a partition of that name "
        "appears again (its disk's I/O is counted as filtered)");
    return change;
  }
  if (exists_ && now->sector_start == start_ && now->sector_end == end_) {
    return std::nullopt;
  }
  const std::string was = exists_ ? Range(start_, end_) : "deleted";
  exists_ = true;
  start_ = now->sector_start;
  end_ = now->sector_end;
  change.exists = true;
  change.start = start_;
  change.end = end_;
  change.message = absl::StrCat("biosnoop: partition ", partition_,
                                " is now sectors ", Range(start_, end_), " of ",
                                now->disk, " (was ", was, "); -d follows it");
  return change;
}

void FollowPartition(PartitionWatch& watch, Probe& probe, ProbeConfig& config,
                     DiskNames* names, std::FILE* diag) {
  std::optional<PartitionWatch::Change> change = watch.Check();
  if (!change.has_value()) return;
  probe.SetSectorRange(change->start, change->end);
  config.sector_start = change->start;
  config.sector_end = change->end;
  // The events' partition names: this disk's table is read again at its
  // next event, before any I/O judged by the new range is named.
  if (names != nullptr)
    names->Invalidate(config.dev >> 20, config.dev & 0xfffff);
  absl::FPrintF(diag, "%s\n", change->message);
}

}  // namespace biosnoop
