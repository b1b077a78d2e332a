// What both sinks share: exact event counts through an OutputFile that also
// carries other records (file_sink.h).

#include "file_sink.h"

#include <utility>

namespace biosnoop {

FileSink::FileSink(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}

absl::Status FileSink::Flush() {
  // A flush made under the sink (log rotation) is attributed here first.
  Settle();
  absl::Status status = file_->Flush();
  Settle();
  return status;
}

absl::Status FileSink::Reopen() {
  Settle();
  absl::Status status = file_->Reopen();
  Settle();
  return status;
}

uint64_t FileSink::events_written() const {
  return file_->records_written() - non_events_written_ - ops_written_;
}

uint64_t FileSink::events_dropped() const {
  return file_->records_dropped() - non_events_dropped_ - ops_dropped_;
}

void FileSink::SettleOps() {
  const uint64_t written = file_->records_written();
  const uint64_t dropped = file_->records_dropped();
  // Positions up to `last_written` were written, then up to `last_done`
  // dropped.
  const uint64_t last_written =
      settled_written_ + settled_dropped_ + (written - settled_written_);
  const uint64_t last_done = last_written + (dropped - settled_dropped_);
  while (!op_positions_.empty() && op_positions_.front() <= last_done) {
    if (op_positions_.front() <= last_written) {
      ++ops_written_;
    } else {
      ++ops_dropped_;
    }
    op_positions_.pop_front();
  }
  settled_written_ = written;
  settled_dropped_ = dropped;
}

absl::Status FileSink::AppendOp(absl::string_view record) {
  if (record.empty()) return absl::OkStatus();  // no record: nothing queued
  Settle();
  absl::Status status = file_->AppendOne(record);
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    // Queued (or already dropped by this call's failed write): the newest
    // record the file has accepted.
    op_positions_.push_back(file_->records_written() +
                            file_->records_dropped() +
                            file_->records_buffered());
  }
  Settle();
  return status;
}

absl::Status FileSink::AppendNonEvent(absl::string_view record) {
  // Events first, so that what this flush writes or drops is events only.
  absl::Status flushed = Flush();
  if (!flushed.ok()) return flushed;
  const uint64_t written_before = file_->records_written();
  const uint64_t dropped_before = file_->records_dropped();
  absl::Status status = file_->Append(record);
  if (status.ok()) status = file_->Flush();
  // Append() may fail before buffering (malformed record: nothing counted)
  // or the flush may fail (the record counted as dropped): either way the
  // counters moved by this one record at most.
  non_events_written_ += file_->records_written() - written_before;
  non_events_dropped_ += file_->records_dropped() - dropped_before;
  // The record is neither an event nor an op: past it.
  settled_written_ = file_->records_written();
  settled_dropped_ = file_->records_dropped();
  return status;
}

}  // namespace biosnoop
