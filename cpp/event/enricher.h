#pragma once

// Turns decoded events into output events: disk and partition names, the
// wall-clock time of completion, and the position in this run's output.

#include <cstdint>
#include <string>

#include "disk_names.h"
#include "event.h"
#include "wall_clock.h"

namespace biosnoop {

// Not thread-safe: one instance, driven by the poll loop.
class Enricher {
 public:
  // `sysfs_root` as for DiskNames ("/sys"); `include_queue` is copied into
  // every output event (-Q: latency includes the queue time). Calibrates the
  // wall clock.
  Enricher(std::string sysfs_root, bool include_queue);

  Enricher(const Enricher&) = delete;
  Enricher& operator=(const Enricher&) = delete;

  // Fills every field of `*out` from `event`; seq counts 1, 2, 3, ... per
  // call. `now_ns` is CLOCK_MONOTONIC now; it rate-limits sysfs re-reads
  // (see DiskNames). Reuses the capacity of `out`'s strings, so passing the
  // same `out` each time allocates nothing for known devices.
  void Enrich(const Event& event, uint64_t now_ns, EnrichedEvent* out);
  // The same for an event already in out->event (decoded in place).
  void EnrichInPlace(uint64_t now_ns, EnrichedEvent* out);
  // A stuck request's names and wall-clock time (of event.complete_ns, the
  // moment it was found), with no seq: stuck records are not events, and
  // a seq taken here would read as a lost event.
  void EnrichStuck(uint64_t now_ns, StuckRequest* out);

  // Re-measures the wall-clock offset; call about once a second so that a
  // stepped wall clock shows up in the timestamps.
  void Recalibrate() { clock_.Calibrate(); }

  // Events enriched so far (the last seq handed out).
  uint64_t count() const { return seq_; }

  DiskNames& disk_names() { return names_; }
  WallClock& wall_clock() { return clock_; }

 private:
  // Every field of EnrichInPlace but seq.
  void FillNamesAndTime(uint64_t now_ns, EnrichedEvent* out);

  DiskNames names_;
  WallClock clock_;
  bool include_queue_;
  uint64_t seq_ = 0;
};

}  // namespace biosnoop
