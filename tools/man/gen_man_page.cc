// gen_man_page PROGRAM VERSION DATE OUT: writes PROGRAM's man page (roff)
// to OUT, from the option table its --help is printed from.  Run by the
// build (tools/man/CMakeLists.txt) for build/man/man8/biosnoop.8 and
// build/man/man1/bioreport.1.

#include <cstdio>
#include <string>

#include "cli_doc.h"
#include "cli_options.h"
#include "options.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: gen_man_page biosnoop|bioreport VERSION DATE OUT\n");
    return 64;
  }
  const std::string program = argv[1];
  const biosnoop::cli::ProgramDoc* doc =
      program == "biosnoop"    ? &biosnoop::BiosnoopDoc()
      : program == "bioreport" ? &biosnoop::report::BioreportDoc()
                               : nullptr;
  if (doc == nullptr) {
    std::fprintf(stderr, "gen_man_page: no program %s\n", argv[1]);
    return 64;
  }
  const std::string page = biosnoop::cli::ManPage(*doc, argv[2], argv[3]);
  // Written whole or not at all: a half-written page would look current
  // to the build.
  const std::string tmp = std::string(argv[4]) + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) {
    std::perror(tmp.c_str());
    return 73;
  }
  const bool written =
      std::fwrite(page.data(), 1, page.size(), f) == page.size();
  if (std::fclose(f) != 0 || !written ||
      std::rename(tmp.c_str(), argv[4]) != 0) {
    std::perror(argv[4]);
    std::remove(tmp.c_str());
    return 74;
  }
  return 0;
}
