// From the collected figures to the document and its destination.

#include "heatmap_command.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bioreport_cli.h"
#include "cli_output.h"
#include "heatmap.h"
#include "heatmap_svg.h"
#include "text_table.h"

namespace biosnoop::report {
namespace {

// The WARNING block's lines without their prefix and heading.
std::vector<std::string> WarningLines(const std::string& block) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(block, '\n')) {
    if (!absl::ConsumePrefix(&line, "WARNING:")) continue;
    line = absl::StripLeadingAsciiWhitespace(line);
    if (line.empty() || absl::EndsWith(line, "missing from this report:")) {
      continue;
    }
    lines.emplace_back(line);
  }
  return lines;
}

}  // namespace

HeatmapBinner MakeHeatmapBinner(const CliOptions& o) {
  return HeatmapBinner(o.report_options.by, o.heatmap_bucket_ns);
}

int WriteHeatmap(const CliOptions& o, const ReportInput& in,
                 const HeatmapBinner& binner, std::FILE* out, std::FILE* err) {
  HeatmapOptions options;
  options.by = o.report_options.by;
  options.max_columns = o.heatmap_columns;
  options.fixed_width_ns = o.heatmap_bucket_ns;
  options.since_ns = o.filter.since_ns;
  options.until_ns = o.filter.until_ns;
  // The summary records count block I/O: no line of theirs belongs on a
  // map of calls, whose lines come from the calls drawn.
  BaselineCollector none(o.filter);
  none.Finish();
  absl::StatusOr<Heatmap> map =
      BuildHeatmap(binner, o.heatmap_ops ? none : *in.baseline, options);
  if (!map.ok()) {
    absl::FPrintF(err, "bioreport: %s\n", map.status().message());
    return kExitUsage;
  }
  // As for csv and json: the document is for a browser, the warnings for
  // whoever runs the command, and for whoever opens the picture later.
  const std::string block =
      o.heatmap_ops ? OpsWarningBlock(in, false) : WarningBlock(in);
  std::fputs(block.c_str(), err);
  HeatmapLabels labels;
  labels.by = o.report_options.by;
  labels.show_host = o.filter.host.empty() && in.agg->MultiHost();
  labels.hosts = o.filter.host.empty()
                     ? in.agg->Hosts()
                     : std::vector<std::string>{o.filter.host};
  labels.warnings = WarningLines(block);
  labels.calls = o.heatmap_ops;
  // All I/O (or every call) when every run drawn logged everything and no
  // --min-us selects: no "slow" in the title then.
  const std::vector<uint64_t>& thresholds = binner.thresholds();
  labels.every_io = !thresholds.empty() && o.filter.min_us == 0 &&
                    std::all_of(thresholds.begin(), thresholds.end(),
                                [](uint64_t us) { return us == 0; });
  const std::string text = o.heatmap_html ? RenderHeatmapHtml(*map, labels)
                                          : RenderHeatmapSvg(*map, labels);
  if (o.output != "-") {
    int code = kExitOk;
    std::unique_ptr<OutputFile> file =
        OpenCommandOutput(o.output, RecordFraming::kLines, err, &code);
    if (file == nullptr) return code;
    absl::Status s = file->Append(text);
    if (s.ok()) s = file->Flush();
    if (s.code() == absl::StatusCode::kCancelled) return kExitOk;  // | head
    if (!s.ok()) {
      absl::FPrintF(err, "bioreport: %s\n", Printable(s.message()));
      return kExitIo;
    }
    return kExitOk;
  }
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() ||
      std::fflush(out) != 0) {
    if (errno == EPIPE) return kExitOk;
    absl::FPrintF(err, "bioreport: writing the heat map: %s\n",
                  std::strerror(errno));
    return kExitIo;
  }
  return kExitOk;
}

}  // namespace biosnoop::report
