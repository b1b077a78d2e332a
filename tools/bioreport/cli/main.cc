// bioreport: reads biosnoop streams and reports on the slow I/O in them.
// Kept small: RunBioreport (bioreport_cli.h) does the work; see also
// docs/bioreport.md.

#include <csignal>
#include <cstdio>

#include "bioreport_cli.h"
#include "google/protobuf/stubs/logging.h"

int main(int argc, char** argv) {
  // A closed pipe (bioreport ... | head) is an ordinary end, seen as EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // Corrupt input is reported by bioreport itself, with file and offset;
  // protobuf's own log lines about it would only add noise.
  google::protobuf::SetLogHandler(nullptr);
  return biosnoop::report::RunBioreport(argc, argv, stdout, stderr);
}
