#include "trace_instance.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
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

}  // namespace

TraceInstance::TraceInstance(const std::string& disk, const std::string& name,
                             int buffer_kb,
                             const std::vector<std::string>& extra_events) {
  if (access((kTracefs + "/instances").c_str(), F_OK) != 0) {
    if (mount("nodev", kTracefs.c_str(), "tracefs", 0, nullptr) != 0) return;
    mounted_ = true;
  }
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

}  // namespace biosnoop::testing
