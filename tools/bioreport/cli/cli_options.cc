// Parsing bioreport's command line with getopt_long: every check that can
// be made before an input is opened is made here, so that bad usage is one
// line and exit code 64 before any work.

#include "cli_options.h"

#include <getopt.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "heatmap_bins.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

constexpr char kUsage[] =
    "usage: bioreport [REPORT] [OPTIONS] [FILE...]\n"
    "Reads biosnoop streams (JSON Lines or protobuf, gzip or not; FILEs in\n"
    "time order, none or - for stdin) and reports on the slow I/O in them.\n"
    "\n"
    "REPORT (default summary):\n"
    "  summary   per disk and operation: count, bytes, latency min, mean,\n"
    "            p50, p90, p99, p99.9, max, errors\n"
    "  hist      log2 latency histogram (biolatency style)\n"
    "  csv       histogram as CSV: bucket,lo_us,hi_us,count\n"
    "  json      summary JSON for scripts\n"
    "  top       top processes and disks by count and by total latency\n"
    "            (and cgroups, containers, contents, files, dirtiers)\n"
    "  sizes     log2 histogram of I/O sizes\n"
    "  errors    I/O errors by disk\n"
    "  baseline  from summary records: all completions per disk and\n"
    "            operation, slow share, bytes, estimated p50 and p99\n"
    "  heatmap   SVG latency heat map (time x log2 latency, colour by\n"
    "            count) with p50/p99 lines; --html for a page\n"
    "  ops       calls (biosnoop --ops): the slowest with their time by\n"
    "            layer (block, writeback, other), p50/p99 per process and\n"
    "            per file; --op-id N: one call and its requests\n"
    "  convert   rewrite the stream in the other format (--to)\n"
    "\n"
    "Filters (events; stuck records but --min-us and --file; calls, with\n"
    "--op by the call's kind (read, write, flush: the fsync family); for\n"
    "baseline, --since/--until select summary intervals by their end,\n"
    "--host their runs, -d/--op their groups; each at most once):\n"
    "  --since TIME, --until TIME   RFC 3339 (2026-11-21T05:00:00Z); until\n"
    "                               is exclusive\n"
    "  --host NAME                  one host's records (and its runs' loss)\n"
    "  -d, --disk NAME              disk or partition (vda, vda1)\n"
    "  -p, --pid PID                submitting process\n"
    "  -c, --comm NAME              process name, exactly\n"
    "  --cgroup PATH                cgroup v2 PATH and the cgroups below it\n"
    "                               (/system.slice, /kubepods.slice/...)\n"
    "  --container ID               container whose id starts with ID\n"
    "  --file PREFIX                events with a file whose path starts\n"
    "                               with PREFIX (/var/lib/postgresql/)\n"
    "  --op OP                      read, write, flush, discard, ...\n"
    "  --min-us N                   latency of at least N microseconds\n"
    "Report options:\n"
    "  -m, --ms                     latencies in milliseconds\n"
    "  -D, --per-disk               hist: one histogram per disk\n"
    "  --by disk|op|disk,op|all     hist, heatmap: one histogram or panel\n"
    "                               per group (one of -D and --by)\n"
    "  --top N                      top, ops: rows per table (default 10)\n"
    "  --op-id N                    ops: the call N (Op.op_id), with the\n"
    "                               events it submitted and the writeback\n"
    "                               of the pages it dirtied (filters: only\n"
    "                               --host, --since, --until)\n"
    "  --tail-us N                  json: tail threshold (default 100000)\n"
    "  --per-interval               baseline: a row per summary interval\n"
    "  --csv, --json                baseline (and ops: --json): for scripts\n"
    "  --strict                     fail on corrupt or truncated input\n"
    "  --to jsonl|proto             convert: output format\n"
    "  -o, --output FILE            convert, heatmap: write FILE (new or\n"
    "                               empty) instead of stdout\n"
    "  --html                       heatmap: an HTML page around the SVG\n"
    "  --columns N                  heatmap: at most N time columns\n"
    "                               (default 160), of a round width\n"
    "  --bucket DURATION            heatmap: columns of exactly DURATION\n"
    "                               (10s, 500ms, 1m; a number is seconds)\n"
    "  --of events|ops              heatmap: of the events (default) or of\n"
    "                               the calls (op records: latency_us;\n"
    "                               --by op groups by call)\n"
    "  -h, --help, --version\n";

enum LongOnly {
  kSince = 256,
  kUntil,
  kOp,
  kMinUs,
  kBy,
  kTop,
  kTailUs,
  kStrict,
  kTo,
  kVersion,
  kPerInterval,
  kCsv,
  kJson,
  kHost,
  kCgroup,
  kContainer,
  kHtml,
  kColumns,
  kBucket,
  kFile,
  kOpId,
  kOf,
};

const struct option kLongOptions[] = {
    {"since", required_argument, nullptr, kSince},
    {"until", required_argument, nullptr, kUntil},
    {"disk", required_argument, nullptr, 'd'},
    {"pid", required_argument, nullptr, 'p'},
    {"comm", required_argument, nullptr, 'c'},
    {"cgroup", required_argument, nullptr, kCgroup},
    {"container", required_argument, nullptr, kContainer},
    {"file", required_argument, nullptr, kFile},
    {"op", required_argument, nullptr, kOp},
    {"min-us", required_argument, nullptr, kMinUs},
    {"ms", no_argument, nullptr, 'm'},
    {"per-disk", no_argument, nullptr, 'D'},
    {"by", required_argument, nullptr, kBy},
    {"top", required_argument, nullptr, kTop},
    {"tail-us", required_argument, nullptr, kTailUs},
    {"strict", no_argument, nullptr, kStrict},
    {"to", required_argument, nullptr, kTo},
    {"output", required_argument, nullptr, 'o'},
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, kVersion},
    {"per-interval", no_argument, nullptr, kPerInterval},
    {"csv", no_argument, nullptr, kCsv},
    {"json", no_argument, nullptr, kJson},
    {"host", required_argument, nullptr, kHost},
    {"html", no_argument, nullptr, kHtml},
    {"columns", required_argument, nullptr, kColumns},
    {"bucket", required_argument, nullptr, kBucket},
    {"op-id", required_argument, nullptr, kOpId},
    {"of", required_argument, nullptr, kOf},
    {nullptr, 0, nullptr, 0},
};

bool IsReport(absl::string_view s) {
  for (const char* r : {"summary", "hist", "csv", "json", "top", "sizes",
                        "errors", "convert", "baseline", "heatmap", "ops"}) {
    if (s == r) return true;
  }
  return false;
}

// --bucket's value: a plain number is seconds (as biosnoop's durations),
// else numbers with units (500ms, 1m30s, 2h); from 1 us to 10 years.
absl::StatusOr<int64_t> ParseBucket(absl::string_view arg) {
  const char* want =
      "expected a duration such as 10s, 500ms, 5m or 1h (a number is seconds)";
  const bool plain =
      !arg.empty() && arg.find_first_not_of("0123456789.") == arg.npos;
  absl::Duration d;
  if (arg.empty() || arg[0] == '-' || arg[0] == '+' ||
      absl::StrContains(arg, "inf") ||
      !absl::ParseDuration(plain ? absl::StrCat(arg, "s") : std::string(arg),
                           &d)) {
    return absl::InvalidArgumentError(
        absl::StrCat(want, ", got \"", arg, "\""));
  }
  if (d < absl::Microseconds(1) || d > absl::Hours(87600)) {
    return absl::InvalidArgumentError(
        absl::StrCat("from 1us to 10 years (87600h), got \"", arg, "\""));
  }
  return absl::ToInt64Nanoseconds(d);
}

absl::Status Usage(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// The option as the user typed it, for messages.
std::string OptionName(int c, int long_index) {
  if (long_index >= 0) return absl::StrCat("--", kLongOptions[long_index].name);
  return absl::StrCat("-", std::string(1, static_cast<char>(c)));
}

}  // namespace

absl::StatusOr<CliOptions> ParseArgs(int argc, char** argv) {
  CliOptions o;
  int first = 1;
  if (argc > 1 && IsReport(argv[1])) {
    o.report = argv[1];
    first = 2;
  }
  // getopt_long on the arguments after the report name.
  std::vector<char*> args = {argv[0]};
  for (int i = first; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  const int n = static_cast<int>(args.size()) - 1;
  optind = 0;  // full reset: RunBioreport may be called more than once
  opterr = 0;
  bool by_set = false;
  bool heatmap_of_set = false;
  std::vector<int> filters_seen;
  for (;;) {
    int long_index = -1;
    const int c =
        getopt_long(n, args.data(), ":d:p:c:mDo:h", kLongOptions, &long_index);
    if (c == -1) break;
    const std::string name =
        OptionName(c == ':' || c == '?' ? optopt : c, long_index);
    const absl::string_view arg = optarg != nullptr ? optarg : "";
    // One message for every value out of [min, max], "-1" as "0".
    auto number = [&](uint64_t min, uint64_t max,
                      uint64_t* out) -> absl::Status {
      if (!absl::SimpleAtoi(arg, out) || *out < min || *out > max) {
        return Usage(absl::StrCat(name, ": expected a number from ", min,
                                  " to ", max, ", got \"", arg, "\""));
      }
      return absl::OkStatus();
    };
    // An empty filter value is bad usage, as it is for biosnoop: "" would
    // read as "no filter" for one option and "matches nothing" for another.
    if ((c == 'd' || c == 'c' || c == kHost || c == kCgroup ||
         c == kContainer || c == kFile) &&
        arg.empty()) {
      return Usage(
          absl::StrCat(name, ": empty value: expected ",
                       c == 'd'          ? "a disk name such as vda"
                       : c == 'c'        ? "a process name such as dd"
                       : c == kCgroup    ? "a cgroup path such as /system.slice"
                       : c == kContainer ? "a container id (or its start)"
                       : c == kFile      ? "a path or its start, such as /var/"
                                         : "a host name such as db7"));
    }
    // A filter takes one value.  Given twice it reads as "this or that"
    // (or, for --since, --until and --min-us, as "both bounds"), which the
    // report does not do; taking the last would silently count other
    // events than the user asked for.
    if (c == 'd' || c == 'p' || c == 'c' || c == kOp || c == kSince ||
        c == kUntil || c == kMinUs || c == kHost || c == kCgroup ||
        c == kContainer || c == kFile) {
      if (std::find(filters_seen.begin(), filters_seen.end(), c) !=
          filters_seen.end()) {
        return Usage(absl::StrCat(
            name,
            " given more than once: each filter takes one value (run "
            "one report per value)"));
      }
      filters_seen.push_back(c);
    }
    uint64_t v = 0;
    switch (c) {
      case kSince:
      case kUntil: {
        absl::StatusOr<int64_t> t = ParseRfc3339(arg);
        if (!t.ok())
          return Usage(absl::StrCat(name, ": ", t.status().message()));
        (c == kSince ? o.filter.since_ns : o.filter.until_ns) = *t;
        break;
      }
      case 'd':
        o.filter.disk = std::string(arg);
        if (absl::StartsWith(o.filter.disk, "/dev/")) o.filter.disk.erase(0, 5);
        if (o.filter.disk.empty()) {
          return Usage(absl::StrCat(name,
                                    ": expected a disk name such as vda, "
                                    "got \"",
                                    arg, "\""));
        }
        break;
      case 'p':
        if (absl::Status s =
                number(0, std::numeric_limits<uint32_t>::max(), &v);
            !s.ok()) {
          return s;
        }
        o.filter.pid = static_cast<uint32_t>(v);
        break;
      case 'c':
        o.filter.comm = std::string(arg);
        break;
      case kHost:
        o.filter.host = std::string(arg);
        break;
      case kCgroup:
        if (arg[0] != '/') {
          return Usage(absl::StrCat(name,
                                    ": expected a path from the cgroup "
                                    "v2 root such as /system.slice, got \"",
                                    arg, "\""));
        }
        o.filter.cgroup = std::string(arg);
        // "/system.slice/" means the same subtree as "/system.slice".
        while (o.filter.cgroup.size() > 1 && o.filter.cgroup.back() == '/') {
          o.filter.cgroup.pop_back();
        }
        break;
      case kContainer:
        o.filter.container = absl::AsciiStrToLower(arg);
        break;
      case kFile:
        o.filter.file = std::string(arg);
        break;
      case kOp:
        if (arg != "read" && arg != "write" && arg != "flush" &&
            arg != "discard" && arg != "secure_erase" &&
            arg != "write_zeroes" && arg != "zone_append" && arg != "other") {
          return Usage(absl::StrCat(
              "--op: expected read, write, flush, discard, secure_erase, "
              "write_zeroes, zone_append or other, got \"",
              arg, "\""));
        }
        o.filter.op = std::string(arg);
        break;
      case kMinUs:
        if (absl::Status s = number(0, UINT64_MAX, &o.filter.min_us); !s.ok())
          return s;
        break;
      case 'm':
        o.report_options.ms = true;
        break;
      case 'D':
      case kBy:
        // One grouping: with two ("-D --by op") one would be ignored.
        if (by_set) {
          return Usage(absl::StrCat(name,
                                    ": the grouping is already set: give one "
                                    "of -D (--by disk) and --by, once"));
        }
        by_set = true;
        if (c == 'D' || arg == "disk") {
          o.report_options.by = HistGroup::kDisk;
        } else if (arg == "op") {
          o.report_options.by = HistGroup::kOp;
        } else if (arg == "disk-op" || arg == "disk,op") {
          o.report_options.by = HistGroup::kDiskOp;
        } else if (arg == "all") {
          o.report_options.by = HistGroup::kAll;
        } else {
          return Usage(absl::StrCat(
              "--by: expected disk, op, disk,op or all, got \"", arg, "\""));
        }
        break;
      case kTop:
        if (absl::Status s = number(1, 1000000, &v); !s.ok()) return s;
        o.report_options.top = static_cast<size_t>(v);
        break;
      case kTailUs:
        if (absl::Status s = number(0, UINT64_MAX, &o.tail_us); !s.ok())
          return s;
        break;
      case kStrict:
        o.strict = true;
        break;
      case kTo:
        if (arg == "jsonl" || arg == "json") {
          o.to = StreamFormat::kJsonLines;
        } else if (arg == "proto" || arg == "protobuf") {
          o.to = StreamFormat::kProtobuf;
        } else {
          return Usage(
              absl::StrCat("--to: expected jsonl or proto, got \"", arg, "\""));
        }
        break;
      case 'o':
        if (arg.empty()) return Usage("--output: empty file name");
        o.output = std::string(arg);
        break;
      case 'h':
        o.help = true;
        break;
      case kVersion:
        o.version = true;
        break;
      case kHtml:
        o.heatmap_html = true;
        break;
      case kColumns:
        if (o.heatmap_columns != 0 || o.heatmap_bucket_ns != 0) {
          return Usage("--columns and --bucket: give one of them, once");
        }
        if (absl::Status s = number(1, kMaxColumns, &v); !s.ok()) return s;
        o.heatmap_columns = static_cast<int>(v);
        break;
      case kBucket: {
        if (o.heatmap_columns != 0 || o.heatmap_bucket_ns != 0) {
          return Usage("--columns and --bucket: give one of them, once");
        }
        absl::StatusOr<int64_t> ns = ParseBucket(arg);
        if (!ns.ok())
          return Usage(absl::StrCat(name, ": ", ns.status().message()));
        o.heatmap_bucket_ns = *ns;
        break;
      }
      case kOf:
        if (arg == "events") {
          o.heatmap_ops = false;
        } else if (arg == "ops" || arg == "calls") {
          o.heatmap_ops = true;
        } else {
          return Usage(
              absl::StrCat("--of: expected events or ops, got \"", arg, "\""));
        }
        heatmap_of_set = true;
        break;
      case kOpId:
        if (o.op_id.has_value()) {
          return Usage("--op-id given more than once: one call at a time");
        }
        if (absl::Status s = number(1, UINT64_MAX, &v); !s.ok()) return s;
        o.op_id = v;
        break;
      case kPerInterval:
        o.report_options.per_interval = true;
        break;
      case kCsv:
      case kJson: {
        const char* form = c == kCsv ? "csv" : "json";
        if (o.baseline_form != "text" && o.baseline_form != form) {
          return Usage("--csv and --json exclude each other");
        }
        o.baseline_form = form;
        break;
      }
      case ':':
        // The option as typed (a long option has no single-letter optopt).
        return Usage(absl::StrCat(
            absl::StartsWith(args[optind - 1], "--") ? args[optind - 1] : name,
            " needs a value"));
      default: {
        const char* bad = args[optind - 1];
        return Usage(absl::StrCat("unknown option ",
                                  optopt != 0 ? name : std::string(bad)));
      }
    }
  }
  for (int i = optind; i < n; ++i) o.inputs.emplace_back(args[i]);
  if (o.help || o.version) return o;
  if (o.report == "convert" && o.to == StreamFormat::kUnknown) {
    return Usage("convert: --to jsonl|proto is required");
  }
  if (o.report != "convert" && o.to != StreamFormat::kUnknown) {
    return Usage("--to is only for convert");
  }
  if (o.report != "convert" && o.report != "heatmap" && o.output != "-") {
    return Usage("--output is only for convert and heatmap");
  }
  if (by_set && o.report != "hist" && o.report != "heatmap") {
    return Usage("--by and --per-disk are only for hist and heatmap");
  }
  if (o.report != "heatmap" && (o.heatmap_html || o.heatmap_columns != 0 ||
                                o.heatmap_bucket_ns != 0 || heatmap_of_set)) {
    return Usage("--html, --columns, --bucket and --of are only for heatmap");
  }
  if (o.heatmap_columns == 0) o.heatmap_columns = kDefaultColumns;
  if (o.report == "ops") {
    if (o.report_options.per_interval || o.baseline_form == "csv") {
      return Usage("--per-interval and --csv are only for baseline");
    }
  } else if (o.report != "baseline" &&
             (o.report_options.per_interval || o.baseline_form != "text")) {
    return Usage(
        "--per-interval, --csv and --json are only for baseline (--json "
        "also for ops)");
  }
  if (o.op_id.has_value() && o.report != "ops") {
    return Usage("--op-id is only for ops");
  }
  if (o.op_id.has_value()) {
    // One call whole: its requests are whatever disk, process or size
    // they are; the window and host only pick the run.
    const char* bad = !o.filter.disk.empty()        ? "--disk"
                      : o.filter.pid                ? "--pid"
                      : o.filter.comm               ? "--comm"
                      : !o.filter.op.empty()        ? "--op"
                      : o.filter.min_us > 0         ? "--min-us"
                      : !o.filter.cgroup.empty()    ? "--cgroup"
                      : !o.filter.container.empty() ? "--container"
                      : !o.filter.file.empty()      ? "--file"
                                                    : nullptr;
    if (bad != nullptr) {
      return Usage(absl::StrCat(bad,
                                " does not apply to --op-id: it shows one "
                                "call whole (--host, --since and --until "
                                "pick the run)"));
    }
  }
  if (o.report == "baseline") {
    // Summary records count per disk and operation: nothing else selects.
    const char* bad = o.filter.pid                  ? "--pid"
                      : o.filter.comm               ? "--comm"
                      : o.filter.min_us > 0         ? "--min-us"
                      : !o.filter.cgroup.empty()    ? "--cgroup"
                      : !o.filter.container.empty() ? "--container"
                      : !o.filter.file.empty()      ? "--file"
                                                    : nullptr;
    if (bad != nullptr) {
      return Usage(absl::StrCat(bad,
                                " does not apply to baseline: summary "
                                "records are per disk and operation"));
    }
  }
  if (o.filter.since_ns && o.filter.until_ns &&
      *o.filter.until_ns <= *o.filter.since_ns) {
    return Usage("--until must be after --since");
  }
  int stdin_count = 0;
  for (const std::string& in : o.inputs) stdin_count += in == "-";
  if (stdin_count > 1) return Usage("stdin (-) given more than once");
  return o;
}

const char* UsageText() { return kUsage; }

}  // namespace biosnoop::report
