#pragma once

// Conversion between the stream formats: every record (events, stuck
// records and op records that pass the filter; headers, stats and
// summaries always)
// written in the other format.
// Lossless: converting back gives the same records (record_writer.h).

#include <cstdint>

#include "absl/status/status.h"
#include "filter.h"
#include "output_file.h"
#include "record_reader.h"
#include "stream_set.h"

namespace biosnoop::report {

struct ConvertCounts {
  uint64_t records = 0;
  uint64_t events = 0;  // stuck records are records, not events
};

// `to` is kJsonLines or kProtobuf, and `out` must have the matching
// framing.  Errors are the readers' and the output's (CancelledError when
// the reader of a pipe went away); to JSON, InvalidArgumentError for a
// record biosnoop could not have written ("NAME: record 3 (event): op
// \"s6\" is not an operation biosnoop writes"; record_writer.h), the
// records before it written.
absl::Status Convert(StreamSet* inputs, const Filter& filter, StreamFormat to,
                     OutputFile* out, ConvertCounts* counts);

}  // namespace biosnoop::report
