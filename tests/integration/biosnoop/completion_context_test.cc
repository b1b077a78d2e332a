// The completion context on the real kernel, checked against the kernel's
// own trace of the same completions: each block_rq_complete of the loop
// device, in a tracefs instance of the test's own with irq:softirq_entry
// and irq:softirq_exit, lies inside a BLOCK softirq on its CPU or not, and
// each event of biosnoop for that request says the same.

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

const std::string kTracefs = "/sys/kernel/tracing";

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.flush();
  return f.good();
}

// Softirq entries and exits, and one disk's completions, traced.
class ContextTrace {
 public:
  explicit ContextTrace(const std::string& disk) {
    if (access((kTracefs + "/instances").c_str(), F_OK) != 0) {
      if (mount("nodev", kTracefs.c_str(), "tracefs", 0, nullptr) != 0) return;
      mounted_ = true;
    }
    std::ifstream devfile("/sys/block/" + disk + "/dev");
    unsigned major = 0, minor = 0;
    char colon = 0;
    if (!(devfile >> major >> colon >> minor)) return;
    dir_ = kTracefs + "/instances/biosnoop-ctx-" + std::to_string(getpid());
    if (mkdir(dir_.c_str(), 0755) != 0) {
      dir_.clear();
      return;
    }
    const std::string complete = dir_ + "/events/block/block_rq_complete";
    ok_ = WriteFile(dir_ + "/buffer_size_kb", "8192") &&
          WriteFile(complete + "/filter",
                    "dev == " + std::to_string(major << 20 | minor)) &&
          WriteFile(complete + "/enable", "1") &&
          WriteFile(dir_ + "/events/irq/softirq_entry/enable", "1") &&
          WriteFile(dir_ + "/events/irq/softirq_exit/enable", "1");
  }
  ~ContextTrace() {
    if (!dir_.empty()) {
      WriteFile(dir_ + "/events/enable", "0");
      rmdir(dir_.c_str());
    }
    if (mounted_) umount2(kTracefs.c_str(), MNT_DETACH);
  }
  bool ok() const { return ok_; }

  // Sector -> "softirq" when its completion ran inside a BLOCK softirq on
  // its CPU, else "other".  Also whether the buffer lost lines.
  std::map<uint64_t, std::string> Completions() const {
    std::map<uint64_t, std::string> out;
    std::map<int, int> in_block;  // cpu -> BLOCK softirqs open
    std::ifstream trace(dir_ + "/trace");
    for (std::string line; std::getline(trace, line);) {
      // "<comm>-<pid> [003] ..s1. 12.34: softirq_entry: vec=4 [action=BLOCK]"
      const size_t open = line.find(" [");
      const size_t close = line.find("] ", open);
      if (open == std::string::npos || close == std::string::npos) continue;
      const int cpu =
          std::atoi(line.substr(open + 2, close - open - 2).c_str());
      if (line.find("softirq_entry: ") != std::string::npos &&
          line.find("action=BLOCK") != std::string::npos) {
        ++in_block[cpu];
      } else if (line.find("softirq_exit: ") != std::string::npos &&
                 line.find("action=BLOCK") != std::string::npos) {
        if (in_block[cpu] > 0) --in_block[cpu];
      } else if (size_t at = line.find("block_rq_complete: ");
                 at != std::string::npos) {
        std::istringstream fields(line.substr(at + 19));
        std::string dev, rwbs, cmd;
        uint64_t sector = 0;
        if (fields >> dev >> rwbs >> cmd >> sector) {
          out[sector] = in_block[cpu] > 0 ? "softirq" : "other";
        }
      }
    }
    return out;
  }

 private:
  bool mounted_ = false;
  bool ok_ = false;
  std::string dir_;
};

TEST(CompletionContext, LoopCompletionsMatchTheKernelsSoftirqTrace) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDiskOptions o;
  o.read_delay_ms = 12;
  SlowDisk disk(o);
  ASSERT_TRUE(disk.ok()) << disk.error();
  ContextTrace trace(disk.loop_name());
  ASSERT_TRUE(trace.ok()) << "tracefs instance with irq and block events";
  Biosnoop b({"--min-us", "10000", "-d", disk.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kReads = 20;
  ASSERT_EQ(DirectDd(disk.loop_path(), true, 4096, kReads).exit_code, 0);
  ASSERT_TRUE(b.WaitForRecords("event", kReads));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::map<uint64_t, std::string> kernel = trace.Completions();
  int checked = 0;
  for (const json& e : b.Events()) {
    const auto it = kernel.find(e["sector"].get<uint64_t>());
    ASSERT_NE(it, kernel.end()) << "not in the kernel's trace: " << e;
    const std::string context = e["completion_context"];
    // Here the loop driver completes in soft IRQ (ksoftirqd or on the IRQ
    // stack); whatever it is, biosnoop must say what the kernel's trace says.
    if (it->second == "softirq") {
      EXPECT_EQ(context, "softirq") << e;
    } else {
      EXPECT_TRUE(context == "task" || context == "hardirq") << e;
    }
    ++checked;
  }
  EXPECT_EQ(checked, kReads);
}

}  // namespace
}  // namespace biosnoop::testing
