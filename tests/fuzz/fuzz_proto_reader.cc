// libFuzzer target: the protobuf reader.  The input as one Record through
// the record parser (with the lossless check on what it accepts), then as a
// length-delimited stream through the stream reader.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "fuzz_check.h"
#include "google/protobuf/stubs/logging.h"
#include "record_reader.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace biosnoop::report;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  ProtoRecordParser parser;
  ParsedRecord rec;
  if (parser.Parse(input, &rec).ok()) CheckLosslessOrDie(rec);

  RecordReader reader("fuzz", MemoryInput(input), ReaderOptions{});
  for (int n = 0; n < 100000; ++n) {
    absl::StatusOr<bool> got = reader.Next(&rec);
    if (!got.ok() || !*got) break;
    CheckLosslessOrDie(rec);
  }
  return 0;
}
