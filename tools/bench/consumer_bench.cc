// Consumer micro-benchmarks: what biosnoop's user space spends per event
// once a record has left the ring buffer.
//
//   decode               DecodeRecord
//   enrich               + Enricher::Enrich (names from a fake sysfs tree)
//   enrich_stacked       the same on a tree where both partitions are held
//                        (vda1 by an LVM volume, vda2 by md0 and an LVM
//                        volume over it): every event names its stack
//   jsonl                + WriteEventJson into a reused buffer (as JsonlSink)
//   proto                + the protobuf wire encoding (proto_wire.h)
//   *_sink_devnull       the real sink (JsonlSink / ProtoSink) writing to
//                        /dev/null, flushed every kBatch events as the
//                        runner flushes after each ring-buffer poll
//   jsonl_hostile_comm   AppendEventJson alone, every comm needing escapes
//
// ns per event is the time per iteration; items_per_second is events/s on
// one core.  Synthetic records: kRecords distinct biosnoop_event structs
// (reads and writes, two partitions, a few comms), cycled through.
//
// Run through tools/bench/run (table in BENCHMARKS.md), or directly:
//   cmake --build build --target consumer_bench &&
//   build/tools/bench/consumer_bench

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "biosnoop_abi.h"
#include "decoder.h"
#include "enricher.h"
#include "event.h"
#include "json_format.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "record_pipeline.h"

// The protobuf encoder landed after this benchmark was written; without it
// the proto benchmarks are simply not registered.
#if __has_include("proto_format.h") && __has_include("proto_sink.h")
#define BIOSNOOP_BENCH_PROTO 1
#include "proto_format.h"
#include "proto_sink.h"
#include "proto_wire.h"
#endif

namespace biosnoop {
namespace {

namespace fs = std::filesystem;

constexpr size_t kRecords = 4096;  // power of two: index with a mask
constexpr int kBatch = 64;         // events between two sink flushes
constexpr char kHost[] = "bench-host";

// A fake sysfs tree with the one disk the records name: vda (254:0) with
// vda1 at [2048, 2048 + 1 GiB) and vda2 after it; `stacked`: with
// class/block/ and devices stacked on both partitions (dm-0 "vg0-data" on
// vda1; md0 on vda2, dm-1 "vg1-db" on md0).
class FakeSysfs {
 public:
  explicit FakeSysfs(bool stacked = false) {
    char tmpl[] = "/tmp/biosnoop-bench-sysfs-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    root_ = dir != nullptr ? dir : "/nonexistent";
    if (dir == nullptr) return;
    const std::string rel = "devices/virtual/block/vda";
    const std::string disk = root_ + "/" + rel;
    Write(disk, "dev", "254:0");
    AddPartition(disk, "vda1", "254:1", 2048, 2097152);
    AddPartition(disk, "vda2", "254:2", 2099200, 8388608);
    fs::create_directories(root_ + "/dev/block");
    fs::create_directories(root_ + "/block");
    fs::create_symlink("../../" + rel, root_ + "/dev/block/254:0");
    fs::create_symlink("../" + rel, root_ + "/block/vda");
    if (!stacked) return;
    const std::string virt = root_ + "/devices/virtual/block";
    Write(virt + "/dm-0/dm", "name", "vg0-data");
    Write(virt + "/md0/md", "level", "raid1");
    Write(virt + "/dm-1/dm", "name", "vg1-db");
    fs::create_directories(root_ + "/class/block");
    for (const char* dir : {"/holders", "/vda1/holders", "/vda2/holders"}) {
      fs::create_directories(disk + dir);
    }
    for (const char* name : {"dm-0", "md0", "dm-1"}) {
      fs::create_directories(virt + "/" + name + "/holders");
      fs::create_symlink(std::string("../../devices/virtual/block/") + name,
                         root_ + "/class/block/" + name);
    }
    fs::create_symlink("../../" + rel, root_ + "/class/block/vda");
    fs::create_symlink("../../" + rel + "/vda1", root_ + "/class/block/vda1");
    fs::create_symlink("../../" + rel + "/vda2", root_ + "/class/block/vda2");
    fs::create_symlink("../../../dm-0", disk + "/vda1/holders/dm-0");
    fs::create_symlink("../../../md0", disk + "/vda2/holders/md0");
    fs::create_symlink("../../dm-1", virt + "/md0/holders/dm-1");
  }
  ~FakeSysfs() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  const std::string& root() const { return root_; }

 private:
  static void Write(const std::string& dir, const std::string& name,
                    const std::string& value) {
    fs::create_directories(dir);
    std::ofstream(dir + "/" + name) << value << "\n";
  }
  static void AddPartition(const std::string& disk, const std::string& name,
                           const std::string& dev, uint64_t start,
                           uint64_t size) {
    const std::string dir = disk + "/" + name;
    Write(dir, "dev", dev);
    Write(dir, "partition", "1");
    Write(dir, "start", std::to_string(start));
    Write(dir, "size", std::to_string(size));
  }

  std::string root_;
};

// Removed at exit by their destructors.
const FakeSysfs& Sysfs() {
  static const FakeSysfs sysfs;
  return sysfs;
}
const FakeSysfs& StackedSysfs() {
  static const FakeSysfs sysfs(/*stacked=*/true);
  return sysfs;
}

// Deterministic pseudo-random numbers (xorshift64): the same records every run.
uint64_t NextRandom(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

void SetComm(biosnoop_event* r, const char* comm) {
  std::memset(r->comm, 0, sizeof(r->comm));
  std::memcpy(r->comm, comm, std::min(std::strlen(comm), sizeof(r->comm)));
}

// Records as the kernel program writes them for a random-read workload with
// some writes: mostly fio, a few other submitters.
const std::vector<biosnoop_event>& Records() {
  static const std::vector<biosnoop_event>* records = [] {
    auto* v = new std::vector<biosnoop_event>(kRecords);
    static const char* const kComms[] = {
        "fio", "fio", "fio", "postgres", "kworker/u4:2", "jbd2/vda1-8"};
    uint64_t rnd = 0x9e3779b97f4a7c15ULL;
    uint64_t now = 1'000'000'000'000ULL;  // 1000 s of uptime
    for (biosnoop_event& r : *v) {
      std::memset(&r, 0, sizeof(r));
      const uint64_t x = NextRandom(&rnd);
      r.abi_version = BIOSNOOP_ABI_VERSION;
      r.size = sizeof(r);
      r.kind = BIOSNOOP_REC_EVENT;
      r.op = (x & 7) == 0 ? BIOSNOOP_OP_WRITE : BIOSNOOP_OP_READ;
      r.flags = r.op == BIOSNOOP_OP_WRITE ? BIOSNOOP_FLAG_SYNC : 0;
      now += 2000 + (x >> 52);  // ~500k events/s
      r.complete_ns = now;
      r.device_ns = 20'000 + (x >> 40) % 5'000'000;
      r.queue_ns = (x & 31) == 0 ? BIOSNOOP_QUEUE_UNKNOWN : (x >> 20) % 50'000;
      r.sector = 2048 + ((x >> 8) % 10'000'000) / 8 * 8;  // both partitions
      r.dev = (254u << 20) | 0u;
      r.bytes = (x & 15) == 0 ? 131072 : 4096;
      r.pid = 4000 + (x >> 60);
      r.tid = r.pid + ((x >> 56) & 3);
      r.queue_depth = 1 + (x >> 44) % 32;
      r.submit_known = 1;
      SetComm(&r, kComms[(x >> 32) % 6]);
    }
    return v;
  }();
  return *records;
}

// What a hostile or odd process name looks like: quotes, backslashes,
// control bytes, invalid UTF-8 (which also adds comm_raw).
const std::vector<EnrichedEvent>& HostileEvents() {
  static const std::vector<EnrichedEvent>* events = [] {
    static const char* const kComms[] = {"a\"b\\c", "tab\there\n",
                                         "bad\xff\xfeutf8", "\x01\x02\x03\x7f",
                                         "caf\xc3\xa9"};
    auto* v = new std::vector<EnrichedEvent>(kRecords);
    Enricher enricher(Sysfs().root(), false);
    for (size_t i = 0; i < kRecords; ++i) {
      biosnoop_event r = Records()[i];
      SetComm(&r, kComms[i % 5]);
      absl::StatusOr<Event> e = DecodeRecord(&r, sizeof(r));
      if (e.ok()) enricher.Enrich(*e, e->complete_ns, &(*v)[i]);
    }
    return v;
  }();
  return *events;
}

// The stages, each including those before it, as RecordPipeline (the
// runner's per-record path) runs them.
struct Pipeline {
  explicit Pipeline(const FakeSysfs& sysfs = Sysfs())
      : enricher(sysfs.root(), /*include_queue=*/false) {}

  // Decodes and enriches record `i` into `scratch`; false on a decode error
  // (never with these records).
  bool DecodeEnrich(size_t i) {
    const biosnoop_event& r = Records()[i & (kRecords - 1)];
    if (!DecodeRecordInto(&r, sizeof(r), &scratch.event).ok()) return false;
    enricher.EnrichInPlace(scratch.event.complete_ns, &scratch);
    return true;
  }

  Enricher enricher;
  EnrichedEvent scratch;
};

// Keeps `buffer` the size of an OutputFile buffer, as a sink would.
void ResetWhenFull(std::string* buffer) {
  if (buffer->size() >= OutputFile::kBufferBytes) {
    benchmark::DoNotOptimize(buffer->data());
    buffer->clear();
  }
}

void SetCounters(benchmark::State& state, size_t bytes) {
  state.SetItemsProcessed(state.iterations());
  if (bytes > 0) state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_Decode(benchmark::State& state) {
  size_t i = 0;
  Event e;
  for (auto _ : state) {
    const biosnoop_event& r = Records()[i++ & (kRecords - 1)];
    absl::Status s = DecodeRecordInto(&r, sizeof(r), &e);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(e);
  }
  SetCounters(state, 0);
}
BENCHMARK(BM_Decode);

void BM_DecodeEnrich(benchmark::State& state) {
  Pipeline p;
  size_t i = 0;
  for (auto _ : state) {
    if (!p.DecodeEnrich(i++)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(p.scratch);
  }
  SetCounters(state, 0);
}
BENCHMARK(BM_DecodeEnrich);

void BM_DecodeEnrichStacked(benchmark::State& state) {
  Pipeline p(StackedSysfs());
  size_t i = 0;
  for (auto _ : state) {
    if (!p.DecodeEnrich(i++)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(p.scratch);
  }
  if (p.scratch.stack.empty()) state.SkipWithError("no stack named");
  SetCounters(state, 0);
}
BENCHMARK(BM_DecodeEnrichStacked);

void BM_DecodeEnrichJsonl(benchmark::State& state) {
  Pipeline p;
  // Lines written one after another into a buffer the size of the output
  // file's, as JsonlSink writes them (WriteEventJson: nothing zero-filled).
  std::string buffer(OutputFile::kBufferBytes, '\0');
  const JsonHost host(kHost);
  size_t i = 0, used = 0, bytes = 0;
  for (auto _ : state) {
    if (!p.DecodeEnrich(i++)) state.SkipWithError("decode failed");
    if (buffer.size() - used < EventJsonBound(p.scratch, host)) used = 0;
    char* start = buffer.data() + used;
    const size_t n =
        static_cast<size_t>(WriteEventJson(p.scratch, host, start) - start);
    used += n;
    bytes += n;
  }
  SetCounters(state, bytes);
}
BENCHMARK(BM_DecodeEnrichJsonl);

void BM_JsonlHostileComm(benchmark::State& state) {
  const std::vector<EnrichedEvent>& events = HostileEvents();
  std::string buffer;
  buffer.reserve(OutputFile::kBufferBytes + 4096);
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const size_t before = buffer.size();
    AppendEventJson(events[i++ & (kRecords - 1)], kHost, &buffer);
    bytes += buffer.size() - before;
    ResetWhenFull(&buffer);
  }
  SetCounters(state, bytes);
}
BENCHMARK(BM_JsonlHostileComm);

// The sink as the runner drives it: Write per event, Flush per batch.
template <typename MakeSink>
void RunSinkToDevNull(benchmark::State& state, RecordFraming framing,
                      MakeSink make_sink) {
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open("/dev/null", framing);
  if (!file.ok()) {
    state.SkipWithError(file.status().ToString().c_str());
    return;
  }
  std::unique_ptr<Sink> sink = make_sink(std::move(*file));
  Enricher enricher(Sysfs().root(), /*include_queue=*/false);
  RecordPipeline pipeline{&enricher, sink.get()};
  size_t i = 0;
  for (auto _ : state) {
    const biosnoop_event& r = Records()[i & (kRecords - 1)];
    if (!pipeline.Consume(&r, sizeof(r)).ok())
      state.SkipWithError("write failed");
    if (++i % kBatch == 0 && !sink->Flush().ok()) {
      state.SkipWithError("flush failed");
    }
  }
  if (!sink->Flush().ok()) state.SkipWithError("flush failed");
  if (pipeline.decode_errors > 0) state.SkipWithError("decode failed");
  SetCounters(state, 0);
}

void BM_JsonlSinkDevNull(benchmark::State& state) {
  RunSinkToDevNull(state, RecordFraming::kLines,
                   [](std::unique_ptr<OutputFile> f) -> std::unique_ptr<Sink> {
                     return std::make_unique<JsonlSink>(std::move(f), kHost);
                   });
}
BENCHMARK(BM_JsonlSinkDevNull);

#ifdef BIOSNOOP_BENCH_PROTO
void BM_DecodeEnrichProto(benchmark::State& state) {
  Pipeline p;
  // What ProtoSink does: the direct wire encoder (proto_wire.h), records
  // one after another in a buffer the size of the output file's (a few
  // bytes apart: each record's prefix is written right before its body).
  std::string buffer(OutputFile::kBufferBytes, '\0');
  size_t i = 0, used = 0, bytes = 0;
  const ProtoHost host(kHost);
  for (auto _ : state) {
    if (!p.DecodeEnrich(i++)) state.SkipWithError("decode failed");
    if (buffer.size() - used < EventRecordBound(p.scratch, host)) used = 0;
    char* start = nullptr;
    char* end = WriteEventRecordDelimited(p.scratch, host, buffer.data() + used,
                                          &start);
    used = static_cast<size_t>(end - buffer.data());
    bytes += static_cast<size_t>(end - start);
  }
  SetCounters(state, bytes);
}
BENCHMARK(BM_DecodeEnrichProto);

void BM_ProtoSinkDevNull(benchmark::State& state) {
  RunSinkToDevNull(state, RecordFraming::kVarintDelimited,
                   [](std::unique_ptr<OutputFile> f) -> std::unique_ptr<Sink> {
                     return std::make_unique<ProtoSink>(std::move(f), kHost);
                   });
}
BENCHMARK(BM_ProtoSinkDevNull);
#endif

}  // namespace
}  // namespace biosnoop

BENCHMARK_MAIN();
