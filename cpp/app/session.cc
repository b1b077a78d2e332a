#include "session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "biosnoop_abi.h"
#include "disk_names.h"
#include "privileges.h"
#include "status_macros.h"

namespace biosnoop {

absl::StatusOr<ProbeConfig> ProbeConfigFor(const Options& o) {
  ProbeConfig c;
  c.min_ns = o.min_us * 1000;
  c.include_queue = o.queued;
  c.pid = o.pid;
  c.comm = o.comm;
  c.op_filter = o.op == OpFilter::kRead    ? BIOSNOOP_FILTER_OP_READ
                : o.op == OpFilter::kWrite ? BIOSNOOP_FILTER_OP_WRITE
                                           : BIOSNOOP_FILTER_OP_ANY;
  c.ringbuf_bytes = o.ringbuf_kib * 1024u;
  c.verbose = o.verbose;
  c.histograms = o.hist || o.summary_interval > absl::ZeroDuration();
  c.hist_unit_ns = o.hist && o.hist_ms ? 1000000 : 1000;
  c.events_disabled = o.hist;
  c.rescue_always = o.rescue_always;
  if (!o.disk.empty()) {
    DiskNames names;
    ASSIGN_OR_RETURN(ResolvedDisk disk, names.Resolve(o.disk));
    c.dev = (disk.major << 20) | disk.minor;
    c.sector_start = disk.sector_start;
    c.sector_end = disk.sector_end;
    c.partition = disk.partition;
  }
  return c;
}

absl::Status CheckPidFilter(uint32_t pid, const std::string& proc,
                            std::FILE* diag) {
  if (pid == 0) return absl::OkStatus();
  // The option parser stops at PID_MAX_LIMIT; the system's own limit is
  // usually far lower (32768 by default).
  uint64_t pid_max = 0;
  if (std::FILE* f = std::fopen((proc + "/sys/kernel/pid_max").c_str(), "re")) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1) pid_max = v;
    std::fclose(f);
  }
  if (pid_max > 0 && pid > pid_max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-p ", pid, ": above this system's pid_max (", pid_max,
        "), so no process can have it"));
  }
  struct stat st;
  if (stat(absl::StrCat(proc, "/", pid).c_str(), &st) != 0) {
    // Not an error: the filter is in force from now on, and matches a
    // process that gets this PID later (one started after biosnoop).
    absl::FPrintF(diag,
                  "biosnoop: warning: no process %d is running now; its I/O "
                  "is logged if a process with that PID starts\n",
                  pid);
  }
  return absl::OkStatus();
}

absl::StatusOr<ProbeConfig> PrepareStart(const Options& options,
                                         std::FILE* diag) {
  ASSIGN_OR_RETURN(ProbeConfig config, ProbeConfigFor(options));
  RETURN_IF_ERROR(Probe::CheckPrerequisites());
  RETURN_IF_ERROR(CheckPidFilter(options.pid, "/proc", diag));
  return config;
}

absl::StatusOr<std::unique_ptr<Probe>> OpenProbe(const ProbeConfig& config,
                                                 RecordHandler handler,
                                                 std::FILE* diag, int verbose) {
  ASSIGN_OR_RETURN(std::unique_ptr<Probe> probe,
                   Probe::Open(config, std::move(handler)));
  // Loaded and attached: nothing from here on needs privilege, so none is
  // kept while parsing what the kernel sends.
  const bool keep_bpf = !KernelAllowsMapAccessWithoutCaps();
  const uint64_t verified = verbose > 0 ? probe->VerifiedInstructions() : 0;
  RETURN_IF_ERROR(DropPrivileges(keep_bpf));
  if (verbose > 0) {
    absl::FPrintF(diag,
                  "biosnoop: attached %s; completion rescue %s; %s; "
                  "capabilities dropped%s\n",
                  absl::StrJoin(probe->attached(), ", "),
                  probe->rescue_attached() ? "attached"
                                           : "at the first skipped completion",
                  verified > 0 ? absl::StrCat(verified, " instructions verified")
                               : std::string("verifier statistics unavailable"),
                  keep_bpf ? " (CAP_BPF kept: kernel before 6.5)" : "");
  }
  return probe;
}

absl::Status RescueIfSkipped(Probe& probe, std::FILE* diag) {
  ASSIGN_OR_RETURN(uint64_t skipped, probe.RescueIfSkipped());
  if (skipped > 0) {
    absl::FPrintF(diag,
                  "biosnoop: the kernel skipped %d completions that came while "
                  "biosnoop's completion program ran on the same CPU (nested "
                  "interrupts); they are counted as missed. A second program "
                  "now picks such completions up (--rescue always attaches it "
                  "from the start).\n",
                  skipped);
  }
  return absl::OkStatus();
}

void ReportFailedReopen(const absl::Status& error, std::FILE* diag) {
  // The old file is still open and writable, and events in it are not
  // lost: a rotation that cannot happen yet is no reason to end the run
  // (the next SIGHUP, logrotate's next run, tries again).
  std::string why;
  if (error.code() == absl::StatusCode::kPermissionDenied) {
    // The uid stays, so a file its owner may write is fine; but logrotate's
    // `create MODE OWNER GROUP` with another owner gives a file that only
    // capabilities biosnoop no longer has could open.
    const uid_t uid = geteuid();
    const std::string who =
        uid == 0 ? std::string("root") : absl::StrCat("uid ", uid);
    why = absl::StrCat(
        " (biosnoop dropped its capabilities after loading: it runs as ", who,
        " without CAP_DAC_OVERRIDE, so the new file must be writable by ", who,
        uid == 0 ? ", e.g. logrotate's `create 0640 root adm`" : "", ")");
  }
  absl::FPrintF(diag,
                "biosnoop: %s%s; still writing to the old file, the next "
                "SIGHUP tries again\n",
                error.message(), why);
}

InflightUpkeep::InflightUpkeep(Probe& probe, uint64_t max_age_ns,
                               uint64_t start_ns)
    : probe_(probe),
      max_age_ns_(max_age_ns),
      expire_every_ns_(std::min(kExpireEveryNs, max_age_ns / 2)),
      next_missed_check_(start_ns + kTickNs),
      next_expire_(start_ns + expire_every_ns_) {}

absl::Status InflightUpkeep::Run(uint64_t now_ns) {
  if (now_ns >= next_missed_check_) {
    next_missed_check_ = now_ns + kTickNs;
    RETURN_IF_ERROR(FindMissedCompletions());
  }
  if (now_ns >= next_expire_) {
    next_expire_ = now_ns + expire_every_ns_;
    ASSIGN_OR_RETURN(uint64_t removed, probe_.ExpireInflight(now_ns, max_age_ns_));
    expired_ += removed;
  }
  return absl::OkStatus();
}

absl::Status InflightUpkeep::ObserveAtExit() { return FindMissedCompletions(); }

absl::StatusOr<uint64_t> InflightUpkeep::CountUnfinished() {
  return probe_.CountUnfinished(MonotonicNs(), kTickNs);
}

// One observation for the finder: disks biosnoop holds requests for, the
// idle ones among them (read first), then their issued requests.
absl::Status InflightUpkeep::FindMissedCompletions() {
  ASSIGN_OR_RETURN(std::vector<uint32_t> devs, probe_.DevsWithInflight());
  absl::flat_hash_set<uint32_t> idle;
  for (uint32_t dev : devs) {
    if (DiskIdle(dev).value_or(false)) idle.insert(dev);
  }
  if (idle.empty()) {
    finder_.Reset();
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::vector<InflightEntry> issued,
                   probe_.ReadIssuedInflight(idle));
  // Reads and writes on an idle disk are done; a flush (never in the
  // kernel's `inflight`) only as far as the kernel's count of completed
  // flushes says it finished more than biosnoop saw.
  std::vector<InflightEntry> candidates;
  absl::flat_hash_map<uint32_t, std::vector<InflightEntry>> flushes;
  for (const InflightEntry& e : issued) {
    if (e.flush) {
      flushes[e.dev].push_back(e);
    } else {
      candidates.push_back(e);
    }
  }
  for (auto& [dev, held] : flushes) {
    for (const InflightEntry& e :
         PresumedMissedFlushes(std::move(held), probe_.UnseenFlushes(dev))) {
      candidates.push_back(e);
    }
  }
  std::vector<InflightEntry> confirmed = finder_.Observe(candidates, idle);
  ASSIGN_OR_RETURN(uint64_t removed, probe_.RemoveInflight(confirmed));
  missed_completions_ += removed;
  // Requests still held per disk, those just removed aside.
  absl::flat_hash_map<uint32_t, size_t> still_held;
  for (const InflightEntry& e : issued) ++still_held[e.dev];
  for (const InflightEntry& e : confirmed) {
    if (--still_held[e.dev] == 0) still_held.erase(e.dev);
  }
  for (uint32_t dev : idle) {
    if (!still_held.contains(dev)) RETURN_IF_ERROR(probe_.ResetDepth(dev));
  }
  return absl::OkStatus();
}

}  // namespace biosnoop
