#pragma once

// Writes a ParsedRecord back out in either format, exactly as biosnoop
// would have written it: a JSON line as json_format.h lays it out, or a
// length-delimited Record as proto_format.h frames it.  Reading a stream
// and writing it again gives the same records (JSON <-> protobuf is
// lossless), and for a stream biosnoop wrote, the same bytes.

#include <string>

#include "absl/status/status.h"
#include "record.h"

namespace biosnoop::report {

// Appends one JSON line: the record turned into biosnoop's domain value
// (to_domain.h) and written by biosnoop's own writer (json_format.h), so
// exactly as biosnoop writes it ("type" first, then the fields in schema
// order, with biosnoop's rules for what is null and what is left out);
// an event from a stream older than completion_context without it, as
// that stream had it.  A record biosnoop could not have written
// (to_domain.h lists what) is refused: InvalidArgumentError
// "(KIND): FIELD ..." ("(event): op \"s6\" is not an operation biosnoop
// writes"), and nothing is appended.
absl::Status AppendRecordJson(const ParsedRecord& rec, std::string* out);

// Appends the record as a length-delimited biosnoop.v1.Record.
void AppendRecordProto(const ParsedRecord& rec, std::string* out);

}  // namespace biosnoop::report
