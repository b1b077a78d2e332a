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
#include "trace_instance.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// Sector -> "softirq" when its completion ran inside a BLOCK softirq on
// its CPU, else "other", from a trace of the disk's completions and the
// softirq entries and exits.
std::map<uint64_t, std::string> ContextsIn(const TraceInstance& trace) {
  std::map<uint64_t, std::string> out;
  std::map<int, int> in_block;  // cpu -> BLOCK softirqs open
  std::string rwbs;
  uint64_t sector = 0;
  std::istringstream text(trace.trace());
  for (std::string line; std::getline(text, line);) {
    // "<comm>-<pid> [003] ..s1. 12.34: softirq_entry: vec=4 [action=BLOCK]"
    const size_t open = line.find(" [");
    const size_t close = line.find("] ", open);
    if (open == std::string::npos || close == std::string::npos) continue;
    const int cpu = std::atoi(line.substr(open + 2, close - open - 2).c_str());
    if (line.find("softirq_entry: ") != std::string::npos &&
        line.find("action=BLOCK") != std::string::npos) {
      ++in_block[cpu];
    } else if (line.find("softirq_exit: ") != std::string::npos &&
               line.find("action=BLOCK") != std::string::npos) {
      if (in_block[cpu] > 0) --in_block[cpu];
    } else if (TraceInstance::ParseCompletion(line, &rwbs, &sector)) {
      out[sector] = in_block[cpu] > 0 ? "softirq" : "other";
    }
  }
  return out;
}

TEST(CompletionContext, LoopCompletionsMatchTheKernelsSoftirqTrace) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDiskOptions o;
  o.read_delay_ms = 12;
  SlowDisk disk(o);
  ASSERT_TRUE(disk.ok()) << disk.error();
  TraceInstance trace(disk.loop_name(), "biosnoop-ctx", 8192,
                      {"irq/softirq_entry", "irq/softirq_exit"});
  ASSERT_TRUE(trace.ok()) << "tracefs instance with irq and block events";
  Biosnoop b({"--min-us", "10000", "-d", disk.loop_name()});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();
  constexpr int kReads = 20;
  ASSERT_EQ(DirectDd(disk.loop_path(), true, 4096, kReads).exit_code, 0);
  ASSERT_TRUE(b.WaitForRecords("event", kReads));
  ASSERT_EQ(b.Stop(), 0) << b.Stderr();

  const std::map<uint64_t, std::string> kernel = ContextsIn(trace);
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
