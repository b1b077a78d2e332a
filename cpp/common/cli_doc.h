#pragma once

// A program's command line described once: the options getopt_long reads,
// the --help text and the man page all come from one ProgramDoc, so none
// of them can list an option the others lack.
//
// Text fields are plain text, one paragraph each: HelpText wraps them to
// 79 columns, ManPage escapes them for roff (an option's dashes as \-) and
// lets the reader's terminal wrap them.  ASCII only.

#include <getopt.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace biosnoop::cli {

// One option as it is typed.
struct Flag {
  // Without "--": "disk"; nullptr: short only (a letter another tool's
  // users type, beside an option that has the long name).
  const char* long_name = nullptr;
  char short_name = 0;  // 'd'; 0: long only
  // The value's name ("NAME", "read|write": upper case is a placeholder,
  // lower case a literal word); nullptr: the option takes no value.
  const char* arg = nullptr;
  // What getopt_long returns for it; 0: short_name (which then must be
  // set).  Long-only options take codes above 255.
  int code = 0;

  int Code() const { return code != 0 ? code : short_name; }
};

// One entry of a list: one or more options described together (or, with
// no flags, a word such as a report's name), and one paragraph.
struct Entry {
  std::vector<Flag> flags;
  std::string text;
  std::string word;  // instead of flags: "summary"
  // The man page only: what --help has no room for, after the text.
  std::string more;
};

// A list of entries under one heading.
struct Section {
  // --help's line above the entries ("" none), wrapped like a paragraph.
  std::string heading;
  // The man page's section (.SH) the entries go in, and their subsection
  // (.SS, "" none) with a paragraph under its title ("" none).
  std::string man_section = "OPTIONS";
  std::string man_title;
  std::string man_text;
  // --help: the column where paragraphs start (a longer term puts its
  // paragraph on the next line).
  int column = 22;
  std::vector<Entry> entries;
  // false: the man page only (SIGNALS); its entries may not be options.
  bool in_help = true;
};

struct ExitStatus {
  int code;
  std::string text;  // --help and the man page: "bad usage"
  std::string more;  // the man page only, after the text
};

struct Example {
  std::string text;     // what it does, one paragraph
  std::string command;  // the command line(s), shown as typed
};

struct ProgramDoc {
  std::string name;     // "biosnoop"
  std::string summary;  // the man page's NAME line, after the dash
  // The manual's section: "1", user commands; "8", system administration
  // (a tool that only root runs, as Debian files libbpf-tools' biosnoop).
  std::string man_section = "1";
  std::string usage;  // after the name: "[OPTIONS]"
  // Further forms of the command line, each after the name on a line of
  // its own in --help and the SYNOPSIS: "--hist [OPTIONS] [INTERVAL]".
  std::vector<std::string> more_usage;
  std::string usage_prefix = "Usage:";  // --help's first word
  // --help under the usage line, and the man page's first DESCRIPTION
  // paragraph.
  std::string intro;
  std::vector<std::string> description;  // the man page's further ones
  std::vector<Section> sections;         // in --help's order
  // --help's closing paragraphs, and the man page's last DESCRIPTION ones.
  std::vector<std::string> notes;
  // --help: "Exit codes: 0 ok, 64 bad usage." after the notes; the man
  // page's EXIT STATUS.
  std::vector<ExitStatus> exit_codes;
  std::vector<Entry> files;           // FILES: word (a path) and paragraph
  std::vector<Example> examples;      // --help's last lines; EXAMPLES
  std::vector<std::string> see_also;  // SEE ALSO: "bioreport(1)"
};

// --help: the usage lines, the introduction, each section (a blank line,
// its heading, its entries), the notes, the exit codes and the examples
// (each its paragraph, then its command indented); no line longer than 79
// columns but a single word (or an example's command line) that is.
std::string HelpText(const ProgramDoc& doc);

// The man page (in doc.man_section), roff with man(7) macros: .TH, NAME,
// SYNOPSIS, DESCRIPTION, the sections' own (OPTIONS...), EXIT STATUS, FILES,
// EXAMPLES and SEE ALSO, each where it has something to say; a .TP per
// entry.  `version` goes in the footer ("biosnoop 0.1.0"), `date`
// (YYYY-MM-DD) in .TH.
std::string ManPage(const ProgramDoc& doc, absl::string_view version,
                    absl::string_view date);

// getopt_long's tables for the documented options: every flag of every
// section, nothing else.  short_options starts with ':' (a missing value
// is told apart from an unknown option).
struct GetoptTables {
  std::string short_options;
  std::vector<struct option> long_options;  // ends with the zero entry
};
GetoptTables MakeGetoptTables(const ProgramDoc& doc);

// "--disk" for the code getopt_long returned (the long name, whichever was
// typed); "-x" for a code no flag has, or a short-only flag's.
std::string OptionName(const ProgramDoc& doc, int code);

}  // namespace biosnoop::cli
