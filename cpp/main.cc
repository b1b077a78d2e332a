// biosnoop: log slow block I/O as JSON lines.  main() only parses options,
// runs the pipeline and maps its status to an exit code.

#include <cstdio>

#include "absl/strings/str_format.h"
#include "exit_codes.h"
#include "options.h"
#include "runner.h"
#include "std_fds.h"

int main(int argc, char** argv) {
  const biosnoop::ClosedStdFds closed = biosnoop::OccupyClosedStdFds();
  absl::StatusOr<biosnoop::Options> options = biosnoop::ParseOptions(argc, argv);
  if (!options.ok()) {
    absl::FPrintF(stderr, "biosnoop: %s\n", options.status().message());
    return biosnoop::kExitUsage;
  }
  if (options->help) {
    std::fputs(biosnoop::UsageText(), stdout);
    return biosnoop::kExitOk;
  }
  if (options->version) {
    std::printf("biosnoop %s\n", BIOSNOOP_VERSION);
    return biosnoop::kExitOk;
  }
  if (closed.out && options->output == "-") {
    absl::FPrintF(stderr,
                  "biosnoop: stdout is closed: give -o FILE for the output\n");
    return biosnoop::kExitCantCreate;
  }
  absl::Status status = biosnoop::Run(*options, stderr);
  if (!status.ok()) {
    absl::FPrintF(stderr, "biosnoop: %s\n", status.message());
  }
  return biosnoop::ExitCodeFor(status);
}
