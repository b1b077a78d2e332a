// The command dispatch: one pass over the inputs feeds each record to
// the collectors that want it (every record to the runs and their loss,
// those in --since/--until to the time span, the selected ones to the
// event figures and the stuck requests, summaries to the baseline, which
// selects its own), then one report form is printed.  Messages are
// printed here and nowhere below: the layers return Statuses.

#include "bioreport_cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "aggregator.h"
#include "baseline.h"
#include "cli_output.h"
#include "convert.h"
#include "heatmap_command.h"
#include "ops.h"
#include "report_why.h"
#include "stream_set.h"
#include "stuck.h"
#include "text_table.h"
#include "why.h"

namespace biosnoop::report {
namespace {

int ExitCodeFor(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
      return kExitNoInput;
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kInvalidArgument:
      return kExitData;
    default:
      return kExitIo;
  }
}

int RunConvert(const CliOptions& o, StreamSet* set, std::FILE* err) {
  const RecordFraming framing = o.to == StreamFormat::kProtobuf
                                    ? RecordFraming::kVarintDelimited
                                    : RecordFraming::kLines;
  if (o.output == "-") {
    if (o.to == StreamFormat::kProtobuf && isatty(STDOUT_FILENO)) {
      absl::FPrintF(err,
                    "bioreport: refusing to write protobuf to a terminal; "
                    "redirect stdout or use --output\n");
      return kExitUsage;
    }
  }
  int code = kExitOk;
  std::unique_ptr<OutputFile> file =
      OpenCommandOutput(o.output, framing, err, &code);
  if (file == nullptr) return code;
  ConvertCounts counts;
  absl::Status s = Convert(set, o.filter, o.to, file.get(), &counts);
  if (s.code() == absl::StatusCode::kCancelled) return kExitOk;  // | head
  if (!s.ok()) {
    absl::FPrintF(err, "bioreport: %s\n", Printable(s.message()));
    return s.code() == absl::StatusCode::kDataLoss ||
                   s.code() == absl::StatusCode::kInvalidArgument
               ? kExitData
               : kExitIo;
  }
  return kExitOk;
}

}  // namespace

int RunBioreport(int argc, char** argv, std::FILE* out, std::FILE* err) {
  absl::StatusOr<CliOptions> parsed = ParseArgs(argc, argv);
  if (!parsed.ok()) {
    absl::FPrintF(err, "bioreport: %s (see bioreport --help)\n",
                  parsed.status().message());
    return kExitUsage;
  }
  const CliOptions& o = *parsed;
  if (o.help) {
    std::fputs(UsageText(), out);
    return kExitOk;
  }
  if (o.version) {
    absl::FPrintF(out, "bioreport %s\n", BIOSNOOP_VERSION);
    return kExitOk;
  }

  ReaderOptions reader_options;
  reader_options.strict = o.strict;
  // Messages about damage quote the input (a key, a record type): escaped,
  // so that a crafted line cannot forge a warning or send terminal escapes.
  reader_options.warn = [err](absl::string_view message) {
    absl::FPrintF(err, "bioreport: %s\n", Printable(message));
  };
  std::vector<std::string> inputs = o.inputs;
  if (inputs.empty()) inputs.push_back("-");
  const size_t input_count = inputs.size();
  absl::StatusOr<StreamSet> set =
      StreamSet::Open(std::move(inputs), reader_options);
  if (!set.ok()) {
    absl::FPrintF(err, "bioreport: %s\n", set.status().message());
    return ExitCodeFor(set.status());
  }
  if (o.report == "convert") return RunConvert(o, &*set, err);

  AggregatorOptions agg_options;
  agg_options.keep_latencies = o.report == "summary" || o.report == "json";
  agg_options.tail_us = o.tail_us;
  agg_options.host = o.filter.host;
  Aggregator agg(agg_options);
  const Filter& filter = o.filter;
  BaselineCollector baseline(filter);
  StuckCollector stuck;
  // The calls (ops): --top of them kept; with --op-id, that one call and
  // the events and stuck records that name it.
  OpCollector ops(o.report == "ops" ? o.report_options.top : 0,
                  o.report == "ops" ? o.op_id : std::nullopt);
  const bool want_ops = o.report == "ops";
  // why: the selected calls' causes (report_why.h); --op-id selects by
  // number within the window and host, as for ops.
  const bool want_why = o.report == "why";
  WhyCollector why(o.why_slowest);
  // --op-id selects by the window and host only (cli_options.cc refuses
  // the other filters with it).
  auto op_id_selects = [&](const std::string& host, int64_t ns) {
    return filter.InWindow(ns) && (filter.host.empty() || host == filter.host);
  };
  // The heat map bins the selected events as they pass (none is kept).
  std::optional<HeatmapBinner> heatmap;
  if (o.report == "heatmap") heatmap.emplace(MakeHeatmapBinner(o));
  absl::Status s = set->ForEach(
      [&](const RecordReader&) {
        agg.StartInput();
        baseline.StartInput();
        ops.StartInput();
      },
      [&](const ParsedRecord& rec) -> absl::Status {
        if (rec.kind == RecordKind::kEvent) {
          const int64_t ns = ToNs(rec.event.timestamp());
          if (filter.InWindow(ns)) agg.AddRecordTime(ns);
          agg.AddEventSeq(rec.event);
          if (o.op_id && op_id_selects(rec.event.host(), ns)) {
            ops.AddEvent(rec.event, ns);
          }
          if (filter.Matches(rec.event, ns)) {
            // The heat map needs none of the event figures (its warnings
            // come from the runs, above): binning alone keeps it fast.
            if (heatmap && o.heatmap_ops) {
              // A map of the calls: events are not drawn.
            } else if (heatmap) {
              heatmap->Add(rec.event.host(), rec.event.disk(), rec.event.op(),
                           ns, rec.event.latency_us());
            } else if (!want_ops && !want_why) {
              // (The calls' report needs none of the event figures either.)
              agg.AddEvent(rec.event, ns);
            }
          }
          baseline.NoteHost(rec.event.host());
          return absl::OkStatus();
        }
        if (rec.kind == RecordKind::kSummary) {
          const int64_t ns = ToNs(rec.summary.timestamp());
          if (filter.InWindow(ns)) {
            agg.AddRecordTime(ns);
            agg.CountSummary();
          }
          baseline.Add(rec.summary);
          agg.AddNonEvent(rec);
          return absl::OkStatus();
        }
        if (rec.kind == RecordKind::kStuck) {
          // Not an event: no seq (so no part in the loss figures), not in
          // the event counts; selected by the event filters but --min-us.
          const int64_t ns = ToNs(rec.stuck.timestamp());
          if (filter.InWindow(ns)) agg.AddRecordTime(ns);
          if (filter.Matches(rec.stuck, ns)) stuck.Add(rec.stuck, ns);
          if (o.op_id && op_id_selects(rec.stuck.host(), ns)) {
            ops.AddStuck(rec.stuck, ns);
          }
          baseline.NoteHost(rec.stuck.host());
          agg.AddNonEvent(rec);
          return absl::OkStatus();
        }
        if (rec.kind == RecordKind::kOp) {
          // A call: not an event (no seq); its op_id tracks op records
          // missing from the input (Aggregator::AddNonEvent).
          const int64_t ns = ToNs(rec.op.timestamp());
          if (filter.InWindow(ns)) agg.AddRecordTime(ns);
          agg.AddNonEvent(rec);
          baseline.NoteHost(rec.op.host());
          if (heatmap && o.heatmap_ops && filter.Matches(rec.op, ns)) {
            // --by op groups by the call.
            heatmap->Add(rec.op.host(), rec.op.disk(), rec.op.call(), ns,
                         rec.op.latency_us());
          }
          if (!want_ops && !want_why) return absl::OkStatus();
          ops.Count();
          if (want_why) {
            if (o.op_id ? op_id_selects(rec.op.host(), ns) &&
                              rec.op.op_id() == *o.op_id
                        : filter.Matches(rec.op, ns)) {
              why.Add(rec.op, ns);
            }
            return absl::OkStatus();
          }
          if (o.op_id ? op_id_selects(rec.op.host(), ns)
                      : filter.Matches(rec.op, ns)) {
            ops.Add(rec.op, ns);
          }
          return absl::OkStatus();
        }
        if (rec.kind == RecordKind::kHeader) {
          stuck.AddHeader(rec.header);
          baseline.AddHeader(rec.header);
          ops.AddHeader(rec.header);
          // The threshold of a run whose records the map may draw (a map
          // of calls: the runs that followed calls).
          if (heatmap &&
              (filter.host.empty() || rec.header.host() == filter.host) &&
              (!o.heatmap_ops || rec.header.ops())) {
            heatmap->AddThreshold(o.heatmap_ops ? rec.header.op_min_us()
                                                : rec.header.min_us());
          }
        }
        const int64_t ns = rec.kind == RecordKind::kHeader
                               ? ToNs(rec.header.start_time())
                               : ToNs(rec.stats.timestamp());
        if (filter.InWindow(ns)) agg.AddRecordTime(ns);
        agg.AddNonEvent(rec);
        return absl::OkStatus();
      });
  if (!s.ok()) {
    absl::FPrintF(err, "bioreport: %s\n", Printable(s.message()));
    return ExitCodeFor(s);
  }
  agg.Finish();
  baseline.Finish();

  ReportInput in;
  in.agg = &agg;
  in.damage = &set->damage();
  in.inputs = input_count;
  in.formats = set->formats();
  in.baseline = &baseline;
  in.stuck = &stuck;
  in.ops = &ops;
  if (heatmap) return WriteHeatmap(o, in, *heatmap, out, err);
  std::string text;
  if (o.report == "summary") text = SummaryReport(in, o.report_options);
  if (o.report == "hist") text = HistReport(in, o.report_options);
  if (o.report == "top") text = TopReport(in, o.report_options);
  if (o.report == "sizes") text = SizesReport(in, o.report_options);
  if (o.report == "errors") text = ErrorsReport(in, o.report_options);
  if (o.report == "ops" && o.baseline_form == "json") {
    // As for csv and json: the warnings go to stderr.
    std::fputs(OpsWarningBlock(in, o.op_id.has_value()).c_str(), err);
    text = o.op_id ? OpIdJson(in, o.report_options)
                   : OpsJson(in, o.report_options);
  } else if (o.report == "ops") {
    text = o.op_id ? OpIdReport(in, o.report_options)
                   : OpsReport(in, o.report_options);
  }
  if (want_why) {
    const WhyOptions why_options{
        .filter = &filter, .op_id = o.op_id, .slowest = o.why_slowest};
    const bool json = o.baseline_form == "json";
    absl::StatusOr<std::string> r =
        json ? WhyJson(in, why, why_options) : WhyReport(in, why, why_options);
    if (!r.ok()) {
      // An --op-id that names no call: the input does not hold what was
      // asked for (exit 65, as for input that is not what it should be).
      std::fputs(OpsWarningBlock(in, false).c_str(), err);
      absl::FPrintF(err, "bioreport: %s\n", Printable(r.status().message()));
      return kExitData;
    }
    // As for ops --json: the warnings go to stderr.
    if (json) std::fputs(OpsWarningBlock(in, false).c_str(), err);
    text = *std::move(r);
  }
  if (o.report == "baseline" && o.baseline_form == "text") {
    text = BaselineReport(in, o.report_options);
  } else if (o.report == "baseline") {
    // As for csv and json: warnings, and why there are no rows, to stderr.
    std::fputs(BaselineWarningBlock(in).c_str(), err);
    const std::string empty = BaselineEmptyReason(in);
    if (!empty.empty()) absl::FPrintF(err, "bioreport: %s\n", empty);
    text = o.baseline_form == "csv" ? BaselineCsv(in, o.report_options)
                                    : BaselineJson(in, o.report_options);
  }
  if (o.report == "csv" || o.report == "json") {
    // The warning block would break the format: it goes to stderr.
    std::fputs(WarningBlock(in).c_str(), err);
    text = o.report == "csv" ? CsvReport(in) : JsonReport(in);
  }
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() ||
      std::fflush(out) != 0) {
    if (errno == EPIPE) return kExitOk;
    absl::FPrintF(err, "bioreport: writing the report: %s\n",
                  std::strerror(errno));
    return kExitIo;
  }
  return kExitOk;
}

}  // namespace biosnoop::report
