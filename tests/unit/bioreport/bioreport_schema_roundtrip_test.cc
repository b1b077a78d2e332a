// bioreport's writers and readers against the schema, field by field, with
// no list of fields of their own: every field of every record message,
// set through reflection to a value of its own that biosnoop could have
// written (bioreport_every_field.h), survives writing and reading in both
// formats.  A field added to proto/biosnoop.proto is covered as soon as it
// exists.

#include <string>

#include "bioreport_every_field.h"
#include "biosnoop.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "record.h"
#include "record_parsers.h"
#include "record_writer.h"
#include "stream_info.h"

namespace biosnoop::report {
namespace {

using google::protobuf::Message;
using test_util::EveryKind;  // every field of every kind, each its own
using test_util::Member;

TEST(BioreportSchemaRoundTripTest, EveryFieldThroughJsonLines) {
  for (const ParsedRecord& rec : EveryKind()) {
    std::string line;
    const absl::Status written = AppendRecordJson(rec, &line);
    ASSERT_TRUE(written.ok()) << written;
    ASSERT_EQ(line.back(), '\n');
    line.pop_back();
    JsonRecordParser parser;
    ParsedRecord back;
    const absl::Status s = parser.Parse(line, &back);
    ASSERT_TRUE(s.ok()) << s << "\n" << line;
    EXPECT_EQ(back.kind, rec.kind);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Member(back),
                                                                   Member(rec)))
        << Member(back).DebugString() << "\nvs\n"
        << Member(rec).DebugString();
  }
}

TEST(BioreportSchemaRoundTripTest, EveryFieldThroughProtobuf) {
  for (const ParsedRecord& rec : EveryKind()) {
    std::string bytes;
    AppendRecordProto(rec, &bytes);
    // One length byte or more: skip the varint.
    size_t i = 0;
    while (static_cast<unsigned char>(bytes[i]) & 0x80) ++i;
    ProtoRecordParser parser;
    ParsedRecord back;
    const absl::Status s =
        parser.Parse(absl::string_view(bytes).substr(i + 1), &back);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(back.kind, rec.kind);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Member(back),
                                                                   Member(rec)))
        << Member(back).DebugString() << "\nvs\n"
        << Member(rec).DebugString();
  }
}

}  // namespace
}  // namespace biosnoop::report
