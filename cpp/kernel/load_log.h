#pragma once

// libbpf's messages, as biosnoop hears them: to stderr when the user asked
// (-v warnings, -vv also libbpf's debug log), and, while a load is under
// way, the program the kernel refused and the verifier's verdict on it, so
// that a refusal is reported as what it is (never as a missing privilege)
// and the feature the program serves can be switched off.

#include <string>

#include "absl/strings/string_view.h"

namespace biosnoop {

// Installs the message callback; `verbose` as ProbeConfig::verbose.
void SetLibbpfVerbosity(int verbose);

// What the last load's messages said of a refused program.
struct LoadRefusal {
  std::string program;  // "" when no program was refused
  std::string verdict;  // the verifier's last line about it, "" if none
};

// What the callback does with each of libbpf's warnings (public for its
// test): notes a refused program and its verdict.
void NoteLibbpfMessage(absl::string_view message);

// Forgets what earlier loads said; call before a load.
void ResetLoadRefusal();
// What was heard since ResetLoadRefusal().
LoadRefusal LastLoadRefusal();

}  // namespace biosnoop
