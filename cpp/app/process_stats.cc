// Reading /proc for the process metrics (process_stats.h).  proc(5) gives
// the layouts: self/stat's fields are counted after the last ')', since
// the command name between parentheses may hold spaces and parentheses.

#include "process_stats.h"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace biosnoop {
namespace {

absl::StatusOr<std::string> Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return text.str();
}

absl::Status Bad(const std::string& path, absl::string_view why) {
  return absl::DataLossError(absl::StrCat(path, ": ", why));
}

}  // namespace

absl::StatusOr<ProcessMetrics> ReadProcessMetrics(const std::string& proc) {
  ProcessMetrics p;
  const long ticks = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);

  // Boot time, for the start time (self/stat counts it from the boot).
  const std::string stat_path = proc + "/stat";
  absl::StatusOr<std::string> stat = Read(stat_path);
  if (!stat.ok()) return stat.status();
  uint64_t btime = 0;
  bool have_btime = false;
  for (absl::string_view line : absl::StrSplit(*stat, '\n')) {
    if (absl::ConsumePrefix(&line, "btime ")) {
      have_btime = absl::SimpleAtoi(line, &btime);
      break;
    }
  }
  if (!have_btime) return Bad(stat_path, "no btime line");

  const std::string self_path = proc + "/self/stat";
  absl::StatusOr<std::string> self = Read(self_path);
  if (!self.ok()) return self.status();
  const size_t paren = self->rfind(')');
  if (paren == std::string::npos) return Bad(self_path, "no command name");
  // Fields 3 (state) onwards; field n is after[n - 3].
  const std::vector<absl::string_view> after = absl::StrSplit(
      absl::string_view(*self).substr(paren + 1), ' ', absl::SkipEmpty());
  uint64_t utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
  if (after.size() < 22 || !absl::SimpleAtoi(after[14 - 3], &utime) ||
      !absl::SimpleAtoi(after[15 - 3], &stime) ||
      !absl::SimpleAtoi(after[22 - 3], &start) ||
      !absl::SimpleAtoi(after[23 - 3], &vsize) ||
      !absl::SimpleAtoi(after[24 - 3], &rss)) {
    return Bad(self_path, "fields 14, 15 and 22 to 24 are not numbers");
  }
  p.cpu_seconds = static_cast<double>(utime + stime) / ticks;
  p.start_time_seconds = btime + static_cast<double>(start) / ticks;
  p.virtual_bytes = vsize;
  p.resident_bytes = rss * static_cast<uint64_t>(page);

  const std::string fd_path = proc + "/self/fd";
  DIR* dir = opendir(fd_path.c_str());
  if (dir == nullptr) return absl::NotFoundError("cannot list " + fd_path);
  const std::string own = std::to_string(dirfd(dir));
  while (const dirent* e = readdir(dir)) {
    const absl::string_view name = e->d_name;
    if (name == "." || name == ".." || name == own) continue;
    ++p.open_fds;
  }
  closedir(dir);

  const std::string limits_path = proc + "/self/limits";
  absl::StatusOr<std::string> limits = Read(limits_path);
  if (!limits.ok()) return limits.status();
  bool have_limit = false;
  for (absl::string_view line : absl::StrSplit(*limits, '\n')) {
    if (!absl::ConsumePrefix(&line, "Max open files")) continue;
    const std::vector<absl::string_view> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    uint64_t soft = 0;
    if (!words.empty() && words[0] == "unlimited") {
      have_limit = true;
    } else if (!words.empty() && absl::SimpleAtoi(words[0], &soft)) {
      p.max_fds = soft;
      have_limit = true;
    }
    break;
  }
  if (!have_limit) return Bad(limits_path, "no \"Max open files\" limit");
  return p;
}

}  // namespace biosnoop
