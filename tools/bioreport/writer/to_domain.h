#pragma once

// The records bioreport reads (biosnoop.v1 messages, record.h) as the
// domain values biosnoop's own writers take (cpp/event), so that bioreport
// writes a record with cpp/format's functions, as biosnoop would have
// written it: one function per record kind.
//
// The contract, for each function: it returns OK when its output is exact,
// that is when biosnoop's writer (json_format.h, proto_format.h), given
// the output, writes a record that reads back as the same message, every
// field of it, or as the message's one exact equivalent (below); else
// InvalidArgumentError saying which field, with its value, biosnoop could
// not have written ("op \"s6\" is not an operation biosnoop writes"),
// with the output unspecified: bioreport refuses such a record (it has
// no JSON writer of its own).  Every record biosnoop writes is exact, and
// so is every record of the streams of its earlier versions.
//
// Lossless: every field; durations, which the domain keeps in ns and the
// record in us, become us * 1000 (the writers' truncating / 1000 gives the
// same integer back); "MAJ:MIN" devices as their two numbers; comm and
// comm_raw as the raw bytes they stand for; error_code and error as the
// status (blk_status_t; an op's result) they name; an event's latency_us
// as its device and queue time and whether one includes the other (-Q);
// an empty or missing completion_context (a stream from before it) as
// CompletionContext::kAbsent, which the writers leave out.
//
// Normalised (the one equivalent biosnoop writes):
//   - a summary's histogram with trailing zero buckets: without them
//     (biosnoop leaves them out), also past kHistBuckets;
//   - an optional string that is set but empty (partition, container_id,
//     pod_uid): unset (it names nothing; the domain's "" is none).
//
// Refused (biosnoop never writes them; another program or a hand-edited
// stream may):
//   - a name the domain keeps as a choice, outside that choice: op and
//     rwbs (an Op and flags, OpName and Rwbs), completion_context
//     (CompletionContextName), content ("file", "metadata", "device",
//     "unknown", "none", or ""), a file's path_kind (PathKindName), an
//     op's call (CallName), error (the name of error_code:
//     BlkStatusToError's, an op's ErrnoName);
//   - a dev not in the form "MAJ:MIN" (decimal, each a uint32, no leading
//     zeros), as biosnoop writes it;
//   - comm (or a dirtier's) of more than 16 bytes or with a NUL; comm_raw
//     when it is valid UTF-8 or comm is not its text (AppendSanitizedUtf8);
//   - latency_us other than device_us, or device_us + queue_us (or one
//     more: biosnoop adds the ns, whose sub-microsecond parts may add up);
//   - cgroup, container_id or pod_uid with cgroup_id 0 (none is written
//     then); content "" with a file, a file_count, files_incomplete, a
//     dirtier or a dirtier_count (none is written then);
//   - an op's bytes_done with an error (a call's result is one or the
//     other), error_code above 4095 or below 0, other_us other than
//     latency_us - every layer's wait_us (at least 0), a block layer with
//     dirty_known, dirty ages or culprits, any other layer with disks
//     (biosnoop attributes disks to the block layer only), a journal,
//     flush or others_writeback layer with dirty ages, dirty ages other
//     than both set exactly when dirty_known > 0;
//   - a layer with more than kMaxOpCulprits culprits, or culprits not
//     listed the most waited-for first (wait_us never growing), a
//     culprit's role other than "dirtier" or "submitter", its comm,
//     comm_raw and cgroup fields refused as the op's own are;
//   - a summary's histogram with more than kHistBuckets buckets up to its
//     last non-zero one;
//   - a header's op_min_us without ops;
//   - a duration whose ns do not fit in a uint64.
// Timestamps are the readers' (validated: their ns fit in an int64).

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "event.h"
#include "file_op.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop::report {

// An event as AppendEventJson() takes it.
struct DomainEvent {
  EnrichedEvent event;
  absl::string_view host;  // the message's host (it must outlive this)
};

// A stuck record as AppendStuckJson() takes it.
struct DomainStuck {
  StuckRequest stuck;
  absl::string_view host;  // the message's host
};

// An op record as AppendOpJson() takes it.
struct DomainOp {
  EnrichedOp op;
  absl::string_view host;  // the message's host
};

absl::Status ToDomainEvent(const v1::Event& m, DomainEvent* out);
absl::Status ToDomainStuck(const v1::Stuck& m, DomainStuck* out);
absl::Status ToDomainOp(const v1::Op& m, DomainOp* out);
absl::Status ToDomainSummary(const v1::Summary& m, SummaryRecord* out);
// The header but its format_version (AppendHeaderJson takes it apart).
absl::Status ToDomainHeader(const v1::StreamHeader& m, StreamInfo* out);
absl::Status ToDomainStats(const v1::Stats& m, StatsSnapshot* out);

}  // namespace biosnoop::report
