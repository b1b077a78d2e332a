// --help, the man page and getopt_long's tables from one ProgramDoc
// (cli_doc.h).

#include "cli_doc.h"

#include <algorithm>
#include <cstddef>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace biosnoop::cli {
namespace {

constexpr size_t kHelpWidth = 79;

// Appends `words` to *out, whose current line already holds `column`
// characters, one space apart; a word that would pass kHelpWidth starts a
// new line indented by `indent`.  Ends the last line.
void AppendWords(std::string* out, const std::vector<std::string>& words,
                 size_t column, size_t indent) {
  bool line_has_word = false;
  for (const std::string& word : words) {
    if (line_has_word && column + 1 + word.size() > kHelpWidth) {
      absl::StrAppend(out, "\n", std::string(indent, ' '));
      column = indent;
      line_has_word = false;
    }
    if (line_has_word) {
      out->push_back(' ');
      ++column;
    }
    absl::StrAppend(out, word);
    column += word.size();
    line_has_word = true;
  }
  out->push_back('\n');
}

// A paragraph, wrapped at its blanks.
void AppendWrapped(std::string* out, absl::string_view text, size_t column,
                   size_t indent) {
  AppendWords(out,
              absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty()),
              column, indent);
}

bool HasShortOptions(const ProgramDoc& doc) {
  for (const Section& s : doc.sections) {
    for (const Entry& e : s.entries) {
      for (const Flag& f : e.flags) {
        if (f.short_name != 0) return true;
      }
    }
  }
  return false;
}

// "-d, --disk NAME", "--since TIME, --until TIME", or the word.
std::string HelpTerm(const Entry& e) {
  if (e.flags.empty()) return e.word;
  std::vector<std::string> parts;
  for (const Flag& f : e.flags) {
    std::string part = f.short_name != 0
                           ? absl::StrCat("-", std::string(1, f.short_name))
                           : "";
    if (f.long_name != nullptr) {
      absl::StrAppend(&part, part.empty() ? "" : ", ", "--", f.long_name);
    }
    if (f.arg != nullptr) absl::StrAppend(&part, " ", f.arg);
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, ", ");
}

// roff: a backslash is \e; a dash that starts a word (an option, "-vv")
// and every dash after it in that word are \- (a minus, which man renders
// as an ASCII dash that can be copied), other dashes stay hyphens
// ("dm-crypt").  A leading '.' or '\'' would be a request: \& before it.
std::string RoffText(absl::string_view text) {
  std::string out;
  bool in_option = false;
  char prev = ' ';
  for (char c : text) {
    if (c == '\n') c = ' ';
    // Blanks in a text line print as they are: "end.  Next" would keep two.
    if (c == ' ' && prev == ' ') continue;
    if (c == ' ') in_option = false;
    if (c == '-' && (prev == ' ' || prev == '(' || prev == '"' || prev == '[' ||
                     prev == '`' || prev == '/')) {
      in_option = true;
    }
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-' && in_option) {
      out += "\\-";
    } else {
      out.push_back(c);
    }
    prev = c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    out.insert(0, "\\&");
  }
  return out;
}

// A paragraph as roff text lines: a new line for each sentence (roff then
// knows where sentences end) and none longer than 79 bytes, breaking at
// blanks (filled text joins them again).
std::string RoffParagraph(absl::string_view text) {
  std::string out;
  size_t line = 0;  // bytes on the current line
  bool sentence_ended = false;
  for (absl::string_view word :
       absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    // A word starting with '.' or '\'' gets its \& here, wherever the
    // line breaks.
    std::string roff = RoffText(word);
    // Paths, options and field names are not hyphenated: "/sys-tem.slice"
    // would read as another name.
    if (word.find_first_of("/_.-") != absl::string_view::npos) {
      roff.insert(0, "\\%");
    }
    if (line > 0) {
      const bool new_sentence =
          sentence_ended && absl::ascii_isupper(word.front());
      if (new_sentence || line + 1 + roff.size() > kHelpWidth) {
        out.push_back('\n');
        line = 0;
      } else {
        out.push_back(' ');
        ++line;
      }
    }
    out += roff;
    line += roff.size();
    const char last = word.back();
    sentence_ended = last == '.' || last == '?' || last == '!';
  }
  return out;
}

// A value's name: upper-case runs in italics (placeholders), lower-case
// runs in bold (literal words), the rest ("|", ":", "...") as it is.
std::string RoffArg(absl::string_view arg) {
  std::string out;
  size_t i = 0;
  while (i < arg.size()) {
    const bool upper = absl::ascii_isupper(arg[i]);
    const bool lower = absl::ascii_islower(arg[i]);
    if (!upper && !lower) {
      out += arg[i] == '-' ? std::string("\\-") : std::string(1, arg[i]);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < arg.size() &&
           (upper ? absl::ascii_isupper(arg[j]) || absl::ascii_isdigit(arg[j])
                  : absl::ascii_islower(arg[j]) || arg[j] == '_')) {
      ++j;
    }
    absl::StrAppend(&out, upper ? "\\fI" : "\\fB", arg.substr(i, j - i),
                    "\\fR");
    i = j;
  }
  return out;
}

std::string RoffDashes(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-') {
      out += "\\-";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The text and its more, as sentences: "only reads. More."
std::string WithMore(absl::string_view text, absl::string_view more) {
  return absl::StrCat(text, absl::EndsWith(text, ".") ? " " : ". ", more);
}

std::string ManTerm(const Entry& e) {
  if (e.flags.empty()) return absl::StrCat("\\fB", RoffText(e.word), "\\fR");
  std::vector<std::string> parts;
  for (const Flag& f : e.flags) {
    std::string part;
    if (f.short_name != 0) {
      absl::StrAppend(&part, "\\fB\\-", std::string(1, f.short_name), "\\fR");
    }
    if (f.long_name != nullptr) {
      absl::StrAppend(&part, part.empty() ? "" : ", ", "\\fB\\-\\-",
                      RoffDashes(f.long_name), "\\fR");
    }
    if (f.arg != nullptr) absl::StrAppend(&part, " ", RoffArg(f.arg));
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, ", ");
}

// A code sample's line: every character as typed.
std::string RoffLiteral(absl::string_view line) {
  std::string out;
  for (char c : line) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out.push_back(c);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    out.insert(0, "\\&");
  }
  return out;
}

}  // namespace

std::string HelpText(const ProgramDoc& doc) {
  std::string out;
  AppendWrapped(&out,
                absl::StrCat(doc.usage_prefix, " ", doc.name, " ", doc.usage),
                0, 0);
  // Further forms line up under the first one's name.
  for (const std::string& usage : doc.more_usage) {
    const size_t indent = doc.usage_prefix.size() + 1;
    absl::StrAppend(&out, std::string(indent, ' '));
    AppendWrapped(&out, absl::StrCat(doc.name, " ", usage), indent, indent);
  }
  if (!doc.intro.empty()) AppendWrapped(&out, doc.intro, 0, 0);
  const bool align = HasShortOptions(doc);
  for (const Section& s : doc.sections) {
    if (!s.in_help) continue;
    out.push_back('\n');
    if (!s.heading.empty()) AppendWrapped(&out, s.heading, 0, 0);
    const size_t column = static_cast<size_t>(s.column);
    for (const Entry& e : s.entries) {
      // Long-only options line up with the long names of "-d, --disk".
      std::string term = absl::StrCat(
          align && !e.flags.empty() && e.flags[0].short_name == 0 ? "      "
                                                                  : "  ",
          HelpTerm(e));
      if (e.text.empty()) {
        absl::StrAppend(&out, term, "\n");
      } else if (term.size() + 1 <= column) {
        term.resize(column, ' ');
        absl::StrAppend(&out, term);
        AppendWrapped(&out, e.text, column, column);
      } else {
        absl::StrAppend(&out, term, "\n", std::string(column, ' '));
        AppendWrapped(&out, e.text, column, column);
      }
    }
  }
  if (!doc.notes.empty() || !doc.exit_codes.empty()) out.push_back('\n');
  for (const std::string& note : doc.notes) AppendWrapped(&out, note, 0, 0);
  if (!doc.exit_codes.empty()) {
    // A code stays on the line of its meaning's first word ("70
    // internal", never "70" alone at a line's end).
    std::vector<std::string> words = {"Exit", "codes:"};
    for (size_t i = 0; i < doc.exit_codes.size(); ++i) {
      const ExitStatus& x = doc.exit_codes[i];
      std::vector<std::string> meaning = absl::StrSplit(x.text, ' ');
      meaning.front() = absl::StrCat(x.code, " ", meaning.front());
      meaning.back() += i + 1 < doc.exit_codes.size() ? "," : ".";
      words.insert(words.end(), meaning.begin(), meaning.end());
    }
    AppendWords(&out, words, 0, 0);
  }
  if (!doc.examples.empty()) absl::StrAppend(&out, "\nExamples:\n");
  for (const Example& x : doc.examples) {
    absl::StrAppend(&out, "  ");
    AppendWrapped(&out, x.text, 2, 2);
    // As typed, each line of it: a command is copied, never rewrapped.
    for (absl::string_view line : absl::StrSplit(x.command, '\n')) {
      absl::StrAppend(&out, "    ", line, "\n");
    }
  }
  return out;
}

std::string ManPage(const ProgramDoc& doc, absl::string_view version,
                    absl::string_view date) {
  std::string out = absl::StrCat(
      ".\\\" ", doc.name, "(", doc.man_section,
      "), generated from the option table that --help prints: do not "
      "edit.\n",
      ".TH ", absl::AsciiStrToUpper(doc.name), " ", doc.man_section, " \"",
      date, "\" \"", doc.name, " ", version, "\" \"",
      doc.man_section == "8" ? "System Administration" : "User Commands",
      "\"\n",
      // Ragged right: paths and options, never hyphenated, would otherwise
      // stretch the blanks of their lines.
      ".ad l\n");
  absl::StrAppend(&out, ".SH NAME\n", doc.name, " \\- ", RoffText(doc.summary),
                  "\n");
  absl::StrAppend(&out, ".SH SYNOPSIS\n.B ", doc.name, "\n", RoffArg(doc.usage),
                  "\n");
  for (const std::string& usage : doc.more_usage) {
    absl::StrAppend(&out, ".br\n.B ", doc.name, "\n", RoffArg(usage), "\n");
  }

  absl::StrAppend(&out, ".SH DESCRIPTION\n");
  bool first = true;
  auto paragraph = [&](absl::string_view text) {
    if (!first) absl::StrAppend(&out, ".PP\n");
    absl::StrAppend(&out, RoffParagraph(text), "\n");
    first = false;
  };
  if (!doc.intro.empty()) paragraph(doc.intro);
  for (const std::string& p : doc.description) paragraph(p);
  for (const std::string& p : doc.notes) paragraph(p);

  // Each man section once, where its first list is, with all its lists.
  std::vector<std::string> man_sections;
  for (const Section& s : doc.sections) {
    if (std::find(man_sections.begin(), man_sections.end(), s.man_section) ==
        man_sections.end()) {
      man_sections.push_back(s.man_section);
    }
  }
  for (const std::string& name : man_sections) {
    absl::StrAppend(&out, ".SH ", name, "\n");
    bool after_heading = true;
    for (const Section& s : doc.sections) {
      if (s.man_section != name) continue;
      if (!s.man_title.empty()) {
        absl::StrAppend(&out, ".SS ", RoffText(s.man_title), "\n");
        after_heading = true;
      }
      if (!s.man_text.empty()) {
        if (!after_heading) absl::StrAppend(&out, ".PP\n");
        absl::StrAppend(&out, RoffParagraph(s.man_text), "\n");
      }
      for (const Entry& e : s.entries) {
        absl::StrAppend(
            &out, ".TP\n", ManTerm(e), "\n",
            RoffParagraph(e.more.empty() ? e.text : WithMore(e.text, e.more)),
            "\n");
      }
      after_heading = false;
    }
  }

  if (!doc.exit_codes.empty()) {
    absl::StrAppend(&out, ".SH EXIT STATUS\n");
    for (const ExitStatus& x : doc.exit_codes) {
      absl::StrAppend(
          &out, ".TP\n.B ", x.code, "\n",
          RoffParagraph(x.more.empty() ? x.text
                                       : absl::StrCat(x.text, ": ", x.more)),
          "\n");
    }
  }
  if (!doc.files.empty()) {
    absl::StrAppend(&out, ".SH FILES\n");
    for (const Entry& f : doc.files) {
      absl::StrAppend(&out, ".TP\n.I ", RoffLiteral(f.word), "\n",
                      RoffParagraph(f.text), "\n");
    }
  }
  if (!doc.examples.empty()) {
    absl::StrAppend(&out, ".SH EXAMPLES\n");
    first = true;
    for (const Example& x : doc.examples) {
      paragraph(x.text);
      absl::StrAppend(&out, ".PP\n.RS 4\n.EX\n");
      for (absl::string_view line : absl::StrSplit(x.command, '\n')) {
        absl::StrAppend(&out, RoffLiteral(line), "\n");
      }
      absl::StrAppend(&out, ".EE\n.RE\n");
    }
  }
  if (!doc.see_also.empty()) {
    absl::StrAppend(&out, ".SH SEE ALSO\n");
    for (size_t i = 0; i < doc.see_also.size(); ++i) {
      // "bioreport(1)" -> .BR bioreport (1), with a comma between.
      absl::string_view ref = doc.see_also[i];
      const size_t paren = ref.find('(');
      absl::StrAppend(&out, ".BR ", RoffText(ref.substr(0, paren)), " ",
                      paren == absl::string_view::npos ? "" : ref.substr(paren),
                      i + 1 < doc.see_also.size() ? "," : "", "\n");
    }
  }
  return out;
}

GetoptTables MakeGetoptTables(const ProgramDoc& doc) {
  GetoptTables t;
  t.short_options = ":";
  for (const Section& s : doc.sections) {
    for (const Entry& e : s.entries) {
      for (const Flag& f : e.flags) {
        const int has_arg = f.arg != nullptr ? required_argument : no_argument;
        if (f.short_name != 0) {
          t.short_options.push_back(f.short_name);
          if (has_arg == required_argument) t.short_options.push_back(':');
        }
        if (f.long_name != nullptr) {
          t.long_options.push_back({f.long_name, has_arg, nullptr, f.Code()});
        }
      }
    }
  }
  t.long_options.push_back({nullptr, 0, nullptr, 0});
  return t;
}

std::string OptionName(const ProgramDoc& doc, int code) {
  for (const Section& s : doc.sections) {
    for (const Entry& e : s.entries) {
      for (const Flag& f : e.flags) {
        if (f.Code() == code && f.long_name != nullptr) {
          return absl::StrCat("--", f.long_name);
        }
      }
    }
  }
  return absl::StrCat("-", std::string(1, static_cast<char>(code)));
}

}  // namespace biosnoop::cli
