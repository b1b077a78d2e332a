#pragma once

// The consumer's work for one ring-buffer record: decode, enrich, hand to
// the sink.  Shared by the runner and the consumer benchmark, so that the
// benchmark measures the path biosnoop really runs.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "decoder.h"
#include "enricher.h"
#include "event.h"
#include "sink.h"

namespace biosnoop {

struct RecordPipeline {
  Enricher* enricher;
  Sink* sink;
  // Decoded, enriched and formatted in place: nothing per event is
  // allocated or copied once its strings have grown.
  EnrichedEvent scratch;
  uint64_t decode_errors = 0;
  std::string first_decode_error;
  // Set once the output has failed and the run is ending: each record
  // still in the ring buffer is then counted here instead of written, so
  // that every emitted record is written, rejected or dropped.
  bool discarding = false;
  uint64_t discarded = 0;

  absl::Status Handle(const void* data, size_t size) {
    if (discarding) {
      ++discarded;
      return absl::OkStatus();
    }
    if (absl::Status s = DecodeRecordInto(data, size, &scratch.event); !s.ok()) {
      // Counted and reported; one bad record must not end the run.
      if (decode_errors++ == 0) first_decode_error = s.ToString();
      return absl::OkStatus();
    }
    enricher->EnrichInPlace(scratch.event.complete_ns, &scratch);
    return sink->Write(scratch);
  }
};

}  // namespace biosnoop
