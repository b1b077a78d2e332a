#pragma once

// Protobuf sink: each record (event, stream header, stats, summary) as one
// length-delimited biosnoop.v1.Record, encoded directly in the wire format
// (proto_wire.h), through an OutputFile with varint-delimited framing, so a
// record reaches the file whole or not at all.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "event.h"
#include "file_sink.h"
#include "output_file.h"
#include "proto_wire.h"
#include "stream_info.h"

namespace biosnoop {

class ProtoSink : public FileSink {
 public:
  // `file` must not be null and must use RecordFraming::kVarintDelimited.
  // `host` goes into every event's host field.
  ProtoSink(std::unique_ptr<OutputFile> file, absl::string_view host);

  // Same errors as JsonlSink's.  Write() encodes the wire format directly
  // (proto_wire.h) and allocates nothing once its buffers have grown to the
  // size of an event.
  absl::Status Write(const EnrichedEvent& e) override;
  absl::Status WriteHeader(const StreamInfo& info) override;
  absl::Status WriteStats(const StatsSnapshot& stats) override;
  absl::Status WriteSummary(const SummaryRecord& summary) override;
  absl::Status WriteStuck(const StuckRequest& stuck) override;
  // Queued with the events (FileSink::AppendOp).
  absl::Status WriteOp(const EnrichedOp& o) override;

 private:
  // One op record, reused: no allocation once it has grown.
  std::string op_line_;
  const ProtoHost host_;
  std::string record_;  // the delimited Record, reused for every event
};

}  // namespace biosnoop
