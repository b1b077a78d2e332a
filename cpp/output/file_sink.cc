// What both sinks share: exact event counts through an OutputFile that also
// carries other records (file_sink.h).

#include "file_sink.h"

#include <utility>

namespace biosnoop {

FileSink::FileSink(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}

absl::Status FileSink::Flush() { return file_->Flush(); }

absl::Status FileSink::Reopen() { return file_->Reopen(); }

uint64_t FileSink::events_written() const {
  return file_->records_written() - non_events_written_;
}

uint64_t FileSink::events_dropped() const {
  return file_->records_dropped() - non_events_dropped_;
}

absl::Status FileSink::AppendNonEvent(absl::string_view record) {
  // Events first, so that what this flush writes or drops is events only.
  if (absl::Status s = file_->Flush(); !s.ok()) return s;
  const uint64_t written_before = file_->records_written();
  const uint64_t dropped_before = file_->records_dropped();
  absl::Status status = file_->Append(record);
  if (status.ok()) status = file_->Flush();
  // Append() may fail before buffering (malformed record: nothing counted)
  // or the flush may fail (the record counted as dropped): either way the
  // counters moved by this one record at most.
  non_events_written_ += file_->records_written() - written_before;
  non_events_dropped_ += file_->records_dropped() - dropped_before;
  return status;
}

}  // namespace biosnoop
