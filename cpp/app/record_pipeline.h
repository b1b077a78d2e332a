#pragma once

// The record path of the event stream, as one named object: the Probe
// hands each ring-buffer record to RecordPipeline::Consume (the poll loop,
// kernel/probe.h), which decodes it (event/decoder.h), enriches it
// (event/enricher.h) and writes it to the sink (output/sink.h).  Shared by
// the run and the consumer benchmark, so that the benchmark measures the
// path biosnoop really runs.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "decoder.h"
#include "enricher.h"
#include "event.h"
#include "file_op.h"
#include "probe.h"
#include "sink.h"

namespace biosnoop {

class RecordPipeline : public RecordConsumer {
 public:
  // Both outlive this.
  RecordPipeline(Enricher* enricher, Sink* sink)
      : enricher_(enricher), sink_(sink) {}

  // Decode, enrich, write: an event record as an event, an op record
  // (--ops) as an op.  A record that does not decode is counted (and the
  // first error kept), not returned: one bad record must not end the run.
  // Errors are the sink's.
  absl::Status Consume(const void* data, size_t size) override {
    if (RecordKindOf(data, size) == RecordKind::kOp)
      return ConsumeOp(data, size);
    if (discarding) {
      ++discarded;
      return absl::OkStatus();
    }
    // Events, and anything of no known kind: DecodeRecordInto says why.
    if (absl::Status s = DecodeRecordInto(data, size, &scratch_.event);
        !s.ok()) {
      CountDecodeError(s);
      return absl::OkStatus();
    }
    // Names are looked up at the completion time: close enough to now,
    // and no clock read per event.
    enricher_->EnrichInPlace(scratch_.event.complete_ns, &scratch_);
    return sink_->Write(scratch_);
  }

  uint64_t decode_errors = 0;
  std::string first_decode_error;
  // Set once the output has failed and the run is ending: each record
  // still in the ring buffer is then counted here instead of written, so
  // that every emitted record is written, rejected or dropped.
  bool discarding = false;
  uint64_t discarded = 0;
  // Op records counted instead of written while discarding.
  uint64_t ops_discarded = 0;

 private:
  absl::Status ConsumeOp(const void* data, size_t size) {
    if (discarding) {
      ++ops_discarded;
      return absl::OkStatus();
    }
    if (absl::Status s = DecodeOpRecordInto(data, size, &op_scratch_.op);
        !s.ok()) {
      CountDecodeError(s);
      return absl::OkStatus();
    }
    // Looked up at the call's return, as events at their completion.
    enricher_->EnrichOp(op_scratch_.op.end_ns, &op_scratch_);
    return sink_->WriteOp(op_scratch_);
  }

  void CountDecodeError(const absl::Status& s) {
    if (decode_errors++ == 0) first_decode_error = s.ToString();
  }

  Enricher* enricher_;
  Sink* sink_;
  // Decoded, enriched and formatted in place: nothing per event is
  // allocated or copied once its strings have grown.
  EnrichedEvent scratch_;
  EnrichedOp op_scratch_;  // the same for op records
};

}  // namespace biosnoop
