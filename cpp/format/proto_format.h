#pragma once

// Protobuf forms of stream records (proto/biosnoop.proto), and the
// length-delimited framing of a Record: its size as a base-128 varint, then
// the serialized message, as C++'s SerializeDelimitedTo, Java's
// writeDelimitedTo, Go's protodelim and Python's _VarintBytes write it.

#include <string>

#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "event.h"
#include "file_op.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop {

// Fills `msg` with the same values AppendEventJson() writes, field for
// field: the JSON line of an event and its protobuf form say the same.
//   - timestamp from e.realtime_ns (seconds, and nanos in [0, 1e9));
//   - host, disk, partition: as valid UTF-8 (each invalid byte U+FFFD), as
//     JSON has them; partition, queue_us and error are set only when known;
//   - comm: valid UTF-8 the same way; comm_raw holds the raw bytes only when
//     comm differs from them (some byte was invalid), else it is cleared.
// Meant to be called on one reused message: once its strings have grown,
// filling it allocates nothing.
void FillEventProto(const EnrichedEvent& e, absl::string_view host,
                    v1::Event* msg);

// The header with format_version = kStreamFormatVersion; strings as valid
// UTF-8 (as in AppendHeaderJson).
void FillHeaderProto(const StreamInfo& info, v1::StreamHeader* msg);

void FillStatsProto(const StatsSnapshot& stats, v1::Stats* msg);

// The same values as AppendSummaryJson(): groups in the order given, disk
// and op as valid UTF-8, each histogram without its trailing zero buckets.
void FillSummaryProto(const SummaryRecord& summary, v1::Summary* msg);

// The same values as AppendStuckJson(), as FillEventProto fills the
// fields the two messages share.
void FillStuckProto(const StuckRequest& s, absl::string_view host,
                    v1::Stuck* msg);

// The same values as AppendOpJson() (--ops): optional fields (partition,
// offset, error, the writeback layer's dirty ages, cgroup's names) set
// only when known, as JSON has them non-null.
void FillOpProto(const EnrichedOp& o, absl::string_view host, v1::Op* msg);

// Sets a Timestamp from ns since the epoch (floor division: nanos >= 0).
void SetTimestamp(int64_t realtime_ns, google::protobuf::Timestamp* ts);

// Appends `msg` length-delimited (varint size, then the bytes) to `out`.
// Allocates only when `out` must grow.
void AppendDelimited(const google::protobuf::MessageLite& msg,
                     std::string* out);

}  // namespace biosnoop
