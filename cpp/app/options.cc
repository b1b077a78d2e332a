// The command line -> Options (getopt_long), with every value checked and one
// line of bad usage for each error (options.h).  The options are described
// once, in MakeDoc: getopt_long's tables, --help and the man page
// (tools/man) all come from that table, so they cannot disagree.

#include "options.h"

#include <arpa/inet.h>
#include <getopt.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "cli_numbers.h"
#include "status_macros.h"

namespace biosnoop {
namespace {

// Long-only options get values above the char range.
enum LongOnly : int {
  kOptMinUs = 256,
  kOptComm,
  kOptOp,
  kOptDuration,
  kOptRingbufKib,
  kOptMaxInflightAge,
  kOptHist,
  kOptInterval,
  kOptCsv,
  kOptCount,
  kOptFine,
  kOptSummaryInterval,
  kOptFormat,
  kOptStatsInterval,
  kOptRescue,
  kOptStuckAfter,
  kOptNoFiles,
  kOptWritebackOwner,
  kOptNoWritebackOwner,
  kOptLedgerEntries,
  kOptMetricsListen,
  kOptOps,
  kOptOpMinUs,
};

// Every option, its --help paragraph and the man page's more; and the man
// page's prose around them.  getopt_long's tables are made from it too.
cli::ProgramDoc MakeDoc() {
  using cli::Entry;
  using cli::Flag;
  cli::Section main_options{
      .entries = {
          {{Flag{"min-us", 0, "N", kOptMinUs}},
           "report I/O taking at least N microseconds (default 0: all); "
           "failed I/O is reported whatever its latency"},
          {{Flag{"disk", 'd', "NAME"}},
           "only this disk (vda) or partition (vda1)",
           "",
           "A path is followed through symlinks to its device node "
           "(/dev/vda, /dev/disk/by-id/..., /dev/mapper/x). A partition is "
           "the disk restricted to the partition's sectors, followed by its "
           "name while biosnoop runs: resized, moved, deleted or added "
           "again, the filter follows within a second and one line on "
           "stderr says so. Bio-based devices (device-mapper, md, zram, "
           "brd) are refused with that reason; for a stacked device the "
           "message names the disks its I/O goes to."},
          {{Flag{"pid", 'p', "PID"}},
           "only I/O submitted by process PID",
           "",
           "PID is from 1 to 4194304; above kernel.pid_max it is bad usage. "
           "No such process at start is a warning, and the filter stays, "
           "for a process that gets that PID later."},
          {{Flag{"comm", 0, "NAME", kOptComm}},
           "only I/O submitted by processes named NAME",
           "",
           "The name is matched exactly, at most 15 bytes (the kernel's "
           "TASK_COMM_LEN)."},
          {{Flag{"cgroup", 'c', "PATH"}},
           "only I/O submitted by tasks in cgroup v2 PATH or below it "
           "(/system.slice/x.service, from the v2 root, or its path under "
           "the v2 mount, as libbpf-tools' -c takes it)",
           "",
           "Decided in the kernel: the rest counts as filtered and never "
           "reaches biosnoop. A cgroup that does not exist at start is bad "
           "usage. PATH is followed, as systemd makes a service's cgroup "
           "again at each restart: checked once a second, a removed cgroup "
           "matches nothing until a cgroup of that path is made again, "
           "which is then matched; each change is one line on stderr."},
          {{Flag{"op", 0, "read|write", kOptOp}}, "only reads, or only writes"},
          {{Flag{"queued", 'Q'}},
           "include queue time (submission to issue) in the latency that is "
           "compared and reported",
           "",
           "As with biolatency -Q: the latency compared to --min-us and "
           "reported as latency_us starts at submission, not issue."},
          {{Flag{"output", 'o', "FILE"}},
           "append to FILE (mode 0640, never through a symlink); default: "
           "stdout.  SIGHUP reopens FILE (log rotation).",
           "",
           "FILE, and stdout, may be a regular file, a FIFO, a terminal or "
           "/dev/null; anything else is refused before a byte is written. A "
           "FIFO nobody reads yet is waited for. If reopening on SIGHUP "
           "fails, output stays in the old file."},
          {{Flag{"format", 0, "F", kOptFormat}},
           "json (JSON Lines), ecs (one Elastic Common Schema document per "
           "line), proto (length-delimited biosnoop.v1.Record messages, see "
           "proto/biosnoop.proto) or table (one aligned line per event, for "
           "a person); default: table when the output is a terminal, else "
           "json",
           "",
           "jsonl and protobuf are taken for json and proto. The table's "
           "columns are the time of day (local), the process name and "
           "pid, the partition (or disk), the operation, bytes, the "
           "latency and the queue time in milliseconds, with --ops the "
           "call (#op_id), and the file; a failed request's file column "
           "starts with its error ([EIO]). Names and paths are printed "
           "with every control character, invalid UTF-8 and (unless the "
           "locale is UTF-8) every non-ASCII character as ?, so nothing "
           "reaches the terminal as an escape sequence; on a terminal the "
           "file is shortened from the left (...) to fit its width. The "
           "column header starts the output, and each file SIGHUP opens, "
           "and is printed again when a value needs a wider column. "
           "Calls (--ops) and stuck records are lines of the table (the "
           "call's operation is its name with (), such as fsync(); a "
           "stuck request's file column starts with [stuck] and its "
           "latency is its time in flight so far); the stats records "
           "(but the final one, which the summary line says) and each "
           "disk and operation of the summary records are one line each "
           "on stderr. For programs, use json: the table's layout may "
           "change."},
          {{Flag{"stats-interval", 0, "T", kOptStatsInterval}},
           "a stats record (counters, loss) in the stream every T (default "
           "1m; 0: only the final one at exit)"},
          {{Flag{"duration", 0, "T", kOptDuration}},
           "stop after T (seconds, as 30 or 0.5, or 90s, 5m, 1h); also the "
           "argument DURATION, as libbpf-tools' biosnoop 5 takes it"},
          {{Flag{"ringbuf-kib", 0, "N", kOptRingbufKib}},
           "kernel ring buffer size in KiB, a power of two (default 2048)",
           "",
           "From 4 to 1048576. The default holds about 17,000 events of "
           "backlog; its pages count twice in biosnoop's RSS (the kernel "
           "maps the data area twice)."},
          {{Flag{"max-inflight-age", 0, "T", kOptMaxInflightAge}},
           "forget a request whose completion has not come after T (default "
           "10m; counted as expired)",
           "",
           "At least 1 second. The bounded table of requests in flight "
           "cannot fill up with requests whose completion was missed."},
          {{Flag{"summary-interval", 0, "T", kOptSummaryInterval}},
           "every T (default 1m; 0: never) a summary record with the "
           "interval's latency/size histograms per disk and op"},
          {{Flag{"stuck-after", 0, "T", kOptStuckAfter}},
           "a stuck record for each request still in flight T after its "
           "issue, written while it hangs (default 1s, at least 1s; 0: "
           "never)"},
          {{Flag{"metrics-listen", 0, "ADDR:PORT", kOptMetricsListen}},
           "serve Prometheus metrics (latency histograms per disk and op, "
           "I/O, byte and loss counters) at http://ADDR:PORT/metrics; a "
           "port alone listens on 127.0.0.1, [IPV6]:PORT on an IPv6 "
           "address, port 0 on a free port (said on stderr)",
           "",
           "Addresses are numeric; 0.0.0.0:PORT listens on every interface. "
           "A malformed value or an address not on this host is bad usage "
           "(exit 64) before anything is loaded or created; a port below "
           "1024 without CAP_NET_BIND_SERVICE exits 77. An address in use "
           "is a warning: the events go on, and a port from 1024 up is "
           "tried again every 5 s. The server is "
           "a module, biosnoop-metrics.so, loaded only with this option "
           "(FILES)."},
          {{Flag{"rescue", 0, "always|auto", kOptRescue}},
           "the kernel skips a completion that interrupts biosnoop's "
           "completion program on the same CPU; a second program recovers "
           "it, at the cost of one more program run per I/O.  auto "
           "(default): attach it at the first skip (those before are "
           "counted as missed); always: from the start"},
          {{Flag{"no-files", 0, nullptr, kOptNoFiles}},
           "do not read a reported request's pages for its files (content, "
           "files, file_count, dirtied_by: docs/guide/slow-fsync.md)",
           "",
           "The dirtied-page ledger goes with them."},
          {{Flag{"writeback-owner", 0, nullptr, kOptWritebackOwner},
            Flag{"no-writeback-owner", 0, nullptr, kOptNoWritebackOwner}},
           "keep or not (default) the dirtied-page ledger that names the "
           "task that dirtied written pages (dirtied_by); it costs ~300 ns "
           "per page dirtied",
           "",
           "--writeback-owner needs the files: with --no-files it is bad "
           "usage."},
          {{Flag{"ledger-entries", 0, "N", kOptLedgerEntries}},
           "pages the ledger remembers, a power of two from 1024 (default "
           "65536: 3.5 MiB)",
           "",
           "At most 16777216."},
          {{Flag{"ops", 0, nullptr, kOptOps}},
           "follow each read, write, pread64, pwrite64, readv, writev, "
           "preadv, pwritev, fsync, fdatasync and sync_file_range call (and "
           "io_uring read, write, fsync) on a file of the tracked disks: an "
           "op record for each that takes at least --op-min-us, its time "
           "split into block, writeback and other; events name their call "
           "(op_id).  Turns on --writeback-owner unless --no-writeback-owner "
           "is given.  Nothing is attached without it "
           "(docs/guide/slow-fsync.md)",
           "",
           "Events also name the calls that dirtied their pages "
           "(dirtier_op_ids). Without the files (--no-files) there is no "
           "ledger. With --hist it is bad usage."},
          {{Flag{"op-min-us", 0, "N", kOptOpMinUs}},
           "with --ops: write an op record for each call at least N "
           "microseconds long (default: --min-us)",
           "",
           "Without --ops it is bad usage."},
      }};
  cli::Section hist_options{
      .heading = "Histogram mode (like biolatency), no events:",
      .man_title = "Histogram mode",
      .man_text =
          "Like biolatency: every I/O that passes the filters counted into "
          "log2 histograms in the kernel, printed instead of events. The "
          "event stream's --format, --stats-interval, --summary-interval, "
          "--stuck-after, --metrics-listen and --ops do not go with --hist, "
          "nor the options below without it: bad usage rather than "
          "ignored.",
      .entries = {
          {{Flag{"hist", 0, nullptr, kOptHist}},
           "count every I/O into in-kernel log2 histograms and print them at "
           "exit, or every --interval"},
          {{Flag{"interval", 0, "T", kOptInterval}},
           "print (and restart) the histograms every T; also the argument "
           "INTERVAL, as biolatency 1 10 takes it"},
          {{Flag{"count", 0, "N", kOptCount}},
           "with an interval: stop after N reports; also the argument COUNT",
           "",
           "From 1 to 1000000000. Without an interval it is bad usage."},
          {{Flag{"per-disk", 'D'}}, "one histogram per disk"},
          {{Flag{"per-flags", 'F'}},
           "one histogram per operation flags (rwbs)"},
          {{Flag{"ms", 'm'}}, "millisecond buckets (default microseconds)"},
          {{Flag{"fine", 0, nullptr, kOptFine}},
           "16 latency buckets per power of two instead of one (each "
           "4.4% wide), per disk and operation",
           "",
           "The buckets are those of Prometheus's native histograms at "
           "schema 4: (2^((k-1)/16), 2^(k/16)] seconds, the bucket index k in "
           "the CSV's bucket column and the JSON's \"k\"; rows run from the "
           "first non-empty bucket to the last. The kernel keeps them per "
           "disk and operation, not per flags: with -F it is bad usage."},
          {{Flag{"csv", 0, nullptr, kOptCsv}},
           "print CSV: [disk,][op,]bucket,lo_us,hi_us,count",
           "",
           "With --interval, each report's rows follow the last one's; -o "
           "FILE with SIGHUP starts the new file with the column line."},
          {{Flag{"json", 'j'}},
           "print one JSON object per report (as bcc's biolatency -j)",
           "",
           "One of --csv and --json: both is bad usage."},
      }};
  cli::Section other_options{
      .man_title = "Other options",
      .entries = {
          {{Flag{"user", 'Z', "USER"}},
           "once loaded, run as USER (default: biosnoop if that user "
           "exists, else nobody; root stays root), as tcpdump -Z",
           "",
           "After the programs are attached, the output opened and the "
           "metrics port bound, biosnoop takes USER's uid, group and "
           "supplementary groups, then drops every capability. USER is a "
           "name or a uid in the user database; one that does not exist is "
           "bad usage. A file biosnoop creates with -o is given to USER (its "
           "group stays), so that SIGHUP can open it again; after a "
           "rotation the new file is opened in the directory held since the "
           "start, so USER must be able to create it there, or logrotate "
           "must create it writable by USER (create 0640 USER GROUP); "
           "biosnoop warns at start when neither can work. Started as "
           "another user than root (with CAP_BPF and CAP_PERFMON), biosnoop "
           "stays that user unless -Z says otherwise."},
          {{Flag{"verbose", 'v'}},
           "say what is attached, and print every counter in the summary "
           "line; -vv adds libbpf's log"},
          {{Flag{nullptr, 't'}, Flag{"timestamp", 'T'}},
           "taken for libbpf-tools' biosnoop -t and biolatency -T: events, "
           "stuck records and reports always carry their time",
           "",
           "The table's first column is the time of day, JSON records have "
           "a timestamp, and --hist's text and JSON reports start with "
           "theirs. CSV rows have none: with --csv it is bad usage."},
          {{Flag{"help", 'h'}}, "print this text and exit (-? too)"},
          {{Flag{"version", 'V'}}, "print the version and exit"},
      }};
  cli::Section signals{
      .man_section = "SIGNALS",
      .entries =
          {
              {.text = "stop: drain the ring buffer, flush, write the final "
                       "stats record, print the summary line on stderr and "
                       "exit 0. The end of --duration and a closed output pipe "
                       "stop the run the same way.",
               .word = "SIGINT, SIGTERM"},
              {.text =
                   "reopen the output file (-o FILE, log rotation) and start "
                   "it with a header and a stats record; on stdout, write "
                   "them into the stream.",
               .word = "SIGHUP"},
          },
      .in_help = false};
  return cli::ProgramDoc{
      .name = "biosnoop",
      .summary = "log slow and failed block I/O, one JSON object per line",
      .man_section = "8",
      .usage = "[OPTIONS] [DURATION]",
      .more_usage = {"--hist [OPTIONS] [INTERVAL [COUNT]]"},
      .intro =
          "Log every block I/O at least as slow as a threshold, and "
          "every failed one, one JSON object per line.",
      .description =
          {"An eBPF program follows every block I/O request from submission "
           "to completion. For each completion at least --min-us slow, and "
           "each that failed, biosnoop writes one event: JSON Lines by "
           "default (an aligned table when the output is a terminal), "
           "Elastic Common Schema documents or length-delimited protobuf "
           "with --format. The stream also holds a header, stats "
           "records (counters and loss), summary records (the interval's "
           "histograms) and stuck records (requests still in flight).",
           "All filters (-d, -p, --comm, --cgroup, --op) run in the kernel. "
           "The filters -d, -p, --comm and --op take one value each: given "
           "twice, biosnoop stops with an error rather than watch only the "
           "last. Other options given twice take the last value.",
           "Options whose name says a unit (--min-us, --op-min-us, "
           "--ringbuf-kib) and the other N take a whole number: decimal "
           "digits only, no sign, no blanks. A number too large for its "
           "option is refused with the largest it takes. Durations (T) are "
           "a plain number of seconds (30, 0.5) or numbers with units ns, "
           "us, ms, s, m, h (90s, 1h30m), at most 10 years; where 0 turns "
           "something off, 0 is 0 however written (0s, 0.0).",
           "The record's fields, the stream's guarantees and the counters "
           "are described in the README and docs/reference/ (FILES)."},
      .sections = {main_options, hist_options, other_options, signals},
      .notes = {"Needs root (or CAP_BPF + CAP_PERFMON) and a kernel with "
                "BTF. Once loaded it runs as an unprivileged user (-Z) "
                "without capabilities."},
      .exit_codes =
          {{0, "ok",
            "ran and ended normally (signal, --duration, reader closed the "
            "pipe)"},
           {64, "bad usage or unknown disk",
            "unknown option, bad value, a filter given twice, a disk that "
            "is not request-based, a --cgroup that does not exist, a "
            "--metrics-listen address not on this host, a -Z "
            "user that does not exist"},
           {69, "kernel lacks support",
            "no BTF or BTF that is not valid, no block tracepoints or BPF; "
            "no cgroup v2 hierarchy for --cgroup"},
           {70, "internal error"},
           {71, "out of memory (ring buffer)",
            "the kernel could not allocate memory for biosnoop (try a "
            "smaller --ringbuf-kib; BPF memory counts against the memory "
            "cgroup's limit)"},
           {73, "cannot create output",
            "the output cannot be opened (permission, a symlink at the "
            "path, stdout closed and no -o) or cannot hold a log (a block "
            "device, a directory, a socket)"},
           {74, "output write failed",
            "disk full, file size limit, I/O error, a reader that took "
            "nothing for 2 s after a stop"},
           {77, "missing privilege",
            "not root and no CAP_BPF + CAP_PERFMON (or a --metrics-listen "
            "port below 1024 without CAP_NET_BIND_SERVICE, or no "
            "CAP_SETUID + CAP_SETGID to switch to the -Z user)"}},
      .files = {{.text = "the kernel's BTF, which biosnoop needs",
                 .word = "/sys/kernel/btf/vmlinux"},
                {.text = "the metrics endpoint's HTTP server, loaded only with "
                         "--metrics-listen, from ../lib/biosnoop/ beside the "
                         "directory biosnoop is in, whatever the installation "
                         "prefix (here the default, /usr/local)",
                 .word = "/usr/local/lib/biosnoop/biosnoop-metrics.so"},
                {.text = "the README and the guides and reference under docs/, "
                         "the schema (biosnoop.proto) and examples: a systemd "
                         "unit, a logrotate config, the log agents' configs",
                 .word = "/usr/local/share/doc/biosnoop/"}},
      .examples =
          {{"Every I/O slower than 10 ms for 30 seconds, as a table on the "
            "terminal:",
            "biosnoop --min-us 10000 30"},
           {"Every I/O slower than 10 ms, and every failed one, into a log:",
            "biosnoop --min-us 10000 -o /var/log/biosnoop/slow.jsonl"},
           {"Only the I/O of one service (a cgroup v2 path):",
            "biosnoop -c /system.slice/postgresql.service --min-us 5000"},
           {"Slow writes of one service, with the calls they served:",
            "biosnoop --min-us 5000 --op write \\\n"
            "    --cgroup /system.slice/postgresql.service --ops"},
           {"Latency histograms per disk every 10 seconds, as biolatency "
            "-D 10 prints them:",
            "biosnoop --hist -D 10"},
           {"Three 1-second reports in milliseconds, then exit (biolatency "
            "-m 1 3):",
            "biosnoop --hist -m 1 3"},
           {"Prometheus metrics on 127.0.0.1:9100 beside the stream:",
            "biosnoop --min-us 10000 --metrics-listen 9100 -o slow.jsonl"}},
      .see_also = {"bioreport(1)", "logrotate(8)", "capabilities(7)"},
  };
}

// The option as the messages name it: the long name, whichever was typed.
std::string OptionName(int code) {
  return cli::OptionName(BiosnoopDoc(), code);
}

// What the user typed, for a message: C-escaped (UTF-8 kept), so that a
// value holding a newline or a quote still gives one line on stderr.
std::string Echo(absl::string_view typed) {
  return absl::Utf8SafeCEscape(typed);
}

absl::Status BadValue(int code, absl::string_view value,
                      absl::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat(
      OptionName(code), ": expected ", want, ", got \"", Echo(value), "\""));
}

// A whole-number option's value (cli_numbers.h: digits only).
absl::StatusOr<uint64_t> ParseUnsigned(int code, absl::string_view value,
                                       uint64_t max, absl::string_view want,
                                       uint64_t min = 0) {
  return cli::ParseNumber(OptionName(code), value,
                          {.min = min, .max = max, .want = want});
}

// A duration option's value (cli_numbers.h: 30, 0.5, 90s, 1h30m).
absl::StatusOr<absl::Duration> ParseDurationValue(
    int code, absl::string_view value, const cli::DurationRule& rule = {}) {
  return cli::ParseDuration(OptionName(code), value, rule);
}

// A power of two from `min` to `max`: the size of a kernel map.
absl::StatusOr<uint32_t> ParsePowerOfTwo(int code, absl::string_view value,
                                         uint32_t min, uint32_t max) {
  const std::string want =
      absl::StrCat("a power of two from ", min, " to ", max);
  ASSIGN_OR_RETURN(const uint64_t v,
                   ParseUnsigned(code, value, max, want, min));
  if ((v & (v - 1)) != 0) return BadValue(code, value, want);
  return static_cast<uint32_t>(v);
}

// The filters select one disk, process, name or operation.  Given twice
// they read as "this one or that one", which biosnoop does not do; taking
// the last would silently watch less than the user asked for.
const char* FilterGivenTwiceHint(int code) {
  switch (code) {
    case 'd':
      return "one disk or partition; omit it to watch every disk";
    case 'p':
      return "one process; omit it to watch every process";
    case kOptComm:
      return "one process name; omit it to watch every process";
    case kOptOp:
      return "read or write; omit it for both";
    default:
      return nullptr;
  }
}

// The long option getopt_long just returned, as typed ("--min" for
// --min-us), without "=VALUE"; "" when it was not typed as a long option.
// `value` is its optarg.
std::string TypedLongName(int argc, char* const argv[], const char* value) {
  // optind is past the option and its value: "--min=5" is one argument,
  // "--min 5" two.
  const int i =
      value != nullptr && optind - 1 < argc && value != argv[optind - 1]
          ? optind - 1
          : optind - 2;
  if (i < 1 || i >= argc) return "";
  absl::string_view typed = argv[i];
  if (!absl::StartsWith(typed, "--")) return "";
  return std::string(typed.substr(0, typed.find('=')));
}

// "-m10" (or "-Qm10"): libbpf-tools' biosnoop -m with its value attached,
// which getopt reads as -m -1 -0; the digits, if an argument is so.
std::optional<std::string> AttachedMinMs(int argc, char* const argv[]) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--") break;
    if (a.size() < 3 || a[0] != '-' || a[1] == '-') continue;
    const size_t m = a.find('m');
    if (m == absl::string_view::npos || m + 1 >= a.size()) continue;
    const absl::string_view digits = a.substr(m + 1);
    const absl::string_view letters = a.substr(1, m - 1);
    if (cli::ParseDigits(digits).has_value() &&
        std::all_of(letters.begin(), letters.end(), [](char c) {
          return absl::ascii_isalpha(static_cast<unsigned char>(c));
        })) {
      return std::string(digits);
    }
  }
  return std::nullopt;
}

// libbpf-tools' biosnoop takes a minimum latency in milliseconds (-m MS,
// --min MS); biosnoop's is --min-us, in microseconds.  `typed` is what
// was typed ("-m", "-m10", "--min"), `ms` the value if one was seen.
absl::Status MinMillisecondsHint(absl::string_view typed,
                                 absl::string_view ms) {
  const std::optional<uint64_t> n = cli::ParseDigits(ms);
  const uint64_t max_ms = std::numeric_limits<uint64_t>::max() / 1000000;
  const std::string equivalent =
      n.has_value() && *n <= max_ms
          ? absl::StrCat("give --min-us ", *n * 1000)
          : std::string(
                "give --min-us in microseconds (10 ms is --min-us "
                "10000)");
  const std::string theirs = ms.empty() ? "MS" : Echo(ms);
  if (absl::StartsWith(typed, "--")) {
    return absl::InvalidArgumentError(
        absl::StrCat(Echo(typed),
                     ": the threshold is --min-us here, in microseconds; "
                     "for libbpf-tools' --min ",
                     theirs, " (milliseconds), ", equivalent));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      typed == "-m" ? "" : absl::StrCat(Echo(typed), ": "),
      "-m is --hist's millisecond buckets here and takes no value; for a "
      "minimum latency as libbpf-tools' biosnoop -m ",
      theirs, ", ", equivalent));
}

// What bcc's and libbpf-tools' biosnoop and biolatency users type that
// biosnoop has under another name, or not at all: the hint that follows
// "unknown option X: ", or nullptr.
const char* OtherToolsOption(absl::string_view typed) {
  if (typed == "-e" || typed == "--extension") {
    return "bcc's extended summary is not in biosnoop; --hist's reports give "
           "each group's count, bytes, slow and failed I/O";
  }
  if (typed == "-P" || typed == "--pattern") {
    return "bcc's sequential/random pattern is not in biosnoop; each event "
           "has its sector and bytes";
  }
  if (typed == "--milliseconds") {
    return "biolatency's --milliseconds is -m (--ms) here, with --hist";
  }
  if (typed == "--disks") {
    return "biolatency's --disks is -D (--per-disk) here, with --hist";
  }
  if (typed == "--flags" || typed == "--flag") {
    return "biolatency's --flags is -F (--per-flags) here, with --hist";
  }
  return nullptr;
}

// The arguments after the options: the event mode's DURATION, --hist's
// INTERVAL [COUNT].  Each may be given as an option instead, not both.
absl::Status TakeArguments(const std::vector<absl::string_view>& args,
                           Options* o) {
  if (args.empty()) return absl::OkStatus();
  const size_t most = o->hist ? 2 : 1;
  if (args.size() > most) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument \"", Echo(args[most]), "\": ",
                     o->hist ? "--hist takes INTERVAL and COUNT"
                             : "the one argument is the DURATION",
                     " (see --help)"));
  }
  if (!o->hist) {
    if (o->duration.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the duration is given twice (--duration and \"",
                       Echo(args[0]), "\"): give one"));
    }
    ASSIGN_OR_RETURN(o->duration,
                     cli::ParseDuration("DURATION (the argument)", args[0]));
    return absl::OkStatus();
  }
  if (o->interval.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the interval is given twice (--interval and \"",
                     Echo(args[0]), "\"): give one"));
  }
  ASSIGN_OR_RETURN(o->interval,
                   cli::ParseDuration("INTERVAL (the argument)", args[0]));
  if (args.size() == 2) {
    if (o->count.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the count is given twice (--count and \"",
                       Echo(args[1]), "\"): give one"));
    }
    ASSIGN_OR_RETURN(
        o->count,
        cli::ParseNumber("COUNT (the argument)", args[1],
                         {.min = 1,
                          .max = 1000000000,
                          .want = "a number of reports from 1 to 1000000000"}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Options> ParseOptions(int argc, char* const argv[]) {
  Options opts;
  // getopt keeps global state; 0 asks glibc for a full re-initialisation so
  // the parser can run more than once in one process (tests).
  optind = 0;
  opterr = 0;
  std::vector<int> filters_seen;
  // Event-stream options, refused with --hist, which writes no stream and
  // would ignore them.
  bool stream_option_given = false;
  // --writeback-owner said outright (it needs the files; the default does
  // not stop --no-files).
  bool writeback_owner_given = false;
  // --no-writeback-owner said outright (--ops then keeps the ledger off).
  bool no_writeback_owner_given = false;
  bool timestamp_given = false;       // -T or -t
  std::optional<uint64_t> op_min_us;  // --op-min-us
  static const cli::GetoptTables* const tables =
      new cli::GetoptTables(cli::MakeGetoptTables(BiosnoopDoc()));
  for (;;) {
    int index = -1;
    int c = getopt_long(argc, argv, tables->short_options.c_str(),
                        tables->long_options.data(), &index);
    if (c == -1) break;
    absl::string_view arg = optarg != nullptr ? optarg : "";
    if (const char* hint = FilterGivenTwiceHint(c); hint != nullptr) {
      if (std::find(filters_seen.begin(), filters_seen.end(), c) !=
          filters_seen.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            OptionName(c), " given more than once: it takes ", hint));
      }
      filters_seen.push_back(c);
    }
    switch (c) {
      case kOptMinUs: {
        // getopt_long takes "--min", libbpf-tools' milliseconds, as an
        // abbreviation of --min-us: it would watch 1000 times too much.
        if (const std::string typed = TypedLongName(argc, argv, optarg);
            typed == "--mi" || typed == "--min") {
          return MinMillisecondsHint(typed, arg);
        }
        ASSIGN_OR_RETURN(
            opts.min_us,
            ParseUnsigned(c, arg, std::numeric_limits<uint64_t>::max() / 1000,
                          "a whole number of microseconds"));
        break;
      }
      case 'd':
        if (arg.empty()) return BadValue(c, arg, "a disk name such as vda");
        opts.disk = std::string(arg);
        break;
      case 'p': {
        // PID_MAX_LIMIT is 4194304 (2^22).
        ASSIGN_OR_RETURN(const uint64_t pid,
                         ParseUnsigned(c, arg, 4194304,
                                       "a process id (1-4194304)", /*min=*/1));
        opts.pid = static_cast<uint32_t>(pid);
        break;
      }
      case kOptComm:
        // TASK_COMM_LEN is 16 including the NUL.
        if (arg.empty() || arg.size() > 15) {
          return BadValue(c, arg, "a process name of 1 to 15 bytes");
        }
        opts.comm = std::string(arg);
        break;
      case 'c':
        // Checked against the cgroup tree at start (session.cc).
        if (arg.empty() || arg[0] != '/') {
          return BadValue(c, arg,
                          "a cgroup v2 path such as /system.slice/x.service "
                          "(a process name is --comm NAME)");
        }
        opts.cgroup = std::string(arg);
        break;
      case kOptOp:
        if (arg == "read") {
          opts.op = OpFilter::kRead;
        } else if (arg == "write") {
          opts.op = OpFilter::kWrite;
        } else {
          return BadValue(c, arg, "read or write");
        }
        break;
      case 'Q':
        opts.queued = true;
        break;
      case 'o':
        if (arg.empty())
          return BadValue(c, arg, "a file name, or - for stdout");
        opts.output = std::string(arg);
        break;
      case 'Z':
        // Looked up in the user database at start (session.cc).
        if (arg.empty()) return BadValue(c, arg, "a user name, or root");
        opts.user = std::string(arg);
        break;
      case kOptDuration: {
        ASSIGN_OR_RETURN(opts.duration, ParseDurationValue(c, arg));
        break;
      }
      case kOptMaxInflightAge: {
        ASSIGN_OR_RETURN(opts.max_inflight_age,
                         ParseDurationValue(c, arg, {.min = absl::Seconds(1)}));
        break;
      }
      case kOptRingbufKib: {
        ASSIGN_OR_RETURN(opts.ringbuf_kib,
                         ParsePowerOfTwo(c, arg, 4, 1u << 20));
        break;
      }
      case kOptHist:
        opts.hist = true;
        break;
      case kOptNoFiles:
        opts.files = false;
        break;
      case kOptWritebackOwner:
        opts.writeback_owner = true;
        writeback_owner_given = true;
        break;
      case kOptNoWritebackOwner:
        opts.writeback_owner = false;
        no_writeback_owner_given = true;
        break;
      case kOptOps:
        opts.ops = true;
        break;
      case kOptOpMinUs: {
        ASSIGN_OR_RETURN(
            op_min_us,
            ParseUnsigned(c, arg, std::numeric_limits<uint64_t>::max() / 1000,
                          "a whole number of microseconds"));
        break;
      }
      case kOptLedgerEntries: {
        ASSIGN_OR_RETURN(opts.ledger_entries,
                         ParsePowerOfTwo(c, arg, 1024, 1u << 24));
        break;
      }
      case kOptRescue:
        if (arg == "always") {
          opts.rescue_always = true;
        } else if (arg == "auto") {
          opts.rescue_always = false;
        } else {
          return BadValue(c, arg, "always or auto");
        }
        break;
      case kOptInterval: {
        ASSIGN_OR_RETURN(opts.interval, ParseDurationValue(c, arg));
        break;
      }
      case 'D':
        opts.per_disk = true;
        break;
      case 'F':
        opts.per_flags = true;
        break;
      case 'm':
        opts.hist_ms = true;
        break;
      case kOptFine:
        opts.hist_fine = true;
        break;
      case kOptCount: {
        ASSIGN_OR_RETURN(opts.count,
                         ParseUnsigned(c, arg, 1000000000,
                                       "a number of reports from 1 to "
                                       "1000000000",
                                       /*min=*/1));
        break;
      }
      case 't':
      case 'T':
        // The time is always there (Options: nothing to set); only CSV
        // rows lack it.
        timestamp_given = true;
        break;
      case kOptCsv:
      case 'j': {
        const Options::HistFormat format = c == kOptCsv
                                               ? Options::HistFormat::kCsv
                                               : Options::HistFormat::kJson;
        // Both would print one of them, not what was asked for.
        if (opts.hist_format != Options::HistFormat::kText &&
            opts.hist_format != format) {
          return absl::InvalidArgumentError(
              "--csv and --json are two output formats: give one");
        }
        opts.hist_format = format;
        break;
      }
      case kOptFormat:
        stream_option_given = true;
        if (arg == "json" || arg == "jsonl") {
          opts.format = Options::Format::kJson;
        } else if (arg == "ecs") {
          opts.format = Options::Format::kEcs;
        } else if (arg == "proto" || arg == "protobuf") {
          opts.format = Options::Format::kProto;
        } else if (arg == "table") {
          opts.format = Options::Format::kTable;
        } else {
          return BadValue(c, arg, "json, ecs, proto or table");
        }
        break;
      case kOptStatsInterval: {
        stream_option_given = true;
        ASSIGN_OR_RETURN(opts.stats_interval,
                         ParseDurationValue(c, arg, {.zero_is_off = true}));
        break;
      }
      case kOptStuckAfter: {
        stream_option_given = true;
        // The table is looked at once a second: a finer value would only
        // pretend to a precision it does not have.
        ASSIGN_OR_RETURN(
            opts.stuck_after,
            ParseDurationValue(c, arg,
                               {.zero_is_off = true, .min = absl::Seconds(1)}));
        break;
      }
      case kOptSummaryInterval: {
        stream_option_given = true;
        ASSIGN_OR_RETURN(opts.summary_interval,
                         ParseDurationValue(c, arg, {.zero_is_off = true}));
        break;
      }
      case kOptMetricsListen: {
        stream_option_given = true;
        absl::Status st =
            ParseListenAddress(arg, &opts.metrics_host, &opts.metrics_port);
        if (!st.ok()) return st;
        break;
      }
      case 'v':
        ++opts.verbose;
        break;
      case 'h':
        opts.help = true;
        break;
      case 'V':
        opts.version = true;
        break;
      case ':': {
        // What the user typed ("-d" or "--disk"), for a message they match.
        std::string name = argv[optind - 1];
        return absl::InvalidArgumentError(
            absl::StrCat(Echo(name), ": missing value"));
      }
      default: {
        // argp's -? (libbpf-tools): the help, as -h.
        if (optopt == '?') {
          opts.help = true;
          break;
        }
        std::string name = optopt != 0 && optopt < 256
                               ? absl::StrCat("-", std::string(1, optopt))
                               : std::string(argv[optind - 1]);
        // "-m10": libbpf-tools' minimum latency, its value attached.
        if (absl::ascii_isdigit(static_cast<unsigned char>(optopt))) {
          if (const std::optional<std::string> ms = AttachedMinMs(argc, argv);
              ms.has_value()) {
            return MinMillisecondsHint(absl::StrCat("-m", *ms), *ms);
          }
        }
        if (const char* hint = OtherToolsOption(name); hint != nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("unknown option ", Echo(name), ": ", hint));
        }
        return absl::InvalidArgumentError(
            absl::StrCat("unknown option ", Echo(name), " (see --help)"));
      }
    }
  }
  // The arguments: the event mode's duration (libbpf-tools' biosnoop 5),
  // --hist's interval and count (biolatency 1 10).
  const std::vector<absl::string_view> args(argv + optind, argv + argc);
  if (!opts.hist && opts.hist_ms) {
    // libbpf-tools' biosnoop -m MS is a minimum latency; here -m takes no
    // value, and "10" would be read as a duration.
    return MinMillisecondsHint(
        "-m", !args.empty() && cli::ParseDigits(args[0]).has_value()
                  ? args[0]
                  : absl::string_view());
  }
  RETURN_IF_ERROR(TakeArguments(args, &opts));
  if (timestamp_given && opts.hist_format == Options::HistFormat::kCsv) {
    return absl::InvalidArgumentError(
        "-T: --csv rows carry no time: drop -T, or give --json for reports "
        "with their time");
  }
  if (!opts.hist && (opts.interval.has_value() || opts.count.has_value() ||
                     opts.per_disk || opts.per_flags || opts.hist_fine ||
                     opts.hist_format != Options::HistFormat::kText)) {
    return absl::InvalidArgumentError(
        "--interval, --count, -D, -F, -m, --fine, --csv and --json go with "
        "--hist");
  }
  if (opts.count.has_value() && !opts.interval.has_value()) {
    return absl::InvalidArgumentError(
        "--count needs an interval (--interval T, or --hist T N): without "
        "one there is a single report, at the end");
  }
  if (opts.hist_fine && opts.per_flags) {
    return absl::InvalidArgumentError(
        "--fine buckets are kept per disk and operation, not per flags: "
        "drop -F (or --fine)");
  }
  if (!opts.files && writeback_owner_given) {
    return absl::InvalidArgumentError(
        "--writeback-owner needs the files of each event (drop --no-files)");
  }
  if (opts.hist && opts.ops) {
    return absl::InvalidArgumentError(
        "--ops writes op records into the event stream: it does not go with "
        "--hist");
  }
  if (op_min_us.has_value() && !opts.ops) {
    return absl::InvalidArgumentError("--op-min-us goes with --ops");
  }
  if (opts.ops) {
    opts.op_min_us = op_min_us.value_or(opts.min_us);
    // The ledger names the write calls that dirtied a request's pages
    // (dirtier_op_ids); it needs the files, which --no-files turns off.
    if (!no_writeback_owner_given && opts.files) opts.writeback_owner = true;
  }
  if (opts.hist && stream_option_given) {
    return absl::InvalidArgumentError(
        "--format, --stats-interval, --summary-interval, --stuck-after and "
        "--metrics-listen go with the event stream, not --hist");
  }
  return opts;
}

absl::Status ParseListenAddress(absl::string_view value, std::string* host,
                                int* port) {
  const absl::Status bad =
      BadValue(kOptMetricsListen, value,
               "PORT (loopback), ADDR:PORT or [IPV6]:PORT, such as 9100, "
               "127.0.0.1:9100, 0.0.0.0:9100 (every interface) or [::1]:9100");
  absl::string_view addr = "127.0.0.1";
  absl::string_view port_text = value;
  if (absl::ConsumePrefix(&port_text, "[")) {
    const size_t close = port_text.find("]:");
    if (close == absl::string_view::npos) return bad;
    addr = port_text.substr(0, close);
    port_text.remove_prefix(close + 2);
    in6_addr a6;
    if (inet_pton(AF_INET6, std::string(addr).c_str(), &a6) != 1) return bad;
  } else if (const size_t colon = port_text.rfind(':');
             colon != absl::string_view::npos) {
    // ":9100" means every interface to some programs and loopback to
    // others: refused rather than guessed.
    addr = port_text.substr(0, colon);
    port_text.remove_prefix(colon + 1);
    in_addr a4;
    if (inet_pton(AF_INET, std::string(addr).c_str(), &a4) != 1) return bad;
  }
  const std::optional<uint64_t> p = cli::ParseDigits(port_text);
  if (!p.has_value() || *p > 65535) return bad;
  *host = std::string(addr);
  *port = static_cast<int>(*p);
  return absl::OkStatus();
}

const cli::ProgramDoc& BiosnoopDoc() {
  static const cli::ProgramDoc* const doc = new cli::ProgramDoc(MakeDoc());
  return *doc;
}

const char* UsageText() {
  static const std::string* const text =
      new std::string(cli::HelpText(BiosnoopDoc()));
  return text->c_str();
}

}  // namespace biosnoop
