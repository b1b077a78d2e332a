// schema_gen: what the build derives from proto/biosnoop.proto, so that the
// schema is described once.
//
//   schema_gen --descriptor-set FILE [--values-header OUT] [--fields-doc OUT]
//
// --descriptor-set: protoc's --descriptor_set_out of biosnoop.proto, with
//   --include_source_info (the comments).  Field names, types and options
//   come from the descriptors compiled into this program; the comments from
//   that file.
// --values-header: event_values.h, the table of the Event fields marked
//   `generic`, which every writer expands (cpp/event/event.h).
// --fields-doc: docs/reference/fields.md, every record's fields with their
//   JSON type and the proto's comment.
//
// Exits 1 with one line on stderr when a generic field breaks the rules
// the writers rely on (see the `generic` option in the .proto).

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Comments of biosnoop.proto by SourceCodeInfo path ("4,0,2,3": message 0,
// field 3).
// A field's or message's comment (leading, else trailing).
using Comments = std::map<std::string, std::string>;

// biosnoop.proto's name as protoc recorded it.
std::string v1_file_name() {
  return biosnoop::v1::Event::descriptor()->file()->name();
}

bool ReadComments(const std::string& path, Comments* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  google::protobuf::FileDescriptorSet set;
  if (!in || !set.ParseFromIstream(&in)) {
    *error = absl::StrCat(path, ": not a FileDescriptorSet");
    return false;
  }
  const std::string want = v1_file_name();
  for (const auto& file : set.file()) {
    if (file.name() != want) continue;
    for (const auto& loc : file.source_code_info().location()) {
      (*out)[absl::StrJoin(loc.path(), ",")] = loc.leading_comments().empty()
                                                   ? loc.trailing_comments()
                                                   : loc.leading_comments();
    }
    return true;
  }
  *error = absl::StrCat(path, ": no ", want, " in it");
  return false;
}

std::string PathOf(const Descriptor* m) {
  return absl::StrCat("4,", m->index());
}
std::string PathOf(const FieldDescriptor* f) {
  return absl::StrCat(PathOf(f->containing_type()), ",2,", f->index());
}

// A comment as one line of prose, for a table cell.
std::string OneLine(const std::string& comment) {
  std::vector<std::string> words;
  for (absl::string_view line : absl::StrSplit(comment, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) words.emplace_back(line);
  }
  return absl::StrReplaceAll(absl::StrJoin(words, " "), {{"|", "\\|"}});
}

// ----- event_values.h -------------------------------------------------

struct GenericField {
  std::string name;        // driver_prep_us
  std::string enumerator;  // kDriverPrepUs
  int number;
  int divisor;             // 1000 for _us (the domain keeps ns), else 1
  std::string ecs_object;  // "latency" or "" (biosnoop itself)
  std::string ecs_key;     // the last part of ecs_name
};

std::string Enumerator(const std::string& name) {
  std::string out = "k";
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? absl::ascii_toupper(c) : c;
    upper = false;
  }
  return out;
}

bool GenericFields(std::vector<GenericField>* out, std::string* error) {
  const Descriptor* event = biosnoop::v1::Event::descriptor();
  for (int i = 0; i < event->field_count(); ++i) {
    const FieldDescriptor* f = event->field(i);
    if (!f->options().GetExtension(biosnoop::v1::generic)) continue;
    const std::string where = absl::StrCat("Event.", f->name());
    const bool integer = f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64 ||
                         f->cpp_type() == FieldDescriptor::CPPTYPE_UINT32;
    if (!integer || f->is_repeated() || !f->has_presence()) {
      *error = absl::StrCat(where,
                            ": a generic field is an `optional` uint64 or "
                            "uint32");
      return false;
    }
    const std::string ecs = f->options().GetExtension(biosnoop::v1::ecs_name);
    std::vector<std::string> parts = absl::StrSplit(ecs, '.');
    const bool ecs_ok =
        (parts.size() == 2 && parts[0] == "biosnoop") ||
        (parts.size() == 3 && parts[0] == "biosnoop" && parts[1] == "latency");
    if (!ecs_ok || parts.back().empty()) {
      *error = absl::StrCat(where, ": ecs_name \"", ecs,
                            "\" is neither biosnoop.<name> nor "
                            "biosnoop.latency.<name>");
      return false;
    }
    out->push_back({f->name(), Enumerator(f->name()), f->number(),
                    absl::EndsWith(f->name(), "_us") ? 1000 : 1,
                    parts.size() == 3 ? parts[1] : "", parts.back()});
  }
  return true;
}

std::string ValuesHeader(const std::vector<GenericField>& fields) {
  std::string enumerators, rows;
  for (const GenericField& f : fields) {
    absl::StrAppend(&enumerators, "  ", f.enumerator, ",\n");
    absl::StrAppend(&rows, " \\\n  X(", f.enumerator, ", ", f.name, ", ",
                    f.number, ", ", f.divisor, ", \"", f.ecs_object, "\", \"",
                    f.ecs_key, "\")");
  }
  return absl::StrCat(
      "#pragma once\n\n"
      "// Generated from proto/biosnoop.proto by proto/schema_gen.cc: do not\n"
      "// edit.  The Event fields marked `generic`, in declaration (JSON) "
      "order.\n\n"
      "#include <cstddef>\n#include <cstdint>\n\n"
      "namespace biosnoop {\n\n"
      "enum class EventValue : uint8_t {\n",
      enumerators,
      "};\n\n"
      "inline constexpr size_t kEventValueCount = ",
      fields.size(),
      ";\n\n"
      "// X(enumerator, name, number, divisor, ecs_object, ecs_key):\n"
      "//   name       the JSON key and the proto field (an identifier)\n"
      "//   number     its proto field number\n"
      "//   divisor    what the domain value is divided by for output\n"
      "//              (1000: kept in ns, written in us)\n"
      "//   ecs_object \"latency\": under biosnoop.latency; \"\": under "
      "biosnoop\n"
      "//   ecs_key    its key there\n"
      "#define BIOSNOOP_EVENT_VALUES(X)",
      rows.empty() ? "" : rows, "\n\n}  // namespace biosnoop\n");
}

// ----- fields.md --------------------------------------------------------

std::string JsonType(const FieldDescriptor* f) {
  std::string t;
  switch (f->type()) {
    case FieldDescriptor::TYPE_STRING:
      t = "string";
      break;
    case FieldDescriptor::TYPE_BYTES:
      t = "string (lowercase hex)";
      break;
    case FieldDescriptor::TYPE_BOOL:
      t = "boolean";
      break;
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FLOAT:
      t = "number";
      break;
    case FieldDescriptor::TYPE_MESSAGE:
      t = f->message_type()->full_name() == "google.protobuf.Timestamp"
              ? "string (RFC 3339 time)"
              : absl::StrCat("object ([", f->message_type()->name(), "](#",
                             absl::AsciiStrToLower(f->message_type()->name()),
                             "))");
      break;
    default:
      t = "integer";
  }
  if (f->is_repeated()) return absl::StrCat("array of ", t);
  return t;
}

std::string Presence(const FieldDescriptor* f) {
  std::vector<std::string> notes;
  if (f->options().GetExtension(biosnoop::v1::generic)) {
    notes.push_back("only when known");
  } else if (f->has_presence() && !f->is_repeated() &&
             f->type() != FieldDescriptor::TYPE_MESSAGE) {
    notes.push_back("may be null or absent");
  }
  if (f->options().GetExtension(biosnoop::v1::added_later)) {
    notes.push_back("added later: missing in older streams");
  }
  return notes.empty() ? "always" : absl::StrJoin(notes, "; ");
}

// What the table says a field means: its own comment; else, for a field
// named as one of Event's in another record, Event's.  Empty: none (an
// error, see FieldsDoc).
std::string Meaning(const FieldDescriptor* f, const Comments& comments) {
  auto own = comments.find(PathOf(f));
  if (own != comments.end() && !own->second.empty()) {
    return OneLine(own->second);
  }
  const FieldDescriptor* in_event =
      biosnoop::v1::Event::descriptor()->FindFieldByName(f->name());
  if (in_event != nullptr &&
      f->containing_type() != in_event->containing_type()) {
    return "As in [Event](#event).";
  }
  return "";
}

void MessageDoc(const Descriptor* m, const Comments& comments, std::string* out,
                std::vector<std::string>* unexplained) {
  absl::StrAppend(out, "\n## ", m->name(), "\n\n");
  auto c = comments.find(PathOf(m));
  if (c != comments.end() && !c->second.empty()) {
    absl::StrAppend(out, OneLine(c->second), "\n\n");
  }
  absl::StrAppend(out,
                  "| key | type | present | meaning |\n"
                  "|---|---|---|---|\n");
  for (int i = 0; i < m->field_count(); ++i) {
    const FieldDescriptor* f = m->field(i);
    const std::string meaning = Meaning(f, comments);
    if (meaning.empty()) unexplained->push_back(f->full_name());
    absl::StrAppend(out, "| `", f->name(), "` | ", JsonType(f), " | ",
                    Presence(f), " | ", meaning, " |\n");
  }
}

// Every field must say what it means: a field without a comment (or, in
// another record, Event's) is an error naming it.
bool FieldsDoc(const Comments& comments, std::string* out, std::string* error) {
  const google::protobuf::FileDescriptor* file =
      biosnoop::v1::Event::descriptor()->file();
  *out =
      "# Record fields\n\n"
      "<!-- Generated from proto/biosnoop.proto by proto/schema_gen.cc: do "
      "not edit; `tools/schema-docs` rewrites it. -->\n\n"
      "Every record of a stream, as `proto/biosnoop.proto` defines it: the "
      "JSON Lines key (also the protobuf field name), its JSON type, when it "
      "is there, and what it means. A JSON line is one `Record` member, "
      "flattened, with `\"type\"` naming it (`event`, `header`, `stats`, "
      "`summary`, `stuck`, `op`); keys come in the order listed. Durations "
      "are whole microseconds (`_us`), truncated.\n";
  std::vector<std::string> unexplained;
  for (int i = 0; i < file->message_type_count(); ++i) {
    MessageDoc(file->message_type(i), comments, out, &unexplained);
  }
  if (!unexplained.empty()) {
    *error = absl::StrCat("no comment says what these mean: ",
                          absl::StrJoin(unexplained, ", "));
    return false;
  }
  return true;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "schema_gen: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string descriptor_set, values_header, fields_doc;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--descriptor-set") {
      descriptor_set = argv[i + 1];
    } else if (flag == "--values-header") {
      values_header = argv[i + 1];
    } else if (flag == "--fields-doc") {
      fields_doc = argv[i + 1];
    } else {
      std::fprintf(stderr, "schema_gen: unknown flag %s\n", flag.c_str());
      return 64;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "schema_gen: every flag takes one value\n");
    return 64;
  }
  std::string error;
  if (!values_header.empty()) {
    std::vector<GenericField> fields;
    if (!GenericFields(&fields, &error)) {
      std::fprintf(stderr, "schema_gen: %s\n", error.c_str());
      return 1;
    }
    if (!WriteFile(values_header, ValuesHeader(fields))) return 1;
  }
  if (!fields_doc.empty()) {
    Comments comments;
    if (descriptor_set.empty()) {
      std::fprintf(stderr, "schema_gen: --fields-doc needs --descriptor-set\n");
      return 64;
    }
    if (!ReadComments(descriptor_set, &comments, &error)) {
      std::fprintf(stderr, "schema_gen: %s\n", error.c_str());
      return 1;
    }
    std::string doc;
    if (!FieldsDoc(comments, &doc, &error)) {
      std::fprintf(stderr, "schema_gen: %s\n", error.c_str());
      return 1;
    }
    if (!WriteFile(fields_doc, doc)) return 1;
  }
  return 0;
}
