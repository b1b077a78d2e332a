// The generator: fixed disks and processes, values drawn from
// mt19937_64's raw output only, and summary intervals tallied beside the
// events from a random stream of their own.

#include "synthetic.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>

#include "event.h"
#include "histogram.h"
#include "stream_info.h"

namespace biosnoop::report {
namespace {

struct Disk {
  const char* name;
  const char* partition;  // "" for none
  uint32_t major, minor;
};

constexpr Disk kDisks[] = {
    {"nvme0n1", "nvme0n1p2", 259, 0},
    {"nvme0n1", "nvme0n1p1", 259, 0},
    {"sda", "sda1", 8, 0},
    {"vdb", "", 254, 16},
    {"loop3", "", 7, 3},
};

struct Proc {
  const char* comm;  // may hold any bytes (hostile names included)
  uint32_t pid;
};

constexpr Proc kProcs[] = {
    {"postgres", 4242},      {"postgres", 4243},
    {"kworker/u8:2", 311},   {"fio", 9001},
    {"jbd2/nvme0n1p2", 402}, {"a\"b\\c\n\x7f", 777},  // escapes in JSON
    {"bad\xff\xfe", 666},                             // not UTF-8: comm_raw
    {"caf\xc3\xa9", 555},                             // valid UTF-8
};

// The kernel's log2 bucket: 0 holds 0 and 1, the last bucket everything
// above its lower bound.
size_t HistBucket(uint64_t v) {
  if (v < 2) return 0;
  return std::min<size_t>(63 - std::countl_zero(v), kHistBuckets - 1);
}

// The completions of one summary interval, per (disk, op).
class SummaryTally {
 public:
  explicit SummaryTally(bool fine) : fine_(fine) {}

  void Add(absl::string_view disk, absl::string_view op, uint64_t latency_us,
           uint64_t bytes, bool slow, bool failed = false) {
    HistData& d = groups_[{std::string(disk), std::string(op)}];
    ++d.count;
    d.bytes += bytes;
    d.slow += slow;
    d.errors += failed;
    ++d.latency[HistBucket(latency_us)];
    ++d.size[HistBucket(bytes)];
    if (fine_) ++d.fine[FineElementOfNs(latency_us * 1000)];
  }

  // The interval that ends at `end_ns`, sorted by (disk, op); starts over.
  SummaryRecord Take(int64_t end_ns, uint64_t min_us) {
    SummaryRecord r;
    r.realtime_ns = end_ns;
    r.interval_s = static_cast<double>(end_ns - start_ns_) / 1e9;
    r.min_us = min_us;
    for (auto& [key, data] : groups_) {
      r.groups.push_back(HistGroup{key.first, key.second, data});
    }
    groups_.clear();
    start_ns_ = end_ns;
    return r;
  }

  void set_start(int64_t ns) { start_ns_ = ns; }

 private:
  bool fine_;
  std::map<std::pair<std::string, std::string>, HistData> groups_;
  int64_t start_ns_ = 0;
};

// The 9 completions under the threshold that come with each slow one.
void AddFastCompletions(absl::string_view disk, std::mt19937_64* rng,
                        SummaryTally* tally) {
  for (int k = 0; k < 9; ++k) {
    const uint64_t r = (*rng)();
    const bool read = r % 10 < 6;
    const uint64_t latency_us = 20 + (r >> 8) % 9980;  // under 10 ms
    const uint64_t bytes = uint64_t{4096} << ((r >> 24) % 6);
    tally->Add(disk, read ? "read" : "write", latency_us, bytes, false);
  }
}

}  // namespace

absl::Status WriteSyntheticStream(const SyntheticOptions& o, Sink* sink) {
  std::mt19937_64 rng(o.seed);
  StreamInfo info;
  info.host = o.host;
  info.boot_id = o.boot_id;
  info.start_realtime_ns = o.start_ns;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0";
  info.min_us = 10000;
  info.ringbuf_kib = 4096;
  if (absl::Status s = sink->WriteHeader(info); !s.ok()) return s;

  StatsSnapshot stats;
  int64_t now = o.start_ns + 1'000'000'000;
  EnrichedEvent e;
  // Summaries have a random stream of their own: the events stay the same.
  std::mt19937_64 summary_rng(o.seed ^ 0x9e3779b97f4a7c15u);
  SummaryTally tally(o.fine);
  tally.set_start(o.start_ns);  // biosnoop's first interval starts at attach
  for (uint64_t i = 1; i <= o.events; ++i) {
    const uint64_t r = rng();
    now += static_cast<int64_t>(r % 2'000'000'000 / 1000) + 1;  // <= 2 ms
    const Disk& disk = kDisks[(r >> 32) % 5];
    const Proc& proc = kProcs[(r >> 40) % 8];
    const uint64_t kind = (r >> 48) % 100;
    e.event = Event{};
    e.event.op = kind < 60   ? Op::kRead
                 : kind < 90 ? Op::kWrite
                 : kind < 95 ? Op::kFlush
                             : Op::kDiscard;
    e.event.flags = e.event.op == Op::kWrite && kind % 3 == 0 ? kFlagSync : 0;
    // Latency: 10 ms and up, a heavy tail (each step up is rarer).
    const uint64_t r2 = rng();
    uint64_t latency_ns = 10'000'000 + r2 % 10'000'000;
    for (uint64_t t = r2 >> 40; t % 4 == 0 && latency_ns < 4'000'000'000;
         t /= 4) {
      latency_ns *= 2;
    }
    e.event.device_ns = latency_ns;
    if ((r2 >> 24) % 7 != 0) e.event.queue_ns = (r2 >> 8) % 2'000'000;
    e.event.sector = e.event.op == Op::kFlush ? 0 : (r2 >> 16) % 100'000'000;
    e.event.bytes = e.event.op == Op::kFlush ? 0 : 512u << ((r2 >> 33) % 12);
    e.event.major = disk.major;
    e.event.minor = disk.minor;
    e.event.pid = proc.pid;
    e.event.tid = proc.pid + static_cast<uint32_t>((r2 >> 50) % 3);
    e.event.queue_depth = 1 + static_cast<uint32_t>((r2 >> 52) % 32);
    const uint64_t err = (r2 >> 56) % 100;
    e.event.blk_status = err == 0 ? 10 : err == 1 ? 2 : 0;  // EIO, ETIMEDOUT
    std::strncpy(e.event.comm.data(), proc.comm, e.event.comm.size() - 1);
    e.disk = disk.name;
    e.partition = disk.partition;
    e.realtime_ns = now;
    e.seq = i;
    if (absl::Status s = sink->Write(e); !s.ok()) return s;

    if (o.summary_every > 0) {
      tally.Add(e.disk, OpName(e.event.op),
                e.event.LatencyNs(e.include_queue) / 1000, e.event.bytes,
                /*slow=*/true, /*failed=*/e.event.blk_status != 0);
      AddFastCompletions(e.disk, &summary_rng, &tally);
      if (i % o.summary_every == 0 && i < o.events) {
        if (absl::Status s = sink->WriteSummary(tally.Take(now, info.min_us));
            !s.ok()) {
          return s;
        }
      }
    }

    if (o.stats_every > 0 && i % o.stats_every == 0 && i < o.events) {
      // As biosnoop does after each batch: the events reach the file
      // first, so `written` counts them all.
      if (absl::Status s = sink->Flush(); !s.ok()) return s;
      stats.realtime_ns = now;
      stats.elapsed_s = static_cast<double>(now - o.start_ns) / 1e9;
      stats.emitted = i;
      stats.written = sink->events_written();
      stats.completions = i * 10;
      stats.below_threshold = i * 9;
      if (absl::Status s = sink->WriteStats(stats); !s.ok()) return s;
    }
  }
  if (absl::Status s = sink->Flush(); !s.ok()) return s;
  if (o.summary_every > 0) {
    // The events the kernel could not queue were slow completions too.
    for (uint64_t k = 0; k < o.lost; ++k) {
      tally.Add("nvme0n1", "read", 10000 + summary_rng() % 50000, 4096,
                /*slow=*/true);
    }
    if (absl::Status s =
            sink->WriteSummary(tally.Take(now + 1000, info.min_us));
        !s.ok()) {
      return s;
    }
  }
  stats.realtime_ns = now + 1000;
  stats.elapsed_s = static_cast<double>(now + 1000 - o.start_ns) / 1e9;
  stats.emitted = o.events;
  stats.lost = o.lost;
  stats.completions = o.events * 10 + o.lost;
  stats.below_threshold = o.events * 9;
  stats.written = sink->events_written();
  stats.final = true;
  return sink->WriteStats(stats);
}

}  // namespace biosnoop::report
