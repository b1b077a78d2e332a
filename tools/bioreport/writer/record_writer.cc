// Records back to bytes: JSON through biosnoop's own writers
// (json_format.h), from the domain values to_domain.h makes, so that what
// bioreport writes cannot drift from what biosnoop writes (a record they
// cannot write is refused: bioreport has no JSON writer of its own);
// protobuf as the one-member Record's bytes, framed by hand.

#include "record_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/wire_format_lite.h"
#include "json_format.h"
#include "stream_info.h"
#include "to_domain.h"

namespace biosnoop::report {
namespace {

// `status` (a to_domain.h refusal) as the record's: "(event): ...".
absl::Status Refused(RecordKind kind, const absl::Status& status) {
  return absl::InvalidArgumentError(
      absl::StrCat("(", RecordKindName(kind), "): ", status.message()));
}

}  // namespace

absl::Status AppendRecordJson(const ParsedRecord& rec, std::string* out) {
  switch (rec.kind) {
    case RecordKind::kEvent: {
      DomainEvent e;
      if (absl::Status s = ToDomainEvent(rec.event, &e); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendEventJson(e.event, e.host, out);
      return absl::OkStatus();
    }
    case RecordKind::kHeader: {
      StreamInfo info;
      if (absl::Status s = ToDomainHeader(rec.header, &info); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendHeaderJson(info, rec.header.format_version(), out);
      return absl::OkStatus();
    }
    case RecordKind::kStats: {
      StatsSnapshot stats;
      if (absl::Status s = ToDomainStats(rec.stats, &stats); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendStatsJson(stats, out);
      return absl::OkStatus();
    }
    case RecordKind::kSummary: {
      SummaryRecord summary;
      if (absl::Status s = ToDomainSummary(rec.summary, &summary); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendSummaryJson(summary, out);
      return absl::OkStatus();
    }
    case RecordKind::kStuck: {
      DomainStuck k;
      if (absl::Status s = ToDomainStuck(rec.stuck, &k); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendStuckJson(k.stuck, JsonHost(k.host), out);
      return absl::OkStatus();
    }
    case RecordKind::kOp: {
      DomainOp o;
      if (absl::Status s = ToDomainOp(rec.op, &o); !s.ok()) {
        return Refused(rec.kind, s);
      }
      AppendOpJson(o.op, JsonHost(o.host), out);
      return absl::OkStatus();
    }
  }
  return absl::InternalError("no such record kind");
}

void AppendRecordProto(const ParsedRecord& rec, std::string* out) {
  using google::protobuf::io::CodedOutputStream;
  // A Record with one member is that member's tag, length and bytes: the
  // same bytes v1::Record would serialize to, without copying the member
  // into a Record.
  const google::protobuf::MessageLite* member = &rec.event;
  int field = v1::Record::kEventFieldNumber;
  switch (rec.kind) {
    case RecordKind::kEvent:
      break;
    case RecordKind::kHeader:
      member = &rec.header;
      field = v1::Record::kHeaderFieldNumber;
      break;
    case RecordKind::kStats:
      member = &rec.stats;
      field = v1::Record::kStatsFieldNumber;
      break;
    case RecordKind::kSummary:
      member = &rec.summary;
      field = v1::Record::kSummaryFieldNumber;
      break;
    case RecordKind::kStuck:
      member = &rec.stuck;
      field = v1::Record::kStuckFieldNumber;
      break;
    case RecordKind::kOp:
      member = &rec.op;
      field = v1::Record::kOpFieldNumber;
      break;
  }
  using google::protobuf::internal::WireFormatLite;
  const uint32_t tag =
      WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const auto size = static_cast<uint32_t>(member->ByteSizeLong());
  const uint32_t record_size = CodedOutputStream::VarintSize32(tag) +
                               CodedOutputStream::VarintSize32(size) + size;
  const size_t old_size = out->size();
  out->resize(old_size + CodedOutputStream::VarintSize32(record_size) +
              record_size);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + old_size);
  p = CodedOutputStream::WriteVarint32ToArray(record_size, p);
  p = CodedOutputStream::WriteVarint32ToArray(tag, p);
  p = CodedOutputStream::WriteVarint32ToArray(size, p);
  member->SerializeWithCachedSizesToArray(p);
}

}  // namespace biosnoop::report
