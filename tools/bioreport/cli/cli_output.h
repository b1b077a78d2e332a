#pragma once

// Where convert and heatmap write with -o FILE: one rule for both (and for
// biosnoop's -o, output_target.h): the file must not exist or be empty; a
// regular file, a FIFO (waited for until a process reads it), a terminal
// or /dev/null; a block device, a directory, a socket or another character
// device is refused before anything is written.

#include <cstdio>
#include <memory>
#include <string>

#include "output_file.h"

namespace biosnoop::report {

// Opens `path` for writing records of `framing` ("-": stdout, by the same
// rule).  On failure,
// prints the one-line reason to `err` and returns nullptr with the exit
// code in *exit_code (64: exists and is not empty; 73: cannot be opened or
// is no place for a stream).
std::unique_ptr<OutputFile> OpenCommandOutput(const std::string& path,
                                              RecordFraming framing,
                                              std::FILE* err, int* exit_code);

}  // namespace biosnoop::report
