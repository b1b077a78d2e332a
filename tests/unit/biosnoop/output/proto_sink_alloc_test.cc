// Writing an event allocates nothing once a sink has warmed up: the sinks
// reuse one message and one buffer (ProtoSink) or one line (JsonlSink).
// Counted with a replacement operator new that counts only while a test
// asks it to, on the test's own thread.

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"

namespace {
thread_local bool g_counting = false;
thread_local size_t g_allocations = 0;
}  // namespace

// g++ flags free() in a replacement operator delete as mismatched with
// operator new, although both sides here are malloc/free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace biosnoop {
namespace {

EnrichedEvent Event(uint64_t seq) {
  EnrichedEvent e;
  e.event.device_ns = 12345678 * (seq % 7 + 1);
  if (seq % 3) e.event.queue_ns = 1000 * seq;
  e.event.sector = seq * 8;
  e.event.major = 259;
  e.event.bytes = 4096;
  e.event.pid = static_cast<uint32_t>(seq);
  e.event.op = seq % 2 ? Op::kRead : Op::kWrite;
  e.event.blk_status = seq % 5 == 0 ? 10 : 0;
  const char* comm = seq % 4 == 0 ? "bad\xff\xfe" : "postgres";
  std::strncpy(e.event.comm.data(), comm, 15);
  e.disk = "nvme0n1";
  e.partition = seq % 2 ? "nvme0n1p2" : "";
  e.realtime_ns = 1795239841000000000 + static_cast<int64_t>(seq) * 1000;
  e.seq = seq;
  return e;
}

size_t AllocationsPerThousandEvents(bool proto) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       (std::string("biosnoop-alloc-") + std::to_string(getpid()) +
        (proto ? ".pb" : ".jsonl")))
          .string();
  std::filesystem::remove(path);
  std::unique_ptr<Sink> sink;
  {
    auto file = OutputFile::Open(
        path, proto ? RecordFraming::kVarintDelimited : RecordFraming::kLines);
    EXPECT_TRUE(file.ok());
    if (proto) {
      sink = std::make_unique<ProtoSink>(std::move(*file), "db-7");
    } else {
      sink = std::make_unique<JsonlSink>(std::move(*file), "db-7");
    }
  }
  std::vector<EnrichedEvent> events;
  for (uint64_t i = 1; i <= 1100; ++i) events.push_back(Event(i));
  for (size_t i = 0; i < 100; ++i) EXPECT_TRUE(sink->Write(events[i]).ok());
  EXPECT_TRUE(sink->Flush().ok());
  g_allocations = 0;
  g_counting = true;
  for (size_t i = 100; i < 1100; ++i) {
    if (!sink->Write(events[i]).ok()) break;
    if (i % 50 == 0 && !sink->Flush().ok()) break;
  }
  g_counting = false;
  EXPECT_TRUE(sink->Flush().ok());
  EXPECT_EQ(sink->events_written(), 1100u);
  std::filesystem::remove(path);
  return g_allocations;
}

TEST(SinkAllocationTest, ProtoSinkAllocatesNothingPerEvent) {
  EXPECT_EQ(AllocationsPerThousandEvents(/*proto=*/true), 0u);
}

TEST(SinkAllocationTest, JsonlSinkAllocatesNothingPerEvent) {
  EXPECT_EQ(AllocationsPerThousandEvents(/*proto=*/false), 0u);
}

}  // namespace
}  // namespace biosnoop
