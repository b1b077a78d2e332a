#pragma once

// Which events a report counts: --since/--until, --host, --disk, --pid,
// --comm, --cgroup, --container, --file, --op, --min-us.  Stuck records
// (requests still in flight) are selected by the same filters but --min-us
// and --file: they have no latency (the request has not completed) and name
// no file, and a hung disk must not vanish from a report because its requests
// have not hung for N microseconds yet, or carry no file name.  Headers
// and stats are never filtered (loss figures are those of whole runs: --host
// picks the runs, Aggregator::Loss()); summary records are selected by the
// baseline report's own rules (baseline.h).

#include <cstdint>
#include <optional>
#include <string>

#include "biosnoop.pb.h"
#include "record.h"

namespace biosnoop::report {

struct Filter {
  std::optional<int64_t> since_ns;  // timestamp >= since
  std::optional<int64_t> until_ns;  // timestamp < until
  std::string host;                 // equals host; "" = any
  std::string disk;                 // equals disk or partition; "" = any
  std::optional<uint32_t> pid;
  std::optional<std::string> comm;  // exact
  // A cgroup v2 path: that cgroup and those below it ("/" = every one
  // with a known cgroup); "" = any.  A record whose cgroup is not known
  // (null, or a stream from before cgroups) never matches.
  std::string cgroup;
  std::string container;  // container_id starts with it; "" = any
  // A path prefix: some file of the event has a path that starts with it
  // (as text: "/var/lib/pg" takes "/var/lib/pgsql/x"); "" = any.  An event
  // without files (attribution off, a stream from before it, no file
  // behind its pages) never matches; stuck records are not selected by it.
  std::string file;
  std::string op;       // "read", "write", ...; "" = any
  uint64_t min_us = 0;  // latency_us >= min_us

  // `ns` is the event's timestamp in ns (already validated by the reader).
  bool Matches(const v1::Event& e, int64_t ns) const;
  // The same for a stuck record, but min_us and file (see above).
  bool Matches(const v1::Stuck& k, int64_t ns) const;
  // An op record (a call): the same filters on its fields of the same
  // names (disk: its file system's disk or partition; min_us: the call's
  // latency; file: its file's path), and `op` by the call's kind: "read"
  // takes read, pread64, readv, preadv and io_uring_read; "write" the
  // writes; "flush" fsync, fdatasync, sync_file_range and io_uring_fsync;
  // any other op no call.
  bool Matches(const v1::Op& o, int64_t ns) const;
  bool InWindow(int64_t ns) const {
    return (!since_ns || ns >= *since_ns) && (!until_ns || ns < *until_ns);
  }
};

}  // namespace biosnoop::report
