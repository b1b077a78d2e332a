// The hand-written wire encoder (proto_wire.cc) against the schema itself:
// a record built with every field set (every_field_records.h) must come
// back from libprotobuf with every field of its message set, nested
// messages and lists included.  The byte-for-byte tests beside it compare
// the encoder with the library's reference filling (proto_format.cc), so a
// field both forget passes them; this one fails, with the field's name.

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "biosnoop.pb.h"
#include "delimited_record.h"
#include "every_field_records.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "proto_wire.h"
#include "stuck_like.h"

namespace biosnoop {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Whether a field without presence holds something other than its default.
bool NotDefault(const Message& m, const FieldDescriptor* f) {
  const google::protobuf::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return r->GetInt32(m, f) != 0;
    case FieldDescriptor::CPPTYPE_INT64:
      return r->GetInt64(m, f) != 0;
    case FieldDescriptor::CPPTYPE_UINT32:
      return r->GetUInt32(m, f) != 0;
    case FieldDescriptor::CPPTYPE_UINT64:
      return r->GetUInt64(m, f) != 0;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return r->GetDouble(m, f) != 0;
    case FieldDescriptor::CPPTYPE_FLOAT:
      return r->GetFloat(m, f) != 0;
    case FieldDescriptor::CPPTYPE_BOOL:
      return r->GetBool(m, f);
    case FieldDescriptor::CPPTYPE_ENUM:
      return r->GetEnumValue(m, f) != 0;
    case FieldDescriptor::CPPTYPE_STRING:
      return !r->GetString(m, f).empty();
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return r->HasField(m, f);
  }
  return false;
}

// The fields of `m` (and of the messages in it) left unset, by path.
void Unset(const Message& m, const std::string& path,
           std::vector<std::string>* out) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string name = absl::StrCat(path, f->name());
    if (f->is_repeated()) {
      if (r->FieldSize(m, f) == 0) {
        out->push_back(name);
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Unset(r->GetRepeatedMessage(m, f, 0), name + "[0].", out);
      }
      continue;
    }
    const bool set = f->has_presence() ? r->HasField(m, f) : NotDefault(m, f);
    if (!set) {
      out->push_back(name);
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      Unset(r->GetMessage(m, f), name + ".", out);
    }
  }
}

std::vector<std::string> UnsetIn(const Message& m) {
  std::vector<std::string> out;
  Unset(m, "", &out);
  return out;
}

// The shared fixtures' wall-clock times are whole seconds; a time with
// nanoseconds sets the timestamp's second field too.
constexpr int64_t kSomeNanos = 123;

TEST(WireEveryFieldTest, EventSetsEveryField) {
  EnrichedEvent e = EveryFieldEvent();
  e.realtime_ns += kSomeNanos;
  // Written into a buffer of exactly its bound, with a guard after it: the
  // bound (kept by hand in proto_wire.cc) must hold every field too.
  const ProtoHost host("db-7");
  const size_t bound = EventRecordBound(e, host);
  constexpr size_t kGuard = 64;
  std::string buffer(bound + kGuard, '#');
  char* start = nullptr;
  const char* end = WriteEventRecordDelimited(e, host, buffer.data(), &start);
  EXPECT_LE(static_cast<size_t>(end - buffer.data()), bound);
  EXPECT_EQ(buffer.substr(bound), std::string(kGuard, '#'));
  const std::string bytes(start, static_cast<size_t>(end - start));
  const v1::Record record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_event());
  EXPECT_EQ(UnsetIn(record.event()), std::vector<std::string>{});
}

TEST(WireEveryFieldTest, StuckSetsEveryField) {
  std::string bytes;
  EnrichedEvent e = EveryFieldEvent();
  e.realtime_ns += kSomeNanos;
  AppendStuckRecordDelimited(StuckLike(e), ProtoHost("db-7"), &bytes);
  const v1::Record record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_stuck());
  EXPECT_EQ(UnsetIn(record.stuck()), std::vector<std::string>{});
}

TEST(WireEveryFieldTest, OpSetsEveryField) {
  std::string bytes;
  AppendOpRecordDelimited(EveryFieldOp(), ProtoHost("db-7"), &bytes);
  const v1::Record record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_op());
  // The first culprit of others_writeback has every field; the other
  // layers' first culprits lack some (no container, a comm that is UTF-8,
  // no cgroup id), which is the point of them: not checked here.
  std::vector<std::string> unset;
  for (const std::string& path : UnsetIn(record.op())) {
    if (absl::StartsWith(path, "writeback.culprits[0].") ||
        absl::StartsWith(path, "journal.culprits[0].") ||
        absl::StartsWith(path, "flush.culprits[0].")) {
      continue;
    }
    unset.push_back(path);
  }
  // Fields no one record can have (proto/biosnoop.proto says why): a
  // failed call moved no bytes, the block layer (the call's own requests)
  // has no dirty age and no culprit, only it has a disk list, and only the
  // writeback layer dirty ages; throttle counts bios, with no device or
  // queue time and no culprit.
  EXPECT_EQ(unset, (std::vector<std::string>{
                       "bytes_done",
                       "block.dirty_age_us_max",
                       "block.dirty_age_us_min",
                       "block.dirty_known",
                       "block.culprits",
                       "writeback.disks",
                       "journal.disks",
                       "journal.dirty_age_us_max",
                       "journal.dirty_age_us_min",
                       "journal.dirty_known",
                       "flush.disks",
                       "flush.dirty_age_us_max",
                       "flush.dirty_age_us_min",
                       "flush.dirty_known",
                       "others_writeback.disks",
                       "others_writeback.dirty_age_us_max",
                       "others_writeback.dirty_age_us_min",
                       "others_writeback.dirty_known",
                       "throttle.disks",
                       "throttle.queue_us_sum",
                       "throttle.queue_us_max",
                       "throttle.device_us_sum",
                       "throttle.device_us_max",
                       "throttle.dirty_age_us_max",
                       "throttle.dirty_age_us_min",
                       "throttle.dirty_known",
                       "throttle.culprits",
                   }));
}

TEST(WireEveryFieldTest, HeaderStatsAndSummarySetEveryField) {
  std::string bytes;
  AppendHeaderRecordDelimited(EveryFieldInfo(), &bytes);
  v1::Record record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_header());
  EXPECT_EQ(UnsetIn(record.header()), std::vector<std::string>{});
  bytes.clear();
  AppendStatsRecordDelimited(EveryFieldStats(), &bytes);
  record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_stats());
  EXPECT_EQ(UnsetIn(record.stats()), std::vector<std::string>{});
  bytes.clear();
  AppendSummaryRecordDelimited(EveryFieldSummary(), &bytes);
  record = ParseDelimitedRecord(bytes);
  ASSERT_TRUE(record.has_summary());
  EXPECT_EQ(UnsetIn(record.summary()), std::vector<std::string>{});
}

}  // namespace
}  // namespace biosnoop
