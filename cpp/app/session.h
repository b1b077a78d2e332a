#pragma once

// The start every run mode shares: turning options into the kernel
// program's configuration, checking what can be checked before the output
// is created, loading and attaching the program and dropping privilege.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "options.h"
#include "output_file.h"
#include "privileges.h"
#include "probe.h"

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

// Loads and attaches the program, then switches to `run_as` and drops
// every capability (DropPrivileges, privileges.h) before returning, so no
// event is parsed with any privilege held.  With -v says what was
// attached, and as whom biosnoop runs, on `diag`.
// `consumer` as for Probe::Open (nullptr: events disabled).
absl::StatusOr<std::unique_ptr<Probe>> OpenProbe(const ProbeConfig& config,
                                                 RecordConsumer* consumer,
                                                 std::FILE* diag, int verbose,
                                                 const RunAs& run_as);

// Before the switch to `run_as` (when it switches): gives the output file
// to that user if this run created it (OutputFile::GiveTo), and warns on
// `diag` when the user will not be able to reopen it on SIGHUP: the file
// now is not writable by the user, or its directory does not let the user
// create one (ModeAllows: what logrotate's rotation needs).  stdout, a
// terminal, /dev/null: nothing to do.  Never fails the run.
void HandOutputTo(OutputFile& output, const RunAs& run_as, std::FILE* diag);

// Attaches the completion rescue program once the kernel has begun to skip
// completions (Probe::RescueIfSkipped) and says so on `diag`.  Call it
// about once a second.
absl::Status RescueIfSkipped(Probe& probe, std::FILE* diag);

}  // namespace biosnoop
