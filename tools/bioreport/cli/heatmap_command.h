#pragma once

// The heatmap command's end: the heat map of the events the dispatch fed
// to the binner (and of the summary records the baseline collector
// selected), drawn as SVG or HTML to stdout or --output.

#include <cstdio>

#include "cli_options.h"
#include "heatmap_bins.h"
#include "report.h"

namespace biosnoop::report {

// The HeatmapBinner the options ask for (--by, --bucket).
HeatmapBinner MakeHeatmapBinner(const CliOptions& o);

// Writes the heat map; the WARNING block (events may be missing) goes to
// `err` and into the picture.  Returns the exit code.
int WriteHeatmap(const CliOptions& o, const ReportInput& in,
                 const HeatmapBinner& binner, std::FILE* out, std::FILE* err);

}  // namespace biosnoop::report
