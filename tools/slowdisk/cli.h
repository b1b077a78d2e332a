#pragma once

// slowdisk's command line -> CliOptions.  Pure: reads argv only.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "settings.h"

namespace biosnoop::slowdisk {

// Exit codes (sysexits.h values, as biosnoop uses).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;        // bad flag or value
inline constexpr int kExitUnavailable = 69;  // cannot mount (no /dev/fuse...)
inline constexpr int kExitSoftware = 70;     // internal error

struct CliOptions {
  std::string mountpoint;  // the one positional argument
  uint64_t size_mib = 64;  // -s/--size-mib: size of disk.img
  Settings settings;       // initial delays and regions
  unsigned threads = 16;   // --threads: FUSE worker threads
  bool debug = false;      // --debug: libfuse's request trace
  bool help = false;       // -h/--help
};

// Parses argv.  Bad usage is an InvalidArgument whose message is one line
// naming the flag and what is wrong.
absl::StatusOr<CliOptions> ParseCli(int argc, char* const argv[]);

// The --help text, including the control-file syntax.
const char* UsageText();

}  // namespace biosnoop::slowdisk
