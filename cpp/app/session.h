#pragma once

// What every run mode shares: turning options into the kernel program's
// configuration, and loading it, attaching it and dropping privilege.

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "missed_completions.h"
#include "options.h"
#include "probe.h"
#include "wall_clock.h"  // MonotonicNs()

namespace biosnoop {

// The probe configuration for `options`, resolving -d/--disk through sysfs
// (NotFound for an unknown disk).
absl::StatusOr<ProbeConfig> ProbeConfigFor(const Options& options);

// Checks -p PID against `proc` (/proc): a PID above kernel.pid_max
// (<proc>/sys/kernel/pid_max) is bad usage (InvalidArgument: no process
// can ever have it); a PID with no process now only gets a warning line on
// `diag`, since the filter still matches whichever process gets that PID
// later.  0 (no filter) is always fine.
absl::Status CheckPidFilter(uint32_t pid, const std::string& proc,
                            std::FILE* diag);

// What a run checks before it creates its output, so that a start that
// cannot succeed leaves no file behind: ProbeConfigFor(), then privilege
// and kernel BTF (Probe::CheckPrerequisites), then -p (CheckPidFilter
// against /proc, warnings on `diag`).  The output is still created before
// the probe is opened: once attached, the capabilities that may be needed
// to create it are dropped.  Returns the probe configuration.
absl::StatusOr<ProbeConfig> PrepareStart(const Options& options,
                                         std::FILE* diag);

// Loads and attaches the program, then drops every privilege (see
// privileges.h) before returning, so no event is parsed with any held.
// With -v says what was attached on `diag`.
absl::StatusOr<std::unique_ptr<Probe>> OpenProbe(const ProbeConfig& config,
                                                 RecordHandler handler,
                                                 std::FILE* diag, int verbose);

// Attaches the completion rescue program once the kernel has begun to skip
// completions (Probe::RescueIfSkipped) and says so on `diag`.  Call it
// about once a second.
absl::Status RescueIfSkipped(Probe& probe, std::FILE* diag);

// Says on `diag`, in one line, that SIGHUP could not reopen the output
// (`error`, from OutputFile::Reopen) and that output goes on to the old
// file.  For a permission error it adds why: biosnoop dropped its
// capabilities, CAP_DAC_OVERRIDE with them, after loading.
void ReportFailedReopen(const absl::Status& error, std::FILE* diag);

// Between two looks at the in-flight table at exit (InflightUpkeep::
// ObserveAtExit): long enough for a completion whose hook is about to run.
inline constexpr useconds_t kMissedRecheckUs = 50000;

// Housekeeping period of both modes (rescue, missed completions), and the
// age past which a request still held at exit counts as unfinished.
inline constexpr uint64_t kTickNs = 1000000000;  // 1 s

// How often the in-flight table is swept for requests older than
// --max-inflight-age (at most half that age apart).
inline constexpr uint64_t kExpireEveryNs = 30000000000;  // 30 s

// The upkeep of the in-flight table, the same in every mode, so that every
// I/O biosnoop did not see whole is counted somewhere:
//  - missed: completions the kernel finished without running biosnoop's
//    hook (missed_completions.h), looked for once a second on idle disks
//    and removed from the table; an idle disk left with no request gets
//    its queue-depth counter zeroed;
//  - expired: requests older than max_age (a device removed mid-I/O),
//    removed so the bounded table cannot fill;
//  - unfinished: at exit, requests issued over kTickNs ago and still held.
class InflightUpkeep {
 public:
  InflightUpkeep(Probe& probe, uint64_t max_age_ns, uint64_t start_ns);

  // From the poll loop: each check when it is due.
  absl::Status Run(uint64_t now_ns);
  // One more look for missed completions.  At exit call it twice,
  // kMissedRecheckUs apart, with the programs still attached (else every
  // completion in between would look missed).
  absl::Status ObserveAtExit();
  // Requests issued over kTickNs ago and still held.
  absl::StatusOr<uint64_t> CountUnfinished();

  uint64_t missed_completions() const { return missed_completions_; }
  uint64_t expired() const { return expired_; }

 private:
  absl::Status FindMissedCompletions();

  Probe& probe_;
  MissedCompletionFinder finder_;
  const uint64_t max_age_ns_;
  const uint64_t expire_every_ns_;
  uint64_t next_missed_check_;
  uint64_t next_expire_;
  uint64_t missed_completions_ = 0;
  uint64_t expired_ = 0;
};

}  // namespace biosnoop
