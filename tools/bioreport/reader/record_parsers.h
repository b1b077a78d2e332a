#pragma once

// Parsers for one record of each format, into a reused ParsedRecord.
// Framing (lines, varint lengths) is the reader's job (record_reader.h).

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "record.h"
#include "time_format.h"

namespace biosnoop::report {

// One JSON Lines line (without its '\n') -> a record.
//
// The line is one JSON object.  Its "type" ("event", "header", "stats",
// "summary", "stuck", "op") names the Record member; a line without "type" is
// an event (the format before typed lines).  Every other key is a field of that
// message, in any order, each at most once (a known key or "type" given twice
// is an error: which value was meant is unknown); unknown keys are skipped
// (after checking they are valid JSON), so newer streams stay readable.  Values
// must have their field's JSON type: strings (timestamps as RFC 3339; comm_raw
// as hex), integers in the field's range (no fraction, no exponent),
// true/false, and null for the `optional` fields (partition, queue_us,
// comm_raw, error), meaning unset; every key of the record's message in
// proto/biosnoop.proto must be there, but those `optional` ones and the fields
// marked `added_later` (a header's stuck_after_us and run_id, a stats record's
// unfinished, run_id and ledger counters, a summary group's errors, an
// event's cgroup, completion context, content, files and dirtier), which read
// as 0, "", [] or null when absent (keys, field numbers and these rules come
// from the generated descriptors); a summary's "groups" is an array of objects
// (SummaryGroup fields, unknown keys skipped) and its histograms arrays of at
// most kMaxSummaryBuckets integers; an event's "files" an array of objects
// (FileRef fields, each key required) and its "dirtied_by" an object (Dirtier
// fields, comm_raw and cgroup optional) or null, read with the same rules;
// an op record's "file" a FileRef object and its "block", "writeback",
// "journal", "flush" and "others_writeback" OpLayer objects (the dirty ages
// nullable; "culprits" an array of OpCulprit objects, comm_raw, cgroup,
// container_id and pod_uid nullable), an event's "dirtier_op_ids"
// an array of at most kMaxDirtierOps integers, a header's "kernel_lacks"
// and an event's or stuck record's "stack" arrays of strings.
// Anything else, including invalid UTF-8 and trailing text, is an
// InvalidArgumentError whose message names the field and the column.
class JsonRecordParser {
 public:
  absl::Status Parse(absl::string_view line, ParsedRecord* rec);

 private:
  Rfc3339Parser time_parser_;
  std::string scratch_;
  std::string key_scratch_;
  std::string nested_key_scratch_;  // keys inside groups, files, dirtiers
};

// One serialized biosnoop.v1.Record (without its length prefix) -> a
// record.  InvalidArgumentError when the bytes do not parse, when no member
// of `kind` is set (e.g. a kind added by a newer biosnoop), or when a value
// is out of range (see ParsedRecord).
class ProtoRecordParser {
 public:
  absl::Status Parse(absl::string_view bytes, ParsedRecord* rec);

 private:
  v1::Record scratch_;  // for records not in the one-member fast path
};

// Clears the member of `kind` in `rec` for a new record, keeping its
// Timestamp allocated (cleared): Clear() would free it and every record
// would allocate a new one.  A record without a timestamp reads as the
// epoch either way.
void ResetForKind(RecordKind kind, ParsedRecord* rec);

// Checks and normalizes what both parsers promise (record.h): sets an
// absent timestamp to the epoch; rejects a header whose format_version is
// not the one biosnoop writes (kStreamFormatVersion), out-of-range
// timestamps, an event or stuck record without a time, disk, dev, op or
// rwbs, an event with files or a dirtier but no content, more than
// kMaxEventFiles files or fewer than its file_count says, or a dirtier
// without a valid dirtied_at, more than kMaxDirtierOps dirtier_op_ids or
// fewer than its dirtier_op_count says, an op record without a valid
// timestamp and start_time, an op_id or a call, or with more than
// kMaxOpLayerDisks disks or kMaxOpCulprits culprits in a layer, a
// non-finite elapsed_s, an interval_s
// outside 0 to 100 years, and over-long summary histograms.
absl::Status ValidateRecord(ParsedRecord* rec);

}  // namespace biosnoop::report
