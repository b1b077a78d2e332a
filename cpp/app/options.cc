// The command line -> Options (getopt_long), with every value checked and one
// line of bad usage for each error (options.h).

#include "options.h"

#include <arpa/inet.h>
#include <getopt.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

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
  kOptJson,
  kOptSummaryInterval,
  kOptFormat,
  kOptStatsInterval,
  kOptVersion,
  kOptRescue,
  kOptStuckAfter,
  kOptCgroup,
  kOptNoFiles,
  kOptWritebackOwner,
  kOptNoWritebackOwner,
  kOptLedgerEntries,
  kOptMetricsListen,
  kOptOps,
  kOptOpMinUs,
};

constexpr char kShortOptions[] = ":d:p:Qo:vhDFm";

const struct option kLongOptions[] = {
    {"min-us", required_argument, nullptr, kOptMinUs},
    {"disk", required_argument, nullptr, 'd'},
    {"pid", required_argument, nullptr, 'p'},
    {"comm", required_argument, nullptr, kOptComm},
    {"cgroup", required_argument, nullptr, kOptCgroup},
    {"op", required_argument, nullptr, kOptOp},
    {"queued", no_argument, nullptr, 'Q'},
    {"output", required_argument, nullptr, 'o'},
    {"duration", required_argument, nullptr, kOptDuration},
    {"ringbuf-kib", required_argument, nullptr, kOptRingbufKib},
    {"max-inflight-age", required_argument, nullptr, kOptMaxInflightAge},
    {"hist", no_argument, nullptr, kOptHist},
    {"interval", required_argument, nullptr, kOptInterval},
    {"per-disk", no_argument, nullptr, 'D'},
    {"per-flags", no_argument, nullptr, 'F'},
    {"ms", no_argument, nullptr, 'm'},
    {"csv", no_argument, nullptr, kOptCsv},
    {"json", no_argument, nullptr, kOptJson},
    {"summary-interval", required_argument, nullptr, kOptSummaryInterval},
    {"format", required_argument, nullptr, kOptFormat},
    {"stats-interval", required_argument, nullptr, kOptStatsInterval},
    {"verbose", no_argument, nullptr, 'v'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, kOptVersion},
    {"rescue", required_argument, nullptr, kOptRescue},
    {"stuck-after", required_argument, nullptr, kOptStuckAfter},
    {"no-files", no_argument, nullptr, kOptNoFiles},
    {"writeback-owner", no_argument, nullptr, kOptWritebackOwner},
    {"no-writeback-owner", no_argument, nullptr, kOptNoWritebackOwner},
    {"ledger-entries", required_argument, nullptr, kOptLedgerEntries},
    {"metrics-listen", required_argument, nullptr, kOptMetricsListen},
    {"ops", no_argument, nullptr, kOptOps},
    {"op-min-us", required_argument, nullptr, kOptOpMinUs},
    {nullptr, 0, nullptr, 0},
};

// "--min-us" or "-d" as the user would have typed it, for messages.
std::string OptionName(int code) {
  for (const struct option* o = kLongOptions; o->name != nullptr; ++o) {
    if (o->val == code) return absl::StrCat("--", o->name);
  }
  return absl::StrCat("-", std::string(1, static_cast<char>(code)));
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

// Every whole-number option's value: digits only (SimpleAtoi would also
// take a '+' and blanks).  Spelled right but above `max` (or past 2^64 - 1)
// is not a typo: the message says it is too large, and the largest.
absl::StatusOr<uint64_t> ParseUnsigned(int code, absl::string_view value,
                                       uint64_t max, absl::string_view want) {
  if (value.empty() ||
      value.find_first_not_of("0123456789") != absl::string_view::npos) {
    return BadValue(code, value, want);
  }
  uint64_t v = 0;
  if (!absl::SimpleAtoi(value, &v) || v > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        OptionName(code), ": ", Echo(value), " is too large: at most ", max));
  }
  return v;
}

// The longest duration any option takes.  Beyond it is a typo, not a
// plan, and int64 nanoseconds (absl::Duration's arithmetic here) overflow
// not far past 290 years.
constexpr absl::Duration kMaxDuration = absl::Hours(10 * 365 * 24);

// Consumes "12" or "1.25" from the front of *v.
bool ConsumeDecimal(absl::string_view* v) {
  size_t i = 0;
  while (i < v->size() && absl::ascii_isdigit((*v)[i])) ++i;
  if (i == 0) return false;
  if (i < v->size() && (*v)[i] == '.') {
    const size_t dot = i++;
    while (i < v->size() && absl::ascii_isdigit((*v)[i])) ++i;
    if (i == dot + 1) return false;
  }
  v->remove_prefix(i);
  return true;
}

// Whether `value` is spelled as a duration biosnoop takes: one plain
// number of seconds (30, 0.5), or numbers each with a unit (90s, 1h30m).
// absl::ParseDuration refuses a well-spelled value whose number does not
// fit in 64 bits instead of saturating: spelled right, that is "too
// large", not a typo.  Signs and "inf" are not taken.
bool SpelledAsDuration(absl::string_view value, bool plain) {
  if (plain) return ConsumeDecimal(&value) && value.empty();
  if (value.empty()) return false;
  while (!value.empty()) {
    if (!ConsumeDecimal(&value)) return false;
    bool unit = false;
    for (const char* u : {"ns", "us", "ms", "h", "m", "s"}) {
      if (absl::ConsumePrefix(&value, u)) {
        unit = true;
        break;
      }
    }
    if (!unit) return false;
  }
  return true;
}

// A duration option's value, by one set of rules whatever its spelling:
// a plain number is seconds, as in biolatency/biosnoop usage (30, 0.5);
// or Go-style with units (90s, 5m, 1h30m); at most kMaxDuration; zero only
// where it means "off" (`allow_zero`), however written (0, 0s, 0.0).
absl::StatusOr<absl::Duration> ParseDurationValue(int code,
                                                  absl::string_view value,
                                                  bool allow_zero = false) {
  const bool plain =
      value.find_first_not_of("0123456789.") == absl::string_view::npos;
  const char* want = allow_zero
                         ? "a duration such as 30, 90s, 5m or 1h, or 0 for none"
                     : plain ? "a positive number of seconds"
                             : "a positive duration such as 30, 90s, 5m or 1h";
  if (!SpelledAsDuration(value, plain)) return BadValue(code, value, want);
  absl::Duration d;
  if (!absl::ParseDuration(
          plain ? absl::StrCat(value, "s") : std::string(value), &d) ||
      d > kMaxDuration) {
    return absl::InvalidArgumentError(
        absl::StrCat(OptionName(code), ": ", Echo(value),
                     " is too large: at most 10 years (87600h)"));
  }
  if (d == absl::ZeroDuration() && !allow_zero) {
    return BadValue(code, value, want);
  }
  return d;
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
  std::optional<uint64_t> op_min_us;  // --op-min-us
  for (;;) {
    int index = -1;
    int c = getopt_long(argc, argv, kShortOptions, kLongOptions, &index);
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
        auto v =
            ParseUnsigned(c, arg, std::numeric_limits<uint64_t>::max() / 1000,
                          "a whole number of microseconds");
        if (!v.ok()) return v.status();
        opts.min_us = *v;
        break;
      }
      case 'd':
        if (arg.empty()) return BadValue(c, arg, "a disk name such as vda");
        opts.disk = std::string(arg);
        break;
      case 'p': {
        // PID_MAX_LIMIT is 4194304 (2^22).
        auto v = ParseUnsigned(c, arg, 4194304, "a process id (1-4194304)");
        if (!v.ok()) return v.status();
        if (*v == 0) return BadValue(c, arg, "a process id (1-4194304)");
        opts.pid = static_cast<uint32_t>(*v);
        break;
      }
      case kOptComm:
        // TASK_COMM_LEN is 16 including the NUL.
        if (arg.empty() || arg.size() > 15) {
          return BadValue(c, arg, "a process name of 1 to 15 bytes");
        }
        opts.comm = std::string(arg);
        break;
      case kOptCgroup:
        // Checked against the cgroup tree at start (session.cc).
        if (arg.empty() || arg[0] != '/') {
          return BadValue(c, arg,
                          "a cgroup v2 path such as /system.slice/x.service");
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
      case kOptDuration: {
        auto d = ParseDurationValue(c, arg);
        if (!d.ok()) return d.status();
        opts.duration = *d;
        break;
      }
      case kOptMaxInflightAge: {
        auto d = ParseDurationValue(c, arg);
        if (!d.ok()) return d.status();
        if (*d < absl::Seconds(1)) {
          return BadValue(c, arg, "at least 1 second");
        }
        opts.max_inflight_age = *d;
        break;
      }
      case kOptRingbufKib: {
        auto v =
            ParseUnsigned(c, arg, 1u << 20, "a power of two from 4 to 1048576");
        if (!v.ok()) return v.status();
        if (*v < 4 || (*v & (*v - 1)) != 0) {
          return BadValue(c, arg, "a power of two from 4 to 1048576");
        }
        opts.ringbuf_kib = static_cast<uint32_t>(*v);
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
        auto v =
            ParseUnsigned(c, arg, std::numeric_limits<uint64_t>::max() / 1000,
                          "a whole number of microseconds");
        if (!v.ok()) return v.status();
        op_min_us = *v;
        break;
      }
      case kOptLedgerEntries: {
        constexpr char kWhat[] = "a power of two from 1024 to 16777216";
        auto v = ParseUnsigned(c, arg, 1u << 24, kWhat);
        if (!v.ok()) return v.status();
        if (*v < 1024 || (*v & (*v - 1)) != 0) return BadValue(c, arg, kWhat);
        opts.ledger_entries = static_cast<uint32_t>(*v);
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
        auto d = ParseDurationValue(c, arg);
        if (!d.ok()) return d.status();
        opts.interval = *d;
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
      case kOptCsv:
      case kOptJson: {
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
        } else {
          return BadValue(c, arg, "json, ecs or proto");
        }
        break;
      case kOptStatsInterval: {
        stream_option_given = true;
        auto d = ParseDurationValue(c, arg, /*allow_zero=*/true);
        if (!d.ok()) return d.status();
        opts.stats_interval = *d;
        break;
      }
      case kOptStuckAfter: {
        stream_option_given = true;
        auto d = ParseDurationValue(c, arg, /*allow_zero=*/true);
        if (!d.ok()) return d.status();
        // The table is looked at once a second: a finer value would only
        // pretend to a precision it does not have.
        if (*d != absl::ZeroDuration() && *d < absl::Seconds(1)) {
          return BadValue(c, arg, "0 (off) or at least 1 second");
        }
        opts.stuck_after = *d;
        break;
      }
      case kOptSummaryInterval: {
        stream_option_given = true;
        auto d = ParseDurationValue(c, arg, /*allow_zero=*/true);
        if (!d.ok()) return d.status();
        opts.summary_interval = *d;
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
      case kOptVersion:
        opts.version = true;
        break;
      case ':': {
        // What the user typed ("-d" or "--disk"), for a message they match.
        std::string name = argv[optind - 1];
        return absl::InvalidArgumentError(
            absl::StrCat(Echo(name), ": missing value"));
      }
      default: {
        std::string name = optopt != 0 && optopt < 256
                               ? absl::StrCat("-", std::string(1, optopt))
                               : std::string(argv[optind - 1]);
        return absl::InvalidArgumentError(
            absl::StrCat("unknown option ", Echo(name), " (see --help)"));
      }
    }
  }
  if (!opts.hist &&
      (opts.interval.has_value() || opts.per_disk || opts.per_flags ||
       opts.hist_ms || opts.hist_format != Options::HistFormat::kText)) {
    return absl::InvalidArgumentError(
        "--interval, -D, -F, -m, --csv and --json go with --hist");
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
  if (optind < argc) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected argument \"", Echo(argv[optind]), "\" (see --help)"));
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
  if (port_text.empty() ||
      port_text.find_first_not_of("0123456789") != absl::string_view::npos ||
      port_text.size() > 5) {
    return bad;
  }
  int p = 0;
  if (!absl::SimpleAtoi(port_text, &p) || p > 65535) return bad;
  *host = std::string(addr);
  *port = p;
  return absl::OkStatus();
}

const char* UsageText() {
  return R"(Usage: biosnoop [OPTIONS]
Log every block I/O at least as slow as a threshold, and every failed one,
one JSON object per line.

  --min-us N          report I/O taking at least N microseconds (default 0:
                      all); failed I/O is reported whatever its latency
  -d, --disk NAME     only this disk (vda) or partition (vda1)
  -p, --pid PID       only I/O submitted by process PID
      --comm NAME     only I/O submitted by processes named NAME
      --cgroup PATH   only I/O submitted by tasks in cgroup v2 PATH or below
                      it (/system.slice/x.service, from the v2 root, or
                      its path under the v2 mount)
      --op read|write only reads, or only writes
  -Q, --queued        include queue time (submission to issue) in the latency
                      that is compared and reported
  -o, --output FILE   append to FILE (mode 0640, never through a symlink);
                      default: stdout.  SIGHUP reopens FILE (log rotation).
      --format F      json (JSON Lines, default), ecs (one Elastic Common
                      Schema document per line) or proto (length-delimited
                      biosnoop.v1.Record messages, see proto/biosnoop.proto)
      --stats-interval T
                      a stats record (counters, loss) in the stream every T
                      (default 1m; 0: only the final one at exit)
      --duration T    stop after T (seconds, as 30 or 0.5, or 90s, 5m, 1h)
      --ringbuf-kib N kernel ring buffer size in KiB, a power of two
                      (default 2048)
      --max-inflight-age T
                      forget a request whose completion has not come after T
                      (default 10m; counted as expired)
      --summary-interval T
                      every T (default 1m; 0: never) a summary record with
                      the interval's latency/size histograms per disk and op
      --stuck-after T a stuck record for each request still in flight T
                      after its issue, written while it hangs (default 1s,
                      at least 1s; 0: never)
      --metrics-listen ADDR:PORT
                      serve Prometheus metrics (latency histograms per disk
                      and op, I/O, byte and loss counters) at
                      http://ADDR:PORT/metrics; a port alone listens on
                      127.0.0.1, [IPV6]:PORT on an IPv6 address, port 0 on
                      a free port (said on stderr)
      --rescue always|auto
                      the kernel skips a completion that interrupts
                      biosnoop's completion program on the same CPU; a
                      second program recovers it, at the cost of one more
                      program run per I/O.  auto (default): attach it at the
                      first skip (those before are counted as missed);
                      always: from the start
      --no-files      do not read a reported request's pages for its files
                      (content, files, file_count, dirtied_by: README,
                      "Files and dirtiers")
      --writeback-owner, --no-writeback-owner
                      keep or not (default) the dirtied-page ledger that
                      names the task that dirtied written pages
                      (dirtied_by); it costs ~300 ns per page dirtied
      --ledger-entries N
                      pages the ledger remembers, a power of two from 1024
                      (default 65536: 3.5 MiB)
      --ops           follow each read, write, pread64, pwrite64, readv,
                      writev, preadv, pwritev, fsync, fdatasync and
                      sync_file_range call (and io_uring read, write, fsync)
                      on a file of the tracked disks: an op record for each
                      that takes at least --op-min-us, its time split into
                      block, writeback and other; events name their call
                      (op_id).  Turns on --writeback-owner unless
                      --no-writeback-owner is given.  Nothing is attached
                      without it (README, section Calls)
      --op-min-us N   with --ops: write an op record for each call at least
                      N microseconds long (default: --min-us)

Histogram mode (like biolatency), no events:
      --hist          count every I/O into in-kernel log2 histograms and print
                      them at exit, or every --interval
      --interval T    print (and restart) the histograms every T
  -D, --per-disk      one histogram per disk
  -F, --per-flags     one histogram per operation flags (rwbs)
  -m, --ms            millisecond buckets (default microseconds)
      --csv           print CSV: [disk,][op,]bucket,lo_us,hi_us,count
      --json          print one JSON object per report

  -v, --verbose       say what is attached, and print every counter in the
                      summary line; -vv adds libbpf's log
  -h, --help          this text
      --version       print the version

Needs root (or CAP_BPF + CAP_PERFMON) and a kernel with BTF.
Exit codes: 0 ok, 64 bad usage or unknown disk, 69 kernel lacks support,
70 internal error, 71 out of memory (ring buffer), 73 cannot create output,
74 output write failed, 77 missing privilege.
)";
}

}  // namespace biosnoop
