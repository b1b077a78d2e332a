#pragma once

// The JSON object of one layer of a call (proto message OpLayer: an op
// record's "block", "writeback", "journal", "flush" and
// "others_writeback"), laid out by one function for every
// writer of it: biosnoop's op lines, and bioreport's (its converted op
// records, and the calls in its ops report).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "cgroup_names.h"
#include "file_op.h"

namespace biosnoop {

// One layer's values as written: OpLayer's fields in its units.
struct OpLayerValues {
  uint32_t requests = 0;
  uint64_t bytes = 0;
  absl::Span<const std::string> disks;
  uint64_t queue_us_sum = 0;
  uint64_t queue_us_max = 0;
  uint64_t device_us_sum = 0;
  uint64_t device_us_max = 0;
  uint64_t wait_us = 0;
  std::optional<uint64_t> dirty_age_us_max;  // null when none
  std::optional<uint64_t> dirty_age_us_min;
  uint32_t dirty_known = 0;
  absl::Span<const OpCulprit> culprits;  // their cgroups named
};

// Appends {"requests", "bytes", "disks" (strings per AppendJsonString),
// "queue_us_sum", "queue_us_max", "device_us_sum", "device_us_max",
// "wait_us", "dirty_age_us_max", "dirty_age_us_min" (null when unset),
// "dirty_known", "culprits" [{"pid", "comm" (and "comm_raw"), "cgroup",
// "cgroup_id", "container_id", "pod_uid" (none when the id is 0), "role"
// ("dirtier" or "submitter"), "requests", "bytes", "wait_us"}, ...]}:
// every field, named and ordered as OpLayer and OpCulprit in
// proto/biosnoop.proto; no newline.  The culprits in the given order.
void AppendOpLayerJson(const OpLayerValues& layer, std::string* out);

// The same from the domain's layer: its ns / 1000 (truncated), the dirty
// ages only when dirty_known > 0 (else null), its culprits.
void AppendOpLayerJson(const OpLayer& layer,
                       absl::Span<const std::string> disks,
                       uint32_t dirty_known, uint64_t dirty_age_max_ns,
                       uint64_t dirty_age_min_ns, std::string* out);

// Appends ,"comm" (and ,"comm_raw" when `comm`'s bytes are not valid
// UTF-8: their lower-case hex), then the cgroup's keys as an event's
// (WriteCgroupJson: none when `cgroup_id` is 0): a stuck record's, a
// call's and a culprit's.
void AppendCommAndCgroupJson(absl::string_view comm, const CgroupLabel& c,
                             uint64_t cgroup_id, std::string* out);

// "dirtier" or "submitter" (OpCulprit.role).
absl::string_view CulpritRoleName(bool dirtier);

}  // namespace biosnoop
