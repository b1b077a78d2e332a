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
#include "probe.h"
#include "sink.h"

namespace biosnoop {

class RecordPipeline : public RecordConsumer {
 public:
  // Both outlive this.
  RecordPipeline(Enricher* enricher, Sink* sink)
      : enricher_(enricher), sink_(sink) {}

  // Decode, enrich, write.  A record that does not decode is counted (and
  // the first error kept), not returned: one bad record must not end the
  // run.  Errors are the sink's.
  absl::Status Consume(const void* data, size_t size) override {
    if (discarding) {
      ++discarded;
      return absl::OkStatus();
    }
    if (absl::Status s = DecodeRecordInto(data, size, &scratch_.event);
        !s.ok()) {
      if (decode_errors++ == 0) first_decode_error = s.ToString();
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

 private:
  Enricher* enricher_;
  Sink* sink_;
  // Decoded, enriched and formatted in place: nothing per event is
  // allocated or copied once its strings have grown.
  EnrichedEvent scratch_;
};

}  // namespace biosnoop
