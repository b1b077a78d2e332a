#pragma once

// What the JSON Lines and protobuf sinks share: an OutputFile, and exact
// event counts although the file also carries header, stats and summary
// records.
//
// The file counts records; the sinks must count events.  Non-event records
// (header, stats, summary) are therefore never buffered together with
// events: the buffer is flushed before one is appended and flushed again
// right after, so a buffer is always either all events or a single
// non-event record, and whatever the file reports as written or dropped in
// that flush is attributed to the right kind.
//
// Op records (--ops) are buffered with the events, as frequent as they
// may be.  The file writes records in the order they were queued: a write
// that fails writes a prefix of its records and drops the rest.  So after
// each operation on the file the sink attributes the records the file
// finished (written, then dropped) in queue order, and knows which of them
// were ops from their positions (Settle()).

#include <cstdint>
#include <deque>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "output_file.h"
#include "sink.h"

namespace biosnoop {

class FileSink : public Sink {
 public:
  absl::Status Flush() override;
  absl::Status Reopen() override;
  uint64_t events_written() const override;
  uint64_t events_dropped() const override;
  uint64_t ops_written() const override { return ops_written_; }
  uint64_t ops_dropped() const override { return ops_dropped_; }

  // The underlying file (its record counters include non-event records).
  const OutputFile& file() const { return *file_; }
  // For log rotation (OutputRotation), which flushes and adopts a new
  // file: flushes that hold events only, so the counts stay exact.
  OutputFile& mutable_file() { return *file_; }

  // A start that failed before anything was written: the output file goes
  // if this run created it (OutputFile::RemoveIfCreatedAndUnused).
  void RemoveOutputIfUnused() { file_->RemoveIfCreatedAndUnused(); }

 protected:
  // `file` must not be null.
  explicit FileSink(std::unique_ptr<OutputFile> file);

  // Queues one formatted event record (OutputFile::Append's errors).
  absl::Status AppendEvent(absl::string_view record) {
    Settle();
    absl::Status status = file_->AppendOne(record);
    Settle();
    return status;
  }
  // AppendEvent() for a record formatted in place, in at most `bound`
  // bytes at ReserveEvent()'s pointer (OutputFile::ReserveOne: nullptr
  // when the buffer can never hold `bound`; *status gets the error of the
  // write that made room), then queued by CommitEvent().
  char* ReserveEvent(size_t bound, absl::Status* status) {
    Settle();
    char* p = file_->ReserveOne(bound, status);
    Settle();
    return p;
  }
  absl::Status CommitEvent(const char* begin, const char* end) {
    return file_->CommitOne(begin, end);
  }

  // Writes one formatted non-event record (header, stats, summary) at
  // once, alone in its flush.  If flushing the queued events fails, that
  // error is returned and the record is not written.
  absl::Status AppendNonEvent(absl::string_view record);

  // Queues one formatted op record with the events (AppendEvent's errors),
  // counted in ops_written() / ops_dropped() once the file is done with it.
  absl::Status AppendOp(absl::string_view record);

 private:
  // Attributes the records the file finished since the last call to ops
  // or events (see above).  Called around every operation that may write
  // (the sink's, and before it one made under the sink, such as a
  // rotation's flush), so that each window holds one write at most.  Per
  // event: two loads and two stores while no op waits.
  void Settle() {
    if (op_positions_.empty()) {
      settled_written_ = file_->records_written();
      settled_dropped_ = file_->records_dropped();
      return;
    }
    SettleOps();
  }
  void SettleOps();

  std::unique_ptr<OutputFile> file_;
  // File totals at the last Settle().
  uint64_t settled_written_ = 0;
  uint64_t settled_dropped_ = 0;
  // Positions (1-based, in the order the file accepted records) of the op
  // records the file has not finished.
  std::deque<uint64_t> op_positions_;
  uint64_t ops_written_ = 0;
  uint64_t ops_dropped_ = 0;
  uint64_t non_events_written_ = 0;
  uint64_t non_events_dropped_ = 0;
};

}  // namespace biosnoop
