#pragma once

// Any record as a JSON line in biosnoop's layout, worked out from the
// schema (proto/biosnoop.proto) and the few rules of json_format.h it does
// not state: for the records biosnoop's types cannot hold (to_domain.h
// says which; biosnoop never writes one, but a stream from elsewhere, or a
// test's, may), so that converting them stays lossless and looks as
// biosnoop's lines do.  A unit test holds it to biosnoop's writers on the
// records they can write.

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace biosnoop::report {

// Appends {"type":`type`, then the fields of `m` (a member of
// biosnoop.v1.Record) in the order the schema declares them, named as
// there, then '\n'.  Which fields are written:
//   - the cgroup's keys (cgroup .. pod_uid) and an event's or stuck
//     record's files (content .. dirtier_count) together, or none when
//     all are unset or at their default; so are a header's ops and
//     op_min_us, and a stats record's ledger_* and its ops_*;
//   - else a field marked added_later when set and not its default, but
//     a header's stuck_after_us, a stats record's unfinished and a summary
//     group's errors always;
//   - else an unset `optional` field as null (bytes: left out);
//   - every other field always.
// Values: a repeated field as an array, a message as an object under the
// same rules (a Timestamp as RFC 3339 with nanoseconds), bytes as
// lowercase hex, strings per AppendJsonString, doubles per
// AppendJsonDouble.  bioreport's reader reads the line back as the same
// message.
void AppendSchemaJson(absl::string_view type,
                      const google::protobuf::Message& m, std::string* out);

}  // namespace biosnoop::report
