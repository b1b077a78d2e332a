#include "enricher.h"

#include <utility>

namespace biosnoop {

Enricher::Enricher(std::string sysfs_root, bool include_queue)
    : names_(std::move(sysfs_root)), include_queue_(include_queue) {}

void Enricher::Enrich(const Event& event, uint64_t now_ns,
                      EnrichedEvent* out) {
  out->event = event;
  EnrichInPlace(now_ns, out);
}

void Enricher::EnrichInPlace(uint64_t now_ns, EnrichedEvent* out) {
  FillNamesAndTime(now_ns, out);
  out->seq = ++seq_;
}

void Enricher::EnrichStuck(uint64_t now_ns, StuckRequest* out) {
  FillNamesAndTime(now_ns, out);
  out->seq = 0;
}

void Enricher::FillNamesAndTime(uint64_t now_ns, EnrichedEvent* out) {
  const Event& event = out->event;
  // assign() keeps the strings' buffers: no allocation per event once they
  // are big enough (and device names usually fit the small-string buffer).
  DiskNames::LocationView where =
      names_.LookupView(event.major, event.minor, event.sector, now_ns);
  // Consecutive events are mostly on one disk and partition: a name that
  // did not change is not copied again.
  if (absl::string_view(out->disk) != where.disk) {
    out->disk.assign(where.disk.data(), where.disk.size());
  }
  if (absl::string_view(out->partition) != where.partition) {
    out->partition.assign(where.partition.data(), where.partition.size());
  }
  out->realtime_ns = clock_.ToRealtimeNs(event.complete_ns);
  out->include_queue = include_queue_;
}

}  // namespace biosnoop
