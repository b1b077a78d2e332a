#include "hist_mode.h"

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "counters.h"
#include "disk_names.h"
#include "exit_codes.h"
#include "hist_format.h"
#include "histogram.h"
#include "partition_watch.h"
#include "output_file.h"
#include "output_rotation.h"
#include "run_output.h"
#include "session.h"
#include "signals.h"
#include "status_macros.h"
#include "stream_header.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

HistGrouping GroupingFor(const Options& o) {
  if (o.per_disk && o.per_flags) return HistGrouping::kPerDiskAndFlags;
  if (o.per_disk) return HistGrouping::kPerDisk;
  if (o.per_flags) return HistGrouping::kPerFlags;
  return HistGrouping::kAll;
}

}  // namespace

absl::Status RunHistograms(const Options& options, std::FILE* diag) {
  ASSIGN_OR_RETURN(ProbeConfig config, PrepareStart(options, diag));
  // Before the output is opened: a wait for a FIFO's reader must end at
  // a stop, as the run would.
  InstallSignalHandlers();
  ASSIGN_OR_RETURN(RunOutput out,
                   OpenRunOutput(options, RecordFraming::kLines, diag));
  OutputFile& file = *out.file;
  absl::StatusOr<std::unique_ptr<Probe>> opened =
      OpenProbe(config, [](const void*, size_t) {
        return absl::OkStatus();  // events are disabled
      }, diag, options.verbose);
  if (!opened.ok()) {
    file.RemoveIfCreatedAndUnused();  // as in Run()
    return opened.status();
  }
  std::unique_ptr<Probe> probe = std::move(*opened);

  DiskNames names;
  WallClock clock;
  const HistUnit unit = options.hist_ms ? HistUnit::kMilliseconds
                                        : HistUnit::kMicroseconds;
  const HistGrouping grouping = GroupingFor(options);
  auto disk_name = [&names](uint32_t major, uint32_t minor) {
    return names.Lookup(major, minor, 0, MonotonicNs()).disk;
  };

  HistSet previous;
  uint64_t interval_start = MonotonicNs();
  bool csv_header = true;
  // Prints the histograms since the last report.
  auto report = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(HistSet now_set, probe->ReadHistograms());
    uint64_t now = MonotonicNs();
    HistSet delta = HistDelta(now_set, previous);
    previous = std::move(now_set);
    std::vector<HistGroup> groups = GroupHistograms(delta, grouping, disk_name);
    std::string ts;
    AppendRfc3339Nanos(clock.ToRealtimeNs(now), &ts);
    double seconds = (now - interval_start) / 1e9;
    interval_start = now;
    std::string text;
    switch (options.hist_format) {
      case Options::HistFormat::kText:
        text = FormatHistText(groups, unit,
                              absl::StrFormat("%s (%.1f s)", ts, seconds));
        break;
      case Options::HistFormat::kCsv:
        text = FormatHistCsv(groups, grouping, unit, csv_header);
        csv_header = false;
        break;
      case Options::HistFormat::kJson:
        text = FormatHistJson(groups, unit, ts, seconds);
        break;
    }
    if (text.empty()) return absl::OkStatus();
    RETURN_IF_ERROR(file.Append(text));
    return file.Flush();
  };

  const uint64_t start = MonotonicNs();
  const std::optional<absl::Duration> duration =
      DurationLeft(options, out.waited);
  if (duration) RequestStopAfter(*duration);
  const uint64_t end =
      duration ? start + absl::ToInt64Nanoseconds(*duration) : UINT64_MAX;
  const uint64_t every = options.interval
                             ? absl::ToInt64Nanoseconds(*options.interval)
                             : UINT64_MAX;
  uint64_t next = every == UINT64_MAX ? UINT64_MAX : start + every;
  uint64_t next_tick = start + kTickNs;
  PartitionWatch partition(config);
  // What the histograms cannot show: I/O the kernel never delivered,
  // requests that never completed (as in the event stream).
  InflightUpkeep upkeep(
      *probe,
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.max_inflight_age)),
      start);
  absl::Status result;
  OutputRotation rotation(&file, diag);
  while (!StopRequested()) {
    absl::StatusOr<int> n = probe->Poll(100);
    if (!n.ok()) {
      result = n.status();
      break;
    }
    absl::StatusOr<bool> new_file =
        rotation.Tick(TakeReopenRequest(), MonotonicNs());
    if (result = new_file.status(); !result.ok()) break;
    // On failure (or while the open is under way) the old file stays
    // open: the next report goes there.
    if (*new_file) csv_header = true;  // a new CSV file starts with its column line
    uint64_t now = MonotonicNs();
    if (now >= next_tick) {
      next_tick = now + kTickNs;
      if (result = RescueIfSkipped(*probe, diag); !result.ok()) break;
      FollowPartition(partition, *probe, config, nullptr, diag);
    }
    if (result = upkeep.Run(now); !result.ok()) break;
    if (now >= next) {
      next = now + every;
      if (result = report(); !result.ok()) break;
    }
    if (now >= end) break;
  }

  rotation.Finish();
  // Completions the kernel ran no program for, on disks idle now: counted
  // in no histogram, so reported as missed (two observations, the second
  // after any pending completion ran).  The programs stay attached for
  // this, or every completion in between would look missed.
  for (int i = 0; i < 2; ++i) {
    // A loop: a signal (another SIGTERM) would cut one sleep short.
    const uint64_t until = MonotonicNs() + kMissedRecheckUs * 1000ull;
    for (uint64_t now = MonotonicNs(); i > 0 && now < until; now = MonotonicNs()) {
      usleep(static_cast<useconds_t>((until - now) / 1000 + 1));
    }
    RETURN_IF_ERROR(upkeep.ObserveAtExit());
  }
  // The last report once nothing counts any more, so that it and the
  // counters below count the same completions: under load, the checks
  // above alone add thousands that no report would show.
  probe->Detach();
  if (result.ok()) result = report();
  // Requests issued over a second ago and still held: in flight on a hung
  // or busy disk, in no histogram.
  ASSIGN_OR_RETURN(uint64_t unfinished, upkeep.CountUnfinished());
  ASSIGN_OR_RETURN(Counters c, probe->ReadCounters());
  absl::FPrintF(diag,
                "biosnoop: completions=%d orphans=%d filtered=%d "
                "hist_full=%d expired=%d missed=%d unfinished=%d "
                "duration_s=%.1f\n",
                c.completions(), c.orphans(), c.filtered(),
                c.v[BIOSNOOP_CTR_HIST_FULL], upkeep.expired(),
                TotalMissed(c, probe->ReadMissed(c), upkeep.missed_completions()),
                unfinished, (MonotonicNs() - start) / 1e9);
  if (result.code() == absl::StatusCode::kCancelled) return absl::OkStatus();
  if (!result.ok()) return WithExitCode(result, kExitIoError);
  return absl::OkStatus();
}

}  // namespace biosnoop
