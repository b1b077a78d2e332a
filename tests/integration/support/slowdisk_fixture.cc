#include "slowdisk_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "status_macros.h"

namespace biosnoop::testing {
namespace {

constexpr int kStopTimeoutMs = 10000;
constexpr int kDetachTimeoutMs = 10000;

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void SleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

std::string SlowDiskBinary() {
  const char* env = getenv("SLOWDISK_BIN");
  if (env != nullptr && *env != '\0') return env;
#ifdef SLOWDISK_BIN
  return SLOWDISK_BIN;
#else
  // <build>/cpp/biosnoop -> <build>/tools/slowdisk/slowdisk.
  return (std::filesystem::path(BIOSNOOP_BIN).parent_path().parent_path() /
          "tools" / "slowdisk" / "slowdisk")
      .string();
#endif
}

Child StartSlowDiskDaemon(const std::vector<std::string>& flags,
                          const std::string& mountpoint,
                          const std::string& log_path) {
  std::vector<std::string> argv = {SlowDiskBinary()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(mountpoint);
  const int log =
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // An inherited descriptor of another loop device would keep that device
  // busy for as long as this daemon lives, and its losetup -d would only
  // schedule the detach: none is inherited.  A test binary that dies
  // (crash, SIGKILL) must not leave a daemon behind: SIGTERM makes it
  // unmount and exit.
  Child daemon = Child::Program(
      argv,
      ChildSetup().Null(0).Dup(1, log).Dup(2, log).CloseOthers().DeathSignal(
          SIGTERM));
  if (log >= 0) close(log);
  return daemon;
}

absl::Status WaitSlowDiskMounted(Child& daemon, const std::string& mountpoint,
                                 int timeout_ms) {
  std::string control = mountpoint + "/control";
  std::string parent = mountpoint + "/..";
  auto mounted = [&] {
    struct stat c, p;
    return stat(control.c_str(), &c) == 0 && stat(parent.c_str(), &p) == 0 &&
           c.st_dev != p.st_dev;
  };
  WaitUntil([&] { return mounted() || !daemon.Running(); }, timeout_ms);
  if (mounted()) return absl::OkStatus();
  if (!daemon.Running()) {
    return absl::UnavailableError(
        absl::StrCat("slowdisk did not mount: ", daemon.result().Describe()));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "slowdisk did not mount ", mountpoint, " within ", timeout_ms, " ms"));
}

bool IsMounted(const std::string& mountpoint) {
  std::ifstream in("/proc/mounts");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    if (f.size() > 1 && f[1] == mountpoint) return true;
  }
  return false;
}

SlowDisk::SlowDisk(SlowDiskOptions options) : options_(std::move(options)) {
  absl::Status status = Setup();
  if (!status.ok()) Fail(status.message());
}

SlowDisk::~SlowDisk() { TearDown(); }

absl::Status SlowDisk::Setup() {
  if (options_.partitioned &&
      (options_.partitions < 1 || options_.partitions > 4)) {
    return absl::InvalidArgumentError("partitions must be 1..4 (MBR)");
  }
  char tmpl[] = "/tmp/slowdisk-test-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp: ", strerror(errno)));
  }
  dir_ = tmpl;
  if (mkdir((dir_ + "/mnt").c_str(), 0755) != 0) {
    return absl::InternalError(absl::StrCat("mkdir: ", strerror(errno)));
  }
  mountpoint_ = dir_ + "/mnt";

  std::string bin = SlowDiskBinary();
  if (access(bin.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("slowdisk binary not found at ", bin,
                     " (build the slowdisk target, or set SLOWDISK_BIN)"));
  }
  daemon_ =
      StartSlowDiskDaemon({absl::StrCat("--size-mib=", options_.size_mib)},
                          mountpoint_, dir_ + "/slowdisk.log");
  if (!daemon_.started()) {
    return absl::InternalError(daemon_.result().Describe());
  }
  RETURN_IF_ERROR(WaitSlowDiskMounted(daemon_, mountpoint_));

  if (options_.partitioned) RETURN_IF_ERROR(WritePartitionTable());
  // --direct-io=on: the loop device then submits async O_DIRECT I/O to
  // disk.img and keeps many requests in flight; buffered, its worker
  // serves one request at a time (see tools/slowdisk/fuse_fs.cc).
  // --partscan so that detaching also drops the partitions partx adds.
  std::vector<std::string> cmd = {"losetup", "--find", "--show",
                                  "--direct-io=on"};
  if (options_.partitioned) cmd.push_back("--partscan");
  cmd.push_back(image_path());
  std::optional<std::string> dev = CommandOutput(cmd);
  if (!dev.has_value() || dev->empty()) {
    return absl::InternalError(
        absl::StrCat("losetup failed on ", image_path()));
  }
  loop_path_ = *dev;
  ResetQueueSettings(loop_name());
  std::string dio = std::string(absl::StripAsciiWhitespace(
      ReadWholeFile(absl::StrCat("/sys/block/", loop_name(), "/loop/dio"))));
  if (dio != "1") {
    return absl::FailedPreconditionError(
        absl::StrCat(loop_path_, " did not enable direct I/O (dio=", dio,
                     "): its requests would be served one at a time"));
  }
  if (options_.partitioned) RETURN_IF_ERROR(AddPartitions());
  return ApplyInitialSettings();
}

absl::Status SlowDisk::WritePartitionTable() {
  // Equal partitions from sector 2048, each a multiple of 1 MiB.
  uint64_t total = static_cast<uint64_t>(options_.size_mib) << 11;
  uint64_t each = (total - 2048) / options_.partitions / 2048 * 2048;
  if (each == 0) return absl::InvalidArgumentError("disk too small");
  std::string script;
  for (int i = 0; i < options_.partitions; ++i) {
    absl::StrAppend(&script, "start=", 2048 + i * each, ", size=", each,
                    ", type=83\\n");
  }
  // sfdisk writes the table into disk.img itself, before any loop device
  // exists, as the harness's LoopDevice does with its backing file.
  if (RunCommand({"sh", "-c",
                  absl::StrCat("printf '", script, "' | sfdisk --quiet ",
                               image_path())}) != 0) {
    return absl::InternalError("sfdisk failed to write the partition table");
  }
  return absl::OkStatus();
}

absl::Status SlowDisk::AddPartitions() {
  // This kernel has no MSDOS/EFI partition parsers, so --partscan finds
  // nothing; partx reads the table in user space and adds each partition
  // with BLKPG.
  std::string first = "/sys/class/block/" + partition_name(1);
  if (access(first.c_str(), F_OK) != 0) {
    RunCommand({"partx", "--add", loop_path_});
  }
  for (int n = 1; n <= options_.partitions; ++n) {
    std::string sys = "/sys/class/block/" + partition_name(n);
    for (int i = 0; i < 200 && access(sys.c_str(), F_OK) != 0; ++i) SleepMs(10);
    if (access(sys.c_str(), F_OK) != 0) {
      return absl::InternalError(
          absl::StrCat("partition ", partition_name(n), " did not appear"));
    }
    std::string node = partition_path(n);
    for (int i = 0; i < 100 && access(node.c_str(), F_OK) != 0; ++i)
      SleepMs(10);
    if (access(node.c_str(), F_OK) != 0) {
      // No devtmpfs node: make one from sysfs's dev, removed at teardown.
      unsigned ma = 0, mi = 0;
      if (sscanf(ReadWholeFile(sys + "/dev").c_str(), "%u:%u", &ma, &mi) != 2 ||
          mknod(node.c_str(), S_IFBLK | 0600, makedev(ma, mi)) != 0) {
        return absl::InternalError(absl::StrCat("no device node ", node));
      }
      made_nodes_.push_back(node);
    }
  }
  return absl::OkStatus();
}

absl::Status SlowDisk::ApplyInitialSettings() {
  return Set(absl::StrCat("read_delay_ms=", options_.read_delay_ms,
                          " write_delay_ms=", options_.write_delay_ms,
                          " flush_delay_ms=", options_.flush_delay_ms,
                          " slow_region=", options_.slow_region,
                          " fast_delay_us=", options_.fast_delay_us,
                          " error_region=", options_.error_region,
                          " reset_counters"));
}

void SlowDisk::Fail(absl::string_view what) {
  error_ = absl::StrCat("SlowDisk setup: ", what);
  std::string log = DaemonLog();
  if (!log.empty()) absl::StrAppend(&error_, "\nslowdisk log:\n", log);
}

absl::Status SlowDisk::Set(absl::string_view line) {
  std::string text = absl::StrCat(line, "\n");
  int fd = open(control_path().c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("open ", control_path(), ": ", strerror(errno)));
  }
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("slowdisk control \"", line,
                     "\": ", n < 0 ? strerror(err) : "short write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SlowDisk::ControlText() const {
  int fd = open(control_path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("open ", control_path(), ": ", strerror(errno)));
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, n);
  int err = errno;
  close(fd);
  if (n < 0) {
    return absl::UnavailableError(
        absl::StrCat("read ", control_path(), ": ", strerror(err)));
  }
  return text;
}

absl::StatusOr<SlowDiskCounters> SlowDisk::Counters() const {
  ASSIGN_OR_RETURN(std::string text, ControlText());
  std::map<std::string, uint64_t, std::less<>> kv;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> p =
        absl::StrSplit(line, absl::MaxSplits('=', 1));
    uint64_t v = 0;
    if (absl::SimpleAtoi(p.second, &v)) kv[std::string(p.first)] = v;
  }
  SlowDiskCounters c;
  const std::pair<const char*, uint64_t*> fields[] = {
      {"reads", &c.reads},           {"writes", &c.writes},
      {"flushes", &c.flushes},       {"errors", &c.errors},
      {"read_bytes", &c.read_bytes}, {"write_bytes", &c.write_bytes},
      {"in_flight", &c.in_flight},   {"max_in_flight", &c.max_in_flight}};
  for (const auto& [key, field] : fields) {
    auto it = kv.find(key);
    if (it == kv.end()) {
      return absl::InternalError(
          absl::StrCat("no ", key, " in slowdisk control:\n", text));
    }
    *field = it->second;
  }
  return c;
}

std::string SlowDisk::loop_name() const {
  return loop_path_.substr(loop_path_.find_last_of('/') + 1);
}

std::string SlowDisk::partition_path(int n) const {
  return absl::StrCat(loop_path_, "p", n);
}

std::string SlowDisk::partition_name(int n) const {
  return absl::StrCat(loop_name(), "p", n);
}

uint64_t SlowDisk::partition_start_sector(int n) const {
  uint64_t start = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadWholeFile(absl::StrCat(
                            "/sys/class/block/", partition_name(n), "/start"))),
                        &start)) {
    return 0;
  }
  return start;
}

std::string SlowDisk::image_path() const { return mountpoint_ + "/disk.img"; }
std::string SlowDisk::control_path() const { return mountpoint_ + "/control"; }

std::string SlowDisk::DaemonLog() const {
  return dir_.empty() ? "" : ReadWholeFile(dir_ + "/slowdisk.log");
}

// Order matters: the loop device holds disk.img open, so it goes first;
// then the daemon unmounts on SIGTERM; only a daemon that failed to do so
// leaves a mount for the fallbacks.
void SlowDisk::TearDown() {
  DetachLoop();
  StopDaemon();
  Unmount();
  if (!dir_.empty()) {
    unlink((dir_ + "/slowdisk.log").c_str());
    if (!mountpoint_.empty()) rmdir(mountpoint_.c_str());
    if (rmdir(dir_.c_str()) != 0) {
      ADD_FAILURE() << "SlowDisk teardown: cannot remove " << dir_ << ": "
                    << strerror(errno);
    }
    dir_.clear();
  }
}

void SlowDisk::DetachLoop() {
  if (loop_path_.empty()) return;
  if (options_.partitioned) {
    RunCommand({"partx", "--delete", loop_path_});
  }
  for (const std::string& node : made_nodes_) unlink(node.c_str());
  made_nodes_.clear();
  RunCommand({"losetup", "-d", loop_path_});
  // losetup -d on a device someone still holds open only schedules the
  // detach (autoclear); wait until the device really lets go of disk.img.
  std::string backing =
      absl::StrCat("/sys/block/", loop_name(), "/loop/backing_file");
  bool attached = true;
  for (int waited = 0; waited < kDetachTimeoutMs; waited += 10) {
    std::string file(absl::StripAsciiWhitespace(ReadWholeFile(backing)));
    if (file.find(dir_) == std::string::npos) {
      attached = false;
      break;
    }
    SleepMs(10);
  }
  if (attached) {
    ADD_FAILURE() << "SlowDisk teardown: " << loop_path_ << " still backed by "
                  << image_path() << " (is a descriptor of it still open?)";
  }
  loop_path_.clear();
}

void SlowDisk::StopDaemon() {
  if (!daemon_.Running()) {
    if (daemon_.started() && !daemon_.result().Exited(0)) {
      ADD_FAILURE() << "SlowDisk teardown: " << daemon_.result().Describe()
                    << "\n"
                    << DaemonLog();
    }
    return;
  }
  // Past the bound: killed, and a failure that says so.
  const ChildResult& r =
      daemon_.Stop(SIGTERM, absl::Milliseconds(kStopTimeoutMs));
  if (r.end != ChildResult::End::kKilledAtBound && !r.Exited(0)) {
    ADD_FAILURE() << "SlowDisk teardown: " << r.Describe() << "\n"
                  << DaemonLog();
  }
}

void SlowDisk::Unmount() {
  if (mountpoint_.empty() || !IsMounted(mountpoint_)) return;
  // Only reached when the daemon did not unmount itself (it was killed).
  RunCommand({"fusermount3", "-u", "-z", mountpoint_});
  if (IsMounted(mountpoint_)) umount2(mountpoint_.c_str(), MNT_DETACH);
  if (IsMounted(mountpoint_)) {
    ADD_FAILURE() << "SlowDisk teardown: " << mountpoint_
                  << " is still mounted";
  }
}

int DirectReadsFailingWithEio(const std::string& path, off_t from, off_t to) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) return -1;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 4096) != 0) {
    close(fd);
    return -1;
  }
  int failed = 0;
  for (off_t off = from; off < to && failed >= 0; off += 4096) {
    if (pread(fd, buf, 4096, off) >= 0) continue;
    failed = errno == EIO ? failed + 1 : -1;
  }
  free(buf);
  close(fd);
  return failed;
}

}  // namespace biosnoop::testing
