#pragma once

// Wires the pipeline for one run: resolve the disk filter, open the output,
// load the probe, then poll -> decode -> enrich -> sink until a signal, the
// end of --duration, or a closed output; then drain, flush and summarise.

#include <cstdio>

#include "absl/status/status.h"
#include "options.h"

namespace biosnoop {

// Runs until stopped.  Informational lines (lost-event warnings, the final
// summary) go to `diag`; errors are returned, tagged with their exit code
// where the status code alone would be ambiguous (see exit_codes.h).
absl::Status Run(const Options& options, std::FILE* diag);

}  // namespace biosnoop
