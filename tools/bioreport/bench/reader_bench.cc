// Micro-benchmarks of the stream readers: parse a synthetic stream held in
// memory (no I/O), records per second as items_per_second; the *Files
// variants read the same stream with file attribution on (every event has
// a content, most a file or three and writes a dirtier), as biosnoop writes
// it with files looked at.
//   bioreport_bench [--benchmark_filter=...]

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "file_sink.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_format.h"
#include "proto_sink.h"
#include "record_reader.h"
#include "record_writer.h"
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

// `data` with each event given what biosnoop writes with file attribution
// on, drawn from its seq: flushes and discards carry no data; a read names
// its file; a write names one to three files (a writeback batch) and, two
// times in three, the task that dirtied them, else it is metadata
// dirtied by the journal.  (The generator writes through biosnoop's own
// sinks, which do not carry these fields yet: added here, through
// bioreport's writer, until they do.)
std::string WithFiles(const std::string& data, bool proto) {
  RecordReader reader("bench", MemoryInput(data), ReaderOptions{});
  ParsedRecord rec;
  std::string out;
  while (*reader.Next(&rec)) {
    if (rec.kind == RecordKind::kEvent) {
      v1::Event& e = rec.event;
      const uint64_t n = e.seq();
      if (e.op() != "read" && e.op() != "write") {
        e.set_content("none");
      } else if (e.op() == "write" && n % 3 == 0) {
        e.set_content("metadata");
        v1::Dirtier* d = e.mutable_dirtied_by();
        d->set_pid(402);
        d->set_tid(402);
        d->set_comm("jbd2/nvme0n1p2");
        d->set_cgroup("/");
        d->set_cgroup_id(1);
        SetTimestamp(ToNs(e.timestamp()) - 5'000'000'000,
                     d->mutable_dirtied_at());
        e.set_dirtier_count(1);
      } else {
        e.set_content("file");
        const int files = e.op() == "read" ? 1 : 1 + static_cast<int>(n % 3);
        for (int i = 0; i < files; ++i) {
          v1::FileRef* f = e.add_files();
          f->set_path(absl::StrCat("/var/lib/postgresql/16/main/base/16384/",
                                   16400 + (n + i) % 500));
          f->set_path_kind("absolute");
          f->set_inode(100000 + (n + i) % 500);
          f->set_dev("259:2");
        }
        e.set_file_count(static_cast<uint32_t>(files));
        if (e.op() == "write") {
          v1::Dirtier* d = e.mutable_dirtied_by();
          d->set_pid(4242 + static_cast<uint32_t>(n % 2));
          d->set_tid(d->pid());
          d->set_comm("postgres");
          d->set_cgroup("/system.slice/postgresql.service");
          d->set_cgroup_id(5183);
          SetTimestamp(ToNs(e.timestamp()) - 1'000'000'000,
                       d->mutable_dirtied_at());
          e.set_dirtier_count(1 + static_cast<uint32_t>(n % 2));
        }
      }
    }
    if (proto) {
      AppendRecordProto(rec, &out);
    } else if (!AppendRecordJson(rec, &out).ok()) {
      std::abort();  // the generator writes only what biosnoop writes
    }
  }
  return out;
}

void ReadStream(benchmark::State& state, bool proto, bool files = false) {
  std::string data = MakeStream(proto, 100000);
  if (files) data = WithFiles(data, proto);
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
void BM_ReadJsonLinesFiles(benchmark::State& state) {
  ReadStream(state, false, true);
}
void BM_ReadProtobufFiles(benchmark::State& state) {
  ReadStream(state, true, true);
}
BENCHMARK(BM_ReadJsonLines)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadProtobuf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadJsonLinesFiles)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadProtobufFiles)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace biosnoop::report

BENCHMARK_MAIN();
