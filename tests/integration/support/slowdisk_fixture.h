#pragma once

// SlowDisk: a real request-based block device (a loop device) whose
// latency and errors the test sets, for the privileged integration tests.
// It runs tools/slowdisk (a FUSE daemon serving disk.img) on a temporary
// mount and attaches a loop device to disk.img with direct I/O on, so every
// request reaches the daemon and many can be in flight at once.
//
// Everything set up is torn down by the destructor, in order (partitions,
// loop device, daemon, mount, directories), also when the test failed
// half-way; what cannot be torn down is reported as a test failure.  Any
// number of SlowDisks may exist at once.  Needs root (BIOSNOOP_REQUIRE_ROOT
// first).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "child_process.h"

namespace biosnoop::testing {

struct SlowDiskOptions {
  int size_mib = 64;
  // Applied once setup is done, so the setup I/O (partition table, loop
  // attach, partx) is neither delayed nor failed; counters start at zero.
  uint32_t read_delay_ms = 0;
  uint32_t write_delay_ms = 0;
  uint32_t flush_delay_ms = 0;
  // "OFFSET:LENGTH" in bytes of the whole disk (K/M/G suffixes allowed),
  // "" for none.  See tools/slowdisk --help for their meaning.
  std::string slow_region;
  // With a slow region: reads and writes outside it held this many
  // microseconds (a second latency mode).
  uint32_t fast_delay_us = 0;
  std::string error_region;
  // An MBR partition table with `partitions` (1..4) equal Linux
  // partitions, the first at sector 2048, added with partx.
  bool partitioned = false;
  int partitions = 1;
};

// What the daemon served since setup or the last "reset_counters".
struct SlowDiskCounters {
  uint64_t reads = 0;    // FUSE reads answered, failed ones included
  uint64_t writes = 0;   // FUSE writes answered, failed ones included
  uint64_t flushes = 0;  // fsyncs answered (the loop device's FLUSH)
  uint64_t errors = 0;   // reads and writes answered with EIO
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t in_flight = 0;
  uint64_t max_in_flight = 0;  // most requests held at once
};

// The slowdisk binary: $SLOWDISK_BIN if set, else the SLOWDISK_BIN the
// build defines, else <build>/tools/slowdisk/slowdisk found from
// BIOSNOOP_BIN (<build>/cpp/biosnoop).
std::string SlowDiskBinary();

// Starts the slowdisk binary serving `mountpoint` with `flags`, stdout and
// stderr to log_path, no other descriptor inherited.  The daemon gets
// SIGTERM (and unmounts) if the calling thread exits first.  Check
// started() (result() says why not).
Child StartSlowDiskDaemon(const std::vector<std::string>& flags,
                          const std::string& mountpoint,
                          const std::string& log_path);

// Waits until `mountpoint` is served (its `control` exists on another
// file system than its parent).  An error with the reason when the daemon
// exited first (then it is reaped: daemon.result() says how) or
// timeout_ms passed.
absl::Status WaitSlowDiskMounted(Child& daemon, const std::string& mountpoint,
                                 int timeout_ms = 10000);

// True when `mountpoint` is listed in /proc/mounts.
bool IsMounted(const std::string& mountpoint);

class SlowDisk {
 public:
  explicit SlowDisk(SlowDiskOptions options = {});
  ~SlowDisk();
  SlowDisk(const SlowDisk&) = delete;
  SlowDisk& operator=(const SlowDisk&) = delete;

  // False when setup failed; error() says why (with the daemon's log).
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Writes control words to the daemon, e.g. "read_delay_ms=20" or
  // "slow_region=1M:64K error_region=" (tools/slowdisk --help).
  absl::Status Set(absl::string_view line);
  // The control file: settings and counters, one key=value a line.
  absl::StatusOr<std::string> ControlText() const;
  absl::StatusOr<SlowDiskCounters> Counters() const;

  const std::string& loop_path() const { return loop_path_; }  // /dev/loop3
  std::string loop_name() const;                               // loop3
  // Partition n (1-based) of a partitioned disk.
  std::string partition_path(int n = 1) const;  // /dev/loop3p1
  std::string partition_name(int n = 1) const;  // loop3p1
  // From sysfs; 0 when the partition does not exist.
  uint64_t partition_start_sector(int n = 1) const;

  const std::string& mountpoint() const { return mountpoint_; }
  std::string image_path() const;    // <mountpoint>/disk.img
  std::string control_path() const;  // <mountpoint>/control
  pid_t daemon_pid() const { return daemon_.pid(); }
  std::string DaemonLog() const;

 private:
  absl::Status Setup();
  absl::Status WritePartitionTable();
  absl::Status AddPartitions();
  absl::Status ApplyInitialSettings();
  void Fail(absl::string_view what);
  void TearDown();
  void DetachLoop();
  void StopDaemon();
  void Unmount();

  SlowDiskOptions options_;
  std::string error_;
  std::string dir_;         // mkdtemp directory holding mnt/ and the log
  std::string mountpoint_;  // dir_/mnt
  Child daemon_;
  std::string loop_path_;
  std::vector<std::string> made_nodes_;  // partition nodes we mknod'ed
};

// Reads [from, to) of the device at `path` with O_DIRECT, 4 KiB at a
// time, in this process; returns how many reads failed with EIO, or -1 if
// the device cannot be opened or a read fails otherwise.
int DirectReadsFailingWithEio(const std::string& path, off_t from, off_t to);

}  // namespace biosnoop::testing
