// The event stream's part of each run step; the steps' order is the
// Runner's (runner.cc).

#include "event_stream.h"

#include <langinfo.h>
#include <locale.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "biosnoop_abi.h"
#include "ecs_sink.h"
#include "hist_decoder.h"
#include "jsonl_sink.h"
#include "kernel_features.h"
#include "metrics_proto.h"
#include "metrics_text.h"
#include "process_stats.h"
#include "proto_sink.h"
#include "run_output.h"
#include "status_macros.h"
#include "stream_header.h"
#include "table_sink.h"
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

uint64_t EveryNs(absl::Duration d) {
  return d > absl::ZeroDuration()
             ? static_cast<uint64_t>(absl::ToInt64Nanoseconds(d))
             : UINT64_MAX;
}

// What the user's terminal takes, as their locale says (LC_ALL, LC_CTYPE,
// LANG): UTF-8, or only ASCII.  Read without setting the process's locale.
// A locale named but not installed: its name says ("en_US.UTF-8").
TerminalCharset LocaleCharset() {
  const locale_t user =
      newlocale(LC_CTYPE_MASK, "", static_cast<locale_t>(nullptr));
  if (user != static_cast<locale_t>(nullptr)) {
    const bool utf8 =
        absl::string_view(nl_langinfo_l(CODESET, user)) == "UTF-8";
    freelocale(user);
    return utf8 ? TerminalCharset::kUtf8 : TerminalCharset::kAscii;
  }
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    const std::string lower = absl::AsciiStrToLower(value);
    return absl::StrContains(lower, "utf-8") || absl::StrContains(lower, "utf8")
               ? TerminalCharset::kUtf8
               : TerminalCharset::kAscii;
  }
  return TerminalCharset::kAscii;
}

std::string SummaryLine(const Counters& c, const StatsSnapshot& s,
                        const MissedHooks& missed, bool ops, int verbose) {
  std::string line = absl::StrFormat(
      "biosnoop: completions=%d emitted=%d written=%d lost=%d orphans=%d "
      "below_threshold=%d filtered=%d decode_errors=%d expired=%d "
      "dropped=%d missed=%d unfinished=%d duration_s=%.1f",
      s.completions, s.emitted, s.written, s.lost, s.orphans, s.below_threshold,
      s.filtered, s.decode_errors, s.expired, s.dropped, s.missed, s.unfinished,
      s.elapsed_s);
  // --ops: the op records, beside the events (what the stats say).
  if (ops) {
    absl::StrAppend(&line, " ops_written=", s.ops_written,
                    " ops_lost=", s.ops_lost,
                    " ops_untracked=", s.ops_untracked,
                    " ops_unfollowed=", c.ops_unfollowed());
  }
  if (verbose > 0) {
    for (int i = 0; i < BIOSNOOP_CTR_MAX; ++i) {
      if (i == BIOSNOOP_CTR_COMPLETIONS || i == BIOSNOOP_CTR_EMITTED ||
          i == BIOSNOOP_CTR_LOST || i == BIOSNOOP_CTR_ORPHANS ||
          i == BIOSNOOP_CTR_BELOW_THRESHOLD || i == BIOSNOOP_CTR_FILTERED ||
          (ops && i == BIOSNOOP_CTR_OPS_UNFOLLOWED)) {
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

}  // namespace

EventStream::EventStream(const Options& options)
    : options_(options), enricher_("/sys", options.queued) {}

EventStream::~EventStream() = default;

int EventStream::poll_ms() const { return kPollMs; }

absl::StatusOr<absl::Duration> EventStream::OpenOutput(const RunState& run) {
  // Bound before the output is created and the program loaded, and while
  // privileged (a port below 1024); served once privileges are dropped.
  if (options_.metrics_port >= 0) {
    ASSIGN_OR_RETURN(metrics_, MetricsServer::Bind(options_.metrics_host,
                                                   options_.metrics_port));
  }
  // Another process on the port (anyone can take a port from 1024 up)
  // must not stop the events: they go on without the endpoint.
  if (metrics_ != nullptr && !metrics_->bound()) {
    if (options_.metrics_port < 1024) {
      absl::FPrintF(
          run.diag,
          "biosnoop: warning: %s; the events go on without the metrics "
          "endpoint, which is not tried again: a port below 1024 needs the "
          "privileges biosnoop drops once it is loaded (give a port from "
          "1024 up to have it tried again)\n",
          metrics_->InUseMessage());
      metrics_.reset();
    } else {
      absl::FPrintF(run.diag,
                    "biosnoop: warning: %s; the events go on without the "
                    "metrics endpoint, and biosnoop tries the port again "
                    "every %d s\n",
                    metrics_->InUseMessage(), MetricsServer::kRetryBindS);
      metrics_in_use_since_ = MonotonicNs();
      metrics_next_bind_ =
          metrics_in_use_since_ + MetricsServer::kRetryBindS * 1000000000ULL;
    }
  }
  if (absl::StatusOr<std::string> h = HostName(); h.ok()) host_ = *h;
  const bool proto = options_.format == Options::Format::kProto;
  if (proto && options_.output == "-" && isatty(STDOUT_FILENO)) {
    return absl::InvalidArgumentError(
        "--format proto writes binary records: give -o FILE or a pipe, not a "
        "terminal");
  }
  ASSIGN_OR_RETURN(RunOutput out,
                   OpenRunOutput(options_,
                                 proto ? RecordFraming::kVarintDelimited
                                       : RecordFraming::kLines,
                                 run.diag));
  // No --format: a person at a terminal gets the table, a file or a pipe
  // JSON Lines.  Decided by the output itself, so -o FILE is never a
  // table unless asked for (and -o /dev/tty is one).
  const bool table =
      options_.format == Options::Format::kTable ||
      (options_.format == Options::Format::kAuto && out.file->IsTerminal());
  if (proto) {
    sink_ = std::make_unique<ProtoSink>(std::move(out.file), host_);
  } else if (options_.format == Options::Format::kEcs) {
    sink_ = std::make_unique<EcsSink>(std::move(out.file), host_);
  } else if (table) {
    sink_ = std::make_unique<TableSink>(std::move(out.file), run.diag,
                                        LocaleCharset(), absl::LocalTimeZone());
  } else {
    sink_ = std::make_unique<JsonlSink>(std::move(out.file), host_);
  }
  pipeline_ = std::make_unique<RecordPipeline>(&enricher_, sink_.get());
  return out.waited;
}

absl::Status EventStream::Started(RunState& run) {
  // Privileges are dropped by now, so the watch thread has none either.
  const OutputFile& file = sink_->file();
  Probe& probe = *run.probe;
  watch_ = std::make_unique<OutputWatch>(
      LossReporter(file.DisplayName(), !file.is_regular()),
      [&file] { return file.write_started_ns(); },
      [&probe]() -> absl::StatusOr<uint64_t> {
        ASSIGN_OR_RETURN(Counters c, probe.ReadCounters());
        return c.lost();
      },
      run.diag);
  info_ = MakeStreamInfo(options_, host_,
                         enricher_.wall_clock().ToRealtimeNs(run.start_ns));
  // What this kernel lacks, already said on stderr, named in every header.
  for (const KernelLack& lack : probe.kernel_lacks()) {
    info_.kernel_lacks.push_back(lack.name);
  }
  run.Keep(sink_->WriteHeader(info_));
  stuck_.emplace(
      probe.inflight(), run.config,
      static_cast<uint64_t>(absl::ToInt64Nanoseconds(options_.stuck_after)));
  last_flush_ = run.start_ns;
  stats_every_ns_ = EveryNs(options_.stats_interval);
  if (stats_every_ns_ != UINT64_MAX)
    next_stats_ = run.start_ns + stats_every_ns_;
  // Summary records: the interval's kernel histograms (every I/O that
  // passed the filters) per disk and op, as the difference of two reads of
  // the kernel's cumulative per-CPU counts.
  summary_every_ns_ = EveryNs(options_.summary_interval);
  if (summary_every_ns_ != UINT64_MAX) {
    next_summary_ = run.start_ns + summary_every_ns_;
  }
  summary_start_ = run.start_ns;
  if (metrics_ != nullptr) {
    ASSIGN_OR_RETURN(StatsSnapshot stats, Snapshot(run, false));
    RETURN_IF_ERROR(PublishMetrics(run, stats));
    // Privileges are dropped by now, so its threads have none either.
    if (metrics_->bound()) {
      metrics_->Serve();
      absl::FPrintF(run.diag, "biosnoop: serving metrics at %s\n",
                    metrics_->Url());
    }
  }
  return absl::OkStatus();
}

absl::Status EventStream::AfterPoll(RunState& run, uint64_t now_ns) {
  if (now_ns - last_flush_ >= kFlushEveryNs) {
    last_flush_ = now_ns;
    run.Keep(sink_->Flush());
  }
  return absl::OkStatus();
}

absl::Status EventStream::NewFile(RunState& run) {
  // A rotated file starts with its own header, so it reads alone, and
  // with a stats record: how many events the files before it hold (a
  // reader of this file alone tells them from events lost on the way).
  if (!run.Keep(sink_->WriteHeader(info_))) return absl::OkStatus();
  ASSIGN_OR_RETURN(StatsSnapshot s, Snapshot(run, false));
  run.Keep(sink_->WriteStats(s));
  return absl::OkStatus();
}

absl::Status EventStream::EverySecond(RunState& run, uint64_t now_ns) {
  // A stepped wall clock shows up in the timestamps within a second.
  enricher_.Recalibrate();
  RETURN_IF_ERROR(stuck_->Look(now_ns, enricher_));
  run.Keep(stuck_->WriteFound(*sink_));
  if (metrics_ != nullptr) {
    ASSIGN_OR_RETURN(StatsSnapshot stats, Snapshot(run, false));
    RETURN_IF_ERROR(PublishMetrics(run, stats));
    RetryMetricsBind(run, now_ns);
  }
  return absl::OkStatus();
}

void EventStream::RetryMetricsBind(RunState& run, uint64_t now_ns) {
  if (metrics_->bound() || now_ns < metrics_next_bind_) return;
  // A bind that fails costs a socket() and a bind(): no reason to try
  // less often as time goes on, and the port is served within
  // kRetryBindS of being freed.
  metrics_next_bind_ = now_ns + MetricsServer::kRetryBindS * 1000000000ULL;
  const absl::StatusOr<bool> bound = metrics_->TryBind();
  if (!bound.ok()) {
    absl::FPrintF(run.diag,
                  "biosnoop: warning: %s; not tried again: the events go on "
                  "without the metrics endpoint\n",
                  bound.status().message());
    metrics_.reset();
    return;
  }
  if (!*bound) return;
  // What it serves was published on this tick, before this.
  metrics_->Serve();
  absl::FPrintF(run.diag,
                "biosnoop: --metrics-listen %s is free after %.0f s; "
                "serving metrics at %s\n",
                metrics_->Address(), (now_ns - metrics_in_use_since_) / 1e9,
                metrics_->Url());
}

absl::Status EventStream::Periodic(RunState& run, uint64_t now_ns) {
  if (now_ns >= next_summary_) {
    next_summary_ = now_ns + summary_every_ns_;
    RETURN_IF_ERROR(WriteSummary(run));
    if (!run.output_ok()) return absl::OkStatus();
  }
  if (now_ns >= next_stats_) {
    next_stats_ = now_ns + stats_every_ns_;
    ASSIGN_OR_RETURN(StatsSnapshot s, Snapshot(run, false));
    run.Keep(sink_->WriteStats(s));
  }
  return absl::OkStatus();
}

absl::Status EventStream::Drained(RunState& run) {
  run.Keep(run.probe->Drain().status());
  // A write that failed during the drain stopped it: drop the rest.
  if (pipeline_->discarding) run.Keep(run.probe->Drain().status());
  return absl::OkStatus();
}

absl::Status EventStream::LastRecords(RunState& run) {
  if (run.output_ok() && summary_every_ns_ != UINT64_MAX) {
    RETURN_IF_ERROR(WriteSummary(run));
  }
  return absl::OkStatus();
}

absl::Status EventStream::Summarise(RunState& run, uint64_t unfinished) {
  unfinished_ = unfinished;
  ASSIGN_OR_RETURN(StatsSnapshot last, Snapshot(run, true));
  // Served until the process ends: a scrape at the very end sees the
  // final counts, `unfinished` among them.
  RETURN_IF_ERROR(PublishMetrics(run, last));
  if (run.output_ok()) {
    run.Keep(sink_->WriteStats(last));
    run.Keep(sink_->Flush());
  }
  // Loss is said while it happens (OutputWatch); what is left of it, the
  // summary line says.
  watch_->Stop();
  ASSIGN_OR_RETURN(Counters counters, run.probe->ReadCounters());
  absl::FPrintF(run.diag, "%s\n",
                SummaryLine(counters, last, run.probe->ReadMissed(counters),
                            options_.ops, options_.verbose));
  if (pipeline_->decode_errors > 0) {
    absl::FPrintF(run.diag,
                  "biosnoop: %d records could not be decoded; first: %s\n",
                  pipeline_->decode_errors, pipeline_->first_decode_error);
  }
  return absl::OkStatus();
}

absl::StatusOr<StatsSnapshot> EventStream::Snapshot(RunState& run, bool final) {
  run.Keep(sink_->Flush());
  ASSIGN_OR_RETURN(Counters c, run.probe->ReadCounters());
  ConsumerCounts consumer{pipeline_->decode_errors,
                          run.upkeep->expired(),
                          sink_->events_written(),
                          sink_->events_dropped() + pipeline_->discarded,
                          unfinished_,
                          run.upkeep->missed_completions(),
                          options_.ops,
                          sink_->ops_written()};
  const uint64_t now = MonotonicNs();
  return MakeStats(c, run.probe->ReadMissed(c), consumer,
                   enricher_.wall_clock().ToRealtimeNs(now),
                   (now - run.start_ns) / 1e9, final, info_.run_id);
}

absl::Status EventStream::WriteSummary(RunState& run) {
  ASSIGN_OR_RETURN(KernelHistograms read, run.probe->ReadHistograms());
  HistSet now_set = DecodeHistograms(read);
  const uint64_t now = MonotonicNs();
  SummaryRecord r;
  r.realtime_ns = enricher_.wall_clock().ToRealtimeNs(now);
  r.interval_s = (now - summary_start_) / 1e9;
  r.min_us = options_.min_us;
  r.groups = PerDiskAndOp(HistDelta(now_set, hist_before_), now);
  hist_before_ = std::move(now_set);
  summary_start_ = now;
  run.Keep(sink_->WriteSummary(r));
  return absl::OkStatus();
}

std::vector<HistGroup> EventStream::PerDiskAndOp(const HistSet& set,
                                                 uint64_t now_ns) {
  return GroupHistograms(
      set, HistGrouping::kPerDiskAndOp,
      [this, now_ns](uint32_t major, uint32_t minor) {
        return enricher_.disk_names().Lookup(major, minor, 0, now_ns).disk;
      });
}

absl::Status EventStream::PublishMetrics(RunState& run,
                                         const StatsSnapshot& stats) {
  if (metrics_ == nullptr) return absl::OkStatus();
  // The kernel's counts are cumulative, as Prometheus counters are: no
  // difference to take, and a scraper that misses a tick loses nothing.
  ASSIGN_OR_RETURN(KernelHistograms read, run.probe->ReadHistograms());
  MetricsSnapshot m;
  m.stats = stats;
  m.stuck = stuck_.has_value() ? stuck_->reported() : 0;
  m.ops = options_.ops;
  m.ledger = options_.files && options_.writeback_owner;
  m.groups = PerDiskAndOp(DecodeHistograms(read), MonotonicNs());
  m.version = BIOSNOOP_VERSION;
  // /proc unreadable (not mounted in a container): served without them.
  if (absl::StatusOr<ProcessMetrics> p = ReadProcessMetrics(); p.ok()) {
    m.process = *p;
  }
  // Both formats, for whichever a scraper asks for: a few KiB each.
  metrics_->Publish(FormatMetrics(m), FormatMetricsProto(m));
  return absl::OkStatus();
}

}  // namespace biosnoop
