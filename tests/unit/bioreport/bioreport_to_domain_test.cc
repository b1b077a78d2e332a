// bioreport's records as biosnoop's domain values (to_domain.h): every
// field of every record kind, set to a value of its own, survives the
// conversion and biosnoop's writers (JSON, and protobuf through
// proto_format.h), so that a field the conversion drops fails here; every
// record of biosnoop's streams in tests/golden is exact; the records
// biosnoop could not have written are refused, each with a message naming
// its field, or normalised to their one equivalent; and the op layer's
// object is one writer's.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bioreport_every_field.h"
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
#include "stream_info.h"
#include "to_domain.h"

namespace biosnoop::report {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

using test_util::EveryFieldEvent;
using test_util::EveryFieldHeader;
using test_util::EveryFieldOp;
using test_util::EveryFieldStuck;
using test_util::FillEveryField;
using test_util::Member;

// Reads a JSON line (with its '\n') back.
ParsedRecord ReadJson(const std::string& line) {
  ParsedRecord back;
  JsonRecordParser parser;
  const absl::Status s =
      parser.Parse(absl::string_view(line).substr(0, line.size() - 1), &back);
  EXPECT_TRUE(s.ok()) << s << "\n" << line;
  return back;
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
  ASSERT_TRUE(AppendRecordJson(rec, &line).ok());
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
  EXPECT_EQ(d.event.event.completion_context, CompletionContext::kSoftirq);
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
// writers, line for line.
TEST(BioreportToDomainTest, BiosnoopsStreamsAreExact) {
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
      EXPECT_TRUE(AppendRecordJson(rec, &written).ok());
      EXPECT_EQ(written, with_newline);
    }
    EXPECT_GT(lines, 10);
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
  const absl::Status s = ToDomainEvent(m, &d);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            absl::StrCat("device_us ", max_us + 1, " is too large in ns"));
}

// A stream from before completion_context: the domain's kAbsent, which the
// writers leave out, so converted without the key, as it was.
TEST(BioreportToDomainTest, EventWithoutCompletionContextStaysWithout) {
  v1::Event m = EveryFieldEvent();
  m.clear_completion_context();
  DomainEvent d;
  ASSERT_TRUE(ToDomainEvent(m, &d).ok());
  EXPECT_EQ(d.event.event.completion_context, CompletionContext::kAbsent);
  ParsedRecord rec;
  rec.kind = RecordKind::kEvent;
  rec.event = m;
  std::string line;
  ASSERT_TRUE(AppendRecordJson(rec, &line).ok());
  EXPECT_EQ(line.find("completion_context"), std::string::npos) << line;
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
  // biosnoop's protobuf leaves it out too (proto3's "").
  v1::Event filled;
  FillEventProto(d.event, d.host, &filled);
  ExpectSameMessage(m, filled);
  // And "unknown" (biosnoop could not read it) is kept.
  m.set_completion_context("unknown");
  ASSERT_TRUE(ToDomainEvent(m, &d).ok());
  EXPECT_EQ(d.event.event.completion_context, CompletionContext::kUnknown);
  ExpectJsonRoundTrip(RecordKind::kEvent, m);
}

// `rec` refused: InvalidArgumentError "(KIND): FIELD ...", nothing written.
void ExpectRefused(const ParsedRecord& rec, absl::string_view field) {
  std::string line = "before";
  const absl::Status s = AppendRecordJson(rec, &line);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s << line;
  const std::string prefix =
      absl::StrCat("(", RecordKindName(rec.kind), "): ", field, " ");
  EXPECT_EQ(s.message().substr(0, prefix.size()), prefix) << s;
  EXPECT_EQ(line, "before");
}

template <typename Msg>
ParsedRecord RecordOf(RecordKind kind, const Msg& m) {
  ParsedRecord rec;
  rec.kind = kind;
  MutableMember(&rec)->CopyFrom(m);
  return rec;
}

// What biosnoop could not have written (to_domain.h): refused, with a
// message that names the field (and its value).
TEST(BioreportToDomainTest, WhatBiosnoopCannotWriteIsRefused) {
  {
    v1::Event m = EveryFieldEvent();
    m.set_op("s6");
    std::string line;
    const absl::Status s =
        AppendRecordJson(RecordOf(RecordKind::kEvent, m), &line);
    EXPECT_EQ(s,
              absl::InvalidArgumentError(
                  R"((event): op "s6" is not an operation biosnoop writes)"));
  }
  const struct {
    const char* field;
    void (*edit)(v1::Event*);
  } kEvents[] = {
      {"op", [](v1::Event* e) { e->set_op("s6"); }},
      {"rwbs", [](v1::Event* e) { e->set_rwbs("R"); }},
      {"dev", [](v1::Event* e) { e->set_dev("08:1"); }},
      {"dev", [](v1::Event* e) { e->set_dev("s5"); }},
      {"comm",
       [](v1::Event* e) {
         e->clear_comm_raw();
         e->set_comm("seventeen-bytes-x");
       }},
      {"comm",
       [](v1::Event* e) {
         e->clear_comm_raw();
         e->set_comm(std::string("a\0b", 3));
       }},
      {"comm", [](v1::Event* e) { e->set_comm_raw("dd"); }},
      {"comm", [](v1::Event* e) { e->set_comm("xx"); }},
      {"latency_us",
       [](v1::Event* e) {
         e->set_latency_us(e->device_us() + e->queue_us() + 2);
       }},
      {"latency_us", [](v1::Event* e) { e->clear_queue_us(); }},
      {"error", [](v1::Event* e) { e->set_error("EIO"); }},
      {"error", [](v1::Event* e) { e->clear_error(); }},
      {"cgroup", [](v1::Event* e) { e->set_cgroup_id(0); }},
      {"completion_context",
       [](v1::Event* e) { e->set_completion_context("irq"); }},
      {"content", [](v1::Event* e) { e->set_content("s26"); }},
      {"content", [](v1::Event* e) { e->clear_content(); }},
      {"path_kind",
       [](v1::Event* e) { e->mutable_files(0)->set_path_kind("x"); }},
      {"files.dev", [](v1::Event* e) { e->mutable_files(0)->set_dev("8:01"); }},
      {"dirtied_by.comm",
       [](v1::Event* e) { e->mutable_dirtied_by()->set_comm("x"); }},
  };
  for (const auto& c : kEvents) {
    SCOPED_TRACE(c.field);
    v1::Event m = EveryFieldEvent();
    c.edit(&m);
    ExpectRefused(RecordOf(RecordKind::kEvent, m), c.field);
  }
  const struct {
    const char* field;
    void (*edit)(v1::Op*);
  } kOps[] = {
      {"call", [](v1::Op* o) { o->set_call("s4"); }},
      {"bytes_done", [](v1::Op* o) { o->set_bytes_done(1); }},
      {"error", [](v1::Op* o) { o->set_error("EIO"); }},
      {"error_code",
       [](v1::Op* o) {
         o->set_error_code(5000);
         o->set_error("E5000");
       }},
      {"other_us", [](v1::Op* o) { o->set_other_us(o->other_us() + 1); }},
      {"block", [](v1::Op* o) { o->mutable_block()->set_dirty_age_us_max(1); }},
      {"writeback.disks",
       [](v1::Op* o) { o->mutable_writeback()->add_disks("vda"); }},
      {"writeback",
       [](v1::Op* o) { o->mutable_writeback()->set_dirty_known(0); }},
      {"file.dev", [](v1::Op* o) { o->mutable_file()->set_dev("1:2:3"); }},
      {"other_us",
       [](v1::Op* o) {  // the journal's wait not taken off
         o->set_other_us(o->other_us() + o->journal().wait_us());
       }},
      {"block",
       [](v1::Op* o) { o->mutable_block()->add_culprits()->set_pid(1); }},
      {"journal", [](v1::Op* o) { o->mutable_journal()->add_disks("vda"); }},
      {"flush", [](v1::Op* o) { o->mutable_flush()->set_dirty_known(1); }},
      {"others_writeback",
       [](v1::Op* o) {
         o->mutable_others_writeback()->set_dirty_age_us_max(1);
       }},
      {"journal",
       [](v1::Op* o) {  // five: one more than the kernel side keeps
         for (int i = 0; i < 3; ++i) {
           o->mutable_journal()->add_culprits()->CopyFrom(
               o->journal().culprits(1));
         }
       }},
      {"flush.culprits[0]",
       [](v1::Op* o) {
         o->mutable_flush()->mutable_culprits(0)->set_role("x");
       }},
      {"others_writeback.culprits[1]",
       [](v1::Op* o) {  // listed after one it was waited for less than
         v1::OpCulprit* c = o->mutable_others_writeback()->mutable_culprits(1);
         c->set_wait_us(c->wait_us() + 1);
       }},
      {"writeback.culprits[1].comm",
       [](v1::Op* o) {
         o->mutable_writeback()->mutable_culprits(1)->set_comm(
             "seventeen-bytes-x");
       }},
      {"journal.culprits[0].cgroup",
       [](v1::Op* o) {
         o->mutable_journal()->mutable_culprits(0)->set_cgroup_id(0);
       }},
  };
  for (const auto& c : kOps) {
    SCOPED_TRACE(c.field);
    v1::Op m = EveryFieldOp(true);
    c.edit(&m);
    ExpectRefused(RecordOf(RecordKind::kOp, m), c.field);
  }
  v1::Summary s;
  FillEveryField(&s);
  s.mutable_groups(0)->clear_latency_us_log2();
  for (size_t i = 0; i <= kHistBuckets; ++i) {
    s.mutable_groups(0)->add_latency_us_log2(1);  // one bucket too many
  }
  ExpectRefused(RecordOf(RecordKind::kSummary, s), "latency_us_log2");
  v1::StreamHeader h = EveryFieldHeader();
  h.set_ops(false);
  ExpectRefused(RecordOf(RecordKind::kHeader, h), "op_min_us");
  v1::Stuck k = EveryFieldStuck();
  k.set_rwbs("s7");
  ExpectRefused(RecordOf(RecordKind::kStuck, k), "rwbs");
}

// What has one exact equivalent biosnoop writes is written as it: the
// same line as the equivalent's.
TEST(BioreportToDomainTest, EquivalentsAreNormalised) {
  const auto line_of = [](const ParsedRecord& rec) {
    std::string line;
    const absl::Status s = AppendRecordJson(rec, &line);
    EXPECT_TRUE(s.ok()) << s;
    return line;
  };
  // An empty optional name is none.
  v1::Event e = EveryFieldEvent();
  v1::Event none = e;
  e.set_partition("");
  e.set_container_id("");
  e.set_pod_uid("");
  none.clear_partition();
  none.clear_container_id();
  none.clear_pod_uid();
  EXPECT_EQ(line_of(RecordOf(RecordKind::kEvent, e)),
            line_of(RecordOf(RecordKind::kEvent, none)));
  ExpectJsonRoundTrip(RecordKind::kEvent, none);
  // A histogram's trailing zero buckets, also past kHistBuckets.
  v1::Summary s;
  FillEveryField(&s);
  v1::Summary trailing = s;
  for (size_t i = 0; i <= kHistBuckets; ++i) {
    trailing.mutable_groups(0)->add_latency_us_log2(0);
    trailing.mutable_groups(0)->add_size_log2(0);
  }
  EXPECT_EQ(line_of(RecordOf(RecordKind::kSummary, trailing)),
            line_of(RecordOf(RecordKind::kSummary, s)));
  ExpectJsonRoundTrip(RecordKind::kSummary, s);
}

// The fewest fields: unset optional fields are null, and read back unset.
TEST(BioreportToDomainTest, SparseRecordsRoundTrip) {
  v1::Event e;
  e.mutable_timestamp()->set_seconds(1);
  e.set_disk("vda");
  e.set_dev("253:0");
  e.set_op("read");
  e.set_rwbs("R");
  ExpectJsonRoundTrip(RecordKind::kEvent, e);
  v1::Op o;
  o.set_op_id(1);
  o.set_call("fsync");
  o.mutable_timestamp()->set_seconds(2);
  o.mutable_start_time()->set_seconds(1);
  o.mutable_file()->set_path_kind(std::string(PathKindName(PathKind::kNone)));
  o.mutable_file()->set_dev("0:0");
  o.mutable_block();  // written as objects: read back as set
  o.mutable_writeback();
  o.mutable_journal();
  o.mutable_flush();
  o.mutable_others_writeback();
  o.mutable_throttle();
  o.set_latency_us(1'000'000);
  o.set_other_us(1'000'000);
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
  ASSERT_TRUE(AppendRecordJson(rec, &line).ok());
  for (const v1::OpLayer* l : {&m.block(), &m.writeback(), &m.journal(),
                               &m.flush(), &m.others_writeback()}) {
    const std::vector<std::string> disks(l->disks().begin(), l->disks().end());
    DomainOp d;
    ASSERT_TRUE(ToDomainOp(m, &d).ok());
    const FileOp& op = d.op.op;
    const OpLayer* domain = l == &m.block()       ? &op.block
                            : l == &m.writeback() ? &op.writeback
                            : l == &m.journal()   ? &op.journal
                            : l == &m.flush()     ? &op.flush
                                                  : &op.others_writeback;
    EXPECT_EQ(domain->culprits.size(), static_cast<size_t>(l->culprits_size()));
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
    v.culprits = domain->culprits;
    std::string object;
    AppendOpLayerJson(v, &object);
    EXPECT_NE(line.find(object), std::string::npos) << object << "\n" << line;
  }
  EXPECT_NE(line.find(R"("dirty_age_us_max":null,"dirty_age_us_min":null,)"
                      R"("dirty_known":0,"culprits":[]})"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace biosnoop::report
