#pragma once

// A direct protobuf wire-format encoder for the one hot message, the event
// record: the same bytes as filling a v1::Record and serializing it
// (canonical order, proto3 defaults omitted, `optional` fields by
// presence; tests/unit/proto_wire_test.cc checks it byte for byte), at a
// fraction of the cost, with no message object and no string copies.

#include <string>

#include "absl/strings/string_view.h"
#include "event.h"

namespace biosnoop {

// Appends the length-delimited Record{event} for `e` to `out`.  `scratch`
// is reused between calls (no allocation once it has grown).
void AppendEventRecordDelimited(const EnrichedEvent& e, absl::string_view host,
                                std::string* scratch, std::string* out);

}  // namespace biosnoop
