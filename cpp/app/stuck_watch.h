#pragma once

// The stuck records of the event stream: once a second the kernel layer's
// look at the in-flight table (kernel/stuck_requests.h) finds the requests
// newly stuck; each is decoded (event/decoder.h: DecodeStuck), its files
// read while it is still in flight (InflightTable::StuckFiles), named
// (Enricher::EnrichStuck) and written (Sink::WriteStuck), once.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "enricher.h"
#include "inflight_table.h"
#include "probe_config.h"
#include "sink.h"
#include "stuck_request.h"
#include "stuck_requests.h"

namespace biosnoop {

class StuckWatch {
 public:
  // after_ns 0: never looks.  `table` and `config` outlive this (see
  // StuckFinder).
  StuckWatch(InflightTable& table, const ProbeConfig& config, uint64_t after_ns)
      : table_(table), finder_(table, config, after_ns) {}

  // Finds the requests newly stuck at now_ns, named, for WriteFound().
  // Errors are the in-flight table's.
  absl::Status Look(uint64_t now_ns, Enricher& enricher);
  // Writes a stuck record for each request the last Look() found.  Errors
  // are the sink's; the records not written are given up.
  absl::Status WriteFound(Sink& sink);

  // Stuck records written so far.
  uint64_t reported() const { return reported_; }

 private:
  InflightTable& table_;
  StuckFinder finder_;
  std::vector<StuckRequest> found_;
  uint64_t reported_ = 0;
};

}  // namespace biosnoop
