// Where the output may go, on the real kernel and the real binary
// (issue #26): a block device given to -o or stdout is refused and the
// disk kept; a SIGHUP onto a block device, a FIFO nobody reads or a file
// system that does not answer never stops the stream or a stop; a FIFO
// nobody reads at start ends as the run would.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

using nlohmann::json;

// Every line of a JSON Lines text, parsed strictly.
std::vector<json> Lines(const std::string& text) {
  std::vector<json> out;
  if (!text.empty()) EXPECT_EQ(text.back(), '\n') << "ends mid-line";
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "invalid line: " << line;
    out.push_back(std::move(j));
  }
  return out;
}

size_t EventsOf(const std::vector<json>& records, pid_t pid) {
  size_t n = 0;
  for (const json& r : records) {
    n += r.value("type", "") == "event" && r.value("pid", 0) == pid;
  }
  return n;
}

// The file system type blkid finds on `dev` ("" for none).
std::string FsType(const std::string& dev) {
  return CommandOutput({"blkid", "-p", "-o", "value", "-s", "TYPE", dev})
      .value_or("");
}

// A loop device holding an ext4 file system: what a typo must not wipe.
void MakeExt4(const LoopDevice& loop) {
  ASSERT_EQ(RunCommand({"mkfs.ext4", "-qF", loop.path()}), 0);
  ASSERT_EQ(FsType(loop.path()), "ext4");
}

TEST(OutputSafety, BlockDeviceAsOutputIsRefusedAndTheDiskKept) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(16);
  ASSERT_TRUE(disk.ok());
  ASSERT_NO_FATAL_FAILURE(MakeExt4(disk));

  Biosnoop b({"-o", disk.path(), "--duration", "1"});
  EXPECT_EQ(b.Wait(60000), 73) << b.Stderr();
  EXPECT_NE(b.Stderr().find("cannot open output \"" + disk.path() +
                            "\": it is a block device"),
            std::string::npos)
      << b.Stderr();
  EXPECT_EQ(FsType(disk.path()), "ext4");

  // The shell opened it (without O_APPEND): refused the same.
  const std::string cmd = std::string("exec ") + BIOSNOOP_BIN +
                          " --duration 1 > " + disk.path() + " 2>/dev/null";
  EXPECT_EQ(RunCommand({"sh", "-c", cmd}), 73);
  EXPECT_EQ(FsType(disk.path()), "ext4");
}

// bioreport convert -o shares the rule: a block device statted as size
// 0 and passed its "new or empty" check.
TEST(OutputSafety, BioreportConvertRefusesABlockDevice) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice disk(16);
  ASSERT_TRUE(disk.ok());
  ASSERT_NO_FATAL_FAILURE(MakeExt4(disk));
  const std::string input =
      std::string(BIOSNOOP_SOURCE_DIR) + "/tests/golden/events.jsonl";
  ASSERT_EQ(access(input.c_str(), R_OK), 0) << input;
  EXPECT_EQ(RunCommand({BIOREPORT_BIN, "convert", "--to", "jsonl", "-o",
                        disk.path(), input}),
            73);
  EXPECT_EQ(FsType(disk.path()), "ext4");
}

// SIGHUP after the path became a block device, then a FIFO nobody reads:
// each said on stderr, the events keep going to the old file, and SIGTERM
// ends the run with the final stats there.
TEST(OutputSafety, SighupOntoABlockDeviceOrAReaderlessFifoKeepsTheOldFile) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  LoopDevice disk(16);
  ASSERT_TRUE(disk.ok());
  ASSERT_NO_FATAL_FAILURE(MakeExt4(disk));
  TempDir dir;
  ASSERT_TRUE(GiveToBiosnoopUser(dir.path()));  // as the package's
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
  struct stat st;
  ASSERT_EQ(stat(disk.path().c_str(), &st), 0);
  ASSERT_EQ(mknod(log.c_str(), S_IFBLK | 0600, st.st_rdev), 0);
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(b.WaitForStderr("it is a block device", 20000)) << b.Stderr();
  Workload first = DirectDd(loop.path(), true, 4096, 20);
  ASSERT_EQ(first.exit_code, 0);

  ASSERT_EQ(unlink(log.c_str()), 0);
  ASSERT_EQ(mkfifo(log.c_str(), 0600), 0);
  ASSERT_TRUE(GiveToBiosnoopUser(log));  // a FIFO it may write
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(b.WaitForStderr("no process has open for reading", 20000))
      << b.Stderr();
  Workload second = DirectDd(loop.path(), true, 4096, 20);
  ASSERT_EQ(second.exit_code, 0);
  ASSERT_EQ(b.Stop(SIGTERM, 20000), 0)
      << "SIGTERM did not end the run within 20 s\n"
      << b.Stderr();

  EXPECT_EQ(FsType(disk.path()), "ext4");
  const std::vector<json> old_file = Lines(ReadFile(log + ".1"));
  ASSERT_FALSE(old_file.empty());
  EXPECT_EQ(old_file.front()["type"], "header");
  EXPECT_EQ(old_file.back()["type"], "stats");
  EXPECT_EQ(old_file.back()["final"], true);
  EXPECT_TRUE(LoggedOrMissed(EventsOf(old_file, first.pid), 20, b));
  EXPECT_TRUE(LoggedOrMissed(EventsOf(old_file, second.pid), 20, b));
  std::map<std::string, double> s = b.Summary();
  EXPECT_EQ(s["dropped"], 0) << b.Stderr();
  EXPECT_TRUE(EmittedAllAccountedFor(s)) << b.Stderr();
}

// Whether every thread of `pid` is stopped (state T in /proc).
bool AllThreadsStopped(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(tasks.c_str());
  if (d == nullptr) return false;
  bool all = true;
  int seen = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string stat = ReadFile(tasks + "/" + e->d_name + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) continue;
    ++seen;
    if (stat[paren + 2] != 'T') all = false;
  }
  closedir(d);
  return all && seen > 0;
}

// Sends SIGCONT to a stopped daemon when it goes, also when an
// assertion fails, so the fixture can unmount.
class ResumeOnExit {
 public:
  explicit ResumeOnExit(pid_t pid) : pid_(pid) {}
  ~ResumeOnExit() { kill(pid_, SIGCONT); }

 private:
  pid_t pid_;
};

// Undoes a bind mount when it goes.
class Unbind {
 public:
  explicit Unbind(std::string path) : path_(std::move(path)) {}
  ~Unbind() { umount2(path_.c_str(), MNT_DETACH); }

 private:
  std::string path_;
};

// A hung file system (a FUSE daemon that stopped answering, as an NFS
// server that went away): the reopen's open blocks, which must block
// neither the events nor a stop.  The reopen opens the name in the
// directory held since the start, so the hung file is put at that name
// (a bind mount of the FUSE file system's file); -Z root, since that file
// is root's alone.
TEST(OutputSafety, ReopenOnAHungFileSystemBlocksNeitherEventsNorAStop) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk hung;
  ASSERT_TRUE(hung.ok()) << hung.error();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", log, "-Z", "root"});
  ASSERT_TRUE(b.WaitAttached()) << b.Stderr();

  ASSERT_EQ(rename(log.c_str(), (log + ".1").c_str()), 0);
  { std::ofstream(log) << ""; }
  ASSERT_EQ(mount(hung.control_path().c_str(), log.c_str(), nullptr, MS_BIND,
                  nullptr),
            0)
      << strerror(errno);
  Unbind unbind(log);
  ResumeOnExit resume(hung.daemon_pid());
  ASSERT_EQ(kill(hung.daemon_pid(), SIGSTOP), 0);
  // Every daemon thread stopped before the reopen's lookup is sent: a
  // request a thread already took to user space is waited for without
  // regard to SIGKILL (the kernel's FUSE request wait), so biosnoop could
  // not even exit; a request nobody took ends with the process.
  ASSERT_TRUE(WaitUntil([&] { return AllThreadsStopped(hung.daemon_pid()); }))
      << "the FUSE daemon's threads did not all stop";
  ASSERT_EQ(kill(b.pid(), SIGHUP), 0);
  ASSERT_TRUE(b.WaitForStderr("has not completed after", 20000)) << b.Stderr();

  // Events still reach the old file while the open hangs.
  Workload w = DirectDd(loop.path(), true, 4096, 20);
  ASSERT_EQ(w.exit_code, 0);
  const std::string old_path = log + ".1";
  bool arrived = false;
  for (int waited = 0; waited < 20000 && !arrived; waited += 20) {
    arrived = EventsOf(Lines(ReadFile(old_path)), w.pid) > 0;
    if (!arrived) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(arrived) << "no event of the dd reached the old file in 20 s\n"
                       << b.Stderr();
  ASSERT_EQ(b.Stop(SIGTERM, 20000), 0)
      << "SIGTERM did not end the run within 20 s\n"
      << b.Stderr();
  EXPECT_NE(b.Stderr().find("had not completed when the run ended"),
            std::string::npos)
      << b.Stderr();
  const std::vector<json> old_file = Lines(ReadFile(old_path));
  ASSERT_FALSE(old_file.empty());
  EXPECT_EQ(old_file.back()["type"], "stats");
  EXPECT_EQ(old_file.back()["final"], true);
  EXPECT_TRUE(LoggedOrMissed(EventsOf(old_file, w.pid), 20, b));
}

// A FIFO nobody reads at start: biosnoop says it waits for a reader, and
// --duration (or SIGTERM) ends the wait as it would end the run.
TEST(OutputSafety, FifoWithNoReaderEndsAsTheRunWould) {
  BIOSNOOP_REQUIRE_ROOT();
  TempDir dir;
  const std::string fifo = dir.path() + "/events.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    Biosnoop b({"-o", fifo, "--duration", "1"});
    EXPECT_EQ(b.Wait(60000), 0)
        << "--duration 1 with no reader did not end within 60 s\n"
        << b.Stderr();
    EXPECT_NE(b.Stderr().find("waiting for a process to open the FIFO"),
              std::string::npos)
        << b.Stderr();
    EXPECT_NE(b.Stderr().find("no process opened the FIFO \"" + fifo +
                              "\" for reading before the stop; nothing was "
                              "traced"),
              std::string::npos)
        << b.Stderr();
  }
  {
    Biosnoop b({"-o", fifo});
    ASSERT_TRUE(
        b.WaitForStderr("waiting for a process to open the FIFO", 20000))
        << b.Stderr();
    EXPECT_EQ(b.Stop(SIGTERM, 20000), 0)
        << "SIGTERM did not end the wait within 20 s\n"
        << b.Stderr();
    EXPECT_NE(b.Stderr().find("nothing was traced"), std::string::npos)
        << b.Stderr();
  }
}

// The log agent that opens the FIFO after biosnoop started gets the whole
// stream.
TEST(OutputSafety, FifoReaderThatComesLateGetsTheStream) {
  BIOSNOOP_REQUIRE_ROOT();
  LoopDevice loop(64);
  ASSERT_TRUE(loop.ok());
  TempDir dir;
  const std::string fifo = dir.path() + "/events.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Biosnoop b({"--min-us", "0", "-d", loop.name(), "-o", fifo});
  ASSERT_TRUE(b.WaitForStderr("waiting for a process to open the FIFO", 20000))
      << b.Stderr();
  std::string got;
  std::thread agent([&] {
    const int fd = open(fifo.c_str(), O_RDONLY);
    if (fd < 0) return;
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0) got.append(buf, n);
    close(fd);
  });
  const bool attached = b.WaitAttached();
  Workload w{};
  if (attached) w = DirectDd(loop.path(), true, 4096, 20);
  const int code = b.Stop(SIGTERM, 20000);
  if (code == -2) b.Stop(SIGKILL);  // let the agent see the end
  agent.join();
  ASSERT_TRUE(attached) << b.Stderr();
  ASSERT_EQ(code, 0) << b.Stderr();
  ASSERT_EQ(w.exit_code, 0);
  const std::vector<json> stream = Lines(got);
  ASSERT_FALSE(stream.empty()) << b.Stderr();
  EXPECT_EQ(stream.front()["type"], "header");
  EXPECT_EQ(stream.back()["type"], "stats");
  EXPECT_TRUE(LoggedOrMissed(EventsOf(stream, w.pid), 20, b));
}

}  // namespace
}  // namespace biosnoop::testing
