#pragma once

// Several inputs read as one stream, in time order: rotated logs
// (slow.jsonl.2.gz, slow.jsonl.1, slow.jsonl) are ordered by the timestamp
// of their first record after the header, whatever order they were named
// in.  Inputs whose
// first time is unknown (empty, stdin, and pipes, which are read only
// once) come first, in the order given.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "record.h"
#include "record_reader.h"

namespace biosnoop::report {

struct DamagedInput {
  std::string name;
  std::string what;  // RecordReader::damage()
};

struct InputDamage {
  uint64_t records_skipped = 0;              // corrupt records, all inputs
  std::vector<DamagedInput> damaged_inputs;  // ended inside a record, etc.
};

class StreamSet {
 public:
  // Checks that every path can be opened (the first failure is returned:
  // "cannot open x: No such file or directory") and orders them.  Reading
  // stdin ("-") is allowed once.
  static absl::StatusOr<StreamSet> Open(std::vector<std::string> paths,
                                        ReaderOptions options);

  // Calls `start_input` before each input and `visit` for every record, in
  // order.  Stops at the first error (from a reader or a callback).
  absl::Status ForEach(
      const std::function<void(const RecordReader&)>& start_input,
      const std::function<absl::Status(const ParsedRecord&)>& visit);

  const std::vector<std::string>& ordered_paths() const { return paths_; }
  // Formats seen, as "jsonl", "proto", "jsonl+proto"; after ForEach().
  std::string formats() const;
  const InputDamage& damage() const { return damage_; }

 private:
  StreamSet(std::vector<std::string> paths, ReaderOptions options)
      : paths_(std::move(paths)), options_(std::move(options)) {}

  std::vector<std::string> paths_;
  ReaderOptions options_;
  InputDamage damage_;
  bool saw_jsonl_ = false;
  bool saw_proto_ = false;
};

}  // namespace biosnoop::report
