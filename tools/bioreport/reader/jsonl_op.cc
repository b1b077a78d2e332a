// An op record (--ops: one application call) in JSON Lines.  Its top level
// is read as an event's is; its "file" is a FileRef object, its "block",
// "writeback", "journal", "flush" and "others_writeback" OpLayer objects
// and each layer's "culprits" an array of at most kMaxOpCulprits OpCulprit
// objects, each read as a record is (jsonl_schema.h: NestedObject): every
// key of its message required but the `optional` ones (offset, cgroup,
// container_id, pod_uid, partition, comm_raw, error; a layer's dirty ages)
// and the `added_later` ones (a culprit's cgroup_id), none twice, unknown
// keys skipped.

#include <limits>

#include "absl/strings/str_cat.h"
#include "jsonl_schema.h"

namespace biosnoop::report::jsonl {
namespace {

// A nullable unsigned integer: null clears it (unset).
template <typename Clear, typename Set>
absl::Status NullableU64(ValueReader& r, Clear clear, Set set) {
  if (r.lex().ConsumeNull()) {
    clear();
    return absl::OkStatus();
  }
  uint64_t u = 0;
  absl::Status s = r.U64(kU64, &u);
  set(u);
  return s;
}

// An array of at most `most` strings (`what`, in errors) into `out`.
absl::Status Strings(ValueReader& r, int most, absl::string_view what,
                     google::protobuf::RepeatedPtrField<std::string>* out) {
  JsonLexer& lex = r.lex();
  out->Clear();
  if (!lex.Consume('[')) return lex.Error("expected an array of strings");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (out->size() == most) {
      return lex.Error(absl::StrCat("more than ", most, " ", what));
    }
    if (absl::Status s = r.Str(out->Add()); !s.ok()) return s;
  } while (lex.Consume(','));
  if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
  return absl::OkStatus();
}

absl::Status OpCulpritField(int field, ValueReader& r, v1::OpCulprit* c) {
  using C = v1::OpCulprit;
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case C::kPidFieldNumber:
      s = r.U64(kU32, &u);
      c->set_pid(static_cast<uint32_t>(u));
      return s;
    case C::kCommFieldNumber:
      return r.Str(c->mutable_comm());
    case C::kCommRawFieldNumber:
      return CommRaw(r, c);
    case C::kCgroupFieldNumber:
      return r.NullableStr([c] { c->clear_cgroup(); },
                           [c] { return c->mutable_cgroup(); });
    case C::kCgroupIdFieldNumber:
      s = r.U64(kU64, &u);
      c->set_cgroup_id(u);
      return s;
    case C::kContainerIdFieldNumber:
      return r.NullableStr([c] { c->clear_container_id(); },
                           [c] { return c->mutable_container_id(); });
    case C::kPodUidFieldNumber:
      return r.NullableStr([c] { c->clear_pod_uid(); },
                           [c] { return c->mutable_pod_uid(); });
    case C::kRoleFieldNumber:
      return r.Str(c->mutable_role());
    case C::kRequestsFieldNumber:
      s = r.U64(kU32, &u);
      c->set_requests(static_cast<uint32_t>(u));
      return s;
    case C::kBytesFieldNumber:
      s = r.U64(kU64, &u);
      c->set_bytes(u);
      return s;
    case C::kWaitUsFieldNumber:
      s = r.U64(kU64, &u);
      c->set_wait_us(u);
      return s;
  }
  return UnlistedField(field, r, c);
}

// "culprits": an array of at most kMaxOpCulprits OpCulprit objects.
absl::Status Culprits(ValueReader& r, v1::OpLayer* l) {
  JsonLexer& lex = r.lex();
  l->clear_culprits();
  if (!lex.Consume('[')) return lex.Error("expected an array of objects");
  if (lex.Consume(']')) return absl::OkStatus();
  do {
    if (l->culprits_size() == kMaxOpCulprits) {
      return lex.Error(absl::StrCat("more than ", kMaxOpCulprits, " culprits"));
    }
    if (absl::Status s = NestedObject(r, AllSchemas().op_culprit,
                                      l->add_culprits(), OpCulpritField);
        !s.ok()) {
      return s;
    }
  } while (lex.Consume(','));
  if (!lex.Consume(']')) return lex.Error("expected ',' or ']'");
  return absl::OkStatus();
}

absl::Status OpLayerField(int field, ValueReader& r, v1::OpLayer* l) {
  using L = v1::OpLayer;
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case L::kRequestsFieldNumber:
      s = r.U64(kU32, &u);
      l->set_requests(static_cast<uint32_t>(u));
      return s;
    case L::kBytesFieldNumber:
      s = r.U64(kU64, &u);
      l->set_bytes(u);
      return s;
    case L::kDisksFieldNumber:
      return Strings(r, kMaxOpLayerDisks, "disks", l->mutable_disks());
    case L::kQueueUsSumFieldNumber:
      s = r.U64(kU64, &u);
      l->set_queue_us_sum(u);
      return s;
    case L::kQueueUsMaxFieldNumber:
      s = r.U64(kU64, &u);
      l->set_queue_us_max(u);
      return s;
    case L::kDeviceUsSumFieldNumber:
      s = r.U64(kU64, &u);
      l->set_device_us_sum(u);
      return s;
    case L::kDeviceUsMaxFieldNumber:
      s = r.U64(kU64, &u);
      l->set_device_us_max(u);
      return s;
    case L::kWaitUsFieldNumber:
      s = r.U64(kU64, &u);
      l->set_wait_us(u);
      return s;
    case L::kDirtyAgeUsMaxFieldNumber:
      return NullableU64(
          r, [l] { l->clear_dirty_age_us_max(); },
          [l](uint64_t v) { l->set_dirty_age_us_max(v); });
    case L::kDirtyAgeUsMinFieldNumber:
      return NullableU64(
          r, [l] { l->clear_dirty_age_us_min(); },
          [l](uint64_t v) { l->set_dirty_age_us_min(v); });
    case L::kDirtyKnownFieldNumber:
      s = r.U64(kU32, &u);
      l->set_dirty_known(static_cast<uint32_t>(u));
      return s;
    case L::kCulpritsFieldNumber:
      return Culprits(r, l);
  }
  return UnlistedField(field, r, l);
}

absl::Status Layer(ValueReader& r, v1::OpLayer* l) {
  return NestedObject(r, AllSchemas().op_layer, l, OpLayerField);
}

}  // namespace

absl::Status OpField(int field, ValueReader& r, v1::Op* op) {
  uint64_t u = 0;
  absl::Status s;
  switch (field) {
    case v1::Op::kTimestampFieldNumber:
      return r.Time(op->mutable_timestamp());
    case v1::Op::kHostFieldNumber:
      return r.Str(op->mutable_host());
    case v1::Op::kOpIdFieldNumber:
      s = r.U64(kU64, &u);
      op->set_op_id(u);
      return s;
    case v1::Op::kCallFieldNumber:
      return r.Str(op->mutable_call());
    case v1::Op::kPidFieldNumber:
      s = r.U64(kU32, &u);
      op->set_pid(static_cast<uint32_t>(u));
      return s;
    case v1::Op::kTidFieldNumber:
      s = r.U64(kU32, &u);
      op->set_tid(static_cast<uint32_t>(u));
      return s;
    case v1::Op::kCommFieldNumber:
      return r.Str(op->mutable_comm());
    case v1::Op::kCommRawFieldNumber:
      return CommRaw(r, op);
    case v1::Op::kCgroupFieldNumber:
      return r.NullableStr([op] { op->clear_cgroup(); },
                           [op] { return op->mutable_cgroup(); });
    case v1::Op::kCgroupIdFieldNumber:
      s = r.U64(kU64, &u);
      op->set_cgroup_id(u);
      return s;
    case v1::Op::kContainerIdFieldNumber:
      return r.NullableStr([op] { op->clear_container_id(); },
                           [op] { return op->mutable_container_id(); });
    case v1::Op::kPodUidFieldNumber:
      return r.NullableStr([op] { op->clear_pod_uid(); },
                           [op] { return op->mutable_pod_uid(); });
    case v1::Op::kFileFieldNumber:
      return FileObject(r, op->mutable_file());
    case v1::Op::kRealFileFieldNumber:
      return FileObject(r, op->mutable_real_file());
    case v1::Op::kDiskFieldNumber:
      return r.Str(op->mutable_disk());
    case v1::Op::kPartitionFieldNumber:
      return r.NullableStr([op] { op->clear_partition(); },
                           [op] { return op->mutable_partition(); });
    case v1::Op::kOffsetFieldNumber:
      return NullableU64(
          r, [op] { op->clear_offset(); },
          [op](uint64_t v) { op->set_offset(v); });
    case v1::Op::kBytesRequestedFieldNumber:
      s = r.U64(kU64, &u);
      op->set_bytes_requested(u);
      return s;
    case v1::Op::kBytesRequestedPartialFieldNumber: {
      bool b = false;
      s = r.lex().Bool(&b);
      op->set_bytes_requested_partial(b);
      return s;
    }
    case v1::Op::kBytesDoneFieldNumber:
      s = r.U64(kU64, &u);
      op->set_bytes_done(u);
      return s;
    case v1::Op::kErrorCodeFieldNumber: {
      int64_t v = 0;
      s = r.lex().Int(std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max(), &v);
      op->set_error_code(static_cast<int32_t>(v));
      return s;
    }
    case v1::Op::kErrorFieldNumber:
      return r.NullableStr([op] { op->clear_error(); },
                           [op] { return op->mutable_error(); });
    case v1::Op::kStartTimeFieldNumber:
      return r.Time(op->mutable_start_time());
    case v1::Op::kLatencyUsFieldNumber:
      s = r.U64(kU64, &u);
      op->set_latency_us(u);
      return s;
    case v1::Op::kBlockFieldNumber:
      return Layer(r, op->mutable_block());
    case v1::Op::kWritebackFieldNumber:
      return Layer(r, op->mutable_writeback());
    case v1::Op::kOtherUsFieldNumber:
      s = r.U64(kU64, &u);
      op->set_other_us(u);
      return s;
    case v1::Op::kJournalFieldNumber:
      return Layer(r, op->mutable_journal());
    case v1::Op::kFlushFieldNumber:
      return Layer(r, op->mutable_flush());
    case v1::Op::kOthersWritebackFieldNumber:
      return Layer(r, op->mutable_others_writeback());
    case v1::Op::kThrottleFieldNumber:
      return Layer(r, op->mutable_throttle());
    case v1::Op::kThrottleControllersFieldNumber:
      return Strings(r, kMaxThrottleControllers, "controllers",
                     op->mutable_throttle_controllers());
  }
  return UnlistedField(field, r, op);
}

}  // namespace biosnoop::report::jsonl
