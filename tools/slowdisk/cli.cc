#include "cli.h"

#include <getopt.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "cli_numbers.h"
#include "status_macros.h"

namespace biosnoop::slowdisk {
namespace {

enum LongOnly : int {
  kOptReadDelay = 256,
  kOptWriteDelay,
  kOptFlushDelay,
  kOptSlowRegion,
  kOptFastDelay,
  kOptErrorRegion,
  kOptThreads,
  kOptDebug,
};

constexpr char kShortOptions[] = ":s:h";

const struct option kLongOptions[] = {
    {"size-mib", required_argument, nullptr, 's'},
    {"read-delay-ms", required_argument, nullptr, kOptReadDelay},
    {"write-delay-ms", required_argument, nullptr, kOptWriteDelay},
    {"flush-delay-ms", required_argument, nullptr, kOptFlushDelay},
    {"slow-region", required_argument, nullptr, kOptSlowRegion},
    {"fast-delay-us", required_argument, nullptr, kOptFastDelay},
    {"error-region", required_argument, nullptr, kOptErrorRegion},
    {"threads", required_argument, nullptr, kOptThreads},
    {"debug", no_argument, nullptr, kOptDebug},
    {"help", no_argument, nullptr, 'h'},
    {nullptr, 0, nullptr, 0},
};

std::string OptionName(int code) {
  for (const struct option* o = kLongOptions; o->name != nullptr; ++o) {
    if (o->val == code) return absl::StrCat("--", o->name);
  }
  return absl::StrCat("-", std::string(1, static_cast<char>(code)));
}

// A whole number from min to max (cli_numbers.h: digits only), as every
// program of the project reads one.
absl::StatusOr<uint64_t> ParseNumber(int code, absl::string_view value,
                                     uint64_t min, uint64_t max) {
  return cli::ParseNumber(OptionName(code), value, {.min = min, .max = max});
}

// Flags that mirror control words go through the control syntax, so the
// two cannot drift apart.
absl::Status ApplyAsControl(int code, absl::string_view control_key,
                            absl::string_view value, Settings* settings) {
  if (value.empty() ||
      value.find_first_of(" \t\r\n") != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        OptionName(code), ": expected one word, got \"", value, "\""));
  }
  absl::StatusOr<ControlRequest> r =
      ApplyControlText(absl::StrCat(control_key, "=", value), *settings);
  if (!r.ok()) {
    // The control parser names its key ("read_delay_ms: ..."); the user
    // typed the flag, so name that instead.
    absl::string_view why = r.status().message();
    absl::ConsumePrefix(&why, absl::StrCat(control_key, ": "));
    return absl::InvalidArgumentError(
        absl::StrCat(OptionName(code), ": ", why));
  }
  *settings = r->settings;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CliOptions> ParseCli(int argc, char* const argv[]) {
  CliOptions o;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, kShortOptions, kLongOptions, nullptr)) !=
         -1) {
    absl::string_view value = optarg != nullptr ? optarg : "";
    absl::Status status;
    switch (c) {
      case 's': {
        // 1 TiB: far beyond any test, still a sane mmap reservation.
        ASSIGN_OR_RETURN(o.size_mib, ParseNumber(c, value, 1, 1 << 20));
        break;
      }
      case kOptReadDelay:
        status = ApplyAsControl(c, "read_delay_ms", value, &o.settings);
        break;
      case kOptWriteDelay:
        status = ApplyAsControl(c, "write_delay_ms", value, &o.settings);
        break;
      case kOptFlushDelay:
        status = ApplyAsControl(c, "flush_delay_ms", value, &o.settings);
        break;
      case kOptSlowRegion:
        status = ApplyAsControl(c, "slow_region", value, &o.settings);
        break;
      case kOptFastDelay:
        status = ApplyAsControl(c, "fast_delay_us", value, &o.settings);
        break;
      case kOptErrorRegion:
        status = ApplyAsControl(c, "error_region", value, &o.settings);
        break;
      case kOptThreads: {
        ASSIGN_OR_RETURN(const uint64_t n, ParseNumber(c, value, 1, 1024));
        o.threads = static_cast<unsigned>(n);
        break;
      }
      case kOptDebug:
        o.debug = true;
        break;
      case 'h':
        o.help = true;
        return o;
      case ':':
        return absl::InvalidArgumentError(
            absl::StrCat(optopt != 0 ? OptionName(optopt) : argv[optind - 1],
                         ": missing value"));
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("unknown option \"",
                         optopt != 0 ? absl::StrCat("-", std::string(1, optopt))
                                     : std::string(argv[optind - 1]),
                         "\" (see --help)"));
    }
    if (!status.ok()) return status;
  }
  if (optind != argc - 1) {
    return absl::InvalidArgumentError(
        optind == argc
            ? "missing MOUNTPOINT (see --help)"
            : absl::StrCat("unexpected argument \"", argv[optind + 1], "\""));
  }
  o.mountpoint = argv[optind];
  if (o.mountpoint.empty()) {
    return absl::InvalidArgumentError("MOUNTPOINT is empty");
  }
  return o;
}

const char* UsageText() {
  return R"(Usage: slowdisk [OPTIONS] MOUNTPOINT

Serves one file, MOUNTPOINT/disk.img, over FUSE, holding each read, write
and fsync for a set delay or failing it with EIO.  Put a loop device on it
for a block device with exact, controllable latency and errors:
    losetup --find --show --direct-io=on MOUNTPOINT/disk.img
(--direct-io=on is what lets the loop device keep many requests in flight.)
Runs in the foreground; SIGTERM or SIGINT unmounts and exits.

Options:
  -s, --size-mib=N          size of disk.img in MiB (default 64), in memory,
                            zero-filled, costing only what is written
      --read-delay-ms=N     hold every read N ms (default 0)
      --write-delay-ms=N    hold every write N ms (default 0)
      --flush-delay-ms=N    hold every fsync (the loop device's FLUSH) N ms
      --slow-region=OFF:LEN read/write delays apply only to requests
                            overlapping these bytes (default: everywhere)
      --fast-delay-us=N     with --slow-region, hold reads and writes
                            outside it N us (default 0): two latency modes
      --error-region=OFF:LEN reads and writes overlapping these bytes fail
                            with EIO (after their delay)
      --threads=N           FUSE worker threads (default 16); delayed
                            requests do not occupy a thread
      --debug               print every FUSE request (libfuse -d)
  -h, --help                this text
Byte counts take K, M, G suffixes (binary): --slow-region=1M:64K.

Control file, MOUNTPOINT/control:
  write words separated by spaces or newlines, applied all or nothing
  (a bad word fails the write with EINVAL and is logged):
    read_delay_ms=N  write_delay_ms=N  flush_delay_ms=N
    slow_region=OFF:LEN  slow_region=    (empty clears)  fast_delay_us=N
    error_region=OFF:LEN error_region=
    reset_counters
  e.g.  echo read_delay_ms=20 > MOUNTPOINT/control
  read it for the settings and counters, one key=value a line:
    read_delay_ms write_delay_ms flush_delay_ms slow_region fast_delay_us
    error_region
    size_bytes reads writes flushes errors read_bytes write_bytes
    in_flight max_in_flight
  (reads/writes count every request answered, errors the ones answered
  EIO; a block request larger than FUSE's request size arrives split.)

Exit status: 0 after a signal, 64 bad usage, 69 mount failed, 70 bug.
)";
}

}  // namespace biosnoop::slowdisk
