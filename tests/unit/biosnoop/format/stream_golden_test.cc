// The bytes of a whole stream, in both formats, held to files committed in
// tests/golden/stream/: a refactoring of the encoders, sinks or output file
// must write the same JSON Lines and the same protobuf stream from the same
// records, byte for byte.  A change meant to alter the output regenerates
// the files (BIOSNOOP_UPDATE_GOLDEN=1) and shows the difference in review.

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "event.h"
#include "file_op.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"
#include "stream_info.h"
#include "worst_case_event.h"

namespace biosnoop {
namespace {

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The records, fixed: every record type (calls too), every op, a failed
// I/O, a comm of quotes, control bytes and invalid UTF-8, unknown queue
// time, the longest fields.
void WriteStream(Sink& sink) {
  StreamInfo info;
  info.host = "db\"7";
  info.boot_id = "0f3c2a9e-5b1d-4c6e-8a7f-123456789abc";
  info.start_realtime_ns = 1764000000123456789;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0-test";
  info.min_us = 10000;
  info.queued = true;
  info.disk_filter = "vda";
  info.pid_filter = 42;
  info.comm_filter = "postgres";
  info.op_filter = "read";
  info.ringbuf_kib = 2048;
  info.stuck_after_us = 1000000;
  info.run_id = "9f86d081884c7d65";
  info.ops = true;
  info.op_min_us = 5000;
  ASSERT_TRUE(sink.WriteHeader(info).ok());

  StatsSnapshot first;
  first.realtime_ns = info.start_realtime_ns;
  first.run_id = info.run_id;
  ASSERT_TRUE(sink.WriteStats(first).ok());

  const char* comms[] = {"postgres", "a\"b\\c\n\x01",
                         "\xff\xfe"
                         "bad\xc3",
                         "kworker/u8:2", ""};
  for (int i = 0; i < 8; ++i) {
    EnrichedEvent e;
    e.event.complete_ns = 1000000000ull * (i + 1);
    e.event.device_ns = 12345678ull * (i + 1) + 7;
    if (i % 3 != 1) e.event.queue_ns = 2500ull * i + 3;
    e.event.sector = 4196352ull + 8 * i;
    e.event.major = 254;
    e.event.minor = i % 2;
    e.event.bytes = 4096u << (i % 4);
    e.event.pid = 5084 + i;
    e.event.tid = 5090 + i;
    e.event.queue_depth = 1 + i;
    e.event.op = static_cast<Op>(i);
    e.event.flags = static_cast<uint8_t>(i * 5);
    e.event.blk_status = i == 3 ? 10 : 0;  // one failed I/O (EIO)
    e.event.submit_known = i != 5;
    const std::string comm = comms[i % 5];
    std::copy(comm.begin(), comm.end(), e.event.comm.begin());
    e.disk = i == 6 ? "254:6" : "vda";
    e.partition = i % 2 ? "" : "vda1";
    e.realtime_ns = info.start_realtime_ns + e.event.complete_ns;
    e.seq = i + 1;
    e.include_queue = true;
    // Cgroups: unknown id (none written), known, removed, a container.
    e.event.cgroup_id = i % 4 == 0 ? 0 : 100 + i;
    // An unknown id has no name (CgroupNames::Resolve).
    e.cgroup.known = i % 4 != 2 && e.event.cgroup_id != 0;
    e.cgroup.path =
        i % 4 == 3 ? "/system.slice/docker-" + std::string(64, 'e') + ".scope"
                   : "/user.slice";
    if (i % 4 == 3) e.cgroup.container_id = std::string(64, 'e');
    e.event.completion_context = static_cast<CompletionContext>(i % 4);
    // Files and dirtiers: not looked at (the first four), then a written
    // file with its dirtier, the device's cache, no data, and three files
    // (a name only, one from outside this mount namespace, a direct one).
    Attribution& a = e.event.attribution;
    AttributionLabel& label = e.attribution;
    if (i == 4) {
      a.content = Content::kFile;
      a.file_count = 1;
      a.files.push_back({12, 254, 1, false, true, {"wal\x01", "pg"}});
      label.files = {{"/var/lib/pg/wal\x01", PathKind::kAbsolute}};
      Dirtier& d = a.dirtier.emplace();
      d.pid = 901;
      d.tid = 902;
      std::copy(comm.begin(), comm.end(), d.comm.begin());
      d.cgroup_id = 105;
      label.dirtier_cgroup = e.cgroup;
      label.dirtied_realtime_ns = e.realtime_ns - 1500000000;
      a.dirtier_count = 3;
      label.content = "file";
    } else if (i == 5) {
      a.content = Content::kBlockDevice;
      label.content = "metadata";
    } else if (i == 6) {
      a.content = Content::kNone;
      label.content = "none";
    } else if (i == 7) {
      a.content = Content::kFile;
      a.file_count = 11;
      a.incomplete = true;
      a.files.push_back({13, 254, 1, false, false, {"deep"}});
      a.files.push_back({14, 0, 52, false, true, {"x", "y"}});
      a.files.push_back({15, 254, 1, true, true, {"d"}});
      label.files = {{"deep", PathKind::kName},
                     {"/y/x", PathKind::kFsRelative},
                     {"/d", PathKind::kAbsolute}};
      label.content = "file";
    }
    // Calls (--ops): the call a request was submitted under, and the
    // write calls that dirtied a written file's pages.
    if (i % 2 == 0) e.event.op_id = 40 + i;
    if (i == 4) {
      a.dirtier->op_id = 12;
      a.dirtier_op_ids = {12, 13};
      a.dirtier_op_count = 3;
    }
    ASSERT_TRUE(sink.Write(e).ok());
  }
  // Two calls: an fsync that waited for its file's writeback, for a
  // request of its own and for the journal, on a partition; an io_uring read
  // that failed, its file not named, on a disk sysfs does not know.
  EnrichedOp fsync;
  fsync.op.op_id = 44;
  fsync.op.call = Call::kFsync;
  fsync.op.pid = 5088;
  fsync.op.tid = 5094;
  std::memcpy(fsync.op.comm.data(), "pg \"wal\"\xff", 9);
  fsync.op.cgroup_id = 104;
  fsync.op.start_ns = 4'000'000'000;
  fsync.op.end_ns = 4'061'500'999;
  fsync.op.disk_major = 254;
  fsync.op.part_major = 254;
  fsync.op.part_minor = 1;
  fsync.op.file = {12, 254, 1, false, true, {"wal\x01", "pg"}};
  fsync.op.named = true;
  fsync.op.block = {1, 0, 2000, 2000, 9'000'000, 9'000'000, 9'100'000};
  fsync.op.block_devs = {254u << 20};
  fsync.op.block_dev_count = 1;
  fsync.op.writeback = {3,          12288,      4000,      2500,
                        45'000'000, 30'000'000, 50'000'000};
  fsync.op.dirty_known = 2;
  fsync.op.dirty_age_max_ns = 1'500'000'000;
  fsync.op.dirty_age_min_ns = 1'200'000'000;
  // And for the journal's commit and its cache flush, both jbd2's.
  fsync.op.journal = {2, 8192, 1000, 800, 1'500'000, 900'000, 1'200'000};
  fsync.op.flush = {1, 0, 0, 0, 600'000, 600'000, 600'000};
  OpCulprit jbd2;
  jbd2.pid = 412;
  std::memcpy(jbd2.comm.data(), "jbd2/vda1-8", 11);
  jbd2.cgroup_id = 1;
  jbd2.cgroup = {true, "/", "", ""};
  jbd2.requests = 2;
  jbd2.bytes = 8192;
  jbd2.wait_ns = 1'200'000;
  fsync.op.journal.culprits = {jbd2};
  jbd2.requests = 1;
  jbd2.bytes = 0;
  jbd2.wait_ns = 600'000;
  fsync.op.flush.culprits = {jbd2};
  fsync.disk = "vda";
  fsync.partition = "vda1";
  fsync.cgroup = {true, "/user.slice", "", ""};
  fsync.file = {"/var/lib/pg/wal\x01", PathKind::kAbsolute};
  fsync.block_disks = {"vda"};
  fsync.start_realtime_ns = info.start_realtime_ns + fsync.op.start_ns;
  fsync.realtime_ns = info.start_realtime_ns + fsync.op.end_ns;
  ASSERT_TRUE(sink.WriteOp(fsync).ok());
  EnrichedOp uring;
  uring.op.op_id = 46;
  uring.op.call = Call::kUringRead;
  uring.op.uring = true;
  uring.op.pid = uring.op.tid = 5090;
  uring.op.start_ns = 6'000'000'000;
  uring.op.end_ns = 6'008'000'000;
  uring.op.result = -5;  // EIO
  uring.op.offset = 1 << 20;
  uring.op.bytes_requested = 4096;
  uring.op.disk_major = 254;
  uring.op.disk_minor = 6;
  uring.op.file = {77, 254, 6, true, false, {}};
  uring.op.block = {1, 4096, 1000, 1000, 7'000'000, 7'000'000, 7'500'000};
  uring.op.block_devs = {(254u << 20) | 6};
  uring.op.block_dev_count = 1;
  uring.disk = "254:6";
  uring.block_disks = {"254:6"};
  uring.start_realtime_ns = info.start_realtime_ns + uring.op.start_ns;
  uring.realtime_ns = info.start_realtime_ns + uring.op.end_ns;
  ASSERT_TRUE(sink.WriteOp(uring).ok());
  EnrichedEvent longest;
  SetLongestFixedFields(&longest);
  longest.disk = "nvme0n1";
  longest.partition = "nvme0n1p12";
  longest.realtime_ns = info.start_realtime_ns + 9;
  ASSERT_TRUE(sink.Write(longest).ok());

  StuckRequest stuck;
  stuck.inflight_ns = 1004211000;
  stuck.request.queue_ns = 3000;
  stuck.request.sector = 100;
  stuck.request.major = 254;
  stuck.request.bytes = 4096;
  stuck.request.pid = stuck.request.tid = 77;
  stuck.request.queue_depth = 2;
  stuck.request.op = Op::kFlush;
  stuck.request.flags = kFlagPreflush;
  std::string dd = "dd";
  std::copy(dd.begin(), dd.end(), stuck.request.comm.begin());
  stuck.disk = "vda";
  stuck.request.cgroup_id = 1;
  stuck.cgroup = {true, "/", "", ""};
  stuck.realtime_ns = info.start_realtime_ns + 5000000000;
  ASSERT_TRUE(sink.WriteStuck(stuck).ok());
  // A read that hangs, naming its file (issue #28).
  stuck.request.op = Op::kRead;
  stuck.request.flags = 0;
  stuck.request.sector = 4096;
  stuck.attribution.content = Content::kFile;
  stuck.attribution.file_count = 1;
  stuck.attribution.files.push_back({16, 254, 1, false, true, {"big", "db"}});
  stuck.attribution_label.content = "file";
  stuck.attribution_label.files = {{"/srv/db/big", PathKind::kAbsolute}};
  stuck.realtime_ns += 1000000000;
  ASSERT_TRUE(sink.WriteStuck(stuck).ok());

  SummaryRecord summary;
  summary.realtime_ns = info.start_realtime_ns + 60000000000;
  summary.interval_s = 60.0;
  summary.min_us = 10000;
  for (const char* op : {"read", "write"}) {
    HistGroup g;
    g.disk = "vda";
    g.op = op;
    g.data.count = 250341;
    g.data.bytes = 1025396736;
    g.data.slow = 12;
    g.data.errors = op[0] == 'w' ? 2 : 0;
    for (size_t b = 0; b < g.data.latency.size(); ++b) {
      g.data.latency[b] = b < 10 ? 1000 * b : 0;
      g.data.size[b] = b == 2 ? 250341 : 0;
    }
    // The read group with fine buckets (-92, an empty -91, -90, -89: from
    // 17.8 to 20.7 ms), the write group without: both forms' bytes.
    if (op[0] == 'r') {
      g.data.fine[-92 - kFineFirst] = 3;
      g.data.fine[-90 - kFineFirst] = 5;
      g.data.fine[-89 - kFineFirst] = 4;
    }
    summary.groups.push_back(std::move(g));
  }
  ASSERT_TRUE(sink.WriteSummary(summary).ok());

  StatsSnapshot last;
  last.realtime_ns = summary.realtime_ns + 1;
  last.elapsed_s = 60.25;
  last.completions = 1203;
  last.emitted = 17;
  last.lost = 1;
  last.orphans = 2;
  last.below_threshold = 1180;
  last.filtered = 3;
  last.decode_errors = 0;
  last.expired = 4;
  last.written = 9;
  last.dropped = 5;
  last.missed = 6;
  last.unfinished = 7;
  last.final = true;
  last.run_id = info.run_id;
  last.ledger_misses = 8;
  last.ledger_replaced = 9;
  last.ops_lost = 1;
  last.ops_written = 2;
  last.ops_untracked = 3;
  ASSERT_TRUE(sink.WriteStats(last).ok());
  ASSERT_TRUE(sink.Flush().ok());
}

class StreamGoldenTest : public ::testing::Test {
 protected:
  // Writes the stream with a sink made by `make` into a new file and
  // compares it with tests/golden/stream/`name`.
  void Check(
      const std::string& name, RecordFraming framing,
      const std::function<std::unique_ptr<Sink>(std::unique_ptr<OutputFile>)>&
          make) {
    char tmpl[] = "/tmp/biosnoop-golden-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string path = std::string(tmpl) + "/" + name;
    {
      absl::StatusOr<std::unique_ptr<OutputFile>> file =
          OutputFile::Open(path, framing);
      ASSERT_TRUE(file.ok()) << file.status();
      std::unique_ptr<Sink> sink = make(std::move(*file));
      WriteStream(*sink);
    }
    const std::string written = ReadFileBytes(path);
    unlink(path.c_str());
    rmdir(tmpl);
    const std::string golden =
        std::string(BIOREPORT_GOLDEN_DIR) + "/stream/" + name;
    const char* update = std::getenv("BIOSNOOP_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
      std::ofstream(golden, std::ios::binary) << written;
    }
    ASSERT_FALSE(written.empty());
    EXPECT_TRUE(written == ReadFileBytes(golden))
        << name << " differs from " << golden
        << " (BIOSNOOP_UPDATE_GOLDEN=1 rewrites it, if the change is meant)";
  }
};

TEST_F(StreamGoldenTest, JsonLinesAreByteIdentical) {
  Check("stream.jsonl", RecordFraming::kLines,
        [](std::unique_ptr<OutputFile> f) -> std::unique_ptr<Sink> {
          return std::make_unique<JsonlSink>(std::move(f), "db\"7");
        });
}

TEST_F(StreamGoldenTest, ProtobufStreamIsByteIdentical) {
  Check("stream.pb", RecordFraming::kVarintDelimited,
        [](std::unique_ptr<OutputFile> f) -> std::unique_ptr<Sink> {
          return std::make_unique<ProtoSink>(std::move(f), "db\"7");
        });
}

}  // namespace
}  // namespace biosnoop
