// biosnoop: log slow block I/O as JSON lines.  main() only parses options,
// runs the pipeline and maps its status to an exit code.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_format.h"
#include "diag_stream.h"
#include "exit_codes.h"
#include "options.h"
#include "output_file.h"
#include "runner.h"
#include "signals.h"
#include "std_fds.h"

int main(int argc, char** argv) {
  const biosnoop::ClosedStdFds closed = biosnoop::OccupyClosedStdFds();
  absl::StatusOr<biosnoop::Options> options =
      biosnoop::ParseOptions(argc, argv);
  if (!options.ok()) {
    absl::FPrintF(stderr, "biosnoop: %s\n", options.status().message());
    return biosnoop::kExitUsage;
  }
  if (options->help || options->version) {
    if (options->help) {
      std::fputs(biosnoop::UsageText(), stdout);
    } else {
      std::printf("biosnoop %s\n", BIOSNOOP_VERSION);
    }
    // stdio keeps the error of a buffered write until the flush: a text
    // that did not reach its reader (a full disk) is an output error.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      absl::FPrintF(stderr, "biosnoop: writing stdout: %s\n",
                    std::strerror(errno));
      return biosnoop::kExitIoError;
    }
    return biosnoop::kExitOk;
  }
  if (closed.out && options->output == "-") {
    absl::FPrintF(stderr,
                  "biosnoop: stdout is closed: give -o FILE for the output\n");
    return biosnoop::kExitCantCreate;
  }
  // stderr may be a pipe nobody reads: a stop must still end the run.
  std::FILE* diag =
      biosnoop::OpenDiagStream(STDERR_FILENO, &biosnoop::StopRequested,
                               biosnoop::OutputFile::kStopGrace);
  if (diag == nullptr) diag = stderr;
  absl::Status status = biosnoop::Run(*options, diag);
  if (!status.ok()) {
    absl::FPrintF(diag, "biosnoop: %s\n", status.message());
  }
  if (diag != stderr) std::fclose(diag);
  return biosnoop::ExitCodeFor(status);
}
