#pragma once

// The event whose encoding is longest in every field the encoders bound
// by a constant rather than by the event's strings: for the tests that
// check an encoder's buffer bound (JSON Lines and protobuf).

#include <cstdint>
#include <limits>

#include "event.h"

namespace biosnoop {

// Sets every fixed-size field of `e` to its longest encoding: all 16 comm
// bytes invalid UTF-8 (each becomes U+FFFD, and comm_raw is added), the
// longest op, every flag, the largest numbers and the longest errno name.
inline void SetLongestFixedFields(EnrichedEvent* e) {
  e->event.comm.fill('\xff');
  e->event.op = Op::kSecureErase;
  e->event.flags = 0xff;
  e->event.sector = std::numeric_limits<uint64_t>::max();
  e->event.device_ns = std::numeric_limits<uint64_t>::max();
  e->event.queue_ns = std::numeric_limits<uint64_t>::max();
  e->event.bytes = e->event.pid = e->event.tid = e->event.queue_depth =
      e->event.major = e->event.minor = std::numeric_limits<uint32_t>::max();
  e->event.blk_status = 14;  // ETOOMANYREFS: the longest errno name
  e->seq = std::numeric_limits<uint64_t>::max();
}

// --ops: the largest call ids, as many dirtying calls as are listed (apart
// from SetLongestFixedFields, whose event is in the golden streams of runs
// without --ops).
inline void SetLongestOpIds(EnrichedEvent* e) {
  e->event.op_id = std::numeric_limits<uint64_t>::max();
  e->event.attribution.dirtier_op_ids.assign(
      8, std::numeric_limits<uint64_t>::max());
  e->event.attribution.dirtier_op_count = std::numeric_limits<uint32_t>::max();
}

}  // namespace biosnoop
