#include "harness.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bpf/bpf.h"

namespace biosnoop::testing {
namespace {

// stdin /dev/null, stdout and stderr to the test's stderr.
ChildSetup QuietSetup() { return ChildSetup().Null(0).Dup(1, 2); }

// The exit status of a child that exited, -1 if it did not.
int ExitCode(const ChildResult& r) {
  return r.end == ChildResult::End::kExited ? r.code : -1;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string StatDev(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  return absl::StrCat(major(st.st_dev), ":", minor(st.st_dev));
}

TempDir::TempDir() {
  char tmpl[] = "/tmp/biosnoop-test-XXXXXX";
  if (mkdtemp(tmpl) != nullptr) path_ = tmpl;
}

TempDir::~TempDir() {
  if (!path_.empty()) RunCommand({"rm", "-rf", path_});
}

bool IsRoot() { return geteuid() == 0; }

bool GiveToBiosnoopUser(const std::string& dir) {
  const passwd* pw = getpwnam("biosnoop");
  if (pw == nullptr) pw = getpwnam("nobody");
  return pw != nullptr && chown(dir.c_str(), pw->pw_uid, pw->pw_gid) == 0 &&
         chmod(dir.c_str(), 0750) == 0;
}

bool InCi() {
  const char* ci = getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

int RunCommand(const std::vector<std::string>& argv) {
  return ExitCode(RunProgram(argv, QuietSetup()));
}

std::optional<std::string> CommandOutput(const std::vector<std::string>& argv) {
  const ChildResult r = RunProgram(argv, ChildSetup().Null(0).Capture(1));
  if (!r.Exited(0)) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(r.output));
}

void ResetQueueSettings(const std::string& disk) {
  const std::string queue = "/sys/block/" + disk + "/queue/";
  std::ofstream(queue + "scheduler") << "none\n";  // loop's default
  std::ofstream(queue + "nomerges") << "0\n";
  std::ofstream(queue + "iostats") << "1\n";
  // A write cache turned off by hand stays off, and then fsync sends no
  // flush at all.  Backing files in /dev/shm and on FUSE support fsync.
  std::ofstream(queue + "write_cache") << "write back\n";
}

LoopDevice::LoopDevice(int size_mib, bool partitioned) {
  char tmpl[] = "/dev/shm/biosnoop-test-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return;
  backing_ = tmpl;
  if (ftruncate(fd, static_cast<off_t>(size_mib) << 20) != 0) {
    close(fd);
    return;
  }
  close(fd);
  if (partitioned) {
    // One partition from sector 2048 to the end.
    if (RunCommand(
            {"sh", "-c",
             "echo 'start=2048, type=83' | sfdisk --quiet " + backing_}) != 0) {
      return;
    }
  }
  std::vector<std::string> cmd = {"losetup", "--find", "--show"};
  if (partitioned) cmd.push_back("--partscan");
  cmd.push_back(backing_);
  std::optional<std::string> dev = CommandOutput(cmd);
  if (!dev.has_value()) return;
  path_ = *dev;
  ResetQueueSettings(name());
  if (partitioned) {
    // Kernels without CONFIG_MSDOS_PARTITION (this CI's) do not scan the
    // table themselves; partx reads it and adds the partition (BLKPG).
    std::string sys = "/sys/class/block/" + partition_name();
    if (access(sys.c_str(), F_OK) != 0) RunCommand({"partx", "--add", path_});
    for (int i = 0; i < 100 && access(sys.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (access(partition_path().c_str(), F_OK) != 0) {
      // No devtmpfs node yet: make one from sysfs's dev file.
      std::string devnum = ReadFile(sys + "/dev");
      unsigned ma = 0, mi = 0;
      if (sscanf(devnum.c_str(), "%u:%u", &ma, &mi) == 2) {
        mknod(partition_path().c_str(), S_IFBLK | 0600, makedev(ma, mi));
      }
    }
  }
}

LoopDevice::~LoopDevice() {
  if (!path_.empty()) RunCommand({"losetup", "-d", path_});
  if (!backing_.empty()) unlink(backing_.c_str());
}

std::string LoopDevice::name() const {
  return path_.substr(path_.find_last_of('/') + 1);
}
std::string LoopDevice::partition_path() const { return path_ + "p1"; }
std::string LoopDevice::partition_name() const { return name() + "p1"; }

Biosnoop::Biosnoop(std::vector<std::string> args,
                   std::vector<std::string> wrapper) {
  char tmpl[] = "/tmp/biosnoop-run-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return;
  dir_ = tmpl;
  std::vector<std::string> argv = std::move(wrapper);
  argv.insert(argv.end(), {BIOSNOOP_BIN, "-v"});
  argv.insert(argv.end(), args.begin(), args.end());
  constexpr int kCreate = O_WRONLY | O_CREAT | O_TRUNC;
  child_ = Child::Program(argv, ChildSetup()
                                    .Null(0)
                                    .Open(1, dir_ + "/out", kCreate)
                                    .Open(2, dir_ + "/err", kCreate));
}

Biosnoop::~Biosnoop() {
  child_.Kill();  // before its files go
  if (!dir_.empty()) RunCommand({"rm", "-rf", dir_});
}

bool Biosnoop::WaitAttached(int timeout_ms) {
  const bool attached = WaitUntil(
      [&] {
        return Stderr().find("biosnoop: attached") != std::string::npos ||
               !Running();
      },
      timeout_ms);
  return attached && Stderr().find("biosnoop: attached") != std::string::npos;
}

int Biosnoop::Wait(int timeout_ms) {
  if (!child_.WaitExit(absl::Milliseconds(timeout_ms))) return -2;
  return ExitCode(child_.result());
}

int Biosnoop::Stop(int sig, int timeout_ms) {
  if (Running()) kill(child_.pid(), sig);
  return Wait(timeout_ms);
}

std::string Biosnoop::Stdout() const { return ReadFile(dir_ + "/out"); }
std::string Biosnoop::Stderr() const {
  std::string err = ReadFile(dir_ + "/err");
  // A start that failed (exec's error) leaves the file empty: say why.
  if (child_.result().end == ChildResult::End::kNotStarted) {
    err += child_.result().Describe() + "\n";
  }
  return err;
}

std::vector<nlohmann::json> Biosnoop::Events() const {
  return RecordsOfType("event");
}

std::vector<nlohmann::json> Biosnoop::RecordsOfType(
    const std::string& type) const {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& r : Records()) {
    if (r.value("type", "") == type) out.push_back(std::move(r));
  }
  return out;
}

std::vector<nlohmann::json> Biosnoop::Records() const {
  std::vector<nlohmann::json> events;
  // Whether biosnoop is gone (reaped) before the file is read: only then
  // is the file final.
  const bool final = child_.result().end != ChildResult::End::kRunning;
  std::string out = Stdout();
  if (!out.empty() && out.back() != '\n') {
    // While it runs, a reader may see a record half-written: a write(2)
    // to a regular file grows it a page at a time.  Only the whole lines
    // are read then; a file it left is whole.
    EXPECT_FALSE(final) << "last line is torn";
    if (!final) out.erase(out.rfind('\n') + 1);
  }
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    try {
      events.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "invalid JSON line: " << line << ": " << e.what();
    }
  }
  return events;
}

::testing::AssertionResult Biosnoop::WaitForRecords(
    const std::string& type, size_t count,
    const std::function<bool(const nlohmann::json&)>& match, int timeout_ms) {
  size_t seen = 0;
  auto enough = [&] {
    seen = 0;
    for (const nlohmann::json& r : RecordsOfType(type)) {
      if (!match || match(r)) ++seen;
    }
    return seen >= count;
  };
  const bool ok = WaitUntil([&] { return enough() || !Running(); }, timeout_ms);
  if (ok && enough()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "waited " << (!Running() ? "until biosnoop exited" : "in vain")
         << " (bound " << timeout_ms << " ms) for " << count << " \"" << type
         << "\" record(s)" << (match ? " of the kind awaited" : "")
         << "; found " << seen << "\nstdout:\n"
         << Stdout() << "\nstderr:\n"
         << Stderr();
}

::testing::AssertionResult Biosnoop::WaitForStderr(const std::string& text,
                                                   int timeout_ms) {
  const bool ok = WaitUntil(
      [&] { return Stderr().find(text) != std::string::npos || !Running(); },
      timeout_ms);
  if (ok && Stderr().find(text) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "waited " << (!Running() ? "until biosnoop exited" : "in vain")
         << " (bound " << timeout_ms << " ms) for \"" << text
         << "\" on stderr:\n"
         << Stderr();
}

bool WaitUntil(const std::function<bool()>& done, int timeout_ms) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

int ThreadsBlockedOnPipe(pid_t pid) {
  int blocked = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/task", ec)) {
    if (ReadFile(task.path() / "wchan").find("pipe_write") !=
        std::string::npos) {
      ++blocked;
    }
  }
  return blocked;
}

uint64_t DiskCompletedRequests(const std::string& name) {
  std::ifstream in("/sys/block/" + name + "/stat");
  // reads 1, writes 5, discards 12, flushes 16 (1-based fields).
  uint64_t total = 0, v = 0;
  for (int field = 1; field <= 16 && in >> v; ++field) {
    if (field == 1 || field == 5 || field == 12 || field == 16) total += v;
  }
  return total;
}

std::map<std::string, double> Biosnoop::Summary() const {
  return ParseSummary(Stderr());
}

std::map<std::string, double> ParseSummary(absl::string_view stderr_text) {
  std::map<std::string, double> kv;
  for (absl::string_view line : absl::StrSplit(stderr_text, '\n')) {
    if (!absl::ConsumePrefix(&line, "biosnoop: completions=")) continue;
    std::string full = "completions=" + std::string(line);
    for (absl::string_view field : absl::StrSplit(full, ' ')) {
      std::pair<std::string, std::string> p = absl::StrSplit(field, '=');
      double v = 0;
      if (absl::SimpleAtod(p.second, &v)) kv[p.first] = v;
    }
  }
  return kv;
}

::testing::AssertionResult EmittedAllAccountedFor(
    const std::map<std::string, double>& summary) {
  auto get = [&summary](const char* key) {
    auto it = summary.find(key);
    return it == summary.end() ? -1.0 : it->second;
  };
  const double emitted = get("emitted");
  const double accounted =
      get("written") + get("decode_errors") + get("dropped");
  if (emitted < 0 || emitted != accounted) {
    return ::testing::AssertionFailure()
           << "emitted=" << emitted << " but written=" << get("written")
           << " + decode_errors=" << get("decode_errors")
           << " + dropped=" << get("dropped") << " = " << accounted;
  }
  return ::testing::AssertionSuccess();
}

Workload DirectDd(const std::string& dev, bool read, int bs, int count,
                  int skip_blocks) {
  std::vector<std::string> argv = {"dd", "bs=" + std::to_string(bs),
                                   "count=" + std::to_string(count),
                                   "status=none"};
  if (read) {
    argv.insert(argv.end(), {"if=" + dev, "of=/dev/null", "iflag=direct",
                             "skip=" + std::to_string(skip_blocks)});
  } else {
    argv.insert(argv.end(), {"if=/dev/zero", "of=" + dev, "oflag=direct",
                             "seek=" + std::to_string(skip_blocks)});
  }
  Child dd = Child::Program(argv, QuietSetup());
  Workload w;
  w.pid = dd.pid();
  w.exit_code = ExitCode(dd.Wait());
  return w;
}

nlohmann::json LatestStats(const Biosnoop& b) {
  const std::vector<nlohmann::json> stats = b.RecordsOfType("stats");
  if (stats.empty()) return nlohmann::json::object();
  return stats.back();
}

uint64_t MissedSoFar(const Biosnoop& b) {
  return LatestStats(b).value("missed", uint64_t{0});
}

::testing::AssertionResult LoggedOrMissed(size_t events, size_t ios,
                                          const Biosnoop& b) {
  if (events > ios) {
    return ::testing::AssertionFailure()
           << events << " events for " << ios << " I/Os\n"
           << b.Stderr();
  }
  const double missed = b.Summary()["missed"];
  if (static_cast<double>(ios - events) > missed) {
    return ::testing::AssertionFailure()
           << ios - events << " of " << ios
           << " I/Os neither logged nor counted "
           << "as missed (missed=" << missed << ")\n"
           << b.Stderr();
  }
  return ::testing::AssertionSuccess();
}

namespace {

// The kernel's information on program `prog_id`, if it can be read.
std::optional<bpf_prog_info> ProgramInfo(uint32_t prog_id) {
  const int fd = bpf_prog_get_fd_by_id(prog_id);
  if (fd < 0) return std::nullopt;
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  const int err = bpf_obj_get_info_by_fd(fd, &info, &len);
  close(fd);
  if (err != 0) return std::nullopt;
  return info;
}

}  // namespace

std::vector<LinkedProgram> LinkedPrograms(pid_t pid) {
  std::vector<LinkedProgram> out;
  std::error_code ec;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(entry.path());
    LinkedProgram p;
    bool raw_tp = false;
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> kv =
          absl::StrSplit(line, absl::MaxSplits(':', 1));
      if (kv.size() != 2) continue;
      const std::string value(absl::StripAsciiWhitespace(kv[1]));
      if (kv[0] == "link_type") raw_tp = value == "raw_tracepoint";
      if (kv[0] == "link_id") (void)absl::SimpleAtoi(value, &p.link_id);
      if (kv[0] == "prog_id") (void)absl::SimpleAtoi(value, &p.prog_id);
      if (kv[0] == "tp_name") p.tracepoint = value;
    }
    if (!raw_tp || p.link_id == 0) continue;
    if (std::optional<bpf_prog_info> info = ProgramInfo(p.prog_id)) {
      p.name = info->name;
    }
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(),
            [](const LinkedProgram& a, const LinkedProgram& b) {
              return a.link_id < b.link_id;
            });
  return out;
}

int64_t ProgramRunCount(uint32_t prog_id) {
  std::optional<bpf_prog_info> info = ProgramInfo(prog_id);
  return info ? static_cast<int64_t>(info->run_cnt) : -1;
}

std::vector<nlohmann::json> EventsOfPid(const std::vector<nlohmann::json>& all,
                                        pid_t pid) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : all) {
    if (e.value("pid", 0) == pid) out.push_back(e);
  }
  return out;
}

// "2026-11-21T05:55:28.541246942Z" in ns since the epoch; -1 if malformed.
// The fraction may have 0 to 9 digits (protobuf's JSON writes 0, 3, 6 or 9).
int64_t ParseRfc3339Ns(const std::string& s) {
  struct tm tm = {};
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr || s.size() < 2 || s.back() != 'Z') return -1;
  std::string frac;
  if (*rest == '.') {
    frac.assign(rest + 1, s.c_str() + s.size() - 1);
  } else if (rest != s.c_str() + s.size() - 1) {
    return -1;
  }
  if (frac.size() > 9 ||
      frac.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  frac.resize(9, '0');
  return int64_t{timegm(&tm)} * 1'000'000'000 + std::stoll(frac);
}

}  // namespace biosnoop::testing
