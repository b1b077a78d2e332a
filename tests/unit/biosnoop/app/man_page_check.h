#pragma once

// What the man page tests of biosnoop (man_page_test.cc) and bioreport
// (bioreport_cli_test.cc) share: the options a --help text and a man page
// list, each read the way a person reads it (the option column of --help,
// the .TP tags of the page), and the warnings of Debian's man page tools
// (groff, mandoc, man; tools/install-deps installs them).

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace biosnoop::man_check {

// "-d", "--disk" and "--no-writeback-owner" in a term.
inline void AddOptionTokens(const std::string& term,
                            std::set<std::string>* out) {
  static const std::regex kOption("(^|[ ,])(--?[A-Za-z0-9][A-Za-z0-9-]*)");
  for (std::sregex_iterator it(term.begin(), term.end(), kOption), end;
       it != end; ++it) {
    out->insert((*it)[2].str());
  }
}

// The options in --help's option column: a line that starts with blanks
// and a dash names options up to the gap before its paragraph.  Options
// only mentioned in a paragraph are not counted.
inline std::set<std::string> HelpOptions(const std::string& help) {
  std::set<std::string> out;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start == 0 || start == std::string::npos || line[start] != '-') {
      continue;
    }
    const size_t gap = line.find("  ", start);
    AddOptionTokens(
        line.substr(start,
                    gap == std::string::npos ? std::string::npos : gap - start),
        &out);
  }
  return out;
}

// The options in a man page's .TP tags (the line after each .TP), font
// changes removed and \- read as a dash.
inline std::set<std::string> ManOptions(const std::string& roff) {
  std::set<std::string> out;
  std::istringstream lines(roff);
  bool tag = false;
  for (std::string line; std::getline(lines, line);) {
    if (tag) {
      std::string plain =
          std::regex_replace(line, std::regex(R"(\\f[BIRP])"), "");
      plain = std::regex_replace(plain, std::regex(R"(\\-)"), "-");
      AddOptionTokens(plain, &out);
    }
    tag = line == ".TP";
  }
  return out;
}

// Runs a shell command; its output (stdout and stderr as the command
// redirects them) and exit status.
inline std::string Run(const std::string& command, int* status) {
  std::string out;
  std::FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) {
    *status = -1;
    return "popen failed";
  }
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
    out.append(buf, n);
  }
  const int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// Writes `page` to a file, checks that groff (every warning on), mandoc's
// lint and man -l have nothing to say about it and that man renders it
// naming `name` and its `section` in its header ("BIOSNOOP(8)"); returns
// the rendered text.
inline std::string ExpectRendersCleanly(const std::string& name,
                                        const std::string& section,
                                        const std::string& page) {
  char path[] = "/tmp/man_page_check_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  if (fd < 0) return "";
  close(fd);
  std::ofstream(path) << page;
  const std::string file = std::string("'") + path + "'";
  int status = 0;
  EXPECT_EQ(Run("groff -man -Tutf8 -ww -z " + file + " 2>&1", &status), "");
  EXPECT_EQ(status, 0) << "groff";
  EXPECT_EQ(Run("mandoc -T lint " + file + " 2>&1", &status), "");
  EXPECT_EQ(status, 0) << "mandoc -T lint (tools/install-deps installs it)";
  EXPECT_EQ(Run("MANWIDTH=80 man --warnings -l " + file + " 2>&1 >/dev/null",
                &status),
            "");
  EXPECT_EQ(status, 0) << "man --warnings -l";
  const std::string rendered = Run("MANWIDTH=80 man -l " + file, &status);
  EXPECT_EQ(status, 0) << "man -l";
  std::string upper;
  for (char c : name) upper.push_back(static_cast<char>(std::toupper(c)));
  EXPECT_EQ(rendered.find(upper + "(" + section + ")"), 0u)
      << rendered.substr(0, 200);
  std::remove(path);
  return rendered;
}

}  // namespace biosnoop::man_check
