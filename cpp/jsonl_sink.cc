#include "jsonl_sink.h"

#include <utility>

#include "json_format.h"

namespace biosnoop {

JsonlSink::JsonlSink(std::unique_ptr<OutputFile> file, std::string host)
    : file_(std::move(file)), host_(std::move(host)) {
  line_.reserve(1024);  // a typical line is ~400 bytes
}

absl::Status JsonlSink::Write(const EnrichedEvent& e) {
  line_.clear();  // keeps the capacity
  AppendEventJson(e, host_, &line_);
  return file_->Append(line_);
}

absl::Status JsonlSink::Flush() { return file_->Flush(); }

absl::Status JsonlSink::Reopen() { return file_->Reopen(); }

}  // namespace biosnoop
