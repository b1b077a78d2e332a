// Micro-benchmarks of the stream readers: parse a synthetic stream held in
// memory (no I/O), records per second as items_per_second.
//   bioreport_bench [--benchmark_filter=...]

#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "file_sink.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"
#include "record_reader.h"
#include "synthetic.h"
#include "unistd.h"

namespace biosnoop::report {
namespace {

// A synthetic stream of `events` events in a temporary file, read back.
std::string MakeStream(bool proto, uint64_t events) {
  char path[] = "/tmp/bioreport-bench-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  unlink(path);
  {
    auto file = OutputFile::Open(
        path, proto ? RecordFraming::kVarintDelimited : RecordFraming::kLines);
    std::unique_ptr<Sink> sink;
    if (proto) {
      sink = std::make_unique<ProtoSink>(std::move(*file), "db7");
    } else {
      sink = std::make_unique<JsonlSink>(std::move(*file), "db7");
    }
    SyntheticOptions options;
    options.events = events;
    (void)WriteSyntheticStream(options, sink.get());
    (void)sink->Flush();
  }
  std::string data;
  FILE* f = std::fopen(path, "rb");
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;)
    data.append(buf, n);
  std::fclose(f);
  unlink(path);
  return data;
}

void ReadStream(benchmark::State& state, bool proto) {
  const std::string data = MakeStream(proto, 100000);
  uint64_t records = 0;
  for (auto _ : state) {
    RecordReader reader("bench", MemoryInput(data), ReaderOptions{});
    ParsedRecord rec;
    while (*reader.Next(&rec)) ++records;
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(
      static_cast<int64_t>(data.size() * state.iterations()));
}

void BM_ReadJsonLines(benchmark::State& state) { ReadStream(state, false); }
void BM_ReadProtobuf(benchmark::State& state) { ReadStream(state, true); }
BENCHMARK(BM_ReadJsonLines)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadProtobuf)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace biosnoop::report

BENCHMARK_MAIN();
