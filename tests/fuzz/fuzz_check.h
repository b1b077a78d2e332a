#pragma once

// The property both fuzz targets check on every record a reader accepts:
// conversion is lossless.  JSON written from the record parses back to a
// record that writes the same JSON, and its protobuf form parses back to a
// record that writes the same JSON again.  A violation aborts (a finding).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "record.h"
#include "record_parsers.h"
#include "record_writer.h"

namespace biosnoop::report {

inline void CheckLosslessOrDie(const ParsedRecord& rec) {
  std::string json1;
  // A record biosnoop could not have written is refused (and written
  // nowhere): nothing to round-trip.
  if (!AppendRecordJson(rec, &json1).ok()) return;
  ParsedRecord from_json;
  JsonRecordParser json_parser;
  const absl::Status s1 = json_parser.Parse(
      absl::string_view(json1).substr(0, json1.size() - 1), &from_json);
  if (!s1.ok()) {
    std::fprintf(stderr, "written JSON does not parse: %s\n%s",
                 std::string(s1.message()).c_str(), json1.c_str());
    std::abort();
  }
  std::string json2;
  const absl::Status w2 = AppendRecordJson(from_json, &json2);
  if (!w2.ok() || json2 != json1) {
    std::fprintf(stderr, "JSON round trip differs:\n%s%s", json1.c_str(),
                 json2.c_str());
    std::abort();
  }
  std::string framed;
  AppendRecordProto(from_json, &framed);
  // Skip the varint length: ProtoRecordParser takes the Record bytes.
  size_t i = 0;
  while (static_cast<unsigned char>(framed[i]) & 0x80) ++i;
  ParsedRecord from_proto;
  ProtoRecordParser proto_parser;
  const absl::Status s2 =
      proto_parser.Parse(absl::string_view(framed).substr(i + 1), &from_proto);
  std::string json3;
  const absl::Status w3 = s2.ok() ? AppendRecordJson(from_proto, &json3) : s2;
  if (!w3.ok() || json3 != json1) {
    std::fprintf(stderr, "protobuf round trip differs (%s):\n%s%s",
                 std::string(s2.message()).c_str(), json1.c_str(),
                 json3.c_str());
    std::abort();
  }
}

}  // namespace biosnoop::report
