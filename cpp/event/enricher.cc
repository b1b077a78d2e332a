// How enrichment avoids work per event; the contract is in enricher.h.

#include "enricher.h"

#include <utility>

namespace biosnoop {

Enricher::Enricher(std::string sysfs_root, bool include_queue)
    : names_(std::move(sysfs_root)), include_queue_(include_queue) {}

void Enricher::Enrich(const Event& event, uint64_t lookup_ns,
                      EnrichedEvent* out) {
  out->event = event;
  EnrichInPlace(lookup_ns, out);
}

void Enricher::EnrichInPlace(uint64_t lookup_ns, EnrichedEvent* out) {
  FillNames(out->event, lookup_ns, &out->disk, &out->partition);
  out->realtime_ns = clock_.ToRealtimeNs(out->event.complete_ns);
  out->include_queue = include_queue_;
  out->seq = ++seq_;
}

void Enricher::EnrichStuck(StuckRequest* out) {
  FillNames(out->request, out->found_ns, &out->disk, &out->partition);
  out->realtime_ns = clock_.ToRealtimeNs(out->found_ns);
}

void Enricher::FillNames(const Request& request, uint64_t lookup_ns,
                         std::string* disk, std::string* partition) {
  // assign() keeps the strings' buffers: no allocation per event once they
  // are big enough (and device names usually fit the small-string buffer).
  DiskNames::LocationView where =
      names_.LookupView(request.major, request.minor, request.sector, lookup_ns);
  // Consecutive events are mostly on one disk and partition: a name that
  // did not change is not copied again.
  if (absl::string_view(*disk) != where.disk) {
    disk->assign(where.disk.data(), where.disk.size());
  }
  if (absl::string_view(*partition) != where.partition) {
    partition->assign(where.partition.data(), where.partition.size());
  }
}

}  // namespace biosnoop
