#pragma once

// bioreport's options: what the command line asks for, parsed and checked
// (one filter value each, options only where their report uses them,
// --until after --since, stdin once) before any input is opened.
//   bioreport [REPORT] [OPTIONS] [FILE...]
// REPORT is summary (default), hist, csv, json, top, sizes, errors,
// baseline, heatmap, ops, why or convert.  See docs/bioreport.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli_doc.h"
#include "filter.h"
#include "record_reader.h"
#include "report.h"

namespace biosnoop::report {

struct CliOptions {
  std::string report = "summary";
  Filter filter;
  ReportOptions report_options;
  uint64_t tail_us = 100000;
  std::string baseline_form = "text";  // baseline: "text", "csv", "json"
                                       // (ops: "text", "json")
  bool strict = false;
  StreamFormat to = StreamFormat::kUnknown;  // convert
  std::string output = "-";                  // convert, heatmap
  bool heatmap_html = false;                 // heatmap: --html
  int heatmap_columns = 0;                   // heatmap: --columns (at most)
  int64_t heatmap_bucket_ns = 0;             // heatmap: --bucket (0: auto)
  bool heatmap_ops = false;                  // heatmap: --of ops (calls)
  std::optional<uint64_t> op_id;             // ops, why: --op-id
  size_t why_slowest = 10;                   // why: --slowest
  std::vector<std::string> inputs;           // empty: stdin
  bool help = false;
  bool version = false;
};

// Parses argv.  InvalidArgumentError with a one-line message on bad usage.
absl::StatusOr<CliOptions> ParseArgs(int argc, char** argv);

// The reports and every option, with the prose around them: what
// getopt_long reads, what --help prints and what the man page
// (build/man/man1/bioreport.1) says.
const cli::ProgramDoc& BioreportDoc();

// The --help text, made from BioreportDoc().
const char* UsageText();

}  // namespace biosnoop::report
