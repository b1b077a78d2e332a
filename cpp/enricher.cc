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
  const Event& event = out->event;
  // assign() keeps the strings' buffers: no allocation per event once they
  // are big enough (and device names usually fit the small-string buffer).
  DiskNames::LocationView where =
      names_.LookupView(event.major, event.minor, event.sector, now_ns);
  out->disk.assign(where.disk.data(), where.disk.size());
  out->partition.assign(where.partition.data(), where.partition.size());
  out->realtime_ns = clock_.ToRealtimeNs(event.complete_ns);
  out->seq = ++seq_;
  out->include_queue = include_queue_;
}

}  // namespace biosnoop
