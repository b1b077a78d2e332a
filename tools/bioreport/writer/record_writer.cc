// Records back to bytes: JSON through biosnoop's own writers
// (json_format.h), from the domain values to_domain.h makes, so that what
// bioreport writes cannot drift from what biosnoop writes; protobuf as the
// one-member Record's bytes, framed by hand.

#include "record_writer.h"

#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/wire_format_lite.h"
#include "json_format.h"
#include "schema_json.h"
#include "stream_info.h"
#include "to_domain.h"

namespace biosnoop::report {
namespace {

// What biosnoop's writer says for a context it could not read, and what a
// stream from before the key did not say at all.  Unique in a line: a
// '"' inside a string value is always escaped, so ',"' is only ever the
// start of a key.
constexpr absl::string_view kUnknownContext =
    ",\"completion_context\":\"unknown\"";

void AppendEventRecordJson(const v1::Event& m, std::string* out) {
  DomainEvent e;
  if (!ToDomainEvent(m, &e).ok()) {
    AppendSchemaJson(RecordKindName(RecordKind::kEvent), m, out);
    return;
  }
  const size_t start = out->size();
  AppendEventJson(e.event, e.host, out);
  if (e.completion_context_absent) {
    const size_t at =
        out->find(kUnknownContext.data(), start, kUnknownContext.size());
    if (at != std::string::npos) out->erase(at, kUnknownContext.size());
  }
}

}  // namespace

void AppendRecordJson(const ParsedRecord& rec, std::string* out) {
  switch (rec.kind) {
    case RecordKind::kEvent:
      AppendEventRecordJson(rec.event, out);
      return;
    case RecordKind::kHeader: {
      StreamInfo info;
      if (ToDomainHeader(rec.header, &info).ok()) {
        AppendHeaderJson(info, rec.header.format_version(), out);
      } else {
        AppendSchemaJson(RecordKindName(rec.kind), rec.header, out);
      }
      return;
    }
    case RecordKind::kStats: {
      StatsSnapshot stats;
      if (ToDomainStats(rec.stats, &stats).ok()) {
        AppendStatsJson(stats, out);
      } else {
        AppendSchemaJson(RecordKindName(rec.kind), rec.stats, out);
      }
      return;
    }
    case RecordKind::kSummary: {
      SummaryRecord summary;
      if (ToDomainSummary(rec.summary, &summary).ok()) {
        AppendSummaryJson(summary, out);
      } else {
        AppendSchemaJson(RecordKindName(rec.kind), rec.summary, out);
      }
      return;
    }
    case RecordKind::kStuck: {
      DomainStuck k;
      if (ToDomainStuck(rec.stuck, &k).ok()) {
        AppendStuckJson(k.stuck, JsonHost(k.host), out);
      } else {
        AppendSchemaJson(RecordKindName(rec.kind), rec.stuck, out);
      }
      return;
    }
    case RecordKind::kOp: {
      DomainOp o;
      if (ToDomainOp(rec.op, &o).ok()) {
        AppendOpJson(o.op, JsonHost(o.host), out);
      } else {
        AppendSchemaJson(RecordKindName(rec.kind), rec.op, out);
      }
      return;
    }
  }
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
