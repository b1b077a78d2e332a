#pragma once

// Completions the kernel finished without running biosnoop's hook.
//
// The kernel can complete a request without calling our completion
// program and without counting a recursion miss (seen on this project's
// CI kernel: block completions run in softirq on top of one particular
// task never reach any BPF program; see docs/reference/counters.md,
// "missed").  Such a request stays in biosnoop's in-flight table although
// the disk finished it.  It
// is found when the disk is idle -- the kernel's own count of started
// requests (sysfs `inflight`) is 0 -- while biosnoop still holds a request
// it saw issued there.  Only an entry seen at two idle observations with
// the same identity counts, so a completion whose hook is about to run
// (the request already marked complete, its softirq pending) never does.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "biosnoop_abi.h"

namespace biosnoop {

// One issued request in the in-flight table, with where it lives.
struct InflightEntry {
  uint32_t dev = 0;  // kernel dev_t of the disk
  uint64_t rq = 0;   // the request (the table's key)
  uint64_t issue_ns = 0;
  bool flush = false;    // a flush request: outside the kernel's `inflight`
  bool in_slot = false;  // the slot array (index `slot`), else the overflow map
  uint32_t slot = 0;
};

class MissedCompletionFinder {
 public:
  // One observation: `idle` are the disks (kernel dev_t) idle just before
  // `issued` -- their issued, not requeued entries -- was read.  Returns the
  // entries now confirmed missed: seen at the previous observation too,
  // their disk idle both times.
  std::vector<InflightEntry> Observe(const std::vector<InflightEntry>& issued,
                                     const absl::flat_hash_set<uint32_t>& idle);

  // Forgets the candidates (a disk that was busy in between may have
  // started and finished anything).
  void Reset() { candidates_.clear(); }

 private:
  struct Identity {
    uint32_t dev;
    uint64_t rq;
    uint64_t issue_ns;
    bool operator==(const Identity& o) const {
      return dev == o.dev && rq == o.rq && issue_ns == o.issue_ns;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Identity& id) {
      return H::combine(std::move(h), id.dev, id.rq, id.issue_ns);
    }
  };
  absl::flat_hash_set<Identity> candidates_;
};

// Whether the disk `dev` (kernel dev_t: major << 20 | minor) has no request
// started, from sysfs_root/dev/block/M:m/inflight; nullopt when that cannot
// be trusted: no such disk, or I/O accounting off (queue/iostats 0, then
// `inflight` stays 0 whatever is in flight).
std::optional<bool> DiskIdle(uint32_t dev,
                             const std::string& sysfs_root = "/sys");

// Flush requests the disk `dev` has completed since it appeared (sysfs
// stat's 16th field, Linux 5.5+), counted by the block layer whatever
// biosnoop saw; nullopt when it cannot be read.  The kernel's `inflight`
// leaves flushes out, so this is what tells a flush whose completion never
// reached biosnoop from one that hangs (InflightTable::UnseenFlushes).
std::optional<uint64_t> DiskFlushesDone(uint32_t dev,
                                        const std::string& sysfs_root = "/sys");

// Of a disk's flush entries, the ones to take for completions biosnoop
// missed when the kernel finished `unseen` flushes that biosnoop never saw
// complete: the `unseen` oldest (a missed completion leaves its entry
// behind, while the flushes after it come and go), sorted by issue.
std::vector<InflightEntry> PresumedMissedFlushes(
    std::vector<InflightEntry> flushes, uint64_t unseen);

}  // namespace biosnoop
