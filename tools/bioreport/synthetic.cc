#include "synthetic.h"

#include <cstring>
#include <random>

#include "event.h"
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
    {"postgres", 4242},    {"postgres", 4243}, {"kworker/u8:2", 311},
    {"fio", 9001},         {"jbd2/nvme0n1p2", 402},
    {"a\"b\\c\n\x7f", 777},  // escapes in JSON
    {"bad\xff\xfe", 666},     // not UTF-8: comm_raw
    {"caf\xc3\xa9", 555},     // valid UTF-8
};

}  // namespace

absl::Status WriteSyntheticStream(const SyntheticOptions& o, Sink* sink) {
  std::mt19937_64 rng(o.seed);
  StreamInfo info;
  info.host = "db7";
  info.boot_id = "3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b";
  info.start_realtime_ns = o.start_ns;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0";
  info.min_us = 10000;
  info.ringbuf_kib = 4096;
  if (absl::Status s = sink->WriteHeader(info); !s.ok()) return s;

  StatsSnapshot stats;
  int64_t now = o.start_ns + 1'000'000'000;
  EnrichedEvent e;
  for (uint64_t i = 1; i <= o.events; ++i) {
    const uint64_t r = rng();
    now += static_cast<int64_t>(r % 2'000'000'000 / 1000) + 1;  // <= 2 ms
    const Disk& disk = kDisks[(r >> 32) % 5];
    const Proc& proc = kProcs[(r >> 40) % 8];
    const uint64_t kind = (r >> 48) % 100;
    e.event = Event{};
    e.event.op = kind < 60 ? Op::kRead
                 : kind < 90 ? Op::kWrite
                 : kind < 95 ? Op::kFlush
                             : Op::kDiscard;
    e.event.flags = e.event.op == Op::kWrite && kind % 3 == 0 ? kFlagSync : 0;
    // Latency: 10 ms and up, a heavy tail (each step up is rarer).
    const uint64_t r2 = rng();
    uint64_t latency_ns = 10'000'000 + r2 % 10'000'000;
    for (uint64_t t = r2 >> 40; t % 4 == 0 && latency_ns < 4'000'000'000; t /= 4) {
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

    if (o.stats_every > 0 && i % o.stats_every == 0 && i < o.events) {
      stats.realtime_ns = now;
      stats.elapsed_s = static_cast<double>(now - o.start_ns) / 1e9;
      stats.emitted = i;
      stats.written = sink->events_written() ;
      stats.completions = i * 10;
      stats.below_threshold = i * 9;
      if (absl::Status s = sink->WriteStats(stats); !s.ok()) return s;
    }
  }
  if (absl::Status s = sink->Flush(); !s.ok()) return s;
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
