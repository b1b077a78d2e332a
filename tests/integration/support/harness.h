#pragma once

// Helpers for the privileged end-to-end tests: real loop devices, the real
// biosnoop binary as a child process, real workloads (dd).  Everything set
// up is torn down by destructors, also when an assertion fails.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace biosnoop::testing {

// Skips the test when not root, with the reason; under CI=true a missing
// privilege is a failure instead, since CI runs as root.
#define BIOSNOOP_REQUIRE_ROOT()                                            \
  do {                                                                     \
    if (!::biosnoop::testing::IsRoot()) {                                  \
      if (::biosnoop::testing::InCi()) {                                   \
        FAIL() << "privileged test needs root, and CI=true: not skipping"; \
      }                                                                    \
      GTEST_SKIP() << "needs root (loads the BPF program, creates loop "   \
                      "devices); run tools/test as root";                  \
    }                                                                      \
  } while (0)

bool IsRoot();
bool InCi();

// Runs argv (stdin /dev/null, stdout and stderr to the test's stderr);
// returns its exit status, or -1 when it did not start or was killed.
// Bounded as Child::Wait (kChildBound): past it, killed and a failure.
int RunCommand(const std::vector<std::string>& argv);
// Runs argv as RunCommand does and returns its stdout (trimmed), or
// nullopt when it does not exit with 0.
std::optional<std::string> CommandOutput(const std::vector<std::string>& argv);

// A directory under /tmp, removed with what it holds when it goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }  // empty if not made

 private:
  std::string path_;
};

// Gives the directory `dir` to the user biosnoop runs as once loaded by
// default (biosnoop if that user exists, else nobody; -Z), mode 0750, as
// the package makes /var/log/biosnoop: biosnoop can then make the new
// file there after a rotation.  (A FIFO too: then biosnoop may open it.)
// False if there is no such user or chown fails.
bool GiveToBiosnoopUser(const std::string& dir);

// A loop device over a file in /dev/shm.
// Loop devices are reused, and their queue settings outlive losetup -d:
// puts back the defaults a test (or a person) may have changed
// (queue/nomerges 0, queue/iostats 1, queue/write_cache "write back") so no
// test inherits another's.
void ResetQueueSettings(const std::string& disk);

class LoopDevice {
 public:
  // size_mib of backing file; partitioned: give it a GPT/MBR partition
  // table with one partition starting at 1 MiB (losetup -P).
  explicit LoopDevice(int size_mib, bool partitioned = false);
  ~LoopDevice();
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }  // /dev/loop3
  std::string name() const;                          // loop3
  std::string partition_path() const;                // /dev/loop3p1
  std::string partition_name() const;                // loop3p1
  uint64_t partition_start_sector() const { return 2048; }
  // The file in /dev/shm behind it (the device keeps its size if the file
  // is cut shorter: reads past the file's end then come back short).
  const std::string& backing_path() const { return backing_; }

 private:
  std::string backing_;
  std::string path_;
};

// The biosnoop binary as a child process writing to files.
class Biosnoop {
 public:
  // `wrapper`, if given, runs first and execs biosnoop with its arguments
  // (e.g. {"prlimit", "--fsize=102400"}), so pid() is biosnoop's.
  explicit Biosnoop(std::vector<std::string> args,
                    std::vector<std::string> wrapper = {});
  ~Biosnoop();  // SIGKILL if still running

  // Waits until biosnoop says it attached (-v is added by the constructor).
  bool WaitAttached(int timeout_ms = 15000);
  // Sends sig and waits for exit; returns the exit code, -1 on a signal
  // death, -2 when it still runs after timeout_ms (it is killed when this
  // goes).
  int Stop(int sig = SIGINT, int timeout_ms = 20000);
  // Waits for the child to exit by itself (same results).
  int Wait(int timeout_ms = 20000);
  pid_t pid() const { return child_.pid(); }

  std::string Stdout() const;
  std::string Stderr() const;
  // Parses every stdout line; a line that is not valid JSON fails the test.
  // While biosnoop runs, a last line not yet whole is left out.
  std::vector<nlohmann::json> Records() const;
  // The records of type "event" (not the stream's header and stats).
  std::vector<nlohmann::json> Events() const;
  // Records of another type ("header", "stats", "histogram").
  std::vector<nlohmann::json> RecordsOfType(const std::string& type) const;
  // key=value pairs of the "biosnoop: completions=..." summary line.
  std::map<std::string, double> Summary() const;

  // Waits until stdout holds at least `count` records of `type` that
  // `match` accepts (every one when not given), or `timeout_ms` passes,
  // or biosnoop exits.  On failure the result says what was awaited and
  // what was there.
  ::testing::AssertionResult WaitForRecords(
      const std::string& type, size_t count,
      const std::function<bool(const nlohmann::json&)>& match = nullptr,
      int timeout_ms = 60000);
  // Waits until stderr contains `text` (same bounds and result).
  ::testing::AssertionResult WaitForStderr(const std::string& text,
                                           int timeout_ms = 60000);

 private:
  // Whether it still runs; false once it has exited (reaped).
  bool Running() { return child_.Running(); }

  std::string dir_;
  Child child_;
};

struct Workload {
  pid_t pid = -1;
  int exit_code = -1;
};

// dd with O_DIRECT: count requests of bs bytes from/to dev at offset skip
// blocks.  read: if=dev of=/dev/null iflag=direct; else of=dev oflag=direct.
// "2026-11-21T05:55:28.541246942Z" in ns since the epoch; -1 if malformed.
int64_t ParseRfc3339Ns(const std::string& s);

// key=value pairs of the "biosnoop: completions=..." summary line in a
// biosnoop's stderr text.
std::map<std::string, double> ParseSummary(absl::string_view stderr_text);

// Every record the kernel emitted was written, rejected or dropped: what
// biosnoop promises whatever happened to its output.
::testing::AssertionResult EmittedAllAccountedFor(
    const std::map<std::string, double>& summary);

Workload DirectDd(const std::string& dev, bool read, int bs, int count,
                  int skip_blocks = 0);

// The run's latest stats record (the final one after Stop()); an empty
// object before the first.
nlohmann::json LatestStats(const Biosnoop& b);

// biosnoop's `missed` in its latest stats record (0 before the first; a
// run started with --stats-interval 1 says it every second).
uint64_t MissedSoFar(const Biosnoop& b);

// A workload's events against its I/O count: each I/O is an event or one
// of the run's `missed` (a completion the kernel ran no BPF program for,
// docs/reference/counters.md, "missed").  Other workloads' misses count
// there too, so this is
// exact only when the run missed nothing; more events than I/Os fail.
::testing::AssertionResult LoggedOrMissed(size_t events, size_t ios,
                                          const Biosnoop& b);

// A BPF program a process holds a link to, as /proc/PID/fdinfo shows it.
struct LinkedProgram {
  uint32_t link_id = 0;  // link ids grow in creation order
  uint32_t prog_id = 0;
  std::string tracepoint;  // tp_name
  std::string name;        // the program's name, at most 15 characters
};

// The programs `pid` has linked to tracepoints, in link creation order.
std::vector<LinkedProgram> LinkedPrograms(pid_t pid);

// bpf_prog_info.run_cnt of program `prog_id` (it counts only while
// bpf_stats are enabled); -1 if it cannot be read.
int64_t ProgramRunCount(uint32_t prog_id);

// The whole content of the file at `path` ("" if it cannot be read).
std::string ReadFile(const std::string& path);
// stat()'s st_dev of `path` as biosnoop writes a dev, "MAJ:MIN"; "" when
// stat() fails.
std::string StatDev(const std::string& path);

// Polls `done` every 10 ms until it holds, for at most `timeout_ms`:
// for a test that must wait for a state (never a fixed sleep).  Returns
// whether it held.
bool WaitUntil(const std::function<bool()>& done, int timeout_ms = 60000);

// Threads of process `pid` blocked in a write to a full pipe now (their
// /proc wchan names pipe_write).
int ThreadsBlockedOnPipe(pid_t pid);

// Requests the disk `name` (sysfs name) has completed: reads, writes,
// discards and flushes (/sys/block/NAME/stat).
uint64_t DiskCompletedRequests(const std::string& name);

// Events whose pid is `pid`.
std::vector<nlohmann::json> EventsOfPid(const std::vector<nlohmann::json>& all,
                                        pid_t pid);

}  // namespace biosnoop::testing
