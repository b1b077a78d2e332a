#pragma once

// JSON Lines formatting of events: one object per line, field names and
// order exactly as in proto/biosnoop.proto's Event message.
//
// Everything here appends to a caller-owned std::string so that a sink can
// reuse one buffer for every event: no allocation once the buffer has grown.

#include <string>

#include "absl/strings/string_view.h"
#include "event.h"

namespace biosnoop {

// True when `bytes` is well-formed UTF-8 (RFC 3629 / Unicode table 3-7):
// no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF,
// no truncated sequences.
bool IsValidUtf8(absl::string_view bytes);

// Appends `bytes` as a quoted JSON string that is always valid UTF-8:
//   - each well-formed UTF-8 sequence is copied unchanged;
//   - each byte that is not part of a well-formed sequence becomes U+FFFD
//     (one U+FFFD per byte; e.g. "\xe2\x82" gives two);
//   - '"' -> \"   '\' -> \\   and \n \r \t \b \f as their short escapes;
//   - any other byte below 0x20, and 0x7F, -> \u00XX (lowercase hex).
// Nothing else is escaped ('/' and non-ASCII characters pass through).
void AppendJsonString(absl::string_view bytes, std::string* out);

// Appends `bytes` as lowercase hex digits, two per byte, unquoted.
void AppendLowerHex(absl::string_view bytes, std::string* out);

// Appends one JSON object describing `e` followed by exactly one '\n'.
// Fields, in this order (see proto/biosnoop.proto for their meaning):
//   timestamp   RFC 3339 UTC string with nanoseconds, from e.realtime_ns
//   host        `host`
//   disk        e.disk
//   partition   e.partition, or null when empty
//   dev         "MAJ:MIN" of the whole disk
//   op          OpName()
//   rwbs        Rwbs()
//   sector, bytes
//   latency_us  e.event.LatencyNs(e.include_queue) / 1000
//   device_us   device_ns / 1000
//   queue_us    queue_ns / 1000, or null when unknown
//   queue_depth, pid, tid
//   comm        the comm bytes (up to the first NUL) per AppendJsonString
//   comm_raw    only when those bytes are not valid UTF-8: lowercase hex of
//               the raw bytes, so the original can always be recovered
//   error_code  positive errno (BlkStatusToError), 0 on success
//   error       errno name ("EIO"), or null on success
//   seq
// Integers are JSON numbers (never strings, never floats); durations are
// truncated to whole microseconds.  Strings other than comm (host, disk,
// partition) go through AppendJsonString too.
void AppendEventJson(const EnrichedEvent& e, absl::string_view host,
                     std::string* out);

}  // namespace biosnoop
