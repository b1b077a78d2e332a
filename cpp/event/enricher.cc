// How enrichment avoids work per event; the contract is in enricher.h.

#include "enricher.h"

#include <utility>

namespace biosnoop {

Enricher::Enricher(std::string sysfs_root, bool include_queue,
                   std::string cgroup_mount, std::string proc)
    : names_(sysfs_root),
      stacked_(std::move(sysfs_root)),
      cgroups_(std::move(cgroup_mount), std::move(proc)),
      include_queue_(include_queue) {}

void Enricher::Enrich(const Event& event, uint64_t lookup_ns,
                      EnrichedEvent* out) {
  out->event = event;
  EnrichInPlace(lookup_ns, out);
}

void Enricher::EnrichInPlace(uint64_t lookup_ns, EnrichedEvent* out) {
  FillNames(out->event, lookup_ns, &out->disk, &out->partition, &out->stack);
  FillCgroup(out->event, &out->cgroup);
  out->realtime_ns = clock_.ToRealtimeNs(out->event.complete_ns);
  FillAttribution(lookup_ns, out);
  out->include_queue = include_queue_;
  out->seq = ++seq_;
}

void Enricher::EnrichStuck(StuckRequest* out) {
  FillNames(out->request, out->found_ns, &out->disk, &out->partition,
            &out->stack);
  FillCgroup(out->request, &out->cgroup);
  out->realtime_ns = clock_.ToRealtimeNs(out->found_ns);
  FillAttributionOf(out->attribution, out->found_ns, &out->attribution_label);
}

void Enricher::EnrichOp(uint64_t lookup_ns, EnrichedOp* out) {
  const FileOp& op = out->op;
  FillDeviceName(op.disk_major, op.disk_minor, lookup_ns, &out->disk);
  const bool own_partition =
      (op.part_major != 0 || op.part_minor != 0) &&
      (op.part_major != op.disk_major || op.part_minor != op.disk_minor);
  if (own_partition) {
    FillDeviceName(op.part_major, op.part_minor, lookup_ns, &out->partition);
  } else {
    out->partition.clear();
  }
  FillCgroupOf(op.cgroup_id, op.tid, &out->cgroup);
  // The tasks it waited for, named as the call's own cgroup is.
  for (OpLayer* layer : {&out->op.writeback, &out->op.journal, &out->op.flush,
                         &out->op.others_writeback}) {  // throttle has none
    for (OpCulprit& c : layer->culprits) {
      FillCgroupOf(c.cgroup_id, c.pid, &c.cgroup);
    }
  }
  if (op.named) {
    FillFileLabel(op.file, lookup_ns, &out->file);
  } else {
    out->file.path.clear();
    out->file.kind = PathKind::kNone;
  }
  if (op.real_file) {
    FillFileLabel(*op.real_file, lookup_ns, &out->real_file);
  } else {
    out->real_file.path.clear();
    out->real_file.kind = PathKind::kNone;
  }
  out->block_disks.resize(op.block_devs.size());
  for (size_t i = 0; i < op.block_devs.size(); ++i) {
    const uint32_t dev = op.block_devs[i];  // kernel dev_t: 12 + 20 bits
    FillDeviceName(dev >> 20, dev & ((1u << 20) - 1), lookup_ns,
                   &out->block_disks[i]);
  }
  out->start_realtime_ns = clock_.ToRealtimeNs(op.start_ns);
  out->realtime_ns = clock_.ToRealtimeNs(op.end_ns);
}

void Enricher::FillDeviceName(uint32_t major, uint32_t minor,
                              uint64_t lookup_ns, std::string* out) {
  // A partition's own major:minor names it ("vda1"): sysfs knows it under
  // dev/block as it knows a disk.
  const absl::string_view name =
      names_.LookupView(major, minor, 0, lookup_ns).disk;
  if (absl::string_view(*out) != name) out->assign(name.data(), name.size());
}

void Enricher::FillFileLabel(const FileRef& f, uint64_t lookup_ns,
                             FileLabel* out) {
  FileLabel& l = *out;
  if (f.names.empty()) {
    l.path.clear();
    l.kind = PathKind::kNone;
  } else if (!f.reached_root) {
    l.path = f.names.front();
    l.kind = PathKind::kName;
  } else {
    l.kind = mounts_.Resolve(f.dev_major, f.dev_minor,
                             JoinNamesFromRoot(f.names), lookup_ns, &l.path);
  }
}

namespace {

void AssignIfChanged(const std::string& from, std::string* to) {
  if (*to != from) to->assign(from);
}

}  // namespace

void Enricher::FillCgroup(const Request& request, CgroupLabel* out) {
  FillCgroupOf(request.cgroup_id, request.tid, out);
}

void Enricher::FillAttribution(uint64_t lookup_ns, EnrichedEvent* out) {
  FillAttributionOf(out->event.attribution, lookup_ns, &out->attribution);
}

void Enricher::FillAttributionOf(const Attribution& a, uint64_t lookup_ns,
                                 AttributionLabel* out) {
  AttributionLabel& label = *out;
  switch (a.content) {
    case Content::kNotLooked:
      label.content = "";
      break;
    case Content::kNone:
      label.content = "none";
      break;
    case Content::kFile:
      label.content = "file";
      break;
    case Content::kBlockDevice:
      // The device's own page cache: a mounted file system's metadata and
      // journal, or raw buffered I/O of a device nothing is mounted from.
      label.content = mounts_.IsMounted(a.bdev_major, a.bdev_minor, lookup_ns)
                          ? "metadata"
                          : "device";
      break;
    case Content::kUnknown:
      label.content = "unknown";
      break;
    case Content::kMetadata:
      label.content = "metadata";
      break;
  }
  label.files.resize(a.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    FillFileLabel(a.files[i], lookup_ns, &label.files[i]);
  }
  if (a.dirtier.has_value()) {
    FillCgroupOf(a.dirtier->cgroup_id, a.dirtier->tid, &label.dirtier_cgroup);
    label.dirtied_realtime_ns = clock_.ToRealtimeNs(a.dirtier->dirtied_ns);
  }
}

void Enricher::FillCgroupOf(uint64_t id, uint32_t tid, CgroupLabel* out) {
  const CgroupLabel& label = cgroups_.Resolve(id, tid);
  out->known = label.known;
  AssignIfChanged(label.path, &out->path);
  AssignIfChanged(label.container_id, &out->container_id);
  AssignIfChanged(label.pod_uid, &out->pod_uid);
}

void Enricher::FillNames(const Request& request, uint64_t lookup_ns,
                         std::string* disk, std::string* partition,
                         std::vector<std::string>* stack) {
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
  // What is stacked on the partition the sector is in, else on the disk
  // (a request outside every partition, or on a disk without any).  Almost
  // always nothing, or the same as the event before's: compared, not
  // copied.
  const std::vector<std::string>& stacked = stacked_.Lookup(where, lookup_ns);
  if (stacked.empty()) {
    if (!stack->empty()) stack->clear();
  } else if (*stack != stacked) {
    *stack = stacked;
  }
}

}  // namespace biosnoop
