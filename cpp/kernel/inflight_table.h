#pragma once

// The kernel's in-flight table as this process sees it: the requests the
// programs hold between submission and completion (the slot array and its
// overflow map, bpf/inflight_table.bpf.h) and each disk's queue-depth
// counter, read, counted and tidied; and what a request still in flight
// holds (its files).  The upkeep that uses it is inflight_upkeep.h, the
// look for hung requests stuck_requests.h.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "biosnoop_abi.h"
#include "missed_completions.h"

struct biosnoop_bpf;

namespace biosnoop {

class InflightTable {
 public:
  // The table of the loaded `skel` (which outlives this); call once the
  // programs are attached: each disk's count of completed flushes is read
  // now, for UnseenFlushes (disk `dev`, or every disk when 0).
  static std::unique_ptr<InflightTable> Open(biosnoop_bpf* skel, uint32_t dev);
  ~InflightTable();
  InflightTable(const InflightTable&) = delete;
  InflightTable& operator=(const InflightTable&) = delete;

  // Deletes entries not touched for max_age_ns (completions that were
  // never seen, e.g. a device removed mid-I/O) so the bounded map cannot
  // fill up over time.  Returns how many were removed.
  absl::StatusOr<uint64_t> Expire(uint64_t now_ns, uint64_t max_age_ns);

  // Requests not finished min_age_ns after their issue (or, never issued,
  // after their submission), without removing them: at exit, the requests
  // biosnoop saw start and never saw complete.  A request waiting in the
  // block layer's flush machinery (submitted with a preflush, not issued)
  // is not counted: the flush request it waits for is, so one hung flush
  // counts once.
  absl::StatusOr<uint64_t> CountUnfinished(uint64_t now_ns,
                                           uint64_t min_age_ns) const;

  // Flushes the kernel completed on disk `dev` (kernel dev_t) since Open()
  // that biosnoop never saw complete: their entries are still held
  // (DiskFlushesDone() less the programs' own count; 0 when the kernel's
  // count cannot be read).  Read it after the table.
  uint64_t UnseenFlushes(uint32_t dev) const;

  // The disks on which biosnoop counts requests in flight (its queue-depth
  // counter is not 0).
  absl::StatusOr<std::vector<uint32_t>> DevsWithInflight() const;
  // The issued, not requeued read, write and flush requests in flight on
  // `devs`.
  absl::StatusOr<std::vector<InflightEntry>> ReadIssued(
      const absl::flat_hash_set<uint32_t>& devs) const;
  // Every issued, not requeued entry whose issue was at or before
  // issued_before_ns (CLOCK_MONOTONIC), whole: the requests on a device
  // that long (stuck_requests.h).
  absl::StatusOr<std::vector<biosnoop_inflight_val>> ReadIssuedBefore(
      uint64_t issued_before_ns) const;
  // What the pages of request `rq` (an entry's rq), issued at issue_ns
  // and still in flight, hold: the attribution bytes of a record (struct
  // biosnoop_attr and its names, for DecodeStuckFiles), read by running
  // the kernel's walk for it (bpf attr_stuck, BPF_PROG_TEST_RUN).  Empty
  // with files off, or when the request completed, or was issued again,
  // during the walk (what it read may then be another request's).
  absl::StatusOr<std::string> StuckFiles(uint64_t rq, uint64_t issue_ns);

  // Removes each entry that still holds the same request; returns how many.
  absl::StatusOr<uint64_t> Remove(const std::vector<InflightEntry>& entries);
  // Sets the queue-depth counter of `dev` to 0 (the disk is idle).
  absl::Status ResetDepth(uint32_t dev);

 private:
  explicit InflightTable(biosnoop_bpf* skel) : skel_(skel) {}
  using Visitor = std::function<void(const biosnoop_inflight_val&, bool in_slot,
                                     uint32_t slot)>;
  absl::Status ForEach(const Visitor& visit) const;
  // The overflow map's part of ForEach.
  void ForEachOverflow(const Visitor& visit) const;

  biosnoop_bpf* skel_;
  // Each disk's count of completed flushes at Open() (a disk that appears
  // later starts from 0).
  absl::flat_hash_map<uint32_t, uint64_t> flush_baseline_;
  // The slot array mapped read-only (nullptr if the kernel would not map
  // it: then ReadIssuedBefore reads it through the syscall).
  const biosnoop_inflight_val* slots_view_ = nullptr;
  size_t slots_view_bytes_ = 0;
  std::vector<char> stuck_buf_;  // StuckFiles' copy of the map value
};

}  // namespace biosnoop
