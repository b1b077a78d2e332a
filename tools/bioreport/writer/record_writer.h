#pragma once

// Writes a ParsedRecord back out in either format, exactly as biosnoop
// would have written it: a JSON line as json_format.h lays it out, or a
// length-delimited Record as proto_format.h frames it.  Reading a stream
// and writing it again gives the same records (JSON <-> protobuf is
// lossless), and for a stream biosnoop wrote, the same bytes.

#include <string>

#include "record.h"

namespace biosnoop::report {

// Appends one JSON line ("type" first, then the fields in schema order;
// optional fields that are unset are null, comm_raw is omitted when unset,
// as biosnoop does; a summary's histograms with exactly the buckets the
// record holds).  The fields --ops added to other records are written only
// when set, so that streams without them convert back unchanged: op_id (an
// event's, a stuck record's, a dirtier's) when not 0, an event's
// dirtier_op_ids when not empty and dirtier_op_count when not 0, a
// header's ops and
// op_min_us when either is, a stats record's ops_lost, ops_written and
// ops_untracked when any is; a header's kernel_lacks when not empty, and
// an event's or stuck record's stack when not empty (after partition).
void AppendRecordJson(const ParsedRecord& rec, std::string* out);

// Appends the record as a length-delimited biosnoop.v1.Record.
void AppendRecordProto(const ParsedRecord& rec, std::string* out);

}  // namespace biosnoop::report
