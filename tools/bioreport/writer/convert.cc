// The convert loop: one reused buffer, one record at a time, so that a
// stream of any size converts in constant memory.

#include "convert.h"

#include <string>

#include "record_writer.h"

namespace biosnoop::report {

absl::Status Convert(StreamSet* inputs, const Filter& filter, StreamFormat to,
                     OutputFile* out, ConvertCounts* counts) {
  std::string buffer;  // reused: one record at a time
  absl::Status status = inputs->ForEach(
      [](const RecordReader&) {},
      [&](const ParsedRecord& rec) -> absl::Status {
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
          AppendRecordJson(rec, &buffer);
        }
        ++counts->records;
        return out->Append(buffer);
      });
  absl::Status flushed = out->Flush();
  return status.ok() ? flushed : status;
}

}  // namespace biosnoop::report
