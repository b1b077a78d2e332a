#pragma once

// The kernel side as seen from user space: load the BPF program with its
// filters, attach its hooks, poll its ring buffer (each record to a
// RecordConsumer), read its counters and histograms, and look at and tidy
// its in-flight table.  RAII: destroying the Probe detaches everything and
// frees the maps.  Types here are the kernel's (biosnoop_abi.h); turning
// them into domain values is event/'s job (decoder.h).

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
#include "counters.h"
#include "kernel_features.h"
#include "kernel_histograms.h"
#include "missed_completions.h"
#include "probe_config.h"

struct biosnoop_bpf;
struct bpf_program;
struct ring_buffer;

namespace biosnoop {

// Hook runs the kernel skipped, by hook (ReadMissed).
struct MissedHooks {
  uint64_t submit = 0;    // pid/comm then come from the issuing task
  uint64_t issue = 0;     // the completion then counts as an orphan
  uint64_t complete = 0;  // not rescued: the I/O is in no counter and no event
};

// Where Poll() and Drain() hand each ring-buffer record (struct
// biosnoop_event bytes, as the kernel wrote them).  A non-OK status stops
// the current poll and is returned from Poll() or Drain().  The run's
// consumer is RecordPipeline (app/record_pipeline.h): decode, enrich, sink.
class RecordConsumer {
 public:
  virtual ~RecordConsumer() = default;
  virtual absl::Status Consume(const void* data, size_t size) = 0;
};

class Probe {
 public:
  // Checks privilege and kernel support, loads and attaches.  What the
  // kernel lacks is adapted to, or its feature switched off (also when the
  // verifier refuses a program of --ops or of the ledger): kernel_lacks().
  // Errors: PermissionDenied (not root / no CAP_BPF), Unavailable (no BTF,
  // a required tracepoint missing, a required program refused by the
  // verifier), Internal.
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
  // Files on, but the address of iomap_dio_bio_end_io could not be read
  // (kallsyms hides addresses without CAP_SYSLOG): direct I/O is then not
  // followed to its file.
  bool direct_io_unfollowed() const { return direct_io_unfollowed_; }

  // The histograms since load, summed over CPUs (empty unless enabled).
  absl::StatusOr<KernelHistograms> ReadHistograms() const;

  // Events the kernel never let our programs see: it skips a program that
  // is already running on that CPU (bpf_prog_info.recursion_misses, Linux
  // 5.12+), and the rescue program did not pick them up either.
  MissedHooks ReadMissed(const Counters& counters) const;

  // Deletes in-flight entries not touched for max_age_ns (completions that
  // were never seen, e.g. a device removed mid-I/O) so the bounded map
  // cannot fill up over time.  Returns how many were removed.
  absl::StatusOr<uint64_t> ExpireInflight(uint64_t now_ns, uint64_t max_age_ns);

  // Requests not finished min_age_ns after their issue (or, never issued,
  // after their submission), without removing them: at exit, the requests
  // biosnoop saw start and never saw complete.  A request waiting in the
  // block layer's flush machinery (submitted with a preflush, not issued)
  // is not counted: the flush request it waits for is, so one hung flush
  // counts once.
  absl::StatusOr<uint64_t> CountUnfinished(uint64_t now_ns,
                                           uint64_t min_age_ns);

  // Flushes the kernel completed on disk `dev` (kernel dev_t) since biosnoop
  // attached that biosnoop never saw complete: their entries are still
  // held (DiskFlushesDone() less the program's own count; 0 when the
  // kernel's count cannot be read).  Read it after the table.
  uint64_t UnseenFlushes(uint32_t dev) const;

  // The disks on which biosnoop counts requests in flight (its queue-depth
  // counter is not 0).
  absl::StatusOr<std::vector<uint32_t>> DevsWithInflight() const;
  // The issued, not requeued read, write and flush requests in flight on
  // `devs`.
  absl::StatusOr<std::vector<InflightEntry>> ReadIssuedInflight(
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
  absl::StatusOr<uint64_t> RemoveInflight(
      const std::vector<InflightEntry>& entries);
  // Sets the queue-depth counter of `dev` to 0 (the disk is idle).
  absl::Status ResetDepth(uint32_t dev);

  // Changes the partition filter's sectors to [start, end) of its disk
  // (ProbeConfig::partition set at Open), for the completions from now on.
  // Needs no privilege: the programs' data is mapped into this process.
  void SetSectorRange(uint64_t start, uint64_t end);

  // What this kernel lacks that changes this run (kernel_features.h), in
  // the order found: said on stderr and named in the stream header.
  const std::vector<KernelLack>& kernel_lacks() const { return kernel_lacks_; }

  // The hooks attached, e.g. "tp_btf/block_io_start", for -v.
  const std::vector<std::string>& attached() const { return attached_; }

  // Instructions the kernel's verifier walked to load our programs, summed
  // (bpf_prog_info.verified_insns, Linux 5.16+; 0 before).  Start-up CPU
  // grows with it, so -v shows it and a test keeps it bounded.
  uint64_t VerifiedInstructions() const;

 private:
  bool direct_io_unfollowed_ = false;
  std::vector<KernelLack> kernel_lacks_;
  Probe() = default;
  // Open() for the features found: one load, with `config` as adapted.
  static absl::StatusOr<std::unique_ptr<Probe>> Load(
      const ProbeConfig& config, const KernelFeatures& features,
      int64_t preempt_count_from_rq, RecordConsumer* consumer);
  static int OnRecord(void* ctx, void* data, size_t size);
  // Attaches `prog` to `tracepoint`, its link owned by the skeleton.
  absl::Status Attach(bpf_program* prog, const char* tracepoint);
  using InflightVisitor = std::function<void(const biosnoop_inflight_val&,
                                             bool in_slot, uint32_t slot)>;
  absl::Status ForEachInflight(const InflightVisitor& visit) const;
  // The overflow map's part of ForEachInflight.
  void ForEachOverflow(const InflightVisitor& visit) const;
  absl::StatusOr<uint64_t> ScanInflight(uint64_t now_ns, uint64_t max_age_ns,
                                        bool remove);

  biosnoop_bpf* skel_ = nullptr;
  std::vector<char> stuck_buf_;  // StuckFiles' copy of the map value
  ring_buffer* rb_ = nullptr;
  RecordConsumer* consumer_ = nullptr;
  absl::Status consumer_status_;
  std::vector<std::string> attached_;
  bool detached_ = false;
  // Each disk's count of completed flushes when attached (DiskFlushesDone;
  // a disk that appears later starts from 0).
  absl::flat_hash_map<uint32_t, uint64_t> flush_baseline_;
  // The slot array mapped read-only (nullptr if the kernel would not map
  // it: then ReadIssuedBefore reads it through the syscall).
  const biosnoop_inflight_val* slots_view_ = nullptr;
  size_t slots_view_bytes_ = 0;
};

}  // namespace biosnoop
