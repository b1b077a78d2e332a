#pragma once

// The bioreport command line:
//   bioreport [REPORT] [OPTIONS] [FILE...]
// REPORT is summary (default), hist, csv, json, top, sizes, errors,
// baseline or convert; FILEs are read in time order ("-" or none: stdin).  See
// docs/bioreport.md.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "filter.h"
#include "record_reader.h"
#include "report.h"

namespace biosnoop::report {

// Exit codes (sysexits.h values).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;    // bad usage
inline constexpr int kExitData = 65;     // not a biosnoop stream; --strict
inline constexpr int kExitNoInput = 66;  // an input cannot be opened
inline constexpr int kExitCantCreate = 73;  // output cannot be opened or is
                                            // no place for a stream
inline constexpr int kExitIo = 74;       // reading or writing failed

struct CliOptions {
  std::string report = "summary";
  Filter filter;
  ReportOptions report_options;
  uint64_t tail_us = 100000;
  std::string baseline_form = "text";  // baseline: "text", "csv", "json"
  bool strict = false;
  StreamFormat to = StreamFormat::kUnknown;  // convert
  std::string output = "-";                  // convert
  std::vector<std::string> inputs;           // empty: stdin
  bool help = false;
  bool version = false;
};

// Parses argv.  InvalidArgumentError with a one-line message on bad usage.
absl::StatusOr<CliOptions> ParseArgs(int argc, char** argv);

// Runs bioreport: reports go to `out`, warnings and errors to `err`.
// Convert writes to stdout or --output.  Returns the exit code.
int RunBioreport(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace biosnoop::report
