// ecs_sample FILE: writes an ECS stream (--format ecs) of every record
// kind with every field set, through the real sink (EcsSink over an
// OutputFile): a header, a failed event with files, a dirtier, a cgroup
// and a container, a successful event with nothing optional, a stuck
// request, a call (--ops) with every field and a read with nothing
// optional, a summary of two groups and a final stats record.  The
// ecs_schema test (ecs_check.js) checks it against the ECS definitions
// and the index template in examples/; the shipping_configs test reads
// its field names.

#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "ecs_sink.h"
#include "every_field_records.h"
#include "output_file.h"
#include "stuck_like.h"

int main(int argc, char** argv) {
  using namespace biosnoop;
  if (argc != 2) {
    std::fprintf(stderr, "usage: ecs_sample FILE\n");
    return 64;
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> file =
      OutputFile::Open(argv[1], RecordFraming::kLines);
  if (!file.ok()) {
    std::fprintf(stderr, "ecs_sample: %s\n", file.status().ToString().c_str());
    return 1;
  }
  EcsSink sink(std::move(*file), "db7");
  EnrichedEvent quiet;
  quiet.event.device_ns = 12345678;
  quiet.event.op = Op::kWrite;
  quiet.event.pid = quiet.event.tid = 7;
  std::memcpy(quiet.event.comm.data(), "kworker/u8:2", 12);
  quiet.disk = "vda";
  quiet.realtime_ns = 1795239841000000001;
  quiet.seq = 2;
  EnrichedOp read;
  read.op.op_id = 2;
  read.op.call = Call::kRead;
  read.op.result = 4096;
  read.op.end_ns = 20'000'000;
  read.disk = "vda";
  read.realtime_ns = 1795239841000000002;
  const absl::Status status[] = {
      sink.WriteHeader(EveryFieldInfo()),
      sink.Write(EveryFieldEvent()),
      sink.Write(quiet),
      sink.WriteStuck(StuckLike(EveryFieldEvent())),
      sink.WriteOp(EveryFieldOp()),
      sink.WriteOp(read),
      sink.WriteSummary(EveryFieldSummary()),
      sink.WriteStats(EveryFieldStats()),
      sink.Flush(),
  };
  for (const absl::Status& s : status) {
    if (!s.ok()) {
      std::fprintf(stderr, "ecs_sample: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
