#pragma once

// A direct protobuf wire-format encoder for every record biosnoop writes:
// the same bytes as filling a v1::Record with proto_format.h and
// serializing it with the protobuf library (canonical order, proto3
// defaults omitted, `optional` fields by presence, message fields always
// present, repeated scalars packed; tests/unit/proto_wire_test.cc checks it
// byte for byte).  The event, the hot one, at a fraction of the library's
// cost, with no message object and no string copies; the rare ones (header,
// stats, summary) simply.  biosnoop itself then needs no protobuf library,
// whose code and static initialisers cost about 2 MiB of resident memory.
// Field numbers are the generated k...FieldNumber constants of
// biosnoop.pb.h (compile-time enumerators: no libprotobuf at run time).

#include <string>

#include "absl/strings/string_view.h"
#include "event.h"
#include "file_op.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop {

// Appends the length-delimited Record{event} for `e` to `out`.  `scratch`
// is reused between calls (no allocation once it has grown).
void AppendEventRecordDelimited(const EnrichedEvent& e, absl::string_view host,
                                std::string* scratch, std::string* out);

// An event's (and a stuck record's) host field encoded once for a stream, its
// string made valid UTF-8 as for every other string, rather than once per
// event.
class ProtoHost {
 public:
  explicit ProtoHost(absl::string_view host);
  absl::string_view field() const { return field_; }

 private:
  std::string field_;
};

// The most bytes WriteEventRecordDelimited can use for `e` and `host`.
size_t EventRecordBound(const EnrichedEvent& e, const ProtoHost& host);

// The same record written into `buf`, which has room for
// EventRecordBound(e, host) bytes, with no copy: the body is encoded first
// and its length prefix right before it, so the record starts at *start
// (a few bytes into buf) and ends at the returned pointer.
char* WriteEventRecordDelimited(const EnrichedEvent& e, const ProtoHost& host,
                                char* buf, char** start);

// Append the length-delimited Record{header}, Record{stats} and
// Record{summary}: the values of FillHeaderProto, FillStatsProto and
// FillSummaryProto (strings made valid UTF-8 the same way, histograms
// without their trailing zero buckets).
void AppendHeaderRecordDelimited(const StreamInfo& info, std::string* out);
void AppendStatsRecordDelimited(const StatsSnapshot& stats, std::string* out);
void AppendSummaryRecordDelimited(const SummaryRecord& summary,
                                  std::string* out);
// The length-delimited Record{stuck}: the values of FillStuckProto.
void AppendStuckRecordDelimited(const StuckRequest& s, const ProtoHost& host,
                                std::string* out);

// The length-delimited Record{op} (--ops): the values of FillOpProto.
void AppendOpRecordDelimited(const EnrichedOp& o, const ProtoHost& host,
                             std::string* out);

}  // namespace biosnoop
