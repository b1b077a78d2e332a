#pragma once

// Turns decoded events into output events: disk and partition names, the
// devices stacked on them, the cgroup's names, the wall-clock time of
// completion, and the position in this run's output.

#include <cstdint>
#include <string>

#include "cgroup_names.h"
#include "disk_names.h"
#include "event.h"
#include "file_op.h"
#include "mount_table.h"
#include "stacked_devices.h"
#include "stuck_request.h"
#include "wall_clock.h"

namespace biosnoop {

// Not thread-safe: one instance, driven by the poll loop.
class Enricher {
 public:
  // `sysfs_root` as for DiskNames ("/sys"); `include_queue` is copied into
  // every output event (-Q: latency includes the queue time); cgroups are
  // named from the v2 hierarchy at `cgroup_mount` ("" = none) and from
  // `proc` (cgroup_names.h). Calibrates the wall clock.
  Enricher(std::string sysfs_root, bool include_queue,
           std::string cgroup_mount = FindCgroup2Mount(),
           std::string proc = "/proc");

  Enricher(const Enricher&) = delete;
  Enricher& operator=(const Enricher&) = delete;

  // Fills every field of `*out` from `event`; seq counts 1, 2, 3, ... per
  // call.  `lookup_ns` (CLOCK_MONOTONIC) is the time the names are looked
  // up at: it rate-limits sysfs re-reads (see DiskNames and
  // StackedDevices).  The run passes the event's completion time, close
  // enough to now and no clock read.  The wall-clock time is always that
  // of event.complete_ns.  Reuses the capacity of `out`'s strings, so
  // passing the same `out` each time allocates nothing for known devices.
  void Enrich(const Event& event, uint64_t lookup_ns, EnrichedEvent* out);
  // The same for an event already in out->event (decoded in place).
  void EnrichInPlace(uint64_t lookup_ns, EnrichedEvent* out);
  // A stuck request's disk and partition names and the devices stacked on
  // them (looked up at its found_ns), its cgroup's names and the wall-clock
  // time of found_ns.  It takes no seq: stuck records are not events, and
  // a seq taken here would read as a lost event.
  void EnrichStuck(StuckRequest* out);
  // A call (--ops) already in out->op (decoded in place): out->disk names
  // op.disk_* (the whole disk of its file system), out->partition the
  // block device it is on (op.part_*) when that is not the whole disk
  // (else empty), out->cgroup op.cgroup_id's names, out->file the file's
  // path as an event's files are resolved (through the mount table by the
  // file's device; kind kNone when not named), out->block_disks the names
  // of op.block_devs, and the wall-clock times of start_ns and end_ns.
  // Takes no seq (ops are not events).  Reuses out's strings.
  void EnrichOp(uint64_t lookup_ns, EnrichedOp* out);

  // Re-measures the wall-clock offset; call about once a second so that a
  // stepped wall clock shows up in the timestamps.
  void Recalibrate() { clock_.Calibrate(); }

  // Events enriched so far (the last seq handed out).
  uint64_t count() const { return seq_; }

  DiskNames& disk_names() { return names_; }
  StackedDevices& stacked_devices() { return stacked_; }
  CgroupNames& cgroup_names() { return cgroups_; }
  WallClock& wall_clock() { return clock_; }
  MountTable& mounts() { return mounts_; }

 private:
  // The disk and partition of (major, minor, sector) at lookup_ns, into
  // *disk and *partition, and the devices stacked on the partition (or,
  // with none, the disk) into *stack, each copied only when it changed.
  void FillNames(const Request& request, uint64_t lookup_ns, std::string* disk,
                 std::string* partition, std::vector<std::string>* stack);

  // The names of request.cgroup_id into *out, strings copied only when
  // they changed.
  void FillCgroup(const Request& request, CgroupLabel* out);
  // The cgroup `id` of thread `tid` into *out (as FillCgroup).
  void FillCgroupOf(uint64_t id, uint32_t tid, CgroupLabel* out);
  // out->attribution from out->event.attribution: files' paths, content's
  // name, the dirtier's cgroup and wall-clock time.
  void FillAttribution(uint64_t lookup_ns, EnrichedEvent* out);
  // A file's path as the kernel side named it, into *out.
  void FillFileLabel(const FileRef& f, uint64_t lookup_ns, FileLabel* out);
  // The name of whole-disk or partition device `major`:`minor` into *out,
  // copied only when it changed.
  void FillDeviceName(uint32_t major, uint32_t minor, uint64_t lookup_ns,
                      std::string* out);
  // An event's or a stuck record's files: content, paths, dirtier.
  void FillAttributionOf(const Attribution& a, uint64_t lookup_ns,
                         AttributionLabel* out);

  DiskNames names_;
  StackedDevices stacked_;  // after names_: both are given the sysfs root
  CgroupNames cgroups_;
  WallClock clock_;
  MountTable mounts_;
  bool include_queue_;
  uint64_t seq_ = 0;
};

}  // namespace biosnoop
