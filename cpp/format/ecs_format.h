#pragma once

// Elastic Common Schema (ECS) documents of stream records (--format ecs):
// one JSON object per line, nested as ECS writes them
// ({"@timestamp":"...","event":{"kind":"event",...},...}), every field
// that ECS names under its ECS name with its ECS type, and every other
// biosnoop field under the custom namespace "biosnoop"
// (docs/reference/ecs.md has the table).  A null of the JSON Lines
// stream is left out here (Elasticsearch treats both alike).
//
// Strings follow json_format.h's rules (invalid UTF-8 becomes U+FFFD; the
// raw comm then goes to biosnoop.comm_raw as lowercase hex).  Unlike the
// JSON Lines event writer this one appends piece by piece: an ECS
// document is about three times the size of a JSON Lines event, and this
// format is not the one the throughput budget is measured on.

#include <string>

#include "absl/strings/string_view.h"
#include "event.h"
#include "file_op.h"
#include "stream_info.h"
#include "stuck_request.h"

namespace biosnoop {

// The ECS version the documents conform to (ecs.version), that of the
// @elastic/ecs package the ECS test checks them against
// (tests/unit/biosnoop/format/ecs_check.js).
inline constexpr absl::string_view kEcsVersion = "9.4.0";

// An event: event.kind "event", event.action "io-completed", event.outcome
// "success" or "failure" (error_code), event.duration the latency in ns
// (the one compared with --min-us), event.sequence the seq; host.name,
// process.pid / thread.id / name, error.code (errno name) and
// error.message (its description) when it failed, container.id,
// file.path (absolute paths only) and file.inode of the first file;
// everything else under biosnoop.*, latencies in biosnoop.latency.*.
void AppendEventEcs(const EnrichedEvent& e, absl::string_view host,
                    std::string* out);

// A stuck request: as an event, with event.action "io-stuck", outcome
// "unknown" (it has not completed), no event.duration (it has none yet:
// biosnoop.inflight_us says how long so far) and no error or sequence.
void AppendStuckEcs(const StuckRequest& s, absl::string_view host,
                    std::string* out);

// A call (--ops): event.kind "event", event.category ["file"],
// event.type ["access"] for reads and ["change"] for writes and syncs,
// event.action "call-completed", event.outcome by its result,
// event.duration its latency in ns, event.start and event.end its entry
// and return; host.name, process.pid / name / thread.id, error.code and
// error.message when it failed, container.id, file.path (absolute only)
// and file.inode; under biosnoop: op_id, call, disk, partition, comm_raw,
// the cgroup's, file {path, path_kind, dev, direct}, offset,
// bytes_requested(_partial), bytes_done, error_code, latency.us and
// latency.other_us, and the layers as biosnoop.block.*,
// biosnoop.writeback.*, biosnoop.journal.*, biosnoop.flush.* and
// biosnoop.others_writeback.* (the dirty ages only when known; culprits,
// an array of objects, only when there are some).
void AppendOpEcs(const EnrichedOp& o, absl::string_view host, std::string* out);

// The stream header: event.kind "state", event.action "stream-start",
// @timestamp the start time, host.name, host.boot.id, host.os.kernel,
// the options in force under biosnoop.header.*, and there too
// kernel_lacks (what the running kernel lacks, when anything), and
// biosnoop.run_id.
void AppendHeaderEcs(const StreamInfo& info, std::string* out);

// A stats record: event.kind "metric", event.action "stats", the counters
// under biosnoop.stats.* (loss included: lost, dropped, missed, ...),
// biosnoop.run_id.
void AppendStatsEcs(const StatsSnapshot& stats, absl::string_view host,
                    std::string* out);

// A summary: one document per group (disk, op), event.kind "metric",
// event.action "summary", biosnoop.disk and biosnoop.op as in events,
// the group's counts and log2 histograms under biosnoop.summary.*.
// Nothing for a summary without groups.
void AppendSummaryEcs(const SummaryRecord& summary, absl::string_view host,
                      std::string* out);

}  // namespace biosnoop
