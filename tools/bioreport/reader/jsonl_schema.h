#pragma once

// The JSON Lines parser's pieces that more than one of its files use
// (jsonl_parser.cc: the records; jsonl_attribution.cc: an event's files
// and dirtier): the keys of each message from the schema, the lookup of a
// key, the reading of one value, and one nested object read with the same
// rules as a record.  Internal to the reader.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "json_lexer.h"
#include "proto_format.h"
#include "record.h"
#include "status_macros.h"
#include "time_format.h"

namespace biosnoop::report::jsonl {

inline constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
inline constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();

// A key of a record kind: the name and number of its field in the schema.
struct Key {
  absl::string_view name;
  int field;
};

// Bit n of a set of fields: field n (fields numbered 64 and up have none:
// a key of theirs is neither checked for repeats nor required).  Bit 0
// stands for keys not in the schema.
constexpr uint64_t FieldBit(int field) {
  return field < 64 ? uint64_t{1} << field : 0;
}

// What the parser knows of each record type, and of each nested object,
// from its message in proto/biosnoop.proto: its keys, in schema order (the
// lookup tries the next expected key first), and those a line must carry.
struct Schema {
  absl::string_view what;      // for messages: "event", "stats record"
  absl::Span<const Key> keys;  // into `storage`
  std::vector<Key> storage;
  // Every field but the `optional` ones (partition, queue_us, comm_raw,
  // error: absent reads as null) and those marked `added_later` (absent in
  // the streams of earlier versions: reads as the default).  A record
  // without one of them is not read with a zero standing in: a log
  // pipeline that dropped "latency_us" or "error_code" would turn slow or
  // failed I/O into fast, clean I/O, one that dropped "lost" would hide a
  // loss, and one that dropped "boot_id" would merge two runs.
  uint64_t required = 0;
};

struct Schemas {
  Schemas();
  Schema event, header, stuck, stats, summary, summary_group;
  Schema file_ref;    // an element of an event's "files"
  Schema dirtier;     // an event's "dirtied_by"
  Schema op;          // an op record (--ops)
  Schema op_layer;    // an op record's "block", "writeback", "journal", ...
  Schema op_culprit;  // an element of a layer's "culprits"
};

// Made once, from the generated descriptors (which live as long as the
// program: the names are views into them).
const Schemas& AllSchemas();

// "<what> with \"key\" twice".
absl::Status Twice(const Schema& schema, absl::string_view key);

// OK, or "<what> without \"a\", \"b\"" for the required keys not in
// `seen`.
absl::Status CheckKeys(const Schema& schema, uint64_t seen);

// Short-string equality without a call to memcmp (keys are a few bytes).
inline bool SameKey(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The field number of `key`, or 0.  `*next` is the index expected next;
// the one after it is tried too, for a key a line leaves out when it has
// nothing to say (an event's "stack" after "partition", "comm_raw" after
// "comm"), before all of them.
inline int Lookup(absl::Span<const Key> keys, absl::string_view key,
                  size_t* next) {
  const size_t n = keys.size();
  if (*next < n && SameKey(keys[*next].name, key)) return keys[(*next)++].field;
  if (*next + 1 < n && SameKey(keys[*next + 1].name, key)) {
    *next += 2;
    return keys[*next - 1].field;
  }
  for (size_t i = 0; i < n; ++i) {
    if (SameKey(keys[i].name, key)) {
      *next = i + 1;
      return keys[i].field;
    }
  }
  return 0;
}

// Reads the value of one member into the reused messages.
class ValueReader {
 public:
  // `key_scratch` holds the keys of nested objects (summary groups, files,
  // dirtiers).
  ValueReader(JsonLexer* lex, Rfc3339Parser* times, std::string* scratch,
              std::string* key_scratch)
      : lex_(*lex),
        times_(*times),
        scratch_(*scratch),
        key_scratch_(*key_scratch) {}

  absl::Status Str(std::string* out) { return lex_.StringInto(out); }
  // A string as a view into the line or the scratch buffer.
  absl::Status View(absl::string_view* out) {
    return lex_.String(&scratch_, out);
  }

  template <typename Clear, typename Set>
  absl::Status NullableStr(Clear clear, Set mutable_str) {
    if (lex_.ConsumeNull()) {
      clear();
      return absl::OkStatus();
    }
    return lex_.StringInto(mutable_str());
  }

  absl::Status U64(uint64_t max, uint64_t* v) { return lex_.Uint(max, v); }

  absl::Status Time(google::protobuf::Timestamp* ts) {
    absl::string_view text;
    if (absl::Status s = lex_.String(&scratch_, &text); !s.ok()) return s;
    ASSIGN_OR_RETURN(const int64_t ns, times_.Parse(text));
    SetTimestamp(ns, ts);
    return absl::OkStatus();
  }

  // A key of a nested object, followed by ':'.
  absl::Status NestedKey(absl::string_view* key) {
    if (absl::Status s = lex_.String(&key_scratch_, key); !s.ok()) return s;
    if (!lex_.Consume(':')) return lex_.Error("expected ':' after a key");
    return absl::OkStatus();
  }

  JsonLexer& lex() { return lex_; }

 private:
  JsonLexer& lex_;
  Rfc3339Parser& times_;
  std::string& scratch_;
  std::string& key_scratch_;
};

// comm_raw: hex digit pairs, or null (unset).
template <typename Message>
absl::Status CommRaw(ValueReader& r, Message* m) {
  if (r.lex().ConsumeNull()) {
    m->clear_comm_raw();
    return absl::OkStatus();
  }
  absl::string_view hex;
  if (absl::Status s = r.View(&hex); !s.ok()) return s;
  if (!DecodeHex(hex, m->mutable_comm_raw())) {
    return absl::InvalidArgumentError("comm_raw is not hex digit pairs");
  }
  return absl::OkStatus();
}

// A field the readers of a message do not name: one added to the schema
// since they were written, read through reflection by its type, as they
// read theirs (so that a new field needs no change in them); or a key not
// in the schema (field 0), skipped.
absl::Status UnlistedField(int field, ValueReader& r,
                           google::protobuf::Message* m);

// One nested object of message `m` under `schema`'s rules, as a record's
// top level: unknown keys skipped, a known key twice or a required one
// missing refused.  `read_field(field, r, m)` reads one member;
// `not_object` is the error when the value is not an object.
template <typename Message, typename ReadField>
absl::Status NestedObject(ValueReader& r, const Schema& schema, Message* m,
                          ReadField read_field,
                          absl::string_view not_object = "expected an object") {
  JsonLexer& lex = r.lex();
  if (!lex.Consume('{')) return lex.Error(not_object);
  size_t next = 0;
  uint64_t seen = 0;
  if (lex.Consume('}')) return CheckKeys(schema, seen);
  do {
    absl::string_view key;
    if (absl::Status s = r.NestedKey(&key); !s.ok()) return s;
    const int field = Lookup(schema.keys, key, &next);
    // Field 0 (keys not in the schema, skipped) may repeat.
    if (field != 0 && (seen & FieldBit(field))) return Twice(schema, key);
    seen |= FieldBit(field);
    if (absl::Status s = read_field(field, r, m); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", key, "\": ", s.message()));
    }
  } while (lex.Consume(','));
  if (!lex.Consume('}')) return lex.Error("expected ',' or '}'");
  return CheckKeys(schema, seen);
}

// One FileRef object (every key of the schema's FileRef), into `f`: an
// element of "files", or an op record's "file".
absl::Status FileObject(ValueReader& r, v1::FileRef* f);

// One member (field number `field`) of an op record (jsonl_op.cc).
absl::Status OpField(int field, ValueReader& r, v1::Op* op);

// An event's or a stuck record's (Msg: v1::Event or v1::Stuck) "files":
// an array of FileRef objects (each with every key of the schema's
// FileRef), replacing the record's.
template <typename Msg>
absl::Status FilesArray(ValueReader& r, Msg* e);

// An event's or a stuck record's "dirtied_by": a Dirtier object (pid,
// tid, comm, cgroup_id and dirtied_at required; comm_raw and cgroup,
// optional, absent read as unset), or null.
template <typename Msg>
absl::Status DirtiedBy(ValueReader& r, Msg* e);

}  // namespace biosnoop::report::jsonl
