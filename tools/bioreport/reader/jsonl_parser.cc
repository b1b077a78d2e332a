// JSON Lines record parser.  The hot path is an event line as biosnoop
// writes it: keys in schema order (the lookup tries the next expected key
// first), strings without escapes (views, no copies), a timestamp whose
// seconds were seen on the previous line (cached).

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "json_lexer.h"
#include "proto_format.h"
#include "record_parsers.h"

namespace biosnoop::report {
namespace {

constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();

// Keys in schema order; the value is the proto field number.
struct Key {
  absl::string_view name;
  int field;
};

constexpr Key kEventKeys[] = {
    {"timestamp", 1},   {"host", 2},         {"disk", 3},
    {"partition", 4},   {"dev", 5},          {"op", 6},
    {"rwbs", 7},        {"sector", 8},       {"bytes", 9},
    {"latency_us", 10}, {"device_us", 11},   {"queue_us", 12},
    {"queue_depth", 13}, {"pid", 14},        {"tid", 15},
    {"comm", 16},       {"comm_raw", 17},    {"error_code", 18},
    {"error", 19},      {"seq", 20},
};

constexpr Key kHeaderKeys[] = {
    {"format_version", 1}, {"host", 2},         {"boot_id", 3},
    {"start_time", 4},     {"biosnoop_version", 5}, {"kernel_release", 6},
    {"min_us", 7},         {"queued", 8},       {"disk_filter", 9},
    {"pid_filter", 10},    {"comm_filter", 11}, {"op_filter", 12},
    {"ringbuf_kib", 13},   {"stuck_after_us", 14}, {"run_id", 15},
};

constexpr Key kStuckKeys[] = {
    {"timestamp", 1},    {"host", 2},         {"disk", 3},
    {"partition", 4},    {"dev", 5},          {"op", 6},
    {"rwbs", 7},         {"sector", 8},       {"bytes", 9},
    {"inflight_us", 10}, {"queue_us", 11},    {"queue_depth", 12},
    {"pid", 13},         {"tid", 14},         {"comm", 15},
    {"comm_raw", 16},
};

constexpr Key kStatsKeys[] = {
    {"timestamp", 1},       {"elapsed_s", 2}, {"completions", 3},
    {"emitted", 4},         {"lost", 5},      {"orphans", 6},
    {"below_threshold", 7}, {"filtered", 8},  {"decode_errors", 9},
    {"expired", 10},        {"written", 11},  {"dropped", 12},
    {"final", 13},          {"missed", 14},   {"unfinished", 15},
    {"run_id", 16},
};

constexpr Key kSummaryKeys[] = {
    {"timestamp", 1}, {"interval_s", 2}, {"min_us", 3}, {"groups", 4},
};

constexpr Key kSummaryGroupKeys[] = {
    {"disk", 1},  {"op", 2},  {"count", 3},           {"bytes", 4},
    {"slow", 5},  {"latency_us_log2", 6}, {"size_log2", 7},
    {"errors", 8},
};

// The keys a record must carry (bit n: field n): every key biosnoop
// writes for its kind, but an event's or stuck record's nullable ones
// (partition, queue_us, comm_raw, error), whose absence reads as null, and
// a stats record's "unfinished", a summary group's "errors" and a header's
// "stuck_after_us" (from later versions on: absent reads as 0, as those
// runs counted no failures and reported no stuck requests), and the
// "run_id" of headers and stats records (absent reads as "": the runs of
// earlier versions had none).  A record
// without one of them is not read with a zero standing in: a log pipeline
// that dropped "latency_us" or "error_code" would turn slow or failed I/O
// into fast, clean I/O, one that dropped "lost" would hide a loss, and one
// that dropped "boot_id" would merge two runs.
constexpr uint32_t Fields(int first, int last) {
  return static_cast<uint32_t>(((uint64_t{1} << (last + 1)) - 1) &
                               ~((uint64_t{1} << first) - 1));
}
constexpr uint32_t kRequiredEventFields =
    Fields(1, 20) & ~((1u << 4) | (1u << 12) | (1u << 17) | (1u << 19));
constexpr uint32_t kRequiredStuckFields =
    Fields(1, 16) & ~((1u << 4) | (1u << 11) | (1u << 16));
constexpr uint32_t kRequiredHeaderFields = Fields(1, 13);
constexpr uint32_t kRequiredStatsFields = Fields(1, 14);
constexpr uint32_t kRequiredSummaryFields = Fields(1, 4);
constexpr uint32_t kRequiredSummaryGroupFields = Fields(1, 7);

// What the parser knows of each record type: its keys and those it must
// carry.
struct Schema {
  absl::string_view what;  // for messages: "event", "stats record"
  absl::Span<const Key> keys;
  uint32_t required;
};

constexpr Schema kEventSchema{"event", kEventKeys, kRequiredEventFields};
constexpr Schema kHeaderSchema{"header", kHeaderKeys, kRequiredHeaderFields};
constexpr Schema kStuckSchema{"stuck record", kStuckKeys,
                              kRequiredStuckFields};
constexpr Schema kStatsSchema{"stats record", kStatsKeys, kRequiredStatsFields};
constexpr Schema kSummarySchema{"summary", kSummaryKeys,
                                kRequiredSummaryFields};
constexpr Schema kSummaryGroupSchema{"group", kSummaryGroupKeys,
                                     kRequiredSummaryGroupFields};

const Schema& SchemaOf(RecordKind kind) {
  switch (kind) {
    case RecordKind::kHeader: return kHeaderSchema;
    case RecordKind::kStats: return kStatsSchema;
    case RecordKind::kSummary: return kSummarySchema;
    case RecordKind::kStuck: return kStuckSchema;
    case RecordKind::kEvent: break;
  }
  return kEventSchema;
}

// "<what> with \"key\" twice".  A key given twice in one object is
// refused rather than read as its last value: which one the writer meant
// is unknown, and a pipeline that appended a field would otherwise
// silently replace one (a second "latency_us").
absl::Status Twice(const Schema& schema, absl::string_view key) {
  return absl::InvalidArgumentError(
      absl::StrCat(schema.what, " with \"", key, "\" twice"));
}

// OK, or "<what> without \"a\", \"b\"" for the required keys not in
// `seen`.
absl::Status CheckKeys(const Schema& schema, uint32_t seen) {
  if ((seen & schema.required) == schema.required) return absl::OkStatus();
  std::string names;
  for (const Key& k : schema.keys) {
    const uint32_t bit = 1u << k.field;
    if ((schema.required & bit) && !(seen & bit)) {
      absl::StrAppend(&names, names.empty() ? "" : ", ", "\"", k.name, "\"");
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(schema.what, " without ", names));
}

// Short-string equality without a call to memcmp (keys are a few bytes).
inline bool SameKey(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// The field number of `key`, or 0.  `*next` is the index expected next.
int Lookup(absl::Span<const Key> keys, absl::string_view key, size_t* next) {
  const size_t n = keys.size();
  if (*next < n && SameKey(keys[*next].name, key)) return keys[(*next)++].field;
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
  // `key_scratch` holds the keys of nested objects (summary groups).
  ValueReader(JsonLexer* lex, Rfc3339Parser* times, std::string* scratch,
              std::string* key_scratch)
      : lex_(*lex), times_(*times), scratch_(*scratch),
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
    absl::StatusOr<int64_t> ns = times_.Parse(text);
    if (!ns.ok()) return ns.status();
    SetTimestamp(*ns, ts);
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

// queue_us: an integer, or null (unset).
template <typename Message>
absl::Status QueueUs(ValueReader& r, Message* m) {
  if (r.lex().ConsumeNull()) {
    m->clear_queue_us();
    return absl::OkStatus();
  }
  uint64_t u = 0;
  absl::Status s = r.U64(kU64, &u);
  m->set_queue_us(u);
  return s;
}

absl::Status EventField(int field, ValueReader& r, v1::Event* e) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: return r.Time(e->mutable_timestamp());
    case 2: return r.Str(e->mutable_host());
    case 3: return r.Str(e->mutable_disk());
    case 4:
      return r.NullableStr([e] { e->clear_partition(); },
                           [e] { return e->mutable_partition(); });
    case 5: return r.Str(e->mutable_dev());
    case 6: return r.Str(e->mutable_op());
    case 7: return r.Str(e->mutable_rwbs());
    case 8: s = r.U64(kU64, &u); e->set_sector(u); return s;
    case 9: s = r.U64(kU32, &u); e->set_bytes(static_cast<uint32_t>(u)); return s;
    case 10: s = r.U64(kU64, &u); e->set_latency_us(u); return s;
    case 11: s = r.U64(kU64, &u); e->set_device_us(u); return s;
    case 12: return QueueUs(r, e);
    case 13: s = r.U64(kU32, &u); e->set_queue_depth(static_cast<uint32_t>(u)); return s;
    case 14: s = r.U64(kU32, &u); e->set_pid(static_cast<uint32_t>(u)); return s;
    case 15: s = r.U64(kU32, &u); e->set_tid(static_cast<uint32_t>(u)); return s;
    case 16: return r.Str(e->mutable_comm());
    case 17: return CommRaw(r, e);
    case 18: {
      int64_t v = 0;
      s = r.lex().Int(std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max(), &v);
      e->set_error_code(static_cast<int32_t>(v));
      return s;
    }
    case 19:
      return r.NullableStr([e] { e->clear_error(); },
                           [e] { return e->mutable_error(); });
    case 20: s = r.U64(kU64, &u); e->set_seq(u); return s;
  }
  return r.lex().SkipValue();
}

// A stuck record's fields: those it shares with an event read the same way.
absl::Status StuckField(int field, ValueReader& r, v1::Stuck* k) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: return r.Time(k->mutable_timestamp());
    case 2: return r.Str(k->mutable_host());
    case 3: return r.Str(k->mutable_disk());
    case 4:
      return r.NullableStr([k] { k->clear_partition(); },
                           [k] { return k->mutable_partition(); });
    case 5: return r.Str(k->mutable_dev());
    case 6: return r.Str(k->mutable_op());
    case 7: return r.Str(k->mutable_rwbs());
    case 8: s = r.U64(kU64, &u); k->set_sector(u); return s;
    case 9: s = r.U64(kU32, &u); k->set_bytes(static_cast<uint32_t>(u)); return s;
    case 10: s = r.U64(kU64, &u); k->set_inflight_us(u); return s;
    case 11: return QueueUs(r, k);
    case 12: s = r.U64(kU32, &u); k->set_queue_depth(static_cast<uint32_t>(u)); return s;
    case 13: s = r.U64(kU32, &u); k->set_pid(static_cast<uint32_t>(u)); return s;
    case 14: s = r.U64(kU32, &u); k->set_tid(static_cast<uint32_t>(u)); return s;
    case 15: return r.Str(k->mutable_comm());
    case 16: return CommRaw(r, k);
  }
  return r.lex().SkipValue();
}

absl::Status HeaderField(int field, ValueReader& r, v1::StreamHeader* h) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: s = r.U64(kU32, &u); h->set_format_version(static_cast<uint32_t>(u)); return s;
    case 2: return r.Str(h->mutable_host());
    case 3: return r.Str(h->mutable_boot_id());
    case 4: return r.Time(h->mutable_start_time());
    case 5: return r.Str(h->mutable_biosnoop_version());
    case 6: return r.Str(h->mutable_kernel_release());
    case 7: s = r.U64(kU64, &u); h->set_min_us(u); return s;
    case 8: {
      bool b = false;
      s = r.lex().Bool(&b);
      h->set_queued(b);
      return s;
    }
    case 9: return r.Str(h->mutable_disk_filter());
    case 10: s = r.U64(kU32, &u); h->set_pid_filter(static_cast<uint32_t>(u)); return s;
    case 11: return r.Str(h->mutable_comm_filter());
    case 12: return r.Str(h->mutable_op_filter());
    case 13: s = r.U64(kU32, &u); h->set_ringbuf_kib(static_cast<uint32_t>(u)); return s;
    case 14: s = r.U64(kU64, &u); h->set_stuck_after_us(u); return s;
    case 15: return r.Str(h->mutable_run_id());
  }
  return r.lex().SkipValue();
}

absl::Status StatsField(int field, ValueReader& r, v1::Stats* st) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: return r.Time(st->mutable_timestamp());
    case 2: {
      double d = 0;
      s = r.lex().Double(&d);
      st->set_elapsed_s(d);
      return s;
    }
    case 13: {
      bool b = false;
      s = r.lex().Bool(&b);
      st->set_final(b);
      return s;
    }
    case 16: return r.Str(st->mutable_run_id());
    default:
      break;
  }
  if (field < 3 || (field > 12 && field != 14 && field != 15)) {
    return r.lex().SkipValue();
  }
  s = r.U64(kU64, &u);
  switch (field) {
    case 3: st->set_completions(u); break;
    case 4: st->set_emitted(u); break;
    case 5: st->set_lost(u); break;
    case 6: st->set_orphans(u); break;
    case 7: st->set_below_threshold(u); break;
    case 8: st->set_filtered(u); break;
    case 9: st->set_decode_errors(u); break;
    case 10: st->set_expired(u); break;
    case 11: st->set_written(u); break;
    case 12: st->set_dropped(u); break;
    case 14: st->set_missed(u); break;
    case 15: st->set_unfinished(u); break;
  }
  return s;
}

// An array of integers (a log2 histogram), replacing `out`'s content.
absl::Status HistogramArray(JsonLexer& lex,
                            google::protobuf::RepeatedField<uint64_t>* out) {
  out->Clear();
  if (!lex.Consume('[')) return lex.Error("expected an array of integers");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (out->size() == kMaxSummaryBuckets) {
      return lex.Error(absl::StrCat("more than ", kMaxSummaryBuckets,
                                    " histogram buckets"));
    }
    uint64_t v = 0;
    if (absl::Status s = lex.Uint(kU64, &v); !s.ok()) return s;
    out->Add(v);
  } while (lex.Consume(','));
  if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
  return absl::OkStatus();
}

absl::Status SummaryGroupField(int field, ValueReader& r, v1::SummaryGroup* g) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: return r.Str(g->mutable_disk());
    case 2: return r.Str(g->mutable_op());
    case 3: s = r.U64(kU64, &u); g->set_count(u); return s;
    case 4: s = r.U64(kU64, &u); g->set_bytes(u); return s;
    case 5: s = r.U64(kU64, &u); g->set_slow(u); return s;
    case 8: s = r.U64(kU64, &u); g->set_errors(u); return s;
    case 6: return HistogramArray(r.lex(), g->mutable_latency_us_log2());
    case 7: return HistogramArray(r.lex(), g->mutable_size_log2());
  }
  return r.lex().SkipValue();
}

// One object of "groups"; unknown keys are skipped, as at the top level.
absl::Status SummaryGroupObject(ValueReader& r, v1::SummaryGroup* g) {
  JsonLexer& lex = r.lex();
  if (!lex.Consume('{')) return lex.Error("expected an object");
  size_t next = 0;
  uint32_t seen = 0;
  if (lex.Consume('}')) {
    return CheckKeys(kSummaryGroupSchema, seen);
  }
  do {
    absl::string_view key;
    if (absl::Status s = r.NestedKey(&key); !s.ok()) return s;
    const int field = Lookup(kSummaryGroupSchema.keys, key, &next);
    // Field 0 (keys not in the schema, skipped) may repeat.
    if (field != 0 && (seen & (1u << field))) {
      return Twice(kSummaryGroupSchema, key);
    }
    seen |= 1u << field;
    if (absl::Status s = SummaryGroupField(field, r, g); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", key, "\": ", s.message()));
    }
  } while (lex.Consume(','));
  if (!lex.Consume('}')) return lex.Error("expected ',' or '}'");
  return CheckKeys(kSummaryGroupSchema, seen);
}

absl::Status SummaryField(int field, ValueReader& r, v1::Summary* su) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case 1: return r.Time(su->mutable_timestamp());
    case 2: {
      double d = 0;
      s = r.lex().Double(&d);
      su->set_interval_s(d);
      return s;
    }
    case 3: s = r.U64(kU64, &u); su->set_min_us(u); return s;
    case 4: {
      JsonLexer& lex = r.lex();
      su->clear_groups();
      if (!lex.Consume('[')) return lex.Error("expected an array of objects");
      if (lex.Consume(']')) return absl::OkStatus();
      do {
        if (s = SummaryGroupObject(r, su->add_groups()); !s.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "group ", su->groups_size(), ": ", s.message()));
        }
      } while (lex.Consume(','));
      if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
      return absl::OkStatus();
    }
  }
  return r.lex().SkipValue();
}

absl::StatusOr<RecordKind> KindFromName(absl::string_view name) {
  if (name == "event") return RecordKind::kEvent;
  if (name == "header") return RecordKind::kHeader;
  if (name == "stats") return RecordKind::kStats;
  if (name == "summary") return RecordKind::kSummary;
  if (name == "stuck") return RecordKind::kStuck;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown record type \"", name, "\""));
}

// The kind named by the line's "type" (an event when there is none), for
// lines where "type" is not the first key.  Also validates the syntax.
absl::StatusOr<RecordKind> ScanForKind(absl::string_view line,
                                       std::string* scratch) {
  JsonLexer lex(line);
  if (!lex.Consume('{')) return lex.Error("expected a JSON object");
  std::optional<RecordKind> kind;
  if (!lex.Consume('}')) {
    do {
      absl::string_view key;
      if (absl::Status s = lex.String(scratch, &key); !s.ok()) return s;
      const bool is_type = key == "type";
      if (!lex.Consume(':')) return lex.Error("expected ':'");
      if (is_type) {
        absl::string_view name;
        if (absl::Status s = lex.String(scratch, &name); !s.ok()) return s;
        absl::StatusOr<RecordKind> k = KindFromName(name);
        if (!k.ok()) return k.status();
        if (kind.has_value() && *kind != *k) {
          return absl::InvalidArgumentError("two different \"type\" values");
        }
        kind = *k;
      } else if (absl::Status s = lex.SkipValue(); !s.ok()) {
        return s;
      }
    } while (lex.Consume(','));
  }
  return kind.value_or(RecordKind::kEvent);
}

}  // namespace

absl::Status JsonRecordParser::Parse(absl::string_view line,
                                     ParsedRecord* rec) {
  // The kind first: biosnoop writes "type" as the first key.
  RecordKind kind;
  if (line.substr(0, 16) == "{\"type\":\"event\",") {
    kind = RecordKind::kEvent;
  } else if (line.substr(0, 17) == "{\"type\":\"header\",") {
    kind = RecordKind::kHeader;
  } else if (line.substr(0, 16) == "{\"type\":\"stats\",") {
    kind = RecordKind::kStats;
  } else if (line.substr(0, 18) == "{\"type\":\"summary\",") {
    kind = RecordKind::kSummary;
  } else if (line.substr(0, 16) == "{\"type\":\"stuck\",") {
    kind = RecordKind::kStuck;
  } else {
    absl::StatusOr<RecordKind> k = ScanForKind(line, &key_scratch_);
    if (!k.ok()) return k.status();
    kind = *k;
  }
  ResetForKind(kind, rec);

  JsonLexer lex(line);
  ValueReader reader(&lex, &time_parser_, &scratch_, &nested_key_scratch_);
  if (!lex.Consume('{')) return lex.Error("expected a JSON object");
  if (lex.Consume('}')) return lex.Error("empty object");
  const Schema& schema = SchemaOf(kind);
  size_t next = 0;
  uint32_t fields_seen = 0;  // bit n: field n (0: keys not in the schema)
  bool type_seen = false;
  do {
    absl::string_view key;
    if (absl::Status s = lex.String(&key_scratch_, &key); !s.ok()) return s;
    if (!lex.Consume(':')) return lex.Error("expected ':' after a key");
    absl::Status s;
    if (SameKey(key, "type")) {
      absl::string_view name;
      s = lex.String(&scratch_, &name);
      if (s.ok() && name != RecordKindName(kind)) {
        s = absl::InvalidArgumentError("two different \"type\" values");
      } else if (s.ok() && type_seen) {
        return absl::InvalidArgumentError("\"type\" twice");
      }
      type_seen = true;
    } else {
      const int field = Lookup(schema.keys, key, &next);
      // One test per key: the bit of a key already read is set.  Field 0
      // (keys not in the schema, skipped) may repeat.
      if (field != 0 && (fields_seen & (1u << field))) {
        return Twice(schema, key);
      }
      switch (kind) {
        case RecordKind::kEvent:
          s = EventField(field, reader, &rec->event);
          break;
        case RecordKind::kHeader:
          s = HeaderField(field, reader, &rec->header);
          break;
        case RecordKind::kStats:
          s = StatsField(field, reader, &rec->stats);
          break;
        case RecordKind::kSummary:
          s = SummaryField(field, reader, &rec->summary);
          break;
        case RecordKind::kStuck:
          s = StuckField(field, reader, &rec->stuck);
          break;
      }
      fields_seen |= 1u << field;
    }
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", key, "\": ", s.message()));
    }
  } while (lex.Consume(','));
  if (!lex.Consume('}')) return lex.Error("expected ',' or '}'");
  if (!lex.AtEnd()) return lex.Error("text after the object");
  if (absl::Status s = CheckKeys(schema, fields_seen); !s.ok()) return s;
  return ValidateRecord(rec);
}

}  // namespace biosnoop::report
