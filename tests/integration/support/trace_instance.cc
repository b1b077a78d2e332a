#include "trace_instance.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "harness.h"

namespace biosnoop::testing {
namespace {

const std::string kTracefs = "/sys/kernel/tracing";

bool Write(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.flush();
  return f.good();
}

// Mounts tracefs unless it is mounted; *mounted says whether this did.
bool EnsureTracefs(bool* mounted) {
  if (access((kTracefs + "/instances").c_str(), F_OK) == 0) return true;
  if (mount("nodev", kTracefs.c_str(), "tracefs", 0, nullptr) != 0) {
    return false;
  }
  *mounted = true;
  return true;
}

// A tracefs file's first word ("7" of "7 (expanded: 1408)").
std::string FirstWord(const std::string& path) {
  std::istringstream text(ReadFile(path));
  std::string word;
  text >> word;
  return word;
}

// The selected entry of a "[local] global mono ..." list.
std::string Selected(const std::string& path) {
  const std::string text = ReadFile(path);
  const size_t open = text.find('[');
  const size_t close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return text.substr(open + 1, close - open - 1);
}

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

const std::string kBlkLock = "/run/lock/biosnoop-blk-tracer";

}  // namespace

TraceInstance::TraceInstance(const std::string& disk, const std::string& name,
                             int buffer_kb,
                             const std::vector<std::string>& extra_events) {
  if (!EnsureTracefs(&mounted_)) return;
  std::ifstream devfile("/sys/block/" + disk + "/dev");
  unsigned major = 0, minor = 0;
  char colon = 0;
  if (!(devfile >> major >> colon >> minor)) return;
  dir_ = kTracefs + "/instances/" + name + "-" + std::to_string(getpid());
  if (mkdir(dir_.c_str(), 0755) != 0) {
    dir_.clear();
    return;
  }
  if (buffer_kb > 0 &&
      !Write(dir_ + "/buffer_size_kb", std::to_string(buffer_kb))) {
    return;
  }
  const std::string complete = dir_ + "/events/block/block_rq_complete";
  ok_ = Write(complete + "/filter",
              "dev == " + std::to_string(major << 20 | minor)) &&
        Write(complete + "/enable", "1");
  for (const std::string& event : extra_events) {
    ok_ = ok_ && Write(dir_ + "/events/" + event + "/enable", "1");
  }
}

TraceInstance::~TraceInstance() {
  if (!dir_.empty()) {
    Write(dir_ + "/events/enable", "0");
    rmdir(dir_.c_str());
  }
  if (mounted_) umount2(kTracefs.c_str(), MNT_DETACH);
}

std::string TraceInstance::trace() const { return ReadFile(dir_ + "/trace"); }

bool TraceInstance::ParseCompletion(const std::string& line, std::string* rwbs,
                                    uint64_t* sector) {
  const size_t at = line.find("block_rq_complete: ");
  if (at == std::string::npos) return false;
  std::istringstream fields(line.substr(at + 19));
  std::string dev, cmd;
  return static_cast<bool>(fields >> dev >> *rwbs >> cmd >> *sector);
}

BlkTrace::BlkTrace(const std::string& disk, int buffer_kb) : disk_(disk) {
  lock_fd_ = open(kBlkLock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    error_ = "cannot open " + kBlkLock;
    return;
  }
  if (!WaitUntil([&] { return flock(lock_fd_, LOCK_EX | LOCK_NB) == 0; },
                 120000)) {
    error_ = "another test held " + kBlkLock + " for 120 s";
    return;
  }
  if (!EnsureTracefs(&mounted_)) {
    error_ = "cannot mount tracefs at " + kTracefs;
    return;
  }
  const std::string tracer = FirstWord(kTracefs + "/current_tracer");
  if (tracer != "nop") {
    error_ = "current_tracer is '" + tracer + "', not nop: someone is tracing";
    return;
  }
  const std::string enable = "/sys/block/" + disk + "/trace/enable";
  if (FirstWord(enable) != "0") {
    error_ = enable + " is not 0: someone is tracing the disk";
    return;
  }
  old_tracing_on_ = FirstWord(kTracefs + "/tracing_on");
  const std::string clock = Selected(kTracefs + "/trace_clock");
  if (!Write(kTracefs + "/trace_clock", "mono")) {
    error_ = "the trace clock 'mono' is refused";
    return;
  }
  old_clock_ = clock;
  const std::string buffer = FirstWord(kTracefs + "/buffer_size_kb");
  if (buffer_kb > 0) {
    if (!Write(kTracefs + "/buffer_size_kb", std::to_string(buffer_kb))) {
      error_ = "cannot size the trace buffer";
      return;
    }
    old_buffer_kb_ = buffer;
  }
  // The disk first: until the tracer is set its records are dropped.
  if (!Write(enable, "1")) {
    error_ = "cannot write 1 to " + enable;
    return;
  }
  enabled_ = true;
  if (!Write(kTracefs + "/current_tracer", "blk")) {
    error_ = "the blk tracer is refused (CONFIG_BLK_DEV_IO_TRACE?)";
    return;
  }
  tracer_set_ = true;
  if (!Write(kTracefs + "/tracing_on", "1") || !Clear()) {
    error_ = "cannot start tracing";
  }
}

BlkTrace::~BlkTrace() {
  // Setting nop also empties the buffer.
  if (tracer_set_) Write(kTracefs + "/current_tracer", "nop");
  if (enabled_) Write("/sys/block/" + disk_ + "/trace/enable", "0");
  if (!old_buffer_kb_.empty()) {
    Write(kTracefs + "/buffer_size_kb", old_buffer_kb_);
  }
  if (!old_clock_.empty()) Write(kTracefs + "/trace_clock", old_clock_);
  if (!old_tracing_on_.empty()) {
    Write(kTracefs + "/tracing_on", old_tracing_on_);
  }
  if (mounted_) umount2(kTracefs.c_str(), MNT_DETACH);
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the lock
}

bool BlkTrace::Clear() const { return Write(kTracefs + "/trace", ""); }

std::string BlkTrace::trace() const { return ReadFile(kTracefs + "/trace"); }

uint64_t BlkTrace::Lost() const {
  uint64_t lost = 0;
  const std::string per_cpu = kTracefs + "/per_cpu";
  DIR* dir = opendir(per_cpu.c_str());
  if (dir == nullptr) return UINT64_MAX;
  while (const dirent* entry = readdir(dir)) {
    if (std::string(entry->d_name).rfind("cpu", 0) != 0) continue;
    std::istringstream stats(
        ReadFile(per_cpu + "/" + entry->d_name + "/stats"));
    for (std::string line; std::getline(stats, line);) {
      for (const std::string key : {"overrun: ", "dropped events: "}) {
        if (line.rfind(key, 0) == 0) {
          lost += std::strtoull(line.c_str() + key.size(), nullptr, 10);
        }
      }
    }
  }
  closedir(dir);
  return lost;
}

bool BlkTrace::Parse(const std::string& line, BlkAction* out) {
  std::istringstream in(line);
  std::vector<std::string> t;
  for (std::string word; in >> word;) t.push_back(word);
  // The timestamp ("20194.760387:") followed by the device ("7,0"); the
  // task's comm before them may hold anything, spaces included.
  for (size_t i = 0; i + 6 < t.size(); ++i) {
    const std::string& ts = t[i];
    const size_t dot = ts.find('.');
    if (ts.size() < 4 || ts.back() != ':' || dot == std::string::npos ||
        !AllDigits(ts.substr(0, dot)) ||
        !AllDigits(ts.substr(dot + 1, ts.size() - dot - 2))) {
      continue;
    }
    const size_t comma = t[i + 1].find(',');
    if (comma == std::string::npos || !AllDigits(t[i + 1].substr(0, comma)) ||
        !AllDigits(t[i + 1].substr(comma + 1))) {
      continue;
    }
    if (t[i + 2].size() != 1 || !AllDigits(t[i + 4]) || t[i + 5] != "+" ||
        !AllDigits(t[i + 6])) {
      continue;  // a comm that looks like the two, or a line with no sector
    }
    std::string frac = ts.substr(dot + 1, ts.size() - dot - 2);
    frac.resize(9, '0');
    out->ts_ns = std::stoull(ts.substr(0, dot)) * 1000000000ull +
                 std::stoull(frac.substr(0, 9));
    out->major = std::stoul(t[i + 1].substr(0, comma));
    out->minor = std::stoul(t[i + 1].substr(comma + 1));
    out->action = t[i + 2][0];
    out->rwbs = t[i + 3];
    out->sector = std::stoull(t[i + 4]);
    out->sectors = std::stoul(t[i + 6]);
    return true;
  }
  return false;
}

}  // namespace biosnoop::testing
