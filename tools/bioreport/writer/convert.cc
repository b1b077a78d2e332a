// The convert loop: one reused buffer, one record at a time, so that a
// stream of any size converts in constant memory.

#include "convert.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "record_writer.h"

namespace biosnoop::report {

absl::Status Convert(StreamSet* inputs, const Filter& filter, StreamFormat to,
                     OutputFile* out, ConvertCounts* counts) {
  std::string buffer;   // reused: one record at a time
  std::string input;    // the input's name, for a refused record
  uint64_t record = 0;  // the record's number in it, from 1
  absl::Status status = inputs->ForEach(
      [&](const RecordReader& reader) {
        input = reader.name();
        record = 0;
      },
      [&](const ParsedRecord& rec) -> absl::Status {
        ++record;
        if (rec.kind == RecordKind::kEvent) {
          if (!filter.Matches(rec.event, ToNs(rec.event.timestamp()))) {
            return absl::OkStatus();
          }
          ++counts->events;
        } else if (rec.kind == RecordKind::kStuck) {
          // Selected like the events, but not counted as one.
          if (!filter.Matches(rec.stuck, ToNs(rec.stuck.timestamp()))) {
            return absl::OkStatus();
          }
        } else if (rec.kind == RecordKind::kOp) {
          // Calls too (filter.h says how each filter reads a call).
          if (!filter.Matches(rec.op, ToNs(rec.op.timestamp()))) {
            return absl::OkStatus();
          }
        }
        buffer.clear();
        if (to == StreamFormat::kProtobuf) {
          AppendRecordProto(rec, &buffer);
        } else {
          // A record biosnoop could not have written: refused, named
          // as the readers name a bad record.
          if (absl::Status s = AppendRecordJson(rec, &buffer); !s.ok()) {
            return absl::InvalidArgumentError(
                absl::StrCat(input, ": record ", record, " ", s.message()));
          }
        }
        ++counts->records;
        return out->Append(buffer);
      });
  absl::Status flushed = out->Flush();
  return status.ok() ? flushed : status;
}

}  // namespace biosnoop::report
