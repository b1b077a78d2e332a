#pragma once

// bioreport why: one screen on why the selected calls were slow.  Of the
// calls selected (one call by --op-id, or by the filters: --comm, --pid,
// --cgroup, --since/--until, ...) the --slowest N are looked at: their
// total latency split into six causes (block: the call's own requests;
// writeback: its own file's data; journal; flush; others_writeback: other
// files' writeback it queued behind; other: what no request accounts
// for), ranked by time with their share of the total and the tasks behind
// each (comm[pid], cgroup, container, role), summed over those calls.
// Shares are of the causes' sum (the latency, unless layers overlapped:
// then a line says so) and add up to exactly 100.0%.  Without --op-id,
// when more calls were selected than looked at, how the slowest ("worst")
// and the rest ("steady") split, cause by cause.
//
// WhyReport is the text; WhyJson one JSON object and '\n':
//   {"selection": {"op_id" (or null), "filters" (as typed), "slowest"},
//    "selected_calls", "op_ids" (of the calls explained, slowest first),
//    "slowest_us", "slowest_op_id" (null when none), "calls",
//    "latency_us", "causes_us", "causes": [{"cause", "wait_us",
//    "share_pct", "requests", "bytes", "culprits": [{"host", "pid",
//    "comm", "cgroup", "cgroup_id", "container_id", "pod_uid", "role",
//    "calls", "requests", "bytes", "wait_us"}, ...]}, ...] (ranked),
//    "steady": null or {"calls", "latency_us", "causes_us", "causes"}}.
// Both give NotFoundError when --op-id names no op record among the
// selected ones; with no call selected otherwise, the text says why and
// the JSON has "calls": 0.

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "filter.h"
#include "report.h"
#include "why.h"

namespace biosnoop::report {

struct WhyOptions {
  const Filter* filter = nullptr;  // to name the selection
  std::optional<uint64_t> op_id;
  size_t slowest = 10;
};

absl::StatusOr<std::string> WhyReport(const ReportInput& in,
                                      const WhyCollector& why,
                                      const WhyOptions& opt);
absl::StatusOr<std::string> WhyJson(const ReportInput& in,
                                    const WhyCollector& why,
                                    const WhyOptions& opt);

// A duration for people: "850 us", "4.20 ms", "151 ms", "1.81 s".
std::string HumanUs(Sum us);

}  // namespace biosnoop::report
