#pragma once

// Records with every field set, each to a value of its own, that biosnoop
// could have written (its domain types hold them: to_domain.h), for the
// tests that check every field survives writing and reading.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"
#include "gtest/gtest.h"
#include "histogram.h"
#include "record.h"
#include "stream_info.h"

namespace biosnoop::report::test_util {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Sets every field of `m` (and of its messages) to a value of its own,
// none a proto3 default: strings "s<number>", integers from the field
// number, two elements in each repeated field.  A field added to the
// schema is covered as soon as it exists.
inline void FillEveryField(Message* m) {
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  const google::protobuf::Reflection* refl = m->GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const int n = f->number();
    const bool rep = f->is_repeated();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        for (int k = 0; k < (rep ? 2 : 1); ++k) {
          const std::string v = absl::StrCat("s", n, k == 0 ? "" : "b");
          rep ? refl->AddString(m, f, v) : refl->SetString(m, f, v);
        }
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        rep ? refl->AddUInt32(m, f, n) : refl->SetUInt32(m, f, 100 + n);
        // The one schema biosnoop writes fine buckets at (the value is
        // checked, not kept: 109 would not be a stream of biosnoop's).
        if (f->name() == "latency_fine_schema") {
          refl->SetUInt32(m, f, kFineSchema);
        }
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        if (rep) {
          refl->AddUInt64(m, f, n);
          refl->AddUInt64(m, f, 2 * n);
        } else {
          refl->SetUInt64(m, f, 1000 + n);
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        rep ? refl->AddInt32(m, f, n) : refl->SetInt32(m, f, n);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        rep ? refl->AddBool(m, f, true) : refl->SetBool(m, f, true);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        rep ? refl->AddDouble(m, f, n + 0.25) : refl->SetDouble(m, f, n + 0.25);
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* sub =
            rep ? refl->AddMessage(m, f) : refl->MutableMessage(m, f);
        if (f->message_type() == google::protobuf::Timestamp::descriptor()) {
          auto* ts = static_cast<google::protobuf::Timestamp*>(sub);
          ts->set_seconds(1795239841 + n);
          ts->set_nanos(1000 * n + 7);
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

// The values the domain keeps as a choice or derives, made valid: the
// rest stay FillEveryField's.
inline constexpr char kRawComm[] = "dd\xff";  // not UTF-8: comm_raw is written
inline constexpr char kCommText[] = "dd\xef\xbf\xbd";

inline void FixDirtier(v1::Dirtier* d) {
  d->set_comm(kCommText);
  d->set_comm_raw(kRawComm);
}

template <typename Msg>
void FixRequest(Msg* m) {
  m->set_dev("259:7");
  m->set_op("write");
  m->set_rwbs("FWFSM");  // preflush, write, FUA, sync, meta
  m->set_comm(kCommText);
  m->set_comm_raw(kRawComm);
  m->set_content("metadata");
  m->clear_files();
  for (const char* kind : {"absolute", "fs_relative"}) {
    v1::FileRef* f = m->add_files();
    FillEveryField(f);
    f->set_path_kind(kind);
    f->set_dev(absl::StrCat(8, ":", m->files_size()));
  }
  FixDirtier(m->mutable_dirtied_by());
}

inline v1::Event EveryFieldEvent() {
  v1::Event e;
  FillEveryField(&e);
  FixRequest(&e);
  // -Q: the device and queue times, whose ns parts added up to one more
  // microsecond.
  e.set_latency_us(e.device_us() + e.queue_us() + 1);
  e.set_error_code(61);  // ENODATA, blk_status 7
  e.set_error("ENODATA");
  e.set_completion_context("softirq");
  return e;
}

inline v1::Stuck EveryFieldStuck() {
  v1::Stuck k;
  FillEveryField(&k);
  FixRequest(&k);
  return k;
}

// A layer's culprits as biosnoop writes them: the one FillEveryField made
// as a dirtier whose comm is not UTF-8, and a copy of it after it (the
// same wait_us, so in order) as a submitter with a UTF-8 comm and an
// unnamed cgroup.
inline void FixCulprits(v1::OpLayer* l) {
  ASSERT_EQ(l->culprits_size(), 1);
  v1::OpCulprit* first = l->mutable_culprits(0);
  first->set_comm(kCommText);
  first->set_comm_raw(kRawComm);
  first->set_role("dirtier");
  v1::OpCulprit* second = l->add_culprits();
  *second = l->culprits(0);
  second->set_pid(second->pid() + 1);
  second->set_comm("kworker/u8:0");
  second->clear_comm_raw();
  second->clear_cgroup();
  second->set_role("submitter");
}

inline v1::Op EveryFieldOp(bool failed) {
  v1::Op o;
  FillEveryField(&o);
  o.set_call("io_uring_write");
  o.set_comm(kCommText);
  o.set_comm_raw(kRawComm);
  o.mutable_file()->set_path_kind("name");
  o.mutable_file()->set_dev("253:3");
  o.mutable_real_file()->set_path_kind("absolute");
  o.mutable_real_file()->set_dev("8:2");
  // The result: bytes done, or an error (a variant each).
  if (failed) {
    o.set_bytes_done(0);
    o.set_error_code(28);
    o.set_error("ENOSPC");
  } else {
    o.set_error_code(0);
    o.clear_error();
  }
  // What biosnoop's layers can say: block with its disks, no dirty ages
  // and no culprits, writeback with no disks, the other layers with
  // neither disks nor dirty ages; culprits everywhere but in block and
  // throttle.
  v1::OpLayer* block = o.mutable_block();
  block->set_dirty_known(0);
  block->clear_dirty_age_us_max();
  block->clear_dirty_age_us_min();
  block->clear_culprits();
  o.mutable_writeback()->clear_disks();
  FixCulprits(o.mutable_writeback());
  for (v1::OpLayer* l :
       {o.mutable_journal(), o.mutable_flush(), o.mutable_others_writeback()}) {
    l->clear_disks();
    l->set_dirty_known(0);
    l->clear_dirty_age_us_max();
    l->clear_dirty_age_us_min();
    FixCulprits(l);
  }
  // Throttle: bios, no disks, no ages, no culprits; controllers by name.
  v1::OpLayer* throttle = o.mutable_throttle();
  throttle->clear_disks();
  throttle->set_dirty_known(0);
  throttle->clear_dirty_age_us_max();
  throttle->clear_dirty_age_us_min();
  throttle->clear_culprits();
  o.clear_throttle_controllers();
  o.add_throttle_controllers("wbt");
  o.add_throttle_controllers("io.cost");
  o.set_latency_us(1'000'000);
  uint64_t waited = 0;
  for (const v1::OpLayer* l :
       {&o.block(), &o.writeback(), &o.journal(), &o.flush(),
        &o.others_writeback(), &o.throttle()}) {
    waited += l->wait_us();
  }
  o.set_other_us(o.latency_us() - waited);
  return o;
}

inline v1::StreamHeader EveryFieldHeader() {
  v1::StreamHeader h;
  FillEveryField(&h);
  h.set_format_version(kStreamFormatVersion);  // the one the readers take
  return h;
}

// The six kinds, each with every field set.
inline std::vector<ParsedRecord> EveryKind() {
  std::vector<ParsedRecord> recs(7);
  recs[0].kind = RecordKind::kHeader;
  recs[0].header = EveryFieldHeader();
  recs[1].kind = RecordKind::kEvent;
  recs[1].event = EveryFieldEvent();
  recs[2].kind = RecordKind::kStats;
  FillEveryField(&recs[2].stats);
  recs[3].kind = RecordKind::kSummary;
  FillEveryField(&recs[3].summary);
  recs[4].kind = RecordKind::kStuck;
  recs[4].stuck = EveryFieldStuck();
  recs[5].kind = RecordKind::kOp;
  recs[5].op = EveryFieldOp(false);
  recs[6].kind = RecordKind::kOp;
  recs[6].op = EveryFieldOp(true);
  return recs;
}

// The message of `rec` that its kind names.
inline const google::protobuf::Message& Member(const ParsedRecord& rec) {
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

}  // namespace biosnoop::report::test_util
