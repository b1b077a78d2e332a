// The stream header and stats records' values from the options and the
// counters (stream_header.h).

#include "stream_header.h"

#include <sys/random.h>
#include <sys/utsname.h>

#include <cstring>
#include <ctime>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"

namespace biosnoop {

StreamInfo MakeStreamInfo(const Options& o, const std::string& host,
                          int64_t start_realtime_ns) {
  StreamInfo info;
  info.host = host;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, info.boot_id);
  absl::StripAsciiWhitespace(&info.boot_id);
  info.start_realtime_ns = start_realtime_ns;
  info.biosnoop_version = BIOSNOOP_VERSION;
  struct utsname u;
  if (uname(&u) == 0) info.kernel_release = u.release;
  info.min_us = o.min_us;
  info.queued = o.queued;
  info.disk_filter = o.disk;
  info.pid_filter = o.pid;
  info.comm_filter = o.comm;
  info.cgroup_filter = o.cgroup;
  info.op_filter = o.op == OpFilter::kRead    ? "read"
                   : o.op == OpFilter::kWrite ? "write"
                                              : "";
  info.ringbuf_kib = o.ringbuf_kib;
  info.stuck_after_us =
      static_cast<uint64_t>(absl::ToInt64Microseconds(o.stuck_after));
  info.run_id = NewRunId();
  info.ops = o.ops;
  info.op_min_us = o.ops ? o.op_min_us : 0;
  return info;
}

std::string NewRunId() {
  uint64_t v = 0;
  if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
    // Entropy not ready this early in boot: the clock and pid still tell
    // two runs apart, which is all a run id is for.
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (static_cast<uint64_t>(ts.tv_sec) * 1000000000u + ts.tv_nsec) ^
        (static_cast<uint64_t>(getpid()) << 40);
  }
  return absl::StrFormat("%016x", v);
}

uint64_t TotalMissed(const Counters& kernel, const MissedHooks& missed,
                     uint64_t missed_completions) {
  return missed.complete + kernel.v[BIOSNOOP_CTR_MISSED_REUSE] +
         missed_completions;
}

StatsSnapshot MakeStats(const Counters& k, const MissedHooks& missed,
                        const ConsumerCounts& c, int64_t realtime_ns,
                        double elapsed_s, bool final,
                        const std::string& run_id) {
  StatsSnapshot s;
  s.realtime_ns = realtime_ns;
  s.elapsed_s = elapsed_s;
  s.completions = k.completions();
  s.emitted = k.emitted();
  s.lost = k.lost();
  s.orphans = k.orphans();
  s.below_threshold = k.below_threshold();
  s.filtered = k.filtered();
  s.decode_errors = c.decode_errors;
  s.expired = c.expired;
  s.written = c.written;
  s.dropped = c.dropped;
  s.missed = TotalMissed(k, missed, c.missed_completions);
  s.unfinished = c.unfinished;
  s.ledger_misses = k.v[BIOSNOOP_CTR_LEDGER_MISSES];
  s.ledger_replaced = k.v[BIOSNOOP_CTR_LEDGER_REPLACED];
  s.ledger_stale = k.v[BIOSNOOP_CTR_LEDGER_STALE];
  if (c.ops) {
    s.ops_lost = k.ops_lost();
    s.ops_written = c.ops_written;
    s.ops_untracked = k.ops_untracked();
    s.ops_unfollowed = k.ops_unfollowed();
  }
  s.final = final;
  s.run_id = run_id;
  return s;
}

}  // namespace biosnoop
