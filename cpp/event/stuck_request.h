#pragma once

// A request still in flight long after its issue (proto message Stuck):
// found by the kernel layer's look at the in-flight table
// (kernel/stuck_requests.h), made a domain value by DecodeStuck()
// (decoder.h), named by Enricher::EnrichStuck() and written by a sink.
// Not an event: it has no completion, no status and no seq.

#include <cstdint>
#include <string>
#include <vector>

#include "event.h"

namespace biosnoop {

struct StuckRequest {
  Request request;        // what the request held at its issue
  uint64_t found_ns = 0;  // CLOCK_MONOTONIC of the look that found it
  uint64_t inflight_ns =
      0;                    // issue -> found_ns: how long the device has had it
  std::string disk;         // as EnrichedEvent::disk
  std::string partition;    // as EnrichedEvent::partition
  CgroupLabel cgroup;       // as EnrichedEvent::cgroup
  int64_t realtime_ns = 0;  // wall-clock time of found_ns
  // As EnrichedEvent::stack: the devices stacked on the partition (or,
  // with none, the disk).
  std::vector<std::string> stack;
  // What its pages hold, read while it is in flight
  // (InflightTable::StuckFiles); content kNotLooked with files off or when
  // the walk was discarded.
  Attribution attribution;
  AttributionLabel attribution_label;  // as EnrichedEvent::attribution
};

}  // namespace biosnoop
