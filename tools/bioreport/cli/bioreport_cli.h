#pragma once

// The bioreport command: parses the options (cli_options.h), reads the
// inputs in time order ("-" or none: stdin), feeds every record to the
// analysis and prints the report asked for, or converts the stream; maps
// what went wrong to an exit code.  See docs/bioreport.md.

#include <cstdio>

#include "cli_options.h"

namespace biosnoop::report {

// Exit codes (sysexits.h values).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;       // bad usage
inline constexpr int kExitData = 65;        // not a biosnoop stream; --strict
inline constexpr int kExitNoInput = 66;     // an input cannot be opened
inline constexpr int kExitCantCreate = 73;  // output cannot be opened or is
                                            // no place for a stream
inline constexpr int kExitIo = 74;          // reading or writing failed

// Runs bioreport: reports go to `out`, warnings and errors to `err`.
// Convert writes to stdout or --output.  Returns the exit code.
int RunBioreport(int argc, char** argv, std::FILE* out, std::FILE* err);

}  // namespace biosnoop::report
