#pragma once

// Domain values for the non-event records of a stream (see the StreamHeader
// and Stats messages in proto/biosnoop.proto).

#include <cstdint>
#include <string>
#include <vector>

#include "histogram.h"

namespace biosnoop {

inline constexpr uint32_t kStreamFormatVersion = 1;

struct StreamInfo {
  std::string host;
  std::string boot_id;
  int64_t start_realtime_ns = 0;
  std::string biosnoop_version;
  std::string kernel_release;
  uint64_t min_us = 0;
  bool queued = false;
  std::string disk_filter;
  uint32_t pid_filter = 0;
  std::string comm_filter;
  std::string op_filter;  // "", "read", "write"
  uint32_t ringbuf_kib = 0;
  uint64_t stuck_after_us = 0;  // 0: no stuck records
  std::string run_id;           // 16 lowercase hex digits; "" in older streams
  std::string cgroup_filter;    // --cgroup, from the v2 root; "" = none
  bool ops = false;             // --ops: calls followed, Op records written
  uint64_t op_min_us = 0;       // --op-min-us (with ops only)
  // What the running kernel lacks that changed this run
  // (Probe::kernel_lacks()'s names); empty: nothing.
  std::vector<std::string> kernel_lacks;
};

struct StatsSnapshot {
  int64_t realtime_ns = 0;
  double elapsed_s = 0;
  uint64_t completions = 0;
  uint64_t emitted = 0;
  uint64_t lost = 0;
  uint64_t orphans = 0;
  uint64_t below_threshold = 0;
  uint64_t filtered = 0;
  uint64_t decode_errors = 0;
  uint64_t expired = 0;
  uint64_t written = 0;
  uint64_t dropped = 0;
  uint64_t missed = 0;
  uint64_t unfinished = 0;
  uint64_t ledger_misses = 0;    // dirtied-page ledger (docs/guide/
  uint64_t ledger_replaced = 0;  // slow-fsync.md, "Files and dirtiers")
  // Ledger entries of deleted inodes whose number a new file got, dropped;
  // written only when not 0.
  uint64_t ledger_stale = 0;
  // --ops: Op records the kernel could not queue, Op records written,
  // calls not followed (no room); all 0 without --ops.
  uint64_t ops_lost = 0;
  uint64_t ops_written = 0;
  uint64_t ops_untracked = 0;
  // --ops: calls on a file system with no block device (FUSE, NFS...),
  // not followed; written only when not 0.
  uint64_t ops_unfollowed = 0;
  // Whether the three are written: when one is not 0.
  bool HasOps() const {
    return ops_lost != 0 || ops_written != 0 || ops_untracked != 0;
  }
  bool final = false;
  std::string run_id;  // StreamInfo::run_id
};

// One interval's histograms (proto message Summary).
struct SummaryRecord {
  int64_t realtime_ns = 0;  // end of the interval
  double interval_s = 0;
  uint64_t min_us = 0;
  // One per (disk, op), sorted; latency buckets in microseconds.
  std::vector<HistGroup> groups;
};

}  // namespace biosnoop
