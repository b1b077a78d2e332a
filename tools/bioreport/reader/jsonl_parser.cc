// JSON Lines record parser.  Keys, field numbers and the keys a line must
// carry come from the schema (the generated descriptors and constants).
// The hot path is an event line as biosnoop writes it: keys in schema order
// (the lookup tries the next expected key first), strings without escapes
// (views, no copies), a timestamp whose seconds were seen on the previous line
// (cached).  An event's files and dirtier, nested objects, are read in
// jsonl_attribution.cc; what both files use is in jsonl_schema.h.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "json_lexer.h"
#include "jsonl_schema.h"
#include "proto_format.h"
#include "record_parsers.h"
#include "status_macros.h"

namespace biosnoop::report {
namespace jsonl {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

namespace {

Schema SchemaOf(absl::string_view what, const Descriptor* d) {
  Schema schema{what, {}, {}, 0};
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    schema.storage.push_back({f->name(), f->number()});
    if (!f->has_optional_keyword() &&
        !f->options().GetExtension(v1::added_later)) {
      schema.required |= FieldBit(f->number());
    }
  }
  return schema;  // `keys` is set where the schema stays (Schemas)
}

}  // namespace

Schemas::Schemas()
    : event(SchemaOf("event", v1::Event::descriptor())),
      header(SchemaOf("header", v1::StreamHeader::descriptor())),
      stuck(SchemaOf("stuck record", v1::Stuck::descriptor())),
      stats(SchemaOf("stats record", v1::Stats::descriptor())),
      summary(SchemaOf("summary", v1::Summary::descriptor())),
      summary_group(SchemaOf("group", v1::SummaryGroup::descriptor())),
      file_ref(SchemaOf("file", v1::FileRef::descriptor())),
      dirtier(SchemaOf("dirtier", v1::Dirtier::descriptor())),
      op(SchemaOf("op record", v1::Op::descriptor())),
      op_layer(SchemaOf("layer", v1::OpLayer::descriptor())),
      op_culprit(SchemaOf("culprit", v1::OpCulprit::descriptor())) {
  for (Schema* s : {&event, &header, &stuck, &stats, &summary, &summary_group,
                    &file_ref, &dirtier, &op, &op_layer, &op_culprit}) {
    s->keys = s->storage;
  }
}

const Schemas& AllSchemas() {
  static const Schemas* const schemas = new Schemas;
  return *schemas;
}

// A key given twice in one object is refused rather than read as its last
// value: which one the writer meant is unknown, and a pipeline that
// appended a field would otherwise silently replace one (a second
// "latency_us").
absl::Status Twice(const Schema& schema, absl::string_view key) {
  return absl::InvalidArgumentError(
      absl::StrCat(schema.what, " with \"", key, "\" twice"));
}

absl::Status CheckKeys(const Schema& schema, uint64_t seen) {
  if ((seen & schema.required) == schema.required) return absl::OkStatus();
  std::string names;
  for (const Key& k : schema.keys) {
    const uint64_t bit = FieldBit(k.field);
    if ((schema.required & bit) && !(seen & bit)) {
      absl::StrAppend(&names, names.empty() ? "" : ", ", "\"", k.name, "\"");
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(schema.what, " without ", names));
}

// Kept out of line: the switches that call it are the hot path.
ABSL_ATTRIBUTE_NOINLINE absl::Status UnlistedField(
    int field, ValueReader& r, google::protobuf::Message* m) {
  const FieldDescriptor* f =
      field == 0 ? nullptr : m->GetDescriptor()->FindFieldByNumber(field);
  JsonLexer& lex = r.lex();
  if (f == nullptr) return lex.SkipValue();
  const google::protobuf::Reflection* refl = m->GetReflection();
  if (f->has_optional_keyword() && lex.ConsumeNull()) {
    refl->ClearField(m, f);
    return absl::OkStatus();
  }
  uint64_t u = 0;
  int64_t i = 0;
  absl::Status s;
  if (f->is_repeated()) {
    refl->ClearField(m, f);
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_UINT64) {
      return absl::InvalidArgumentError("no JSON reading for its type");
    }
    if (!lex.Consume('[')) return lex.Error("expected an array of integers");
    if (lex.Consume(']')) return absl::OkStatus();
    do {
      if (s = lex.Uint(kU64, &u); !s.ok()) return s;
      refl->AddUInt64(m, f, u);
    } while (lex.Consume(','));
    if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
    return absl::OkStatus();
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string value;
      if (f->type() == FieldDescriptor::TYPE_BYTES) {  // hex digit pairs
        absl::string_view hex;
        if (s = r.View(&hex); !s.ok()) return s;
        if (!DecodeHex(hex, &value)) {
          return absl::InvalidArgumentError("not hex digit pairs");
        }
      } else if (s = r.Str(&value); !s.ok()) {
        return s;
      }
      refl->SetString(m, f, std::move(value));
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32:
      s = r.U64(kU32, &u);
      refl->SetUInt32(m, f, static_cast<uint32_t>(u));
      return s;
    case FieldDescriptor::CPPTYPE_UINT64:
      s = r.U64(kU64, &u);
      refl->SetUInt64(m, f, u);
      return s;
    case FieldDescriptor::CPPTYPE_INT32:
      s = lex.Int(std::numeric_limits<int32_t>::min(),
                  std::numeric_limits<int32_t>::max(), &i);
      refl->SetInt32(m, f, static_cast<int32_t>(i));
      return s;
    case FieldDescriptor::CPPTYPE_INT64:
      s = lex.Int(std::numeric_limits<int64_t>::min(),
                  std::numeric_limits<int64_t>::max(), &i);
      refl->SetInt64(m, f, i);
      return s;
    case FieldDescriptor::CPPTYPE_BOOL: {
      bool b = false;
      s = lex.Bool(&b);
      refl->SetBool(m, f, b);
      return s;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      double d = 0;
      s = lex.Double(&d);
      refl->SetDouble(m, f, d);
      return s;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
        return r.Time(static_cast<google::protobuf::Timestamp*>(
            refl->MutableMessage(m, f)));
      }
      break;
    default:
      break;
  }
  return absl::InvalidArgumentError("no JSON reading for its type");
}

namespace {

const Schema& SchemaOf(RecordKind kind) {
  const Schemas& all = AllSchemas();
  switch (kind) {
    case RecordKind::kHeader:
      return all.header;
    case RecordKind::kStats:
      return all.stats;
    case RecordKind::kSummary:
      return all.summary;
    case RecordKind::kStuck:
      return all.stuck;
    case RecordKind::kOp:
      return all.op;
    case RecordKind::kEvent:
      break;
  }
  return all.event;
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

// An array of strings: a header's "kernel_lacks", an event's or stuck
// record's "stack".
absl::Status StringArray(ValueReader& r,
                         google::protobuf::RepeatedPtrField<std::string>* out) {
  JsonLexer& lex = r.lex();
  out->Clear();
  if (!lex.Consume('[')) return lex.Error("expected an array of strings");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (absl::Status s = r.Str(out->Add()); !s.ok()) return s;
  } while (lex.Consume(','));
  if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
  return absl::OkStatus();
}

absl::Status EventField(int field, ValueReader& r, v1::Event* e) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::Event::kTimestampFieldNumber:
      return r.Time(e->mutable_timestamp());
    case v1::Event::kHostFieldNumber:
      return r.Str(e->mutable_host());
    case v1::Event::kDiskFieldNumber:
      return r.Str(e->mutable_disk());
    case v1::Event::kPartitionFieldNumber:
      return r.NullableStr([e] { e->clear_partition(); },
                           [e] { return e->mutable_partition(); });
    case v1::Event::kStackFieldNumber:
      return StringArray(r, e->mutable_stack());
    case v1::Event::kDevFieldNumber:
      return r.Str(e->mutable_dev());
    case v1::Event::kOpFieldNumber:
      return r.Str(e->mutable_op());
    case v1::Event::kRwbsFieldNumber:
      return r.Str(e->mutable_rwbs());
    case v1::Event::kSectorFieldNumber:
      s = r.U64(kU64, &u);
      e->set_sector(u);
      return s;
    case v1::Event::kBytesFieldNumber:
      s = r.U64(kU32, &u);
      e->set_bytes(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kLatencyUsFieldNumber:
      s = r.U64(kU64, &u);
      e->set_latency_us(u);
      return s;
    case v1::Event::kDeviceUsFieldNumber:
      s = r.U64(kU64, &u);
      e->set_device_us(u);
      return s;
    case v1::Event::kQueueUsFieldNumber:
      return QueueUs(r, e);
    case v1::Event::kQueueDepthFieldNumber:
      s = r.U64(kU32, &u);
      e->set_queue_depth(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kPidFieldNumber:
      s = r.U64(kU32, &u);
      e->set_pid(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kTidFieldNumber:
      s = r.U64(kU32, &u);
      e->set_tid(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kCommFieldNumber:
      return r.Str(e->mutable_comm());
    case v1::Event::kCommRawFieldNumber:
      return CommRaw(r, e);
    case v1::Event::kErrorCodeFieldNumber: {
      int64_t v = 0;
      s = r.lex().Int(std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max(), &v);
      e->set_error_code(static_cast<int32_t>(v));
      return s;
    }
    case v1::Event::kErrorFieldNumber:
      return r.NullableStr([e] { e->clear_error(); },
                           [e] { return e->mutable_error(); });
    case v1::Event::kSeqFieldNumber:
      s = r.U64(kU64, &u);
      e->set_seq(u);
      return s;
    case v1::Event::kContentFieldNumber:
      return r.Str(e->mutable_content());
    case v1::Event::kFilesFieldNumber:
      return FilesArray(r, e);
    case v1::Event::kFileCountFieldNumber:
      s = r.U64(kU32, &u);
      e->set_file_count(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kFilesIncompleteFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      e->set_files_incomplete(b);
      return s;
    }
    case v1::Event::kDirtiedByFieldNumber:
      return DirtiedBy(r, e);
    case v1::Event::kDirtierCountFieldNumber:
      s = r.U64(kU32, &u);
      e->set_dirtier_count(static_cast<uint32_t>(u));
      return s;
    case v1::Event::kOpIdFieldNumber:
      s = r.U64(kU64, &u);
      e->set_op_id(u);
      return s;
    case v1::Event::kDirtierOpIdsFieldNumber: {
      JsonLexer& lex = r.lex();
      e->clear_dirtier_op_ids();
      if (!lex.Consume('[')) return lex.Error("expected an array of integers");
      if (lex.Consume(']')) return absl::OkStatus();
      do {
        if (e->dirtier_op_ids_size() == kMaxDirtierOps) {
          return lex.Error(
              absl::StrCat("more than ", kMaxDirtierOps, " op ids"));
        }
        if (s = r.U64(kU64, &u); !s.ok()) return s;
        e->add_dirtier_op_ids(u);
      } while (lex.Consume(','));
      if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
      return absl::OkStatus();
    }
    case v1::Event::kDirtierOpCountFieldNumber:
      s = r.U64(kU32, &u);
      e->set_dirtier_op_count(static_cast<uint32_t>(u));
      return s;
      // The generic fields (driver_prep_us ...) have no case: UnlistedField
      // reads them by their type, as biosnoop writes them from the schema.
  }
  return UnlistedField(field, r, e);
}

// A stuck record's fields: those it shares with an event read the same way.
absl::Status StuckField(int field, ValueReader& r, v1::Stuck* k) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::Stuck::kTimestampFieldNumber:
      return r.Time(k->mutable_timestamp());
    case v1::Stuck::kHostFieldNumber:
      return r.Str(k->mutable_host());
    case v1::Stuck::kDiskFieldNumber:
      return r.Str(k->mutable_disk());
    case v1::Stuck::kPartitionFieldNumber:
      return r.NullableStr([k] { k->clear_partition(); },
                           [k] { return k->mutable_partition(); });
    case v1::Stuck::kStackFieldNumber:
      return StringArray(r, k->mutable_stack());
    case v1::Stuck::kDevFieldNumber:
      return r.Str(k->mutable_dev());
    case v1::Stuck::kOpFieldNumber:
      return r.Str(k->mutable_op());
    case v1::Stuck::kRwbsFieldNumber:
      return r.Str(k->mutable_rwbs());
    case v1::Stuck::kSectorFieldNumber:
      s = r.U64(kU64, &u);
      k->set_sector(u);
      return s;
    case v1::Stuck::kBytesFieldNumber:
      s = r.U64(kU32, &u);
      k->set_bytes(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kInflightUsFieldNumber:
      s = r.U64(kU64, &u);
      k->set_inflight_us(u);
      return s;
    case v1::Stuck::kQueueUsFieldNumber:
      return QueueUs(r, k);
    case v1::Stuck::kQueueDepthFieldNumber:
      s = r.U64(kU32, &u);
      k->set_queue_depth(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kPidFieldNumber:
      s = r.U64(kU32, &u);
      k->set_pid(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kTidFieldNumber:
      s = r.U64(kU32, &u);
      k->set_tid(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kCommFieldNumber:
      return r.Str(k->mutable_comm());
    case v1::Stuck::kCommRawFieldNumber:
      return CommRaw(r, k);
    case v1::Stuck::kContentFieldNumber:
      return r.Str(k->mutable_content());
    case v1::Stuck::kFilesFieldNumber:
      return FilesArray(r, k);
    case v1::Stuck::kFileCountFieldNumber:
      s = r.U64(kU32, &u);
      k->set_file_count(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kFilesIncompleteFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      k->set_files_incomplete(b);
      return s;
    }
    case v1::Stuck::kDirtiedByFieldNumber:
      return DirtiedBy(r, k);
    case v1::Stuck::kDirtierCountFieldNumber:
      s = r.U64(kU32, &u);
      k->set_dirtier_count(static_cast<uint32_t>(u));
      return s;
    case v1::Stuck::kOpIdFieldNumber:
      s = r.U64(kU64, &u);
      k->set_op_id(u);
      return s;
  }
  return UnlistedField(field, r, k);
}

absl::Status HeaderField(int field, ValueReader& r, v1::StreamHeader* h) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::StreamHeader::kFormatVersionFieldNumber:
      s = r.U64(kU32, &u);
      h->set_format_version(static_cast<uint32_t>(u));
      return s;
    case v1::StreamHeader::kHostFieldNumber:
      return r.Str(h->mutable_host());
    case v1::StreamHeader::kBootIdFieldNumber:
      return r.Str(h->mutable_boot_id());
    case v1::StreamHeader::kStartTimeFieldNumber:
      return r.Time(h->mutable_start_time());
    case v1::StreamHeader::kBiosnoopVersionFieldNumber:
      return r.Str(h->mutable_biosnoop_version());
    case v1::StreamHeader::kKernelReleaseFieldNumber:
      return r.Str(h->mutable_kernel_release());
    case v1::StreamHeader::kMinUsFieldNumber:
      s = r.U64(kU64, &u);
      h->set_min_us(u);
      return s;
    case v1::StreamHeader::kQueuedFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      h->set_queued(b);
      return s;
    }
    case v1::StreamHeader::kDiskFilterFieldNumber:
      return r.Str(h->mutable_disk_filter());
    case v1::StreamHeader::kPidFilterFieldNumber:
      s = r.U64(kU32, &u);
      h->set_pid_filter(static_cast<uint32_t>(u));
      return s;
    case v1::StreamHeader::kCommFilterFieldNumber:
      return r.Str(h->mutable_comm_filter());
    case v1::StreamHeader::kOpFilterFieldNumber:
      return r.Str(h->mutable_op_filter());
    case v1::StreamHeader::kRingbufKibFieldNumber:
      s = r.U64(kU32, &u);
      h->set_ringbuf_kib(static_cast<uint32_t>(u));
      return s;
    case v1::StreamHeader::kStuckAfterUsFieldNumber:
      s = r.U64(kU64, &u);
      h->set_stuck_after_us(u);
      return s;
    case v1::StreamHeader::kRunIdFieldNumber:
      return r.Str(h->mutable_run_id());
    case v1::StreamHeader::kCgroupFilterFieldNumber:
      return r.Str(h->mutable_cgroup_filter());
    case v1::StreamHeader::kOpsFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      h->set_ops(b);
      return s;
    }
    case v1::StreamHeader::kOpMinUsFieldNumber:
      s = r.U64(kU64, &u);
      h->set_op_min_us(u);
      return s;
    case v1::StreamHeader::kKernelLacksFieldNumber:
      return StringArray(r, h->mutable_kernel_lacks());
  }
  return UnlistedField(field, r, h);
}

absl::Status StatsField(int field, ValueReader& r, v1::Stats* st) {
  using S = v1::Stats;
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case S::kTimestampFieldNumber:
      return r.Time(st->mutable_timestamp());
    case S::kElapsedSFieldNumber: {
      double d = 0;
      s = r.lex().Double(&d);
      st->set_elapsed_s(d);
      return s;
    }
    case S::kFinalFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      st->set_final(b);
      return s;
    }
    case S::kRunIdFieldNumber:
      return r.Str(st->mutable_run_id());
    case S::kCompletionsFieldNumber:
      s = r.U64(kU64, &u);
      st->set_completions(u);
      return s;
    case S::kEmittedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_emitted(u);
      return s;
    case S::kLostFieldNumber:
      s = r.U64(kU64, &u);
      st->set_lost(u);
      return s;
    case S::kOrphansFieldNumber:
      s = r.U64(kU64, &u);
      st->set_orphans(u);
      return s;
    case S::kBelowThresholdFieldNumber:
      s = r.U64(kU64, &u);
      st->set_below_threshold(u);
      return s;
    case S::kFilteredFieldNumber:
      s = r.U64(kU64, &u);
      st->set_filtered(u);
      return s;
    case S::kDecodeErrorsFieldNumber:
      s = r.U64(kU64, &u);
      st->set_decode_errors(u);
      return s;
    case S::kExpiredFieldNumber:
      s = r.U64(kU64, &u);
      st->set_expired(u);
      return s;
    case S::kWrittenFieldNumber:
      s = r.U64(kU64, &u);
      st->set_written(u);
      return s;
    case S::kDroppedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_dropped(u);
      return s;
    case S::kMissedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_missed(u);
      return s;
    case S::kUnfinishedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_unfinished(u);
      return s;
    case S::kLedgerMissesFieldNumber:
      s = r.U64(kU64, &u);
      st->set_ledger_misses(u);
      return s;
    case S::kLedgerReplacedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_ledger_replaced(u);
      return s;
    case S::kOpsLostFieldNumber:
      s = r.U64(kU64, &u);
      st->set_ops_lost(u);
      return s;
    case S::kOpsWrittenFieldNumber:
      s = r.U64(kU64, &u);
      st->set_ops_written(u);
      return s;
    case S::kOpsUntrackedFieldNumber:
      s = r.U64(kU64, &u);
      st->set_ops_untracked(u);
      return s;
  }
  return UnlistedField(field, r, st);
}

// An array of integers (a log2 histogram), replacing `out`'s content.
absl::Status HistogramArray(JsonLexer& lex,
                            google::protobuf::RepeatedField<uint64_t>* out,
                            int max_buckets = kMaxSummaryBuckets) {
  out->Clear();
  if (!lex.Consume('[')) return lex.Error("expected an array of integers");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (out->size() == max_buckets) {
      return lex.Error(
          absl::StrCat("more than ", max_buckets, " histogram buckets"));
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
    case v1::SummaryGroup::kDiskFieldNumber:
      return r.Str(g->mutable_disk());
    case v1::SummaryGroup::kOpFieldNumber:
      return r.Str(g->mutable_op());
    case v1::SummaryGroup::kCountFieldNumber:
      s = r.U64(kU64, &u);
      g->set_count(u);
      return s;
    case v1::SummaryGroup::kBytesFieldNumber:
      s = r.U64(kU64, &u);
      g->set_bytes(u);
      return s;
    case v1::SummaryGroup::kSlowFieldNumber:
      s = r.U64(kU64, &u);
      g->set_slow(u);
      return s;
    case v1::SummaryGroup::kErrorsFieldNumber:
      s = r.U64(kU64, &u);
      g->set_errors(u);
      return s;
    case v1::SummaryGroup::kLatencyUsLog2FieldNumber:
      return HistogramArray(r.lex(), g->mutable_latency_us_log2());
    case v1::SummaryGroup::kSizeLog2FieldNumber:
      return HistogramArray(r.lex(), g->mutable_size_log2());
    case v1::SummaryGroup::kLatencyFineFieldNumber:
      return HistogramArray(r.lex(), g->mutable_latency_fine(),
                            kMaxFineBuckets);
  }
  return UnlistedField(field, r, g);
}

// One object of "groups"; unknown keys are skipped, as at the top level.
absl::Status SummaryGroupObject(ValueReader& r, v1::SummaryGroup* g) {
  return NestedObject(r, AllSchemas().summary_group, g, SummaryGroupField);
}

absl::Status SummaryField(int field, ValueReader& r, v1::Summary* su) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::Summary::kTimestampFieldNumber:
      return r.Time(su->mutable_timestamp());
    case v1::Summary::kIntervalSFieldNumber: {
      double d = 0;
      s = r.lex().Double(&d);
      su->set_interval_s(d);
      return s;
    }
    case v1::Summary::kMinUsFieldNumber:
      s = r.U64(kU64, &u);
      su->set_min_us(u);
      return s;
    case v1::Summary::kGroupsFieldNumber: {
      JsonLexer& lex = r.lex();
      su->clear_groups();
      if (!lex.Consume('[')) return lex.Error("expected an array of objects");
      if (lex.Consume(']')) return absl::OkStatus();
      do {
        if (s = SummaryGroupObject(r, su->add_groups()); !s.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("group ", su->groups_size(), ": ", s.message()));
        }
      } while (lex.Consume(','));
      if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
      return absl::OkStatus();
    }
  }
  return UnlistedField(field, r, su);
}

absl::StatusOr<RecordKind> KindFromName(absl::string_view name) {
  if (name == "event") return RecordKind::kEvent;
  if (name == "header") return RecordKind::kHeader;
  if (name == "stats") return RecordKind::kStats;
  if (name == "summary") return RecordKind::kSummary;
  if (name == "stuck") return RecordKind::kStuck;
  if (name == "op") return RecordKind::kOp;
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
        ASSIGN_OR_RETURN(const RecordKind k, KindFromName(name));
        if (kind.has_value() && *kind != k) {
          return absl::InvalidArgumentError("two different \"type\" values");
        }
        kind = k;
      } else if (absl::Status s = lex.SkipValue(); !s.ok()) {
        return s;
      }
    } while (lex.Consume(','));
  }
  return kind.value_or(RecordKind::kEvent);
}

}  // namespace
}  // namespace jsonl

absl::Status JsonRecordParser::Parse(absl::string_view line,
                                     ParsedRecord* rec) {
  using jsonl::CheckKeys;
  using jsonl::EventField;
  using jsonl::FieldBit;
  using jsonl::HeaderField;
  using jsonl::Lookup;
  using jsonl::SameKey;
  using jsonl::ScanForKind;
  using jsonl::Schema;
  using jsonl::SchemaOf;
  using jsonl::StatsField;
  using jsonl::StuckField;
  using jsonl::SummaryField;
  using jsonl::Twice;
  using jsonl::ValueReader;
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
  } else if (line.substr(0, 13) == "{\"type\":\"op\",") {
    kind = RecordKind::kOp;
  } else {
    ASSIGN_OR_RETURN(kind, ScanForKind(line, &key_scratch_));
  }
  ResetForKind(kind, rec);

  JsonLexer lex(line);
  ValueReader reader(&lex, &time_parser_, &scratch_, &nested_key_scratch_);
  if (!lex.Consume('{')) return lex.Error("expected a JSON object");
  if (lex.Consume('}')) return lex.Error("empty object");
  const Schema& schema = SchemaOf(kind);
  size_t next = 0;
  uint64_t fields_seen = 0;  // FieldBit of each key read
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
      if (field != 0 && (fields_seen & FieldBit(field))) {
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
        case RecordKind::kOp:
          s = jsonl::OpField(field, reader, &rec->op);
          break;
      }
      fields_seen |= FieldBit(field);
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
