#pragma once

// Command line -> Options.  Pure: no I/O beyond reading argv.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cli_doc.h"

namespace biosnoop {

enum class OpFilter { kAny, kRead, kWrite };

struct Options {
  uint64_t min_us = 0;           // --min-us: report I/O at least this slow
  std::string disk;              // -d/--disk: only this disk (or partition)
  uint32_t pid = 0;              // -p/--pid: only I/O submitted by this process
  std::string comm;              // --comm: only I/O submitted by this comm
  std::string cgroup;            // --cgroup: only I/O of this cgroup v2 subtree
  OpFilter op = OpFilter::kAny;  // --op read|write
  bool queued = false;           // -Q/--queued: latency includes queue time
  std::string output = "-";      // -o/--output: file, "-" for stdout
  // --format: JSON Lines, ECS documents (JSON Lines too), protobuf, or an
  // aligned table for a person.  kAuto (no --format): the table when the
  // output is a terminal, else JSON Lines.
  enum class Format {
    kAuto,
    kJson,
    kEcs,
    kProto,
    kTable
  } format = Format::kAuto;
  // --stats-interval: a stats record every T (zero: only the final one).
  absl::Duration stats_interval = absl::Minutes(1);
  // --duration, or the event mode's argument (libbpf-tools' biosnoop 5):
  // run this long.
  std::optional<absl::Duration> duration;
  uint32_t ringbuf_kib = 2048;  // --ringbuf-kib: kernel ring buffer size (its
  // pages count twice in RSS: the kernel maps the data area twice)
  // --max-inflight-age: in-flight entries older than this are dropped (their
  // completion was missed) so the bounded table cannot fill up.
  absl::Duration max_inflight_age = absl::Minutes(10);
  // --stuck-after: a request in flight this long since its issue is
  // reported while it lasts (a stuck record); zero turns it off.
  absl::Duration stuck_after = absl::Seconds(1);
  // Histogram mode (biolatency): --hist prints latency and size histograms
  // of every I/O instead of events.
  bool hist = false;
  // --interval, or --hist's first argument (biolatency's): print every T.
  std::optional<absl::Duration> interval;
  // --count, or --hist's second argument: stop after N reports (with an
  // interval only).
  std::optional<uint64_t> count;
  bool per_disk = false;   // -D/--per-disk
  bool per_flags = false;  // -F/--per-flags (rwbs)
  bool hist_ms = false;    // -m/--ms: millisecond buckets
  bool hist_fine = false;  // --fine: 8 latency rows per power of two
  enum class HistFormat { kText, kCsv, kJson } hist_format = HistFormat::kText;
  // --summary-interval: in the event stream, a summary record with the
  // interval's histograms every T; zero turns it off.
  absl::Duration summary_interval = absl::Minutes(1);
  // --metrics-listen ADDR:PORT: serve Prometheus metrics there (port 0:
  // a free one).  A port alone binds loopback; metrics_port -1: off.
  std::string metrics_host;
  int metrics_port = -1;
  // --rescue always|auto: attach the completion rescue program from the
  // start, or (auto) once the kernel first skips a completion.
  bool rescue_always = false;
  // Files and dirtiers (docs/guide/slow-fsync.md): --no-files turns
  // both off; --no-writeback-owner only the dirtied-page ledger, of
  // --ledger-entries pages.
  bool files = true;
  bool writeback_owner = false;
  uint32_t ledger_entries = 65536;
  // --ops (docs/guide/slow-fsync.md): follow each read/write/fsync-family
  // call and io_uring request on a file of the tracked disks, an op
  // record for each taking at least --op-min-us (default: --min-us).
  // Turns the dirtied-page ledger on (writeback_owner) unless
  // --no-writeback-owner or --no-files is given.
  bool ops = false;
  uint64_t op_min_us = 0;
  // -Z/--user: the user to run as once loaded; "" is the default
  // (biosnoop, else nobody), "root" stays root.
  std::string user;
  int verbose = 0;       // -v (repeatable)
  bool help = false;     // -h/--help, -?
  bool version = false;  // --version, -V
};

// Parses argv.  Bad usage (unknown option, missing or malformed value, value
// out of range) is an InvalidArgument status whose message is one line that
// names the option and what is wrong, ready to print after "biosnoop: ".
// What users of bcc's and libbpf-tools' biosnoop and biolatency type is
// taken where biosnoop has the same thing (the duration as an argument,
// --hist's INTERVAL [COUNT], -c, -T, -t, -V, -?); where a letter means
// something else here (libbpf-tools' -m MS, --min MS), the message names
// biosnoop's equivalent, with the value converted.
absl::StatusOr<Options> ParseOptions(int argc, char* const argv[]);

// --metrics-listen's value: "PORT" (127.0.0.1), "IPV4:PORT" or
// "[IPV6]:PORT", numeric addresses only, port 0 to 65535.  Bad usage as
// above.
absl::Status ParseListenAddress(absl::string_view value, std::string* host,
                                int* port);

// Every option, with the prose around them: what getopt_long reads, what
// --help prints and what the man page (build/man/man8/biosnoop.8) says.
const cli::ProgramDoc& BiosnoopDoc();

// The --help text, made from BiosnoopDoc().
const char* UsageText();

}  // namespace biosnoop
