// bioreport's writers and readers against the schema, field by field, with
// no list of fields of their own: every field of every record message,
// set through reflection, survives writing and reading in both formats.
// A field added to proto/biosnoop.proto is covered as soon as it exists.

#include <string>

#include "absl/strings/str_cat.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "record.h"
#include "record_parsers.h"
#include "record_writer.h"
#include "stream_info.h"

namespace biosnoop::report {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Sets every field of `m` to a value of its type that no writer leaves out
// (no proto3 default), distinct per field, valid for the readers.
void FillEveryField(Message* m) {
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  const google::protobuf::Reflection* refl = m->GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const int n = f->number();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING: {
        const std::string v = f->type() == FieldDescriptor::TYPE_BYTES
                                  ? std::string("\xff\x01", 2)
                                  : absl::StrCat("s", n);
        if (f->is_repeated()) {
          refl->AddString(m, f, v);
        } else {
          refl->SetString(m, f, v);
        }
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT32:
        if (f->is_repeated())
          refl->AddUInt32(m, f, n);
        else
          refl->SetUInt32(m, f, n);
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (f->is_repeated()) {
          refl->AddUInt64(m, f, n);
          refl->AddUInt64(m, f, 2 * n);
        } else {
          refl->SetUInt64(m, f, 1000 + n);
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        if (f->is_repeated())
          refl->AddInt32(m, f, n);
        else
          refl->SetInt32(m, f, n);
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        if (f->is_repeated())
          refl->AddInt64(m, f, n);
        else
          refl->SetInt64(m, f, n);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        if (f->is_repeated())
          refl->AddBool(m, f, true);
        else
          refl->SetBool(m, f, true);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        if (f->is_repeated()) {
          refl->AddDouble(m, f, n + 0.25);
        } else {
          refl->SetDouble(m, f, n + 0.25);
        }
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* sub = f->is_repeated() ? refl->AddMessage(m, f)
                                        : refl->MutableMessage(m, f);
        if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
          auto* ts = static_cast<google::protobuf::Timestamp*>(sub);
          ts->set_seconds(1795239841 + n);
          ts->set_nanos(n);
        } else {
          FillEveryField(sub);
        }
        break;
      }
      default:
        ADD_FAILURE() << "no test value for the type of " << f->full_name();
    }
  }
}

// The six kinds, each with every field set.
std::vector<ParsedRecord> EveryKind() {
  std::vector<ParsedRecord> recs;
  for (RecordKind kind :
       {RecordKind::kHeader, RecordKind::kEvent, RecordKind::kStats,
        RecordKind::kSummary, RecordKind::kStuck, RecordKind::kOp}) {
    ParsedRecord& rec = recs.emplace_back();
    rec.kind = kind;
    FillEveryField(&rec.header);
    rec.header.set_format_version(kStreamFormatVersion);  // the one read
    FillEveryField(&rec.event);
    FillEveryField(&rec.stats);
    FillEveryField(&rec.summary);
    FillEveryField(&rec.stuck);
    FillEveryField(&rec.op);
  }
  return recs;
}

const Message& Member(const ParsedRecord& rec) {
  switch (rec.kind) {
    case RecordKind::kHeader:
      return rec.header;
    case RecordKind::kStats:
      return rec.stats;
    case RecordKind::kSummary:
      return rec.summary;
    case RecordKind::kStuck:
      return rec.stuck;
    case RecordKind::kOp:
      return rec.op;
    case RecordKind::kEvent:
      break;
  }
  return rec.event;
}

TEST(BioreportSchemaRoundTripTest, EveryFieldThroughJsonLines) {
  for (const ParsedRecord& rec : EveryKind()) {
    std::string line;
    AppendRecordJson(rec, &line);
    ASSERT_EQ(line.back(), '\n');
    line.pop_back();
    JsonRecordParser parser;
    ParsedRecord back;
    const absl::Status s = parser.Parse(line, &back);
    ASSERT_TRUE(s.ok()) << s << "\n" << line;
    EXPECT_EQ(back.kind, rec.kind);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Member(back),
                                                                   Member(rec)))
        << Member(back).DebugString() << "\nvs\n"
        << Member(rec).DebugString();
  }
}

TEST(BioreportSchemaRoundTripTest, EveryFieldThroughProtobuf) {
  for (const ParsedRecord& rec : EveryKind()) {
    std::string bytes;
    AppendRecordProto(rec, &bytes);
    // One length byte or more: skip the varint.
    size_t i = 0;
    while (static_cast<unsigned char>(bytes[i]) & 0x80) ++i;
    ProtoRecordParser parser;
    ParsedRecord back;
    const absl::Status s =
        parser.Parse(absl::string_view(bytes).substr(i + 1), &back);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(back.kind, rec.kind);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Member(back),
                                                                   Member(rec)))
        << Member(back).DebugString() << "\nvs\n"
        << Member(rec).DebugString();
  }
}

}  // namespace
}  // namespace biosnoop::report
