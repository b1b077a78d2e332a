// bioreport's records as biosnoop's domain values (to_domain.h): every
// field of every record kind, set to a value of its own, survives the
// conversion and biosnoop's writers (JSON, and protobuf through
// proto_format.h), so that a field the conversion drops fails here; every
// record of biosnoop's streams in tests/golden is exact; the records the
// domain cannot hold are refused by it and still convert losslessly, in
// biosnoop's layout (schema_json.h, held here to biosnoop's writers); and
// the op layer's object is one writer's.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bioreport_test_util.h"
#include "biosnoop.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "json_format.h"
#include "op_layer_json.h"
#include "proto_format.h"
#include "record.h"
#include "record_parsers.h"
#include "record_writer.h"
#include "schema_json.h"
#include "stream_info.h"
#include "to_domain.h"

namespace biosnoop::report {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

// Sets every field of `m` (and of its messages) to a value of its own,
// none a proto3 default: strings "s<number>", integers from the field
// number, two elements in each repeated field.  A field added to the
// schema is covered as soon as it exists.
void FillEveryField(Message* m) {
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
constexpr char kRawComm[] = "dd\xff";  // not UTF-8: comm_raw is written
constexpr char kCommText[] = "dd\xef\xbf\xbd";

void FixDirtier(v1::Dirtier* d) {
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

v1::Event EveryFieldEvent() {
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

v1::Stuck EveryFieldStuck() {
  v1::Stuck k;
  FillEveryField(&k);
  FixRequest(&k);
  return k;
}

v1::Op EveryFieldOp(bool failed) {
  v1::Op o;
  FillEveryField(&o);
  o.set_call("io_uring_write");
  o.set_comm(kCommText);
  o.set_comm_raw(kRawComm);
  o.mutable_file()->set_path_kind("name");
  o.mutable_file()->set_dev("253:3");
  // The result: bytes done, or an error (a variant each).
  if (failed) {
    o.set_bytes_done(0);
    o.set_error_code(28);
    o.set_error("ENOSPC");
  } else {
    o.set_error_code(0);
    o.clear_error();
  }
  // What biosnoop's layers can say: block with its disks and no dirty
  // ages, writeback with no disks.
  v1::OpLayer* block = o.mutable_block();
  block->set_dirty_known(0);
  block->clear_dirty_age_us_max();
  block->clear_dirty_age_us_min();
  o.mutable_writeback()->clear_disks();
  o.set_latency_us(1'000'000);
  o.set_other_us(o.latency_us() - block->wait_us() - o.writeback().wait_us());
  return o;
}

v1::StreamHeader EveryFieldHeader() {
  v1::StreamHeader h;
  FillEveryField(&h);
  h.set_format_version(kStreamFormatVersion);  // the one the readers take
  return h;
}

// Reads a JSON line (with its '\n') back.
ParsedRecord ReadJson(const std::string& line) {
  ParsedRecord back;
  JsonRecordParser parser;
  const absl::Status s =
      parser.Parse(absl::string_view(line).substr(0, line.size() - 1), &back);
  EXPECT_TRUE(s.ok()) << s << "\n" << line;
  return back;
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

Message* MutableMember(ParsedRecord* rec) {
  return const_cast<Message*>(&Member(*rec));
}

// `m` written by AppendRecordJson and read back: the same message.
void ExpectJsonRoundTrip(RecordKind kind, const Message& m) {
  ParsedRecord rec;
  rec.kind = kind;
  MutableMember(&rec)->CopyFrom(m);
  std::string line;
  AppendRecordJson(rec, &line);
  const ParsedRecord back = ReadJson(line);
  EXPECT_EQ(back.kind, kind);
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(m, Member(back))) << diff << line;
}

// And biosnoop's protobuf of the domain value: the same message too.
void ExpectSameMessage(const Message& want, const Message& got) {
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(want, got)) << diff;
}

TEST(BioreportToDomainTest, EveryEventFieldSurvives) {
  const v1::Event m = EveryFieldEvent();
  DomainEvent d;
  ASSERT_TRUE(ToDomainEvent(m, &d).ok()) << ToDomainEvent(m, &d);
  EXPECT_FALSE(d.completion_context_absent);
  EXPECT_TRUE(d.event.include_queue);
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
  v1::Event filled;
  FillEventProto(d.event, d.host, &filled);
  ExpectSameMessage(m, filled);
}

TEST(BioreportToDomainTest, EveryStuckFieldSurvives) {
  const v1::Stuck m = EveryFieldStuck();
  DomainStuck d;
  ASSERT_TRUE(ToDomainStuck(m, &d).ok()) << ToDomainStuck(m, &d);
  ExpectJsonRoundTrip(RecordKind::kStuck, m);
  v1::Stuck filled;
  FillStuckProto(d.stuck, d.host, &filled);
  ExpectSameMessage(m, filled);
}

TEST(BioreportToDomainTest, EveryOpFieldSurvives) {
  for (bool failed : {false, true}) {
    SCOPED_TRACE(failed ? "failed" : "done");
    const v1::Op m = EveryFieldOp(failed);
    DomainOp d;
    ASSERT_TRUE(ToDomainOp(m, &d).ok()) << ToDomainOp(m, &d);
    ExpectJsonRoundTrip(RecordKind::kOp, m);
    v1::Op filled;
    FillOpProto(d.op, d.host, &filled);
    ExpectSameMessage(m, filled);
  }
}

TEST(BioreportToDomainTest, EverySummaryFieldSurvives) {
  v1::Summary m;
  FillEveryField(&m);
  SummaryRecord d;
  ASSERT_TRUE(ToDomainSummary(m, &d).ok()) << ToDomainSummary(m, &d);
  ExpectJsonRoundTrip(RecordKind::kSummary, m);
  v1::Summary filled;
  FillSummaryProto(d, &filled);
  ExpectSameMessage(m, filled);
}

TEST(BioreportToDomainTest, EveryHeaderFieldSurvives) {
  const v1::StreamHeader m = EveryFieldHeader();
  StreamInfo d;
  ASSERT_TRUE(ToDomainHeader(m, &d).ok()) << ToDomainHeader(m, &d);
  ExpectJsonRoundTrip(RecordKind::kHeader, m);
  v1::StreamHeader filled;
  FillHeaderProto(d, &filled);
  ExpectSameMessage(m, filled);
}

TEST(BioreportToDomainTest, EveryStatsFieldSurvives) {
  v1::Stats m;
  FillEveryField(&m);
  StatsSnapshot d;
  ASSERT_TRUE(ToDomainStats(m, &d).ok()) << ToDomainStats(m, &d);
  ExpectJsonRoundTrip(RecordKind::kStats, m);
  v1::Stats filled;
  FillStatsProto(d, &filled);
  ExpectSameMessage(m, filled);
}

// The records of biosnoop's own streams (and of an earlier version's,
// without completion_context) are all exact: written by biosnoop's
// writers; and the schema's layout is theirs, line for line.
TEST(BioreportToDomainTest,
     BiosnoopsStreamsAreExactAndTheSchemaLayoutIsTheirs) {
  for (const char* name : {"events.jsonl", "stream/stream.jsonl"}) {
    SCOPED_TRACE(name);
    const std::string text = test_util::ReadFile(test_util::GoldenPath(name));
    int lines = 0;
    for (absl::string_view line :
         absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      ++lines;
      const std::string with_newline = absl::StrCat(line, "\n");
      const ParsedRecord rec = ReadJson(with_newline);
      absl::Status exact;
      switch (rec.kind) {
        case RecordKind::kEvent: {
          DomainEvent d;
          exact = ToDomainEvent(rec.event, &d);
          break;
        }
        case RecordKind::kStuck: {
          DomainStuck d;
          exact = ToDomainStuck(rec.stuck, &d);
          break;
        }
        case RecordKind::kOp: {
          DomainOp d;
          exact = ToDomainOp(rec.op, &d);
          break;
        }
        case RecordKind::kSummary: {
          SummaryRecord d;
          exact = ToDomainSummary(rec.summary, &d);
          break;
        }
        case RecordKind::kHeader: {
          StreamInfo d;
          exact = ToDomainHeader(rec.header, &d);
          break;
        }
        case RecordKind::kStats: {
          StatsSnapshot d;
          exact = ToDomainStats(rec.stats, &d);
          break;
        }
      }
      EXPECT_TRUE(exact.ok()) << exact << "\n" << line;
      std::string written;
      AppendRecordJson(rec, &written);
      EXPECT_EQ(written, with_newline);
      std::string by_schema;
      AppendSchemaJson(RecordKindName(rec.kind), Member(rec), &by_schema);
      EXPECT_EQ(by_schema, with_newline);
    }
    EXPECT_GT(lines, 10);
  }
}

// The schema's layout is biosnoop's on every field too.
TEST(BioreportToDomainTest, SchemaLayoutIsBiosnoopsWithEveryField) {
  std::vector<ParsedRecord> recs(5);
  recs[0].kind = RecordKind::kEvent;
  recs[0].event = EveryFieldEvent();
  recs[1].kind = RecordKind::kStuck;
  recs[1].stuck = EveryFieldStuck();
  recs[2].kind = RecordKind::kOp;
  recs[2].op = EveryFieldOp(false);
  recs[3].kind = RecordKind::kOp;
  recs[3].op = EveryFieldOp(true);
  recs[4].kind = RecordKind::kHeader;
  recs[4].header = EveryFieldHeader();
  for (const ParsedRecord& rec : recs) {
    std::string written;
    AppendRecordJson(rec, &written);
    std::string by_schema;
    AppendSchemaJson(RecordKindName(rec.kind), Member(rec), &by_schema);
    EXPECT_EQ(by_schema, written);
  }
}

// Durations: us * 1000 in the domain, and the writers' / 1000 gives the
// same integer back, up to the largest that fits in ns.
TEST(BioreportToDomainTest, DurationsAreExactInNanoseconds) {
  v1::Event m = EveryFieldEvent();
  const uint64_t max_us = std::numeric_limits<uint64_t>::max() / 1000;
  m.set_device_us(max_us - 7);
  m.set_queue_us(3);
  m.set_latency_us(max_us - 4);
  DomainEvent d;
  ASSERT_TRUE(ToDomainEvent(m, &d).ok()) << ToDomainEvent(m, &d);
  EXPECT_EQ(d.event.event.device_ns / 1000, max_us - 7);
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
  m.set_device_us(max_us + 1);  // no ns for it
  EXPECT_FALSE(ToDomainEvent(m, &d).ok());
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
}

// A stream from before completion_context: converted without the key,
// as it was.
TEST(BioreportToDomainTest, EventWithoutCompletionContextStaysWithout) {
  v1::Event m = EveryFieldEvent();
  m.clear_completion_context();
  DomainEvent d;
  ASSERT_TRUE(ToDomainEvent(m, &d).ok());
  EXPECT_TRUE(d.completion_context_absent);
  ParsedRecord rec;
  rec.kind = RecordKind::kEvent;
  rec.event = m;
  std::string line;
  AppendRecordJson(rec, &line);
  EXPECT_EQ(line.find("completion_context"), std::string::npos) << line;
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
  // And "unknown" (biosnoop could not read it) is kept.
  m.set_completion_context("unknown");
  ASSERT_TRUE(ToDomainEvent(m, &d).ok());
  EXPECT_FALSE(d.completion_context_absent);
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
}

// What the domain cannot hold (to_domain.h): refused by the conversion,
// and still written so that it reads back the same (by the schema).
TEST(BioreportToDomainTest, WhatTheDomainCannotHoldConvertsByTheSchema) {
  const struct {
    const char* what;
    void (*edit)(v1::Event*);
  } kEvents[] = {
      {"op name", [](v1::Event* e) { e->set_op("s6"); }},
      {"rwbs of another op", [](v1::Event* e) { e->set_rwbs("R"); }},
      {"dev", [](v1::Event* e) { e->set_dev("08:1"); }},
      {"dev", [](v1::Event* e) { e->set_dev("vda"); }},
      {"long comm",
       [](v1::Event* e) {
         e->clear_comm_raw();
         e->set_comm("seventeen-bytes-x");
       }},
      {"comm with a NUL",
       [](v1::Event* e) {
         e->clear_comm_raw();
         e->set_comm(std::string("a\0b", 3));
       }},
      {"comm_raw that is UTF-8", [](v1::Event* e) { e->set_comm_raw("dd"); }},
      {"comm not comm_raw's", [](v1::Event* e) { e->set_comm("xx"); }},
      {"latency",
       [](v1::Event* e) {
         e->set_latency_us(e->device_us() + e->queue_us() + 2);
       }},
      {"latency without queue", [](v1::Event* e) { e->clear_queue_us(); }},
      {"error name", [](v1::Event* e) { e->set_error("EIO"); }},
      {"error without name", [](v1::Event* e) { e->clear_error(); }},
      {"empty partition", [](v1::Event* e) { e->set_partition(""); }},
      {"empty pod_uid", [](v1::Event* e) { e->set_pod_uid(""); }},
      {"cgroup without id", [](v1::Event* e) { e->set_cgroup_id(0); }},
      {"context", [](v1::Event* e) { e->set_completion_context("irq"); }},
      {"content", [](v1::Event* e) { e->set_content("s26"); }},
      {"path kind",
       [](v1::Event* e) { e->mutable_files(0)->set_path_kind("x"); }},
      {"dirtier comm",
       [](v1::Event* e) { e->mutable_dirtied_by()->set_comm("x"); }},
  };
  for (const auto& c : kEvents) {
    SCOPED_TRACE(c.what);
    v1::Event m = EveryFieldEvent();
    c.edit(&m);
    DomainEvent d;
    EXPECT_FALSE(ToDomainEvent(m, &d).ok());
    ExpectJsonRoundTrip(RecordKind::kEvent, m);
  }
  const struct {
    const char* what;
    void (*edit)(v1::Op*);
  } kOps[] = {
      {"call", [](v1::Op* o) { o->set_call("s4"); }},
      {"bytes done with an error", [](v1::Op* o) { o->set_bytes_done(1); }},
      {"error name", [](v1::Op* o) { o->set_error("EIO"); }},
      {"errno",
       [](v1::Op* o) {
         o->set_error_code(5000);
         o->set_error("E5000");
       }},
      {"other_us", [](v1::Op* o) { o->set_other_us(o->other_us() + 1); }},
      {"block dirty ages",
       [](v1::Op* o) { o->mutable_block()->set_dirty_age_us_max(1); }},
      {"writeback disks",
       [](v1::Op* o) { o->mutable_writeback()->add_disks("vda"); }},
      {"ages without dirty_known",
       [](v1::Op* o) { o->mutable_writeback()->set_dirty_known(0); }},
      {"file dev", [](v1::Op* o) { o->mutable_file()->set_dev("1:2:3"); }},
  };
  for (const auto& c : kOps) {
    SCOPED_TRACE(c.what);
    v1::Op m = EveryFieldOp(true);
    c.edit(&m);
    DomainOp d;
    EXPECT_FALSE(ToDomainOp(m, &d).ok());
    ExpectJsonRoundTrip(RecordKind::kOp, m);
  }
  v1::Summary s;
  FillEveryField(&s);
  s.mutable_groups(0)->add_latency_us_log2(0);  // a trailing zero bucket
  SummaryRecord summary;
  EXPECT_FALSE(ToDomainSummary(s, &summary).ok());
  ExpectJsonRoundTrip(RecordKind::kSummary, s);
  v1::StreamHeader h = EveryFieldHeader();
  h.set_ops(false);  // op_min_us without ops
  StreamInfo info;
  EXPECT_FALSE(ToDomainHeader(h, &info).ok());
  ExpectJsonRoundTrip(RecordKind::kHeader, h);
  v1::Stuck k = EveryFieldStuck();
  k.set_rwbs("s7");
  DomainStuck stuck;
  EXPECT_FALSE(ToDomainStuck(k, &stuck).ok());
  ExpectJsonRoundTrip(RecordKind::kStuck, k);
}

// By the schema, the fewest fields too: unset optional fields are null,
// and read back unset.
TEST(BioreportToDomainTest, SparseRecordsConvertByTheSchema) {
  v1::Event e;
  e.mutable_timestamp()->set_seconds(1);
  e.set_disk("vda");
  e.set_dev("x");  // not MAJ:MIN: by the schema
  e.set_op("read");
  e.set_rwbs("R");
  ExpectJsonRoundTrip(RecordKind::kEvent, e);
  v1::Op o;
  o.set_op_id(1);
  o.set_call("s4");
  o.mutable_timestamp()->set_seconds(2);
  o.mutable_start_time()->set_seconds(1);
  o.mutable_file();  // written as objects: read back as set
  o.mutable_block();
  o.mutable_writeback();
  ExpectJsonRoundTrip(RecordKind::kOp, o);
}

// The op layer's object: the one function both the op record and the
// calls report write it with, and the record's bytes.
TEST(BioreportToDomainTest, OpLayerObjectIsTheRecordsOwn) {
  const v1::Op m = EveryFieldOp(false);
  ParsedRecord rec;
  rec.kind = RecordKind::kOp;
  rec.op = m;
  std::string line;
  AppendRecordJson(rec, &line);
  for (const v1::OpLayer* l : {&m.block(), &m.writeback()}) {
    const std::vector<std::string> disks(l->disks().begin(), l->disks().end());
    OpLayerValues v;
    v.requests = l->requests();
    v.bytes = l->bytes();
    v.disks = disks;
    v.queue_us_sum = l->queue_us_sum();
    v.queue_us_max = l->queue_us_max();
    v.device_us_sum = l->device_us_sum();
    v.device_us_max = l->device_us_max();
    v.wait_us = l->wait_us();
    if (l->has_dirty_age_us_max()) v.dirty_age_us_max = l->dirty_age_us_max();
    if (l->has_dirty_age_us_min()) v.dirty_age_us_min = l->dirty_age_us_min();
    v.dirty_known = l->dirty_known();
    std::string object;
    AppendOpLayerJson(v, &object);
    EXPECT_NE(line.find(object), std::string::npos) << object << "\n" << line;
  }
  EXPECT_NE(line.find(R"("dirty_age_us_max":null,"dirty_age_us_min":null,)"
                      R"("dirty_known":0})"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace biosnoop::report
