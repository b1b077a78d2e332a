#pragma once

// Records for the encoder and sink tests of several layers' binaries.

#include "event.h"
#include "stuck_request.h"

namespace biosnoop {

// A stuck request with `e`'s request fields, names and time, in flight
// for e's device time (StuckRequest is its own type: no completion).
inline StuckRequest StuckLike(const EnrichedEvent& e) {
  StuckRequest s;
  s.request = e.event;
  s.inflight_ns = e.event.device_ns;
  s.disk = e.disk;
  s.partition = e.partition;
  s.stack = e.stack;
  s.realtime_ns = e.realtime_ns;
  s.cgroup = e.cgroup;
  s.attribution = e.event.attribution;
  s.attribution_label = e.attribution;
  return s;
}

}  // namespace biosnoop
