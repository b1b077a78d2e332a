#pragma once

// The kernel side as the run sees it, assembled from its parts: Open()
// checks the machine (prerequisites.h), adapts the run to the kernel
// (kernel_features.h), loads and attaches the programs (loaded_program.h,
// whose hook table is hook_table.h), and opens the ring buffer of records
// (record_ring.h) and the in-flight table (inflight_table.h).  RAII:
// destroying the Probe detaches everything and frees the maps.  Types
// here are the kernel's (biosnoop_abi.h); turning them into domain values
// is event/'s job (decoder.h).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "counters.h"
#include "inflight_table.h"
#include "kernel_features.h"
#include "kernel_histograms.h"
#include "probe_config.h"
#include "record_ring.h"

namespace biosnoop {

class LoadedProgram;

// Hook runs the kernel skipped, by hook (ReadMissed).
struct MissedHooks {
  uint64_t submit = 0;    // pid/comm then come from the issuing task
  uint64_t issue = 0;     // the completion then counts as an orphan
  uint64_t complete = 0;  // not rescued: the I/O is in no counter and no event
};

class Probe {
 public:
  // Checks privilege and kernel support, loads and attaches.  What the
  // kernel lacks is adapted to, or its feature switched off (also when the
  // verifier refuses a program of --ops, of the ledger or of the driver
  // layer): kernel_lacks().  Errors: PermissionDenied (not root / no
  // CAP_BPF), Unavailable (no BTF, a required tracepoint missing, a
  // required program refused by the verifier), ResourceExhausted (no
  // memory for the ring buffer), Internal.
  // `consumer` outlives the Probe; nullptr when config.events_disabled
  // (no record is ever emitted then).
  static absl::StatusOr<std::unique_ptr<Probe>> Open(const ProbeConfig& config,
                                                     RecordConsumer* consumer);
  // Open()'s checks of privilege and kernel BTF alone, loading nothing:
  // PermissionDenied or Unavailable, each saying what to do.  For callers
  // that must not act (create the output file) when Open() cannot succeed.
  static absl::Status CheckPrerequisites();
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Waits up to timeout_ms for records and hands each to the consumer.
  // Returns how many were consumed.  An interrupted wait is not an error.
  absl::StatusOr<int> Poll(int timeout_ms);
  // Hands every record already in the ring buffer to the consumer.
  absl::StatusOr<int> Drain();
  // Detaches every program and returns once none is still running, so no
  // record or counter changes after it: what Drain() then finds is final.
  // The maps stay readable.
  void Detach();

  absl::StatusOr<Counters> ReadCounters() const;
  // The histograms since load, summed over CPUs (empty unless enabled).
  absl::StatusOr<KernelHistograms> ReadHistograms() const;
  // Events the kernel never let our programs see: it skips a program that
  // is already running on that CPU (bpf_prog_info.recursion_misses, Linux
  // 5.12+), and the rescue program did not pick them up either.
  MissedHooks ReadMissed(const Counters& counters) const;

  // The kernel skips our completion program for a completion that arrives
  // while the program runs on the same CPU (an interrupt nested in it, as
  // NVMe's hardirq completions can be).  A second program, the rescue,
  // picks such completions up, but costs every I/O one more program run
  // (BENCHMARKS.md), so unless ProbeConfig::rescue_always it is attached
  // only once the kernel has skipped one: call this periodically.  Returns
  // how many completions had been skipped when this call attached it, 0
  // when it did nothing.  Those skipped before stay counted as missed.
  absl::StatusOr<uint64_t> RescueIfSkipped();
  // Attaches the rescue now (after the completion program, so it runs after
  // it); needs no privilege.  OK if it already is.
  absl::Status AttachRescue();
  bool rescue_attached() const;

  // Changes the partition filter's sectors to [start, end) of its disk
  // (ProbeConfig::partition set at Open), for the completions from now on.
  // Needs no privilege: the programs' data is mapped into this process.
  void SetSectorRange(uint64_t start, uint64_t end);

  // Changes the --cgroup filter's subtree root to the cgroup `id`
  // (ProbeConfig::cgroup_id set at Open; kNoCgroup: matching nothing), for
  // the I/O submitted from now on.  Needs no privilege, as above.
  void SetCgroupId(uint64_t id);

  // --ops: the file systems (their s_dev, the kernel's encoding: major <<
  // 20 | minor) on which calls were made that cannot be followed (no block
  // device), not returned before.  Needs no privilege, as above.
  std::vector<uint32_t> TakeUnfollowedFs();

  // --ops: the stacked disks (device-mapper, md) and the whole disks below
  // each (kernel dev_t; at most BIOSNOOP_OP_LOWER used), replacing what
  // was set before: a call on a file system over a stacked disk waits for
  // requests on those (bpf/ops.bpf.h, op_lower_register).  Needs no privilege,
  // as above.
  void SetLowerDisks(
      const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& disks);

  // The requests in flight, as the programs hold them.
  InflightTable& inflight() { return *inflight_; }

  // What this kernel lacks that changes this run (kernel_features.h), in
  // the order found: said on stderr and named in the stream header.
  const std::vector<KernelLack>& kernel_lacks() const { return kernel_lacks_; }
  // Files on, but the address of iomap_dio_bio_end_io could not be read
  // (kallsyms hides addresses without CAP_SYSLOG): direct I/O is then not
  // followed to its file.
  bool direct_io_unfollowed() const { return direct_io_unfollowed_; }
  // The hooks attached, e.g. "tp_btf/block_io_start", for -v.
  const std::vector<std::string>& attached() const;
  // Instructions the kernel's verifier walked to load our programs, summed
  // (bpf_prog_info.verified_insns, Linux 5.16+; 0 before).  Start-up CPU
  // grows with it, so -v shows it and a test keeps it bounded.
  uint64_t VerifiedInstructions() const;

 private:
  Probe() = default;

  // Declared first: the other parts use its maps until they are gone.
  std::unique_ptr<LoadedProgram> program_;
  std::unique_ptr<RecordRing> ring_;
  std::unique_ptr<InflightTable> inflight_;
  std::vector<KernelLack> kernel_lacks_;
  bool direct_io_unfollowed_ = false;
};

}  // namespace biosnoop
