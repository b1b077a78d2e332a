// The steps of a run, in the order the contract (runner.h) gives them;
// why each is where it is, beside it.

#include "runner.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "event_stream.h"
#include "exit_codes.h"
#include "hist_mode.h"
#include "run_output.h"
#include "session.h"
#include "signals.h"
#include "stacked_devices.h"
#include "status_macros.h"
#include "unfollowed_fs.h"
#include "wall_clock.h"

namespace biosnoop {

namespace {

// --ops: the stacked disks and the disks below each, as sysfs says now
// (an LVM volume made or removed shows within a second).
void FollowLowerDisks(const ProbeConfig& config, Probe& probe) {
  if (!config.ops) return;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> disks;
  for (LowerDisks& d : ScanLowerDisks("/sys")) {
    disks.emplace_back(d.dev, std::move(d.below));
  }
  probe.SetLowerDisks(disks);
}

}  // namespace

bool RunState::Keep(absl::Status status) {
  if (!status.ok() && output_status.ok()) {
    output_status = std::move(status);
    mode->OutputFailed();
  }
  return output_status.ok();
}

Runner::Runner(const Options& options, std::FILE* diag, RunMode& mode)
    : mode_(mode), run_{options, diag, &mode, ProbeConfig{}, nullptr} {}

absl::Status Runner::Execute() {
  RETURN_IF_ERROR(Start());
  while (!StopRequested()) {
    ASSIGN_OR_RETURN(bool go_on, Tick());
    if (!go_on) break;
  }
  RETURN_IF_ERROR(Drain());
  RETURN_IF_ERROR(Summarise());
  const absl::Status& result = run_.output_status;
  if (result.code() == absl::StatusCode::kCancelled) return absl::OkStatus();
  if (!result.ok()) return WithExitCode(result, kExitIoError);
  return absl::OkStatus();
}

absl::Status Runner::Start() {
  const Options& options = run_.options;
  // Before the output is created; what only loading finds out removes the
  // file again (below).
  ASSIGN_OR_RETURN(run_.config, PrepareStart(options, run_.diag));
  // -Z: a user that does not exist is bad usage, found before anything is
  // created.
  ASSIGN_OR_RETURN(run_.run_as, ResolveRunAs(options.user));
  // Before the output is opened: a wait for a FIFO's reader must end at
  // a stop, as the run would.
  InstallSignalHandlers();
  // The output is opened and the metrics port bound while privileged; the
  // file is the user's before biosnoop becomes that user (in OpenProbe).
  ASSIGN_OR_RETURN(absl::Duration waited, mode_.OpenOutput(run_));
  HandOutputTo(mode_.output(), run_.run_as, run_.diag);
  absl::StatusOr<std::unique_ptr<Probe>> opened = OpenProbe(
      run_.config, mode_.consumer(), run_.diag, options.verbose, run_.run_as);
  if (!opened.ok()) {
    // Found only now (BTF whose types do not parse, a ring buffer the
    // kernel cannot allocate, ...): a file this run created stays no more
    // than a start that failed before it.
    mode_.RemoveOutputIfUnused();
    return opened.status();
  }
  run_.probe = std::move(*opened);

  run_.start_ns = MonotonicNs();
  // As a signal, so that it also ends a write blocked on a stalled reader.
  const std::optional<absl::Duration> duration = DurationLeft(options, waited);
  if (duration.has_value()) {
    RequestStopAfter(*duration);
    end_ns_ = run_.start_ns +
              static_cast<uint64_t>(absl::ToInt64Nanoseconds(*duration));
  }
  // What the records cannot show: I/O the kernel never delivered,
  // requests that never completed (both modes).
  run_.upkeep.emplace(
      run_.probe->inflight(),
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.max_inflight_age)),
      run_.start_ns);
  partition_.emplace(run_.config);
  cgroup_.emplace(run_.config, options.cgroup);
  rotation_.emplace(&mode_.output(), run_.diag);
  next_second_ = run_.start_ns + kTickNs;
  FollowLowerDisks(run_.config, *run_.probe);
  return mode_.Started(run_);
}

absl::StatusOr<bool> Runner::Tick() {
  if (!run_.output_ok()) return false;
  if (!run_.Keep(run_.probe->Poll(mode_.poll_ms()).status())) return false;
  const uint64_t now = MonotonicNs();
  RETURN_IF_ERROR(mode_.AfterPoll(run_, now));
  if (!run_.output_ok()) return false;
  RETURN_IF_ERROR(Rotate(now));
  if (!run_.output_ok()) return false;
  if (now >= end_ns_) return false;
  if (now >= next_second_) {
    next_second_ = now + kTickNs;
    RETURN_IF_ERROR(RescueIfSkipped(*run_.probe, run_.diag));
    FollowPartition(*partition_, *run_.probe, run_.config, mode_.disk_names(),
                    run_.diag);
    FollowCgroup(*cgroup_, *run_.probe, run_.config, run_.diag);
    NoteUnfollowedFs(*run_.probe, run_.diag);
    FollowLowerDisks(run_.config, *run_.probe);
    RETURN_IF_ERROR(mode_.EverySecond(run_, now));
    if (!run_.output_ok()) return false;
  }
  RETURN_IF_ERROR(mode_.Periodic(run_, now));
  if (!run_.output_ok() || mode_.Finished()) return false;
  RETURN_IF_ERROR(run_.upkeep->Run(now));
  return true;
}

absl::Status Runner::Rotate(uint64_t now_ns) {
  absl::StatusOr<bool> new_file = rotation_->Tick(TakeReopenRequest(), now_ns);
  if (!run_.Keep(new_file.status())) return absl::OkStatus();
  // A reopen that failed or is still under way starts nothing: the old
  // file goes on with no gap.
  if (*new_file) return mode_.NewFile(run_);
  return absl::OkStatus();
}

absl::Status Runner::Drain() {
  rotation_->Finish();
  // Completions the kernel did not deliver to our hook, on disks idle now:
  // two more observations, the second after any pending completion ran.
  // The programs stay attached for this, or every completion in between
  // would look missed.  Records keep coming meanwhile: consume them while
  // waiting (a loop: a signal cuts a poll short), so that a busy disk
  // does not fill the ring buffer in the last moments.
  for (int i = 0; i < 2; ++i) {
    if (i > 0) {
      const uint64_t until = MonotonicNs() + kMissedRecheckUs * 1000ull;
      for (uint64_t now = MonotonicNs(); now < until; now = MonotonicNs()) {
        run_.Keep(
            run_.probe->Poll(static_cast<int>((until - now) / 1000000) + 1)
                .status());
      }
    }
    RETURN_IF_ERROR(run_.upkeep->ObserveAtExit());
  }
  // From here on nothing is emitted or counted, so after the drain every
  // record the counters count is written or dropped, and the last records
  // count the same completions as the counters.
  run_.probe->Detach();
  return mode_.Drained(run_);
}

absl::Status Runner::Summarise() {
  RETURN_IF_ERROR(mode_.LastRecords(run_));
  // Requests issued over a second ago and still held: in flight on a hung
  // or busy disk, their completion not (yet) seen.
  ASSIGN_OR_RETURN(uint64_t unfinished,
                   run_.upkeep->CountUnfinished(MonotonicNs()));
  return mode_.Summarise(run_, unfinished);
}

absl::Status Run(const Options& options, std::FILE* diag) {
  std::unique_ptr<RunMode> mode;
  if (options.hist) {
    mode = std::make_unique<HistogramMode>(options);
  } else {
    mode = std::make_unique<EventStream>(options);
  }
  Runner runner(options, diag, *mode);
  return runner.Execute();
}

}  // namespace biosnoop
