#pragma once

// JSON Lines formatting of stream records: one object per line, a leading
// "type" naming the Record member ("event", "header", "stats", "summary"),
// then that message's fields, named and ordered exactly as in
// proto/biosnoop.proto.
//
// Everything here appends to a caller-owned std::string so that a sink can
// reuse one buffer for every event: no allocation once the buffer has grown.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "event.h"
#include "file_op.h"
#include "json_escape.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop {

// Appends one JSON object describing `e` followed by exactly one '\n'.
// Fields, in this order (see proto/biosnoop.proto for their meaning):
//   type        "event"
//   timestamp   RFC 3339 UTC string with nanoseconds, from e.realtime_ns
//   host        `host`
//   disk        e.disk
//   partition   e.partition, or null when empty
//   stack       e.stack, an array of strings, only when not empty
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
//   cgroup .. dirtier_count as the schema orders them (cgroup fields when
//   the id is known, attribution fields when the kernel side looked)
//   op_id, dirtier_op_ids, dirtier_op_count (--ops): each only when not
//   0 / empty, as dirtied_by's op_id
// Integers are JSON numbers (never strings, never floats); durations are
// truncated to whole microseconds.  Strings other than comm (host, disk,
// partition, stack) go through AppendJsonString too.
void AppendEventJson(const EnrichedEvent& e, absl::string_view host,
                     std::string* out);

// A host name as the JSON text of an event's "host" value (quoted, per
// AppendJsonString), made once for a stream rather than once per event.
class JsonHost {
 public:
  explicit JsonHost(absl::string_view host);
  absl::string_view text() const { return text_; }

 private:
  std::string text_;
};

// The most bytes WriteEventJson can write for `e` and `host`.
size_t EventJsonBound(const EnrichedEvent& e, const JsonHost& host);

// AppendEventJson's line written at `p`, which has room for
// EventJsonBound(e, host) bytes; returns the end of what was written.  For
// callers that keep a buffer of their own (the JSON Lines sink): growing a
// std::string zero-fills the new bytes, which per event costs more than
// some of the fields.
char* WriteEventJson(const EnrichedEvent& e, const JsonHost& host, char* p);

// Appends a stuck line: {"type":"stuck", then every Stuck field in schema
// order: timestamp (from s.realtime_ns), host, disk, partition (null when
// empty), stack (only when not empty), dev, op, rwbs, sector, bytes,
// inflight_us (s.event.device_ns / 1000), queue_us (null when unknown),
// queue_depth, pid, tid, comm, and comm_raw only when comm is not valid
// UTF-8, all written as AppendEventJson writes the same fields}, then
// '\n'.
void AppendStuckJson(const StuckRequest& s, const JsonHost& host,
                     std::string* out);

// Appends an op line (--ops): {"type":"op", then every Op field in schema
// order: timestamp (from o.realtime_ns, the call's return), host, op_id,
// call (CallName), pid, tid, comm (and comm_raw) as an event's, cgroup,
// cgroup_id, container_id, pod_uid as an event's (none when the id is 0),
// file {path, path_kind, inode, dev, direct} (path "" and path_kind ""
// when the call was not named), disk, partition (null when empty), offset
// (null when none), bytes_requested, bytes_requested_partial, bytes_done,
// error_code (positive errno, 0 on success), error (its name, or null),
// start_time, latency_us, block and writeback {requests, bytes, disks,
// queue_us_sum, queue_us_max, device_us_sum, device_us_max, wait_us,
// dirty_age_us_max, dirty_age_us_min (null unless dirty_known > 0, and
// always null for block), dirty_known, culprits}, other_us
// (FileOp::OtherUs), then journal, flush and others_writeback as the
// other layers (no dirty ages: null, dirty_known 0)}, then '\n'
// (op_layer_json.h).  Durations in whole microseconds, truncated.  Only
// the block layer's disks are known to the kernel side: the others' [].
void AppendOpJson(const EnrichedOp& o, const JsonHost& host, std::string* out);

// Appends the stream header line: {"type":"header", then every StreamHeader
// field in schema order: format_version (kStreamFormatVersion), host,
// boot_id, start_time (RFC 3339 like an event's timestamp), biosnoop_version,
// kernel_release, min_us, queued (true/false), disk_filter, pid_filter,
// comm_filter, op_filter, ringbuf_kib, stuck_after_us, run_id (when not
// empty), cgroup_filter (when not empty), ops and op_min_us (with --ops
// only), kernel_lacks (an array of strings, when not empty)}, then '\n'.
// The others are always present (empty strings and zeros included).
void AppendHeaderJson(const StreamInfo& info, std::string* out);

// Same as above with an explicit format_version (for a converter that
// copies a stream written by another version).
void AppendHeaderJson(const StreamInfo& info, uint32_t format_version,
                      std::string* out);

// Appends a stats line: {"type":"stats", then every Stats field in schema
// order: timestamp (RFC 3339), elapsed_s (the shortest decimal that reads
// back as the same double; null if not finite), completions, emitted, lost,
// orphans, below_threshold, filtered, decode_errors, expired, written,
// dropped, final (true/false), missed, unfinished, run_id (when not
// empty), ledger_misses and ledger_replaced (when either is not 0),
// ops_lost, ops_written, ops_untracked (all three when one is not 0),
// ops_unfollowed and ledger_stale (each when not 0)}, then '\n'.
void AppendStatsJson(const StatsSnapshot& stats, std::string* out);

// Appends a summary line: {"type":"summary", then every Summary field in
// schema order: timestamp (RFC 3339), interval_s (as elapsed_s), min_us,
// groups: an array with one object per SummaryGroup, each with disk, op,
// count, bytes, slow, latency_us_log2 and size_log2 (JSON arrays of
// integers, trailing zero buckets left out: [] when all are zero)}, then
// '\n'.  Groups are written in the order given.
void AppendSummaryJson(const SummaryRecord& summary, std::string* out);

// Pieces of the lines above, for a writer that lays out the same records
// from other types (bioreport's converter):
//   - `v` as the shortest decimal that reads back as the same double, or
//     null when it is not finite;
void AppendJsonDouble(double v, std::string* out);
//   - [v0,v1,...] as JSON integers.
void AppendJsonUintArray(absl::Span<const uint64_t> values, std::string* out);
// Appends `values` as a JSON array of strings (each per AppendJsonString).
void AppendJsonStringArray(absl::Span<const std::string> values,
                           std::string* out);

// How many leading elements of `values` remain once trailing zeros are
// left out (0 when all are zero).
size_t LengthWithoutTrailingZeros(absl::Span<const uint64_t> values);

}  // namespace biosnoop
