// One OpLayer object (op_layer_json.h).  Rare (five per op record): plain
// appends, easier to check than a sized write.

#include "op_layer_json.h"

#include "absl/strings/str_cat.h"
#include "json_escape.h"
#include "json_format.h"
#include "json_write.h"

namespace biosnoop {
namespace {

void AppendNullableUint(const std::optional<uint64_t>& v, std::string* out) {
  if (v.has_value()) {
    absl::StrAppend(out, *v);
  } else {
    out->append("null");
  }
}

void AppendCulpritJson(const OpCulprit& c, std::string* out) {
  absl::StrAppend(out, "{\"pid\":", c.pid);
  AppendCommAndCgroupJson(c.Comm(), c.cgroup, c.cgroup_id, out);
  absl::StrAppend(out, ",\"role\":\"", CulpritRoleName(c.dirtier),
                  "\",\"requests\":", c.requests, ",\"bytes\":", c.bytes,
                  ",\"wait_us\":", c.wait_ns / 1000, "}");
}

}  // namespace

absl::string_view CulpritRoleName(bool dirtier) {
  return dirtier ? "dirtier" : "submitter";
}

void AppendCommAndCgroupJson(absl::string_view comm, const CgroupLabel& c,
                             uint64_t cgroup_id, std::string* out) {
  out->append(",\"comm\":");
  AppendJsonString(comm, out);
  if (!IsValidUtf8(comm)) {
    out->append(",\"comm_raw\":\"");
    AppendLowerHex(comm, out);
    out->push_back('"');
  }
  const size_t at = out->size();
  out->resize(at + 128 +
              kMaxJsonBytesPerByte *
                  (c.path.size() + c.container_id.size() + c.pod_uid.size()));
  char* end = WriteCgroupJson(c, cgroup_id, out->data() + at);
  out->resize(static_cast<size_t>(end - out->data()));
}

void AppendOpLayerJson(const OpLayerValues& layer, std::string* out) {
  absl::StrAppend(out, "{\"requests\":", layer.requests,
                  ",\"bytes\":", layer.bytes, ",\"disks\":");
  AppendJsonStringArray(layer.disks, out);
  absl::StrAppend(out, ",\"queue_us_sum\":", layer.queue_us_sum,
                  ",\"queue_us_max\":", layer.queue_us_max,
                  ",\"device_us_sum\":", layer.device_us_sum,
                  ",\"device_us_max\":", layer.device_us_max,
                  ",\"wait_us\":", layer.wait_us, ",\"dirty_age_us_max\":");
  AppendNullableUint(layer.dirty_age_us_max, out);
  out->append(",\"dirty_age_us_min\":");
  AppendNullableUint(layer.dirty_age_us_min, out);
  absl::StrAppend(out, ",\"dirty_known\":", layer.dirty_known,
                  ",\"culprits\":[");
  for (size_t i = 0; i < layer.culprits.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendCulpritJson(layer.culprits[i], out);
  }
  out->append("]}");
}

void AppendOpLayerJson(const OpLayer& layer,
                       absl::Span<const std::string> disks,
                       uint32_t dirty_known, uint64_t dirty_age_max_ns,
                       uint64_t dirty_age_min_ns, std::string* out) {
  OpLayerValues v;
  v.requests = layer.requests;
  v.bytes = layer.bytes;
  v.disks = disks;
  v.queue_us_sum = layer.queue_ns_sum / 1000;
  v.queue_us_max = layer.queue_ns_max / 1000;
  v.device_us_sum = layer.device_ns_sum / 1000;
  v.device_us_max = layer.device_ns_max / 1000;
  v.wait_us = layer.wait_ns / 1000;
  // The ages mean something only over requests whose dirtying was known.
  if (dirty_known > 0) {
    v.dirty_age_us_max = dirty_age_max_ns / 1000;
    v.dirty_age_us_min = dirty_age_min_ns / 1000;
  }
  v.dirty_known = dirty_known;
  v.culprits = layer.culprits;
  AppendOpLayerJson(v, out);
}

}  // namespace biosnoop
