// A record by its schema (schema_json.h): through reflection, so that a
// field added to the schema is written with no change here; biosnoop's
// rules the schema does not state are the table below.

#include "schema_json.h"

#include <initializer_list>

#include "absl/strings/str_cat.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/timestamp.pb.h"
#include "json_format.h"
#include "record.h"
#include "wall_clock.h"

namespace biosnoop::report {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// What json_format.h does beyond the schema's marks: keys written all
// together or not at all (the first of each group names it), and keys
// added later that are written even at their default.
struct LayoutRule {
  const Descriptor* message;
  std::initializer_list<int> fields;
  bool group;  // else: always written
};

const LayoutRule* Rules(size_t* n) {
  static const LayoutRule kRules[] = {
      {v1::Event::descriptor(),
       {v1::Event::kCgroupFieldNumber, v1::Event::kCgroupIdFieldNumber,
        v1::Event::kContainerIdFieldNumber, v1::Event::kPodUidFieldNumber},
       true},
      {v1::Event::descriptor(),
       {v1::Event::kContentFieldNumber, v1::Event::kFilesFieldNumber,
        v1::Event::kFileCountFieldNumber,
        v1::Event::kFilesIncompleteFieldNumber,
        v1::Event::kDirtiedByFieldNumber, v1::Event::kDirtierCountFieldNumber},
       true},
      {v1::Stuck::descriptor(),
       {v1::Stuck::kCgroupFieldNumber, v1::Stuck::kCgroupIdFieldNumber,
        v1::Stuck::kContainerIdFieldNumber, v1::Stuck::kPodUidFieldNumber},
       true},
      {v1::Stuck::descriptor(),
       {v1::Stuck::kContentFieldNumber, v1::Stuck::kFilesFieldNumber,
        v1::Stuck::kFileCountFieldNumber,
        v1::Stuck::kFilesIncompleteFieldNumber,
        v1::Stuck::kDirtiedByFieldNumber, v1::Stuck::kDirtierCountFieldNumber},
       true},
      {v1::Op::descriptor(),
       {v1::Op::kCgroupFieldNumber, v1::Op::kCgroupIdFieldNumber,
        v1::Op::kContainerIdFieldNumber, v1::Op::kPodUidFieldNumber},
       true},
      {v1::StreamHeader::descriptor(),
       {v1::StreamHeader::kOpsFieldNumber,
        v1::StreamHeader::kOpMinUsFieldNumber},
       true},
      {v1::StreamHeader::descriptor(),
       {v1::StreamHeader::kStuckAfterUsFieldNumber},
       false},
      {v1::Stats::descriptor(),
       {v1::Stats::kLedgerMissesFieldNumber,
        v1::Stats::kLedgerReplacedFieldNumber},
       true},
      {v1::Stats::descriptor(),
       {v1::Stats::kOpsLostFieldNumber, v1::Stats::kOpsWrittenFieldNumber,
        v1::Stats::kOpsUntrackedFieldNumber},
       true},
      {v1::Stats::descriptor(), {v1::Stats::kUnfinishedFieldNumber}, false},
      {v1::SummaryGroup::descriptor(),
       {v1::SummaryGroup::kErrorsFieldNumber},
       false},
  };
  *n = sizeof(kRules) / sizeof(kRules[0]);
  return kRules;
}

// The rule of field `f`, if any.
const LayoutRule* RuleOf(const FieldDescriptor* f) {
  size_t n = 0;
  const LayoutRule* rules = Rules(&n);
  for (size_t i = 0; i < n; ++i) {
    if (rules[i].message != f->containing_type()) continue;
    for (int number : rules[i].fields) {
      if (number == f->number()) return &rules[i];
    }
  }
  return nullptr;
}

// Whether `f` is set in `m` and not its default (an empty repeated field,
// an unset optional one, 0, false, "").
bool IsSet(const Message& m, const FieldDescriptor* f) {
  const Reflection* refl = m.GetReflection();
  return f->is_repeated() ? refl->FieldSize(m, f) > 0 : refl->HasField(m, f);
}

void AppendFieldsJson(const Message& m, std::string* out);

// Field `f` of `m`: element `index` of a repeated one, else (-1) itself.
void AppendValueJson(const Message& m, const FieldDescriptor* f, int index,
                     std::string* out) {
  const Reflection* refl = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& v =
          rep ? refl->GetRepeatedStringReference(m, f, index, &scratch)
              : refl->GetStringReference(m, f, &scratch);
      if (f->type() == FieldDescriptor::TYPE_BYTES) {  // as comm_raw
        out->push_back('"');
        AppendLowerHex(v, out);
        out->push_back('"');
      } else {
        AppendJsonString(v, out);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      absl::StrAppend(out, rep ? refl->GetRepeatedUInt32(m, f, index)
                               : refl->GetUInt32(m, f));
      return;
    case FieldDescriptor::CPPTYPE_UINT64:
      absl::StrAppend(out, rep ? refl->GetRepeatedUInt64(m, f, index)
                               : refl->GetUInt64(m, f));
      return;
    case FieldDescriptor::CPPTYPE_INT32:
      absl::StrAppend(out, rep ? refl->GetRepeatedInt32(m, f, index)
                               : refl->GetInt32(m, f));
      return;
    case FieldDescriptor::CPPTYPE_INT64:
      absl::StrAppend(out, rep ? refl->GetRepeatedInt64(m, f, index)
                               : refl->GetInt64(m, f));
      return;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append(
          (rep ? refl->GetRepeatedBool(m, f, index) : refl->GetBool(m, f))
              ? "true"
              : "false");
      return;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendJsonDouble(
          rep ? refl->GetRepeatedDouble(m, f, index) : refl->GetDouble(m, f),
          out);
      return;
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& sub =
          rep ? refl->GetRepeatedMessage(m, f, index) : refl->GetMessage(m, f);
      if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
        out->push_back('"');
        AppendRfc3339Nanos(
            ToNs(static_cast<const google::protobuf::Timestamp&>(sub)), out);
        out->push_back('"');
        return;
      }
      out->push_back('{');
      const size_t first = out->size();
      AppendFieldsJson(sub, out);
      if (out->size() > first) out->erase(first, 1);  // its leading ','
      out->push_back('}');
      return;
    }
    default:
      break;
  }
  out->append("null");  // a type no record field has had yet
}

// Whether `f` of `m` is written (schema_json.h's rules), and as null.
bool Written(const Message& m, const FieldDescriptor* f, bool* null) {
  *null = false;
  const bool set = IsSet(m, f);
  const bool optional = f->has_optional_keyword();
  const LayoutRule* rule = RuleOf(f);
  if (rule != nullptr && rule->group) {
    bool any = false;
    for (int number : rule->fields) {
      const FieldDescriptor* member =
          m.GetDescriptor()->FindFieldByNumber(number);
      any = any || (member != nullptr && IsSet(m, member));
    }
    *null = optional && !set;
    return any;
  }
  if (rule == nullptr && f->options().GetExtension(v1::added_later)) {
    return set;
  }
  if (optional && !set) {
    *null = true;
    return f->type() != FieldDescriptor::TYPE_BYTES;
  }
  return true;
}

// ,"name":value for each field of `m` written, in declaration order.
void AppendFieldsJson(const Message& m, std::string* out) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* refl = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    bool null = false;
    if (!Written(m, f, &null)) continue;
    absl::StrAppend(out, ",\"", f->name(), "\":");
    if (null) {
      out->append("null");
    } else if (f->is_repeated()) {
      out->push_back('[');
      for (int j = 0; j < refl->FieldSize(m, f); ++j) {
        if (j > 0) out->push_back(',');
        AppendValueJson(m, f, j, out);
      }
      out->push_back(']');
    } else {
      AppendValueJson(m, f, -1, out);
    }
  }
}

}  // namespace

void AppendSchemaJson(absl::string_view type, const Message& m,
                      std::string* out) {
  absl::StrAppend(out, "{\"type\":\"", type, "\"");
  AppendFieldsJson(m, out);
  out->append("}\n");
}

}  // namespace biosnoop::report
