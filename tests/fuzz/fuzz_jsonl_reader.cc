// libFuzzer target: the JSON Lines reader.  Each line of the input through
// the record parser (with the lossless check on what it accepts), then the
// whole input through the stream reader (detection, gzip, framing).

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
  JsonRecordParser parser;
  ParsedRecord rec;
  size_t pos = 0;
  while (pos <= input.size()) {
    size_t nl = input.find('\n', pos);
    if (nl == absl::string_view::npos) nl = input.size();
    if (parser.Parse(input.substr(pos, nl - pos), &rec).ok()) {
      CheckLosslessOrDie(rec);
    }
    pos = nl + 1;
  }
  RecordReader reader("fuzz", MemoryInput(input), ReaderOptions{});
  for (int n = 0; n < 100000; ++n) {
    absl::StatusOr<bool> got = reader.Next(&rec);
    if (!got.ok() || !*got) break;
  }
  return 0;
}
