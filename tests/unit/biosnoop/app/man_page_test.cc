// biosnoop's man page and --help come from one table (BiosnoopDoc): each
// lists the options the other does, the parser takes every one of them,
// and Debian's man tools render the page without a warning.

#include <unistd.h>

#include <climits>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "app/man_page_check.h"
#include "cli_doc.h"
#include "gtest/gtest.h"
#include "options.h"

namespace biosnoop {
namespace {

std::string Page() {
  return cli::ManPage(BiosnoopDoc(), "0.1.0", "2026-01-02");
}

TEST(ManPageTest, ListsEveryOptionHelpListsAndNoOther) {
  const std::set<std::string> help = man_check::HelpOptions(UsageText());
  const std::set<std::string> man = man_check::ManOptions(Page());
  EXPECT_EQ(help, man);
  // Not two empty sets: a sample of each kind.
  for (const char* o : {"--min-us", "-d", "--disk", "--writeback-owner",
                        "--no-writeback-owner", "--hist", "-D", "--version"}) {
    EXPECT_EQ(help.count(o), 1u) << o;
  }
  EXPECT_EQ(help.size(), 37u + 15u) << "37 long options, 15 short ones";
  // The letters other tools' users type (bcc, libbpf-tools, tcpdump -Z).
  for (const char* o : {"-c", "-t", "-T", "-V", "-j", "-Z"}) {
    EXPECT_EQ(help.count(o), 1u) << o;
  }
}

// The table is getopt_long's too: every documented option is one the
// parser knows.
TEST(ManPageTest, TheParserTakesEveryDocumentedOption) {
  for (const cli::Section& s : BiosnoopDoc().sections) {
    for (const cli::Entry& e : s.entries) {
      for (const cli::Flag& f : e.flags) {
        std::vector<std::string> args = {"biosnoop"};
        if (f.long_name != nullptr) {
          args.push_back(absl::StrCat("--", f.long_name));
          if (f.arg != nullptr) args.back() += "=x";
        }
        if (f.short_name != 0) {
          args.push_back(absl::StrCat("-", std::string(1, f.short_name)));
          if (f.arg != nullptr) args.push_back("x");
        }
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        absl::StatusOr<Options> o =
            ParseOptions(static_cast<int>(args.size()), argv.data());
        if (!o.ok()) {
          EXPECT_FALSE(absl::StartsWith(o.status().message(), "unknown"))
              << args[1] << ": " << o.status();
        }
      }
    }
  }
}

TEST(ManPageTest, HelpFitsEightyColumns) {
  std::istringstream lines(UsageText());
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 79u) << line;
  }
}

// --help ends with the examples the man page has, each command as typed;
// both give the two forms of the command line.
TEST(ManPageTest, HelpAndPageShowTheExamplesAndBothForms) {
  const std::string help = UsageText();
  const size_t examples = help.find("\nExamples:\n");
  ASSERT_NE(examples, std::string::npos) << help;
  ASSERT_FALSE(BiosnoopDoc().examples.empty());
  for (const cli::Example& x : BiosnoopDoc().examples) {
    for (absl::string_view line : absl::StrSplit(x.command, '\n')) {
      EXPECT_NE(help.find(absl::StrCat("\n    ", line, "\n"), examples),
                std::string::npos)
          << line;
    }
  }
  EXPECT_TRUE(
      absl::StartsWith(help,
                       "Usage: biosnoop [OPTIONS] [DURATION]\n"
                       "       biosnoop --hist [OPTIONS] [INTERVAL [COUNT]]\n"))
      << help;
  const std::string text =
      man_check::ExpectRendersCleanly("biosnoop", "8", Page());
  EXPECT_TRUE(absl::StrContains(text,
                                "biosnoop --hist [OPTIONS] [INTERVAL "
                                "[COUNT]]"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "biosnoop --hist -m 1 3")) << text;
}

TEST(ManPageTest, RendersWithoutWarnings) {
  const std::string text =
      man_check::ExpectRendersCleanly("biosnoop", "8", Page());
  for (const char* want :
       {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "FILES",
        "SEE ALSO", "--metrics-listen ADDR:PORT", "bioreport(1)"}) {
    EXPECT_TRUE(absl::StrContains(text, want)) << want;
  }
  // Section 8: a tool that only root runs (libbpf-tools' biosnoop is in
  // /usr/sbin too).
  EXPECT_TRUE(absl::StrContains(Page(), "\"System Administration\""));
}

// The page the build wrote (build/man/man8/biosnoop.8, beside this test's
// build/tests/unit/) is the table's, not an older one's.
TEST(ManPageTest, TheBuiltPageIsCurrent) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ASSERT_GT(n, 0);
  std::string build(exe, static_cast<size_t>(n));
  for (int i = 0; i < 3; ++i) build.erase(build.rfind('/'));
  std::ifstream in(build + "/man/man8/biosnoop.8");
  if (!in)
    GTEST_SKIP() << "no " << build << "/man/man8/biosnoop.8 (build "
                 << "the man_pages target)";
  std::stringstream built;
  built << in.rdbuf();
  // Its date is the build's: compare the rest.
  const std::string page = built.str();
  const size_t date = page.find(" 8 \"") + 4;
  const std::string day = page.substr(date, 10);
  EXPECT_EQ(page, cli::ManPage(BiosnoopDoc(), BIOSNOOP_VERSION, day));
}

}  // namespace
}  // namespace biosnoop
