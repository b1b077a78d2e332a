// The names of Record's oneof members, as the JSON "type" key spells them.

#include "record.h"

namespace biosnoop::report {

const char* RecordKindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::kHeader:
      return "header";
    case RecordKind::kEvent:
      return "event";
    case RecordKind::kStats:
      return "stats";
    case RecordKind::kSummary:
      return "summary";
    case RecordKind::kStuck:
      return "stuck";
    case RecordKind::kOp:
      return "op";
  }
  return "event";
}

}  // namespace biosnoop::report
