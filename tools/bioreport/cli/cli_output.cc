// The -o rule of convert and heatmap, in one place.

#include "cli_output.h"

#include <sys/stat.h>

#include "absl/strings/str_format.h"
#include "bioreport_cli.h"
#include "output_target.h"

namespace biosnoop::report {

std::unique_ptr<OutputFile> OpenCommandOutput(const std::string& path,
                                              RecordFraming framing,
                                              std::FILE* err, int* exit_code) {
  struct stat st;
  if (path != "-" && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_size > 0) {
    absl::FPrintF(err,
                  "bioreport: %s exists and is not empty; "
                  "remove it or choose another --output\n",
                  path);
    *exit_code = kExitUsage;
    return nullptr;
  }
  // The same rule as biosnoop's -o (output_target.h): a block device, a
  // directory, a socket or an odd character device is refused before a
  // byte is written.  A FIFO is waited for, as a shell redirection would
  // (Ctrl-C ends the wait).
  absl::StatusOr<std::unique_ptr<OutputFile>> out =
      OutputFile::OpenWaitingForReader(
          path, framing, [] { return false; },
          [&] {
            absl::FPrintF(err,
                          "bioreport: waiting for a process to open the FIFO "
                          "%s for reading\n",
                          QuotedPath(path));
          });
  if (!out.ok()) {
    absl::FPrintF(err, "bioreport: %s\n", out.status().message());
    *exit_code = kExitCantCreate;
    return nullptr;
  }
  return std::move(*out);
}

}  // namespace biosnoop::report
