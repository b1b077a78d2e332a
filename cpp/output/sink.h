#pragma once

// Where formatted events go: one interface, one implementation per output
// format (JSON Lines, length-delimited protobuf).

#include "absl/status/status.h"
#include "event.h"
#include "file_op.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop {

// Not thread-safe: the consumer thread owns its sink.
class Sink {
 public:
  virtual ~Sink() = default;

  // Formats and queues one event.  An event is written whole or not at all.
  // CancelledError means the reader went away (broken pipe): stop cleanly.
  virtual absl::Status Write(const EnrichedEvent& e) = 0;

  // Formats and queues one op record (--ops): buffered with the events,
  // written whole or not at all, and counted apart from them
  // (ops_written).  Errors as Write()'s.
  virtual absl::Status WriteOp(const EnrichedOp& op) = 0;

  // Pushes queued events to the output.  Call after each batch (e.g. each
  // ring buffer poll) so that `tail -f` and log shippers see them promptly.
  virtual absl::Status Flush() = 0;

  // The stream header: written first, and again first in each file a
  // rotation opens (the run's Rotate step; the file itself is swapped by
  // OutputRotation, under the sink).
  virtual absl::Status WriteHeader(const StreamInfo& info) = 0;

  // A stats record (periodic and final).
  virtual absl::Status WriteStats(const StatsSnapshot& stats) = 0;

  // A summary record (one per --summary-interval, and the last one at
  // exit): like stats, written out at once and never counted as an event.
  virtual absl::Status WriteSummary(const SummaryRecord& summary) = 0;

  // A stuck record (a request still in flight): written out at once, like
  // a summary, and never counted as an event.
  virtual absl::Status WriteStuck(const StuckRequest& stuck) = 0;

  // Flush, then reopen the output path on this thread (OutputFile::Reopen);
  // the caller writes a header into the new file.  The run rotates on
  // SIGHUP through OutputRotation instead, which opens on a helper thread.
  virtual absl::Status Reopen() = 0;

  // Events that fully reached the output, and events given up after an
  // output error, since start.
  virtual uint64_t events_written() const = 0;
  virtual uint64_t events_dropped() const = 0;
  // Op records that fully reached the output, and those given up after an
  // output error, since start.
  virtual uint64_t ops_written() const = 0;
  virtual uint64_t ops_dropped() const = 0;
};

}  // namespace biosnoop
