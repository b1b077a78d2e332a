#include "runner.h"

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "biosnoop_abi.h"
#include "decoder.h"
#include "enricher.h"
#include "exit_codes.h"
#include "file_sink.h"
#include "hist_mode.h"
#include "histogram.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "output_rotation.h"
#include "output_watch.h"
#include "partition_watch.h"
#include "probe.h"
#include "proto_sink.h"
#include "record_pipeline.h"
#include "run_output.h"
#include "session.h"
#include "signals.h"
#include "status_macros.h"
#include "stream_header.h"
#include "stuck_requests.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

// The kernel wakes us for a lone event at once but batches under load
// (see wakeup_flags in bpf/biosnoop.bpf.c); records it did not wake us for
// wait at most one poll timeout.  Output is flushed at most every
// kFlushEveryNs, so under load writes are large, and an event reaches the
// file within about kPollMs + kFlushEveryNs of its completion.
constexpr int kPollMs = 10;
constexpr uint64_t kFlushEveryNs = 10000000;

std::string SummaryLine(const Counters& c, const StatsSnapshot& s,
                        const MissedHooks& missed, int verbose) {
  std::string line = absl::StrFormat(
      "biosnoop: completions=%d emitted=%d written=%d lost=%d orphans=%d "
      "below_threshold=%d filtered=%d decode_errors=%d expired=%d "
      "dropped=%d missed=%d unfinished=%d duration_s=%.1f",
      s.completions, s.emitted, s.written, s.lost, s.orphans,
      s.below_threshold, s.filtered, s.decode_errors, s.expired, s.dropped,
      s.missed, s.unfinished, s.elapsed_s);
  if (verbose > 0) {
    for (int i = 0; i < BIOSNOOP_CTR_MAX; ++i) {
      if (i == BIOSNOOP_CTR_COMPLETIONS || i == BIOSNOOP_CTR_EMITTED ||
          i == BIOSNOOP_CTR_LOST || i == BIOSNOOP_CTR_ORPHANS ||
          i == BIOSNOOP_CTR_BELOW_THRESHOLD || i == BIOSNOOP_CTR_FILTERED) {
        continue;
      }
      absl::StrAppend(&line, " ", CounterName(i), "=", c.v[i]);
    }
    absl::StrAppend(&line, " missed_submit=", missed.submit,
                    " missed_issue=", missed.issue,
                    " missed_recursion=", missed.complete);
  }
  return line;
}

absl::StatusOr<std::unique_ptr<FileSink>> OpenSink(const Options& options,
                                                   const std::string& host,
                                                   std::FILE* diag,
                                                   absl::Duration* waited) {
  const bool proto = options.format == Options::Format::kProto;
  if (proto && options.output == "-" && isatty(STDOUT_FILENO)) {
    return absl::InvalidArgumentError(
        "--format proto writes binary records: give -o FILE or a pipe, not a "
        "terminal");
  }
  ASSIGN_OR_RETURN(
      RunOutput out,
      OpenRunOutput(options,
                    proto ? RecordFraming::kVarintDelimited
                          : RecordFraming::kLines,
                    diag));
  *waited = out.waited;
  if (proto) return std::make_unique<ProtoSink>(std::move(out.file), host);
  return std::make_unique<JsonlSink>(std::move(out.file), host);
}

}  // namespace

absl::Status Run(const Options& options, std::FILE* diag) {
  if (options.hist) return RunHistograms(options, diag);
  // Before the output is created; what only loading finds out removes the
  // file again (below).
  ASSIGN_OR_RETURN(ProbeConfig config, PrepareStart(options, diag));

  std::string host = "unknown";
  if (absl::StatusOr<std::string> h = HostName(); h.ok()) host = *h;
  // Before the output is opened: a wait for a FIFO's reader must end at
  // a stop, as the run would.
  InstallSignalHandlers();
  absl::Duration waited;
  ASSIGN_OR_RETURN(std::unique_ptr<FileSink> sink,
                   OpenSink(options, host, diag, &waited));
  Enricher enricher("/sys", options.queued);
  RecordPipeline pipeline{&enricher, sink.get()};

  absl::StatusOr<std::unique_ptr<Probe>> opened = OpenProbe(
      config,
      [&pipeline](const void* d, size_t n) { return pipeline.Handle(d, n); },
      diag, options.verbose);
  if (!opened.ok()) {
    // Found only now (BTF whose types do not parse, a ring buffer the
    // kernel cannot allocate, ...): a file this run created stays no more
    // than a start that failed before it.
    sink->RemoveOutputIfUnused();
    return opened.status();
  }
  std::unique_ptr<Probe> probe = std::move(*opened);
  // Privileges are dropped by now, so the watch thread has none either.
  const OutputFile& file = sink->file();
  OutputWatch watch(
      LossReporter(file.DisplayName(), !file.is_regular()),
      [&file] { return file.write_started_ns(); },
      [&probe]() -> absl::StatusOr<uint64_t> {
        ASSIGN_OR_RETURN(Counters c, probe->ReadCounters());
        return c.lost();
      },
      diag);

  const uint64_t start_ns = MonotonicNs();
  // As a signal, so that it also ends a write blocked on a stalled reader.
  const std::optional<absl::Duration> duration = DurationLeft(options, waited);
  if (duration.has_value()) RequestStopAfter(*duration);
  WallClock& clock = enricher.wall_clock();
  const StreamInfo info =
      MakeStreamInfo(options, host, clock.ToRealtimeNs(start_ns));

  // Ends the loop on a closed pipe (clean) or an output error (not).  The
  // records that come after that are still consumed, and counted as
  // dropped, until the programs are detached.
  absl::Status result;
  auto keep = [&result, &pipeline](absl::Status s) {
    if (!s.ok() && result.ok()) {
      result = std::move(s);
      pipeline.discarding = true;
    }
    return result.ok();
  };
  keep(sink->WriteHeader(info));

  InflightUpkeep upkeep(
      *probe,
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.max_inflight_age)),
      start_ns);
  StuckWatch stuck(
      *probe, config,
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.stuck_after)));
  uint64_t unfinished = 0;  // known at exit only
  // A stats record from the counters as they are now.  Flushes first, so
  // written/dropped count what has reached the file.
  auto snapshot = [&](bool final) -> absl::StatusOr<StatsSnapshot> {
    keep(sink->Flush());
    ASSIGN_OR_RETURN(Counters c, probe->ReadCounters());
    ConsumerCounts consumer{pipeline.decode_errors, upkeep.expired(),
                            sink->events_written(),
                            sink->events_dropped() + pipeline.discarded,
                            unfinished, upkeep.missed_completions()};
    uint64_t now = MonotonicNs();
    return MakeStats(c, probe->ReadMissed(c), consumer, clock.ToRealtimeNs(now),
                     (now - start_ns) / 1e9, final, info.run_id);
  };

  const uint64_t end_ns =
      duration.has_value()
          ? start_ns + static_cast<uint64_t>(absl::ToInt64Nanoseconds(*duration))
          : UINT64_MAX;
  const uint64_t stats_every_ns =
      options.stats_interval > absl::ZeroDuration()
          ? static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.stats_interval))
          : UINT64_MAX;
  uint64_t next_tick = start_ns + kTickNs;
  PartitionWatch partition(config);
  uint64_t next_stats = stats_every_ns == UINT64_MAX ? UINT64_MAX
                                                     : start_ns + stats_every_ns;
  uint64_t last_flush = start_ns;

  // Summary records: the interval's kernel histograms (every I/O that
  // passed the filters) per disk and op, as the difference of two reads of
  // the kernel's cumulative per-CPU counts.
  const uint64_t summary_every_ns =
      options.summary_interval > absl::ZeroDuration()
          ? static_cast<uint64_t>(absl::ToInt64Nanoseconds(options.summary_interval))
          : UINT64_MAX;
  uint64_t next_summary = summary_every_ns == UINT64_MAX
                              ? UINT64_MAX
                              : start_ns + summary_every_ns;
  HistSet hist_before;
  uint64_t summary_start = start_ns;
  auto write_summary = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(HistSet now_set, probe->ReadHistograms());
    const uint64_t now = MonotonicNs();
    SummaryRecord r;
    r.realtime_ns = clock.ToRealtimeNs(now);
    r.interval_s = (now - summary_start) / 1e9;
    r.min_us = options.min_us;
    r.groups = GroupHistograms(
        HistDelta(now_set, hist_before), HistGrouping::kPerDiskAndOp,
        [&enricher, now](uint32_t major, uint32_t minor) {
          return enricher.disk_names().Lookup(major, minor, 0, now).disk;
        });
    hist_before = std::move(now_set);
    summary_start = now;
    return sink->WriteSummary(r);
  };

  OutputRotation rotation(&sink->mutable_file(), diag);
  while (result.ok() && !StopRequested()) {
    absl::StatusOr<int> n = probe->Poll(kPollMs);
    if (!keep(n.status())) break;
    uint64_t now = MonotonicNs();
    if (now - last_flush >= kFlushEveryNs) {
      last_flush = now;
      if (!keep(sink->Flush())) break;
    }
    absl::StatusOr<bool> new_file = rotation.Tick(TakeReopenRequest(), now);
    if (!keep(new_file.status())) break;
    if (*new_file) {
      // A rotated file starts with its own header, so it reads alone, and
      // with a stats record: how many events the files before it hold (a
      // reader of this file alone tells them from events lost on the
      // way).  A reopen that failed or is still under way writes nothing:
      // the stream in the old file goes on with no gap.
      if (!keep(sink->WriteHeader(info))) break;
      ASSIGN_OR_RETURN(StatsSnapshot s, snapshot(false));
      if (!keep(sink->WriteStats(s))) break;
    }
    if (now >= end_ns) break;
    if (now >= next_tick) {
      next_tick = now + kTickNs;
      enricher.Recalibrate();
      RETURN_IF_ERROR(RescueIfSkipped(*probe, diag));
      FollowPartition(partition, *probe, config, &enricher.disk_names(), diag);
      RETURN_IF_ERROR(stuck.Look(now, enricher));
      if (!keep(stuck.WriteFound(*sink))) break;
    }
    if (now >= next_summary) {
      next_summary = now + summary_every_ns;
      if (!keep(write_summary())) break;
    }
    if (now >= next_stats) {
      next_stats = now + stats_every_ns;
      ASSIGN_OR_RETURN(StatsSnapshot s, snapshot(false));
      if (!keep(sink->WriteStats(s))) break;
    }
    RETURN_IF_ERROR(upkeep.Run(now));
  }

  rotation.Finish();
  // Completions the kernel did not deliver to our hook, on disks idle now:
  // two more observations, the second after any pending completion ran.
  // The programs stay attached for this, or every completion in between
  // would look missed.
  // Records keep coming meanwhile: consume them while waiting, so that a
  // busy disk does not fill the ring buffer in the last moments.
  for (int i = 0; i < 2; ++i) {
    if (i > 0) {
      const uint64_t until = MonotonicNs() + kMissedRecheckUs * 1000ull;
      for (uint64_t now = MonotonicNs(); now < until; now = MonotonicNs()) {
        keep(probe->Poll(static_cast<int>((until - now) / 1000000) + 1).status());
      }
    }
    RETURN_IF_ERROR(upkeep.ObserveAtExit());
  }
  // From here on nothing is emitted, so after the drain below every
  // record the counters count is written or dropped.
  probe->Detach();
  keep(probe->Drain().status());
  // A write that failed during the drain stopped it: drop the rest.
  if (pipeline.discarding) keep(probe->Drain().status());
  if (result.ok() && summary_every_ns != UINT64_MAX) keep(write_summary());
  // Requests issued over a second ago and still held: in flight on a hung
  // or busy disk, their completion not (yet) seen.
  ASSIGN_OR_RETURN(unfinished, upkeep.CountUnfinished());
  ASSIGN_OR_RETURN(StatsSnapshot last, snapshot(true));
  if (result.ok()) {
    keep(sink->WriteStats(last));
    keep(sink->Flush());
  }
  // Loss is said while it happens (OutputWatch); what is left of it, the
  // summary line says.
  watch.Stop();
  ASSIGN_OR_RETURN(Counters counters, probe->ReadCounters());
  absl::FPrintF(diag, "%s\n",
                SummaryLine(counters, last, probe->ReadMissed(counters),
                            options.verbose));
  if (pipeline.decode_errors > 0) {
    absl::FPrintF(diag, "biosnoop: %d records could not be decoded; first: %s\n",
                  pipeline.decode_errors, pipeline.first_decode_error);
  }
  if (result.code() == absl::StatusCode::kCancelled) return absl::OkStatus();
  if (!result.ok()) return WithExitCode(result, kExitIoError);
  return absl::OkStatus();
}

}  // namespace biosnoop
