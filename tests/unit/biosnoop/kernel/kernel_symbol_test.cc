// KernelSymbolAddress() on files in /proc/kallsyms' format, written here:
// the kernel's own symbols, modules' (with " [module]" after), two
// modules' static functions of one name, and hidden addresses.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "attribution_config.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

std::string Kallsyms(const std::string& text) {
  char path[] = "/tmp/biosnoop-kallsyms-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(KernelSymbol, KernelAndModuleSymbols) {
  const std::string f = Kallsyms(
      "ffffffff81766530 T bio_chain_endio\n"
      "ffffffffc0a01230 t clone_endio\t[other_mod]\n"
      "ffffffffc0b04560 t clone_endio\t[dm_mod]\n"
      "ffffffffc0b09990 T dm_get_device\t[dm_mod]\n");
  EXPECT_EQ(KernelSymbolAddress(f, "bio_chain_endio"), 0xffffffff81766530u);
  // Without a module, the first of the name; with one, that module's.
  EXPECT_EQ(KernelSymbolAddress(f, "clone_endio"), 0xffffffffc0a01230u);
  EXPECT_EQ(KernelSymbolAddress(f, "clone_endio", "dm_mod"),
            0xffffffffc0b04560u);
  EXPECT_EQ(KernelSymbolAddress(f, "clone_endio", "raid1"), 0u);
  // A kernel symbol is in no module.
  EXPECT_EQ(KernelSymbolAddress(f, "bio_chain_endio", "dm_mod"), 0u);
  EXPECT_EQ(KernelSymbolAddress(f, "dm_get_device", "dm_mod"),
            0xffffffffc0b09990u);
  EXPECT_EQ(KernelSymbolAddress(f, "absent"), 0u);
  std::remove(f.c_str());
}

TEST(KernelSymbol, HiddenAddressesAndNoFileAreZero) {
  const std::string f = Kallsyms("0000000000000000 t clone_endio\t[dm_mod]\n");
  EXPECT_EQ(KernelSymbolAddress(f, "clone_endio", "dm_mod"), 0u);
  std::remove(f.c_str());
  EXPECT_EQ(KernelSymbolAddress("/nonexistent/kallsyms", "clone_endio"), 0u);
}

}  // namespace
}  // namespace biosnoop
