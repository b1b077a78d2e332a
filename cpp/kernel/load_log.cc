// libbpf's message callback (load_log.h).  libbpf 1.1 says of a program
// the kernel refused "prog 'NAME': BPF program load failed: ...", then the
// verifier's log between "-- BEGIN PROG LOAD LOG --" and "-- END PROG
// LOAD LOG --" (its verdict is the last line before the statistics), then
// "prog 'NAME': failed to load: -ERR".

#include "load_log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace biosnoop {
namespace {

int g_verbose = 0;
LoadRefusal g_refusal;

// The verifier's verdict: the log's last line that is not its statistics.
std::string Verdict(absl::string_view log) {
  std::string verdict;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "processed ") ||
        absl::StartsWith(line, "verification time") ||
        absl::StartsWith(line, "stack depth") ||
        absl::StartsWith(line, "-- END")) {
      continue;
    }
    verdict = std::string(line);
  }
  return verdict;
}

}  // namespace

void NoteLibbpfMessage(absl::string_view s) {
  if (!absl::ConsumePrefix(&s, "libbpf: prog '")) return;
  const size_t quote = s.find('\'');
  if (quote == absl::string_view::npos) return;
  const absl::string_view name = s.substr(0, quote);
  const absl::string_view rest = s.substr(quote);
  if (absl::StrContains(rest, "BEGIN PROG LOAD LOG")) {
    g_refusal.program = std::string(name);
    g_refusal.verdict = Verdict(rest.substr(rest.find('\n') + 1));
  } else if (absl::StrContains(rest, "failed to load") ||
             absl::StrContains(rest, "load failed")) {
    g_refusal.program = std::string(name);
  }
}

namespace {

int Print(enum libbpf_print_level level, const char* format, va_list args) {
  if (level != LIBBPF_DEBUG) {
    // Whole: the verifier's log can be long, and its verdict is at the end.
    va_list copy;
    va_copy(copy, args);
    const int n = vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (n > 0) {
      std::string text(static_cast<size_t>(n) + 1, '\0');
      va_copy(copy, args);
      vsnprintf(text.data(), text.size(), format, copy);
      va_end(copy);
      NoteLibbpfMessage(text);
    }
  }
  // libbpf is chatty on expected paths (feature probes); its text only
  // helps when the user asked for it with -v.
  if (g_verbose == 0) return 0;
  if (level == LIBBPF_DEBUG && g_verbose < 2) return 0;
  return vfprintf(stderr, format, args);
}

}  // namespace

void SetLibbpfVerbosity(int verbose) {
  g_verbose = verbose;
  libbpf_set_print(Print);
}

void ResetLoadRefusal() { g_refusal = LoadRefusal(); }

LoadRefusal LastLoadRefusal() { return g_refusal; }

}  // namespace biosnoop
