// Parsing bioreport's command line with getopt_long: every check that can
// be made before an input is opened is made here, so that bad usage is one
// line and exit code 64 before any work.  The reports and options are
// described once, in MakeDoc: getopt_long's tables, --help and the man page
// (tools/man) all come from that table, so they cannot disagree.

#include "cli_options.h"

#include <getopt.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli_numbers.h"
#include "heatmap_bins.h"
#include "status_macros.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

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
  kComm,
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
  kSlowest,
};

// The reports, every option, their --help paragraphs and the man page's
// more; and the man page's prose around them.  getopt_long's tables and
// IsReport are made from it too.
cli::ProgramDoc MakeDoc() {
  using cli::Entry;
  using cli::Flag;
  auto report = [](const char* name, const char* text, const char* more = "") {
    return Entry{.text = text, .word = name, .more = more};
  };
  cli::Section reports{
      .heading = "REPORT (default summary):",
      .man_section = "REPORTS",
      .man_text =
          "REPORT, the first argument, is one of these (default "
          "summary); a file named like a report needs a path "
          "(./summary). docs/bioreport.md shows each with its "
          "columns.",
      .column = 12,
      .entries = {
          report("summary",
                 "per disk and operation: count, bytes, latency min, mean, "
                 "p50, p90, p99, p99.9, max, errors"),
          report("hist", "log2 latency histogram (biolatency style)"),
          report("csv", "histogram as CSV: bucket,lo_us,hi_us,count"),
          report("json", "summary JSON for scripts"),
          report("top",
                 "top processes and disks by count and by total latency "
                 "(and cgroups, containers, contents, files, dirtiers)"),
          report("sizes", "log2 histogram of I/O sizes"),
          report("errors", "I/O errors by disk"),
          report("baseline",
                 "from summary records: all completions per disk and "
                 "operation, slow share, bytes, estimated p50 and p99"),
          report("heatmap",
                 "SVG latency heat map (time x log2 latency, colour by "
                 "count) with p50/p99 lines; --html for a page"),
          report("ops",
                 "calls (biosnoop --ops): the slowest with their time by "
                 "layer (block, writeback, other), p50/p99 per process and "
                 "per file; --op-id N: one call and its requests"),
          report("why",
                 "calls (biosnoop --ops): why the --slowest N selected calls "
                 "(--comm, -p, --cgroup, --since, ...; or --op-id N) were "
                 "slow: causes ranked by share of their time, with the "
                 "tasks, cgroups and containers behind each",
                 "The causes are the op records' layers: block (the call's "
                 "own requests), writeback (its own file's data), journal, "
                 "flush, others_writeback (other files' writeback it queued "
                 "behind), throttle (its bios waiting to become requests), "
                 "and other (what no request accounts for); each "
                 "with its share of the calls' time and the culprits (the "
                 "dirtiers and submitters of the requests waited for) "
                 "summed over the calls. Without --op-id, when more calls "
                 "were selected, the slowest (worst) are set against the "
                 "rest (steady). --op-id naming no op record is an error "
                 "(exit 65)."),
          report("convert", "rewrite the stream in the other format (--to)",
                 "Every record is kept, in time order; filters select "
                 "events, stuck records and calls as for a report."),
      }};
  cli::Section filters{
      .heading =
          "Filters (events; stuck records but --min-us and --file; "
          "calls, with --op by the call's kind (read, write, flush: "
          "the fsync family); for baseline, --since/--until select "
          "summary intervals by their end, --host their runs, -d/--op "
          "their groups; each at most once):",
      .man_title = "Filters",
      .man_text =
          "Filters select events, and stuck records by the same fields but "
          "--min-us and --file (a stuck request has no latency yet and "
          "names no file). Calls (op records) are selected by their fields "
          "of the same names, --op by the call's kind: read, write, or "
          "flush (the fsync family). For baseline they select summary "
          "records: --since and --until the intervals whose end is in the "
          "window, --host those of that host's runs, -d and --op their "
          "groups; the other filters are bad usage there. Headers and "
          "stats are never filtered, but --host also picks the runs whose "
          "loss is reported. Each filter takes one value, given once; an "
          "empty value is bad usage.",
      .column = 31,
      .entries = {
          {{Flag{"since", 0, "TIME", kSince}, Flag{"until", 0, "TIME", kUntil}},
           "RFC 3339 (2026-11-21T05:00:00Z); until is exclusive",
           "",
           "An offset is taken too (2026-11-21T07:00:00+02:00); --until "
           "must be after --since."},
          {{Flag{"host", 0, "NAME", kHost}},
           "one host's records (and its runs' loss)",
           "",
           "The host exactly, as the header and the events name it. With "
           "more than one host in the input, every report keeps them apart "
           "(a host column, a histogram per host)."},
          {{Flag{"disk", 'd', "NAME"}},
           "disk or partition (vda, vda1)",
           "",
           "/dev/vda is taken for vda."},
          {{Flag{"pid", 'p', "PID"}}, "submitting process"},
          {{Flag{"comm", 0, "NAME", kComm}},
           "process name, exactly",
           "",
           "-c, once its short form, is refused with this and --cgroup "
           "named: in biosnoop and libbpf-tools' tools -c is a cgroup, "
           "and a command written for either meaning must not be read "
           "with the other."},
          {{Flag{"cgroup", 0, "PATH", kCgroup}},
           "cgroup v2 PATH and the cgroups below it (/system.slice, "
           "/kubepods.slice/...)",
           "",
           "/system.slice takes /system.slice/x.service, not "
           "/system.slice2; / takes every record whose cgroup is known. A "
           "record whose cgroup is unknown never matches."},
          {{Flag{"container", 0, "ID", kContainer}},
           "container whose id starts with ID",
           "",
           "The 12 digits docker ps shows will do; case does not matter."},
          {{Flag{"file", 0, "PREFIX", kFile}},
           "events with a file whose path starts with PREFIX "
           "(/var/lib/postgresql/)",
           "",
           "As text: /var/lib/pg also takes /var/lib/pgsql/..., so end a "
           "directory with /. An event without files never matches; stuck "
           "records are kept."},
          {{Flag{"op", 0, "OP", kOp}},
           "read, write, flush, discard, ...",
           "",
           "One of read, write, flush, discard, secure_erase, "
           "write_zeroes, zone_append, other."},
          {{Flag{"min-us", 0, "N", kMinUs}},
           "latency of at least N microseconds"},
      }};
  cli::Section report_options{
      .heading = "Report options:",
      .man_title = "Report options",
      .column = 31,
      .entries = {
          {{Flag{"ms", 'm'}}, "latencies in milliseconds"},
          {{Flag{"per-disk", 'D'}}, "hist: one histogram per disk"},
          {{Flag{"by", 0, "disk|op|disk,op|all", kBy}},
           "hist, heatmap: one histogram or panel per group (one of -D and "
           "--by)"},
          {{Flag{"top", 0, "N", kTop}},
           "top, ops: rows per table (default 10)",
           "",
           "From 1 to 1000000."},
          {{Flag{"op-id", 0, "N", kOpId}},
           "ops, why: the call N (Op.op_id), with the events it submitted and "
           "the writeback of the pages it dirtied (filters: only --host, "
           "--since, --until)"},
          {{Flag{"slowest", 0, "N", kSlowest}},
           "why: explain the N slowest of the selected calls (default 10)",
           "",
           "From 1 to 1000000."},
          {{Flag{"tail-us", 0, "N", kTailUs}},
           "json: tail threshold (default 100000)"},
          {{Flag{"per-interval", 0, nullptr, kPerInterval}},
           "baseline: a row per summary interval"},
          {{Flag{"csv", 0, nullptr, kCsv}, Flag{"json", 0, nullptr, kJson}},
           "baseline (and ops, why: --json): for scripts"},
          {{Flag{"strict", 0, nullptr, kStrict}},
           "fail on corrupt or truncated input",
           "",
           "Without it, a corrupt record is named (file and line or byte "
           "offset) and skipped, a truncated end is a warning, and the "
           "report is of every whole record."},
          {{Flag{"to", 0, "jsonl|proto", kTo}}, "convert: output format"},
          {{Flag{"output", 'o', "FILE"}},
           "convert, heatmap: write FILE (new or empty) instead of stdout"},
          {{Flag{"html", 0, nullptr, kHtml}},
           "heatmap: an HTML page around the SVG"},
          {{Flag{"columns", 0, "N", kColumns}},
           "heatmap: at most N time columns (default 200), of a round "
           "width",
           "",
           "From 1 to 2000; one of --columns and --bucket."},
          {{Flag{"bucket", 0, "DURATION", kBucket}},
           "heatmap: columns of exactly DURATION (10s, 500ms, 1m; a number "
           "is seconds)",
           "",
           "From 1us to 10 years, in biosnoop's duration syntax (1h30m, "
           "0.5)."},
          {{Flag{"of", 0, "events|ops", kOf}},
           "heatmap: of the events (default) or of the calls (op records: "
           "latency_us; --by op groups by call)"},
      }};
  cli::Section other_options{
      .man_title = "Other options",
      .column = 31,
      .entries = {
          {{Flag{"help", 'h'}}, "print this text and exit (-? too)"},
          {{Flag{"version", 'V'}}, "print the version and exit"},
      }};
  return cli::ProgramDoc{
      .name = "bioreport",
      .summary = "report on the slow I/O in biosnoop streams",
      .usage = "[REPORT] [OPTIONS] [FILE...]",
      .usage_prefix = "usage:",
      .intro =
          "Reads biosnoop streams (JSON Lines or protobuf, gzip or not; "
          "FILEs in time order, none or - for stdin) and reports on "
          "the slow I/O in them.",
      .description =
          {"The format is told from the first bytes, never from the name: "
           "JSON Lines or protobuf, gzip or not, several concatenated gzip "
           "members read as one. Rotated logs are ordered by the time of "
           "their first record, whatever order they are named in, and "
           "formats may be mixed (bioreport slow.jsonl.2.gz slow.jsonl.1 "
           "slow.jsonl). A pipe or stdin gives its bytes once and is read "
           "in the order given.",
           "Damaged input is reported, never read with zeros standing in: a "
           "stream truncated mid-record yields every whole record and one "
           "warning with the byte offset; a corrupt record is named with "
           "its file and line (or offset) and skipped; --strict makes "
           "either an error (exit 65). Records lost before biosnoop wrote "
           "them (the stats records' counters) are a WARNING in every "
           "report.",
           "Numbers (N, PID) are whole numbers: decimal digits only, no "
           "sign, no blanks; a number too large for its option is refused "
           "with the largest it takes."},
      .sections = {reports, filters, report_options, other_options},
      .exit_codes =
          {{0, "ok", "also when the reader of stdout went away"},
           {64, "bad usage", "one line on stderr saying what"},
           {65, "not a biosnoop stream, or damage under --strict",
            "Also why --op-id N when no op record has that number."},
           {66, "cannot open an input", "missing, permission, a directory"},
           {73, "cannot create output",
            "convert's or heatmap's output cannot be opened, or cannot hold "
            "a stream (a block device, a directory)"},
           {74, "read or write failed"}},
      .files = {{.text = "the manual: every report's columns and rules, "
                         "with examples",
                 .word = "/usr/local/share/doc/biosnoop/docs/bioreport.md"}},
      .examples =
          {{"Summary per disk and operation of the live log and its "
            "rotations:",
            "bioreport slow.jsonl.2.gz slow.jsonl.1 slow.jsonl"},
           {"The top processes and disks in one hour:",
            "bioreport top --since 2026-11-21T05:00:00Z \\\n"
            "    --until 2026-11-21T06:00:00Z slow.pb"},
           {"A heat map per disk, as an HTML page:",
            "bioreport heatmap --html --by disk -o incident.html slow.jsonl"},
           {"The slowest calls (biosnoop --ops), then one of them with the "
            "requests it waited for:",
            "bioreport ops slow.jsonl\nbioreport ops --op-id 4711 "
            "slow.jsonl"},
           {"Why the slowest fdatasync calls of pgwal were slow, and who "
            "was behind it:",
            "bioreport why --comm pgwal --op flush slow.jsonl"},
           {"JSON Lines to protobuf:",
            "bioreport convert --to proto slow.jsonl > slow.pb"}},
      .see_also = {"biosnoop(8)"},
  };
}

const cli::ProgramDoc& Doc() { return BioreportDoc(); }

bool IsReport(absl::string_view s) {
  for (const cli::Section& section : Doc().sections) {
    if (section.man_section != "REPORTS") continue;
    for (const cli::Entry& e : section.entries) {
      if (s == e.word) return true;
    }
  }
  return false;
}

// --bucket's value: a duration as biosnoop's (cli_numbers.h: a number is
// seconds, else numbers with units: 500ms, 1m30s, 2h), from 1 us.
absl::StatusOr<int64_t> ParseBucket(absl::string_view name,
                                    absl::string_view arg) {
  ASSIGN_OR_RETURN(
      const absl::Duration d,
      cli::ParseDuration(name, arg, {.min = absl::Microseconds(1)}));
  return absl::ToInt64Nanoseconds(d);
}

// The value typed after the short option `letter` ("-c dd" or "-cdd"),
// for a message; "" when there is none.
std::string ShortOptionValue(const std::vector<char*>& args, char letter) {
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    const absl::string_view a = args[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || a[1] != letter) continue;
    if (a.size() > 2) return std::string(a.substr(2));
    return i + 2 < args.size() ? std::string(args[i + 1]) : "";
  }
  return "";
}

absl::Status Usage(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// The option as the user typed it, for messages.
std::string OptionName(const cli::GetoptTables& tables, int c, int long_index) {
  if (long_index >= 0) {
    return absl::StrCat("--", tables.long_options[long_index].name);
  }
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
  bool slowest_set = false;
  std::vector<int> filters_seen;
  static const cli::GetoptTables* const tables =
      new cli::GetoptTables(cli::MakeGetoptTables(Doc()));
  for (;;) {
    int long_index = -1;
    const int c = getopt_long(n, args.data(), tables->short_options.c_str(),
                              tables->long_options.data(), &long_index);
    if (c == -1) break;
    const std::string name =
        OptionName(*tables, c == ':' || c == '?' ? optopt : c, long_index);
    const absl::string_view arg = optarg != nullptr ? optarg : "";
    // A whole number from min to max (cli_numbers.h: digits only).
    auto number = [&](uint64_t min, uint64_t max,
                      uint64_t* out) -> absl::Status {
      ASSIGN_OR_RETURN(
          *out, cli::ParseNumber(name, arg,
                                 {.min = min,
                                  .max = max,
                                  .want = absl::StrCat("a number from ", min,
                                                       " to ", max)}));
      return absl::OkStatus();
    };
    // An empty filter value is bad usage, as it is for biosnoop: "" would
    // read as "no filter" for one option and "matches nothing" for another.
    if ((c == 'd' || c == kComm || c == kHost || c == kCgroup ||
         c == kContainer || c == kFile) &&
        arg.empty()) {
      return Usage(
          absl::StrCat(name, ": empty value: expected ",
                       c == 'd'          ? "a disk name such as vda"
                       : c == kComm      ? "a process name such as dd"
                       : c == kCgroup    ? "a cgroup path such as /system.slice"
                       : c == kContainer ? "a container id (or its start)"
                       : c == kFile      ? "a path or its start, such as /var/"
                                         : "a host name such as db7"));
    }
    // A filter takes one value.  Given twice it reads as "this or that"
    // (or, for --since, --until and --min-us, as "both bounds"), which the
    // report does not do; taking the last would silently count other
    // events than the user asked for.
    if (c == 'd' || c == 'p' || c == kComm || c == kOp || c == kSince ||
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
        ASSIGN_OR_RETURN(const int64_t t, ParseRfc3339(arg),
                         Usage(absl::StrCat(name, ": ", _.message())));
        (c == kSince ? o.filter.since_ns : o.filter.until_ns) = t;
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
      case kComm:
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
      case 'V':
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
        ASSIGN_OR_RETURN(o.heatmap_bucket_ns, ParseBucket(name, arg));
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
      case kSlowest:
        if (absl::Status s = number(1, 1000000, &v); !s.ok()) return s;
        o.why_slowest = static_cast<size_t>(v);
        slowest_set = true;
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
        // argp's -? (libbpf-tools): the help, as -h.
        if (optopt == '?') {
          o.help = true;
          break;
        }
        // -c was --comm here and is a cgroup in biosnoop and libbpf-tools:
        // either reading could be wrong for the command at hand.
        if (optopt == 'c') {
          const std::string value = ShortOptionValue(args, 'c');
          const std::string shown =
              value.empty() ? "NAME" : absl::Utf8SafeCEscape(value);
          return Usage(absl::StrCat(
              "-c: give --comm ", shown,
              " for a process name (what bioreport's -c was), or --cgroup ",
              value.empty() || value[0] != '/' ? std::string("PATH") : shown,
              " for a cgroup (what -c is in biosnoop and libbpf-tools)"));
        }
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
  if (o.report == "ops" || o.report == "why") {
    if (o.report_options.per_interval || o.baseline_form == "csv") {
      return Usage("--per-interval and --csv are only for baseline");
    }
  } else if (o.report != "baseline" &&
             (o.report_options.per_interval || o.baseline_form != "text")) {
    return Usage(
        "--per-interval, --csv and --json are only for baseline (--json "
        "also for ops and why)");
  }
  if (o.op_id.has_value() && o.report != "ops" && o.report != "why") {
    return Usage("--op-id is only for ops and why");
  }
  if (slowest_set && o.report != "why") {
    return Usage("--slowest is only for why");
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

const cli::ProgramDoc& BioreportDoc() {
  static const cli::ProgramDoc* const doc = new cli::ProgramDoc(MakeDoc());
  return *doc;
}

const char* UsageText() {
  static const std::string* const text =
      new std::string(cli::HelpText(BioreportDoc()));
  return text->c_str();
}

}  // namespace biosnoop::report
