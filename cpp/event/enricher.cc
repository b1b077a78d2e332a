// How enrichment avoids work per event; the contract is in enricher.h.

#include "enricher.h"

#include <utility>

namespace biosnoop {

Enricher::Enricher(std::string sysfs_root, bool include_queue,
                   std::string cgroup_mount, std::string proc)
    : names_(std::move(sysfs_root)),
      cgroups_(std::move(cgroup_mount), std::move(proc)),
      include_queue_(include_queue) {}

void Enricher::Enrich(const Event& event, uint64_t lookup_ns,
                      EnrichedEvent* out) {
  out->event = event;
  EnrichInPlace(lookup_ns, out);
}

void Enricher::EnrichInPlace(uint64_t lookup_ns, EnrichedEvent* out) {
  FillNames(out->event, lookup_ns, &out->disk, &out->partition);
  FillCgroup(out->event, &out->cgroup);
  out->realtime_ns = clock_.ToRealtimeNs(out->event.complete_ns);
  out->include_queue = include_queue_;
  out->seq = ++seq_;
}

void Enricher::EnrichStuck(StuckRequest* out) {
  FillNames(out->request, out->found_ns, &out->disk, &out->partition);
  FillCgroup(out->request, &out->cgroup);
  out->realtime_ns = clock_.ToRealtimeNs(out->found_ns);
}

namespace {

void AssignIfChanged(const std::string& from, std::string* to) {
  if (*to != from) to->assign(from);
}

}  // namespace

void Enricher::FillCgroup(const Request& request, CgroupLabel* out) {
  const CgroupLabel& label = cgroups_.Resolve(request.cgroup_id, request.tid);
  out->known = label.known;
  AssignIfChanged(label.path, &out->path);
  AssignIfChanged(label.container_id, &out->container_id);
  AssignIfChanged(label.pod_uid, &out->pod_uid);
}

void Enricher::FillNames(const Request& request, uint64_t lookup_ns,
                         std::string* disk, std::string* partition) {
  // assign() keeps the strings' buffers: no allocation per event once they
  // are big enough (and device names usually fit the small-string buffer).
  DiskNames::LocationView where = names_.LookupView(
      request.major, request.minor, request.sector, lookup_ns);
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
