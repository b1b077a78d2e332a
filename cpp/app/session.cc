// Why the start is done in this order; the contract is in session.h.

#include "session.h"

#include <fcntl.h>
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
#include "cgroup_names.h"
#include "disk_names.h"
#include "output_open.h"
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
  // The metrics serve the same kernel histograms as the summary records.
  c.histograms = o.hist || o.summary_interval > absl::ZeroDuration() ||
                 o.metrics_port >= 0;
  c.hist_unit_ns = o.hist && o.hist_ms ? 1000000 : 1000;
  c.events_disabled = o.hist;
  c.rescue_always = o.rescue_always;
  c.files = o.files && !o.hist;
  c.ledger_entries = c.files && o.writeback_owner ? o.ledger_entries : 0;
  c.ops = o.ops && !o.hist;
  c.op_min_ns = c.ops ? o.op_min_us * 1000 : 0;
  if (!o.disk.empty()) {
    DiskNames names;
    ASSIGN_OR_RETURN(ResolvedDisk disk, names.Resolve(o.disk));
    c.dev = (disk.major << 20) | disk.minor;
    c.sector_start = disk.sector_start;
    c.sector_end = disk.sector_end;
    c.partition = disk.partition;
    c.partition_dev = (disk.part_major << 20) | disk.part_minor;
  }
  if (!o.cgroup.empty()) {
    const std::string mount = FindCgroup2Mount();
    ASSIGN_OR_RETURN(CgroupTarget target, ResolveCgroupPath(o.cgroup, mount));
    c.cgroup_id = target.id;
    c.cgroup_level = target.level;
    c.cgroup_dir = mount + (target.level == 0 ? "" : target.path);
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
    return absl::InvalidArgumentError(
        absl::StrCat("-p ", pid, ": above this system's pid_max (", pid_max,
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
                                                 RecordConsumer* consumer,
                                                 std::FILE* diag, int verbose,
                                                 const RunAs& run_as) {
  ASSIGN_OR_RETURN(std::unique_ptr<Probe> probe, Probe::Open(config, consumer));
  // Loaded and attached: nothing from here on needs privilege, so none is
  // kept while parsing what the kernel sends.
  const bool keep_bpf = !KernelAllowsMapAccessWithoutCaps();
  const uint64_t verified = verbose > 0 ? probe->VerifiedInstructions() : 0;
  RETURN_IF_ERROR(DropPrivileges(keep_bpf, run_as));
  for (const KernelLack& lack : probe->kernel_lacks()) {
    absl::FPrintF(diag, "biosnoop: this kernel lacks %s: %s\n", lack.name,
                  lack.effect);
  }
  if (probe->direct_io_unfollowed()) {
    absl::FPrintF(diag,
                  "biosnoop: /proc/kallsyms hides kernel addresses (no "
                  "CAP_SYSLOG): direct I/O is not followed to its file "
                  "(\"content\":\"unknown\")\n");
  }
  if (verbose > 0) {
    absl::FPrintF(diag,
                  "biosnoop: attached %s; completion rescue %s; %s; "
                  "running as %s (uid %d, gid %d), capabilities dropped%s\n",
                  absl::StrJoin(probe->attached(), ", "),
                  probe->rescue_attached() ? "attached"
                                           : "at the first skipped completion",
                  verified > 0
                      ? absl::StrCat(verified, " instructions verified")
                      : std::string("verifier statistics unavailable"),
                  run_as.name, run_as.uid, run_as.gid,
                  keep_bpf ? " (CAP_BPF kept: kernel before 6.5)" : "");
  }
  return probe;
}

void HandOutputTo(OutputFile& output, const RunAs& run_as, std::FILE* diag) {
  if (!run_as.switches || output.is_stdout()) return;
  struct stat file;
  if (fstatat(output.dir_fd(), output.name().c_str(), &file,
              AT_SYMLINK_NOFOLLOW) != 0 ||
      !(S_ISREG(file.st_mode) || S_ISFIFO(file.st_mode))) {
    return;  // /dev/null, a terminal: nothing to hand over
  }
  if (absl::Status s = output.GiveTo(run_as.uid); !s.ok()) {
    absl::FPrintF(diag, "biosnoop: warning: %s\n", s.message());
  }
  const std::string whom = absl::StrCat("user ", run_as.name);
  if (fstatat(output.dir_fd(), output.name().c_str(), &file,
              AT_SYMLINK_NOFOLLOW) == 0 &&
      !ModeAllows(file, W_OK, run_as.uid, run_as.gid, run_as.groups)) {
    absl::FPrintF(diag,
                  "biosnoop: warning: after loading, biosnoop runs as %s, "
                  "who may not write %s (uid %d, mode %04o): SIGHUP cannot "
                  "reopen it until it is moved away (logrotate) and a new "
                  "file made; chown it to %s, or -Z root stays root\n",
                  whom, output.DisplayName(), file.st_uid, file.st_mode & 07777,
                  run_as.name);
  }
  struct stat dir;
  const bool dir_known = output.dir_fd() == AT_FDCWD
                             ? stat(".", &dir) == 0
                             : fstat(output.dir_fd(), &dir) == 0;
  if (S_ISREG(file.st_mode) && dir_known &&
      !ModeAllows(dir, W_OK | X_OK, run_as.uid, run_as.gid, run_as.groups)) {
    absl::FPrintF(
        diag,
        "biosnoop: warning: after loading, biosnoop runs as %s, who may "
        "not create files in the directory of %s (uid %d, mode %04o): after "
        "a rotation, SIGHUP reopens only a new file already made writable "
        "by %s (logrotate: create 0640 %s GROUP); or give the directory to "
        "%s (docs/guide/service.md), or -Z root stays root\n",
        whom, output.DisplayName(), dir.st_uid, dir.st_mode & 07777,
        run_as.name, run_as.name, run_as.name);
  }
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

}  // namespace biosnoop
