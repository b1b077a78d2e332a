#pragma once

// JSON Lines sink: one AppendEventJson() object per line, through an
// OutputFile (so a line reaches the file whole or not at all).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "event.h"
#include "output_file.h"
#include "sink.h"

namespace biosnoop {

class JsonlSink : public Sink {
 public:
  // `file` must not be null.  `host` goes into every line's "host" field.
  JsonlSink(std::unique_ptr<OutputFile> file, std::string host);

  // Errors are OutputFile::Append()'s.
  absl::Status Write(const EnrichedEvent& e) override;
  absl::Status Flush() override;
  absl::Status Reopen() override;

  // Line counters (written, dropped) for the exit summary.
  const OutputFile& file() const { return *file_; }

 private:
  std::unique_ptr<OutputFile> file_;
  std::string host_;
  std::string line_;  // reused for every event: no allocation per event
};

}  // namespace biosnoop
