#include "options.h"

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "exit_codes.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

absl::StatusOr<Options> Parse(std::initializer_list<const char*> args) {
  std::vector<std::string> storage = {"biosnoop"};
  for (const char* a : args) storage.emplace_back(a);
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return ParseOptions(static_cast<int>(storage.size()), argv.data());
}

std::string ErrorOf(std::initializer_list<const char*> args) {
  absl::StatusOr<Options> o = Parse(args);
  EXPECT_FALSE(o.ok());
  if (o.ok()) return "";
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ExitCodeFor(o.status()), kExitUsage);
  // One line, so it reads well after "biosnoop: ".
  EXPECT_EQ(o.status().message().find('\n'), absl::string_view::npos);
  return std::string(o.status().message());
}

TEST(OptionsTest, DefaultsMatchBiosnoopUsers) {
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->min_us, 0u);
  EXPECT_EQ(o->output, "-");
  EXPECT_FALSE(o->queued);
  EXPECT_FALSE(o->duration.has_value());
  EXPECT_EQ(o->op, OpFilter::kAny);
  EXPECT_EQ(o->ringbuf_kib, 2048u);
  EXPECT_FALSE(o->rescue_always);
}

// Files on, the dirtied-page ledger off (it costs every dirtied page),
// 65536 entries when asked for; --no-files alone drops both, and asking
// for the ledger without files is bad usage.
TEST(OptionsTest, FilesAndTheLedger) {
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->files);
  EXPECT_FALSE(o->writeback_owner);
  EXPECT_EQ(o->ledger_entries, 65536u);
  o = Parse({"--writeback-owner", "--ledger-entries", "1024"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->writeback_owner);
  EXPECT_EQ(o->ledger_entries, 1024u);
  o = Parse({"--writeback-owner", "--no-writeback-owner"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->writeback_owner);
  o = Parse({"--no-files"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->files);
  EXPECT_EQ(ErrorOf({"--no-files", "--writeback-owner"}),
            "--writeback-owner needs the files of each event (drop "
            "--no-files)");
  for (const char* bad : {"1000", "1023", "3000", "33554432", "x"}) {
    EXPECT_NE(ErrorOf({"--ledger-entries", bad}).find("--ledger-entries"),
              std::string::npos)
        << bad;
  }
}

// --ops: off by default; on, it keeps op records of calls at least
// --min-us long unless --op-min-us says otherwise, and turns the ledger on
// (the dirtying calls of written pages) unless it is refused outright.
TEST(OptionsTest, OpsAndTheirThreshold) {
  absl::StatusOr<Options> o = Parse({"--min-us", "5000"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->ops);
  EXPECT_EQ(o->op_min_us, 0u);
  EXPECT_FALSE(o->writeback_owner);

  o = Parse({"--min-us", "5000", "--ops"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->ops);
  EXPECT_EQ(o->op_min_us, 5000u);
  EXPECT_TRUE(o->writeback_owner);

  // Either order: the default is --min-us's final value.
  o = Parse({"--ops", "--min-us", "7000"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->op_min_us, 7000u);

  o = Parse({"--min-us", "5000", "--ops", "--op-min-us", "100000"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->op_min_us, 100000u);
  o = Parse({"--ops", "--op-min-us=0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->op_min_us, 0u);

  o = Parse({"--ops", "--no-writeback-owner"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->ops);
  EXPECT_FALSE(o->writeback_owner);
  o = Parse({"--no-writeback-owner", "--ops"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->writeback_owner);
  // Without files there is no ledger: --ops alone does not ask for one.
  o = Parse({"--ops", "--no-files"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->ops);
  EXPECT_FALSE(o->writeback_owner);

  EXPECT_EQ(ErrorOf({"--op-min-us", "100"}), "--op-min-us goes with --ops");
  EXPECT_EQ(ErrorOf({"--ops", "--hist"}),
            "--ops writes op records into the event stream: it does not go "
            "with --hist");
  EXPECT_EQ(ErrorOf({"--hist", "--ops", "--op-min-us", "1"}),
            "--ops writes op records into the event stream: it does not go "
            "with --hist");
  EXPECT_EQ(ErrorOf({"--ops", "--op-min-us", "1ms"}),
            "--op-min-us: expected a whole number of microseconds, got "
            "\"1ms\"");
  EXPECT_NE(ErrorOf({"--ops", "--op-min-us", "99999999999999999999"})
                .find("too large"),
            std::string::npos);
}

TEST(OptionsTest, RescueIsAlwaysOrAuto) {
  absl::StatusOr<Options> o = Parse({"--rescue", "always"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->rescue_always);
  o = Parse({"--rescue", "always", "--rescue", "auto"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->rescue_always);
  EXPECT_EQ(ErrorOf({"--rescue", "yes"}),
            "--rescue: expected always or auto, got \"yes\"");
}

TEST(OptionsTest, ParsesEveryOption) {
  absl::StatusOr<Options> o =
      Parse({"--min-us", "10000", "-d", "vda1", "-p", "123", "--comm", "dd",
             "-Q", "-o", "/tmp/x.jsonl", "--duration", "5", "--op", "write",
             "--ringbuf-kib", "64", "-v", "-v"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_us, 10000u);
  EXPECT_EQ(o->disk, "vda1");
  EXPECT_EQ(o->pid, 123u);
  EXPECT_EQ(o->comm, "dd");
  EXPECT_TRUE(o->queued);
  EXPECT_EQ(o->output, "/tmp/x.jsonl");
  EXPECT_EQ(*o->duration, absl::Seconds(5));
  EXPECT_EQ(o->op, OpFilter::kWrite);
  EXPECT_EQ(o->ringbuf_kib, 64u);
  EXPECT_EQ(o->verbose, 2);
}

// tcpdump's -Z: the user is only looked up at start (session.cc).
TEST(OptionsTest, UserIsTcpdumpsZ) {
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "");
  o = Parse({"-Z", "nobody"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "nobody");
  o = Parse({"--user=root"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "root");
  EXPECT_EQ(ErrorOf({"--user", ""}),
            "--user: expected a user name, or root, got \"\"");
}

TEST(OptionsTest, LongFormsAndEqualsSyntax) {
  absl::StatusOr<Options> o =
      Parse({"--min-us=5", "--disk=loop0", "--pid=9", "--queued", "--output=-",
             "--op=read", "--duration=1m30s"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_us, 5u);
  EXPECT_EQ(o->disk, "loop0");
  EXPECT_EQ(o->pid, 9u);
  EXPECT_EQ(o->op, OpFilter::kRead);
  EXPECT_EQ(*o->duration, absl::Seconds(90));
}

TEST(OptionsTest, CanParseTwiceInOneProcess) {
  ASSERT_FALSE(Parse({"--bogus"}).ok());
  absl::StatusOr<Options> o = Parse({"-p", "7"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->pid, 7u);
}

TEST(OptionsTest, BadNumbersSayWhichOptionAndWhy) {
  EXPECT_EQ(ErrorOf({"--min-us", "abc"}),
            "--min-us: expected a whole number of microseconds, got \"abc\"");
  EXPECT_NE(ErrorOf({"--min-us", "-5"}).find("--min-us"), std::string::npos);
  EXPECT_NE(ErrorOf({"--min-us", "10ms"}).find("--min-us"), std::string::npos);
  EXPECT_NE(ErrorOf({"--min-us", "+5"}).find("--min-us"), std::string::npos);
  EXPECT_NE(ErrorOf({"--min-us", "99999999999999999999999"}).find("--min-us"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"-p", "0"}).find("-p"), std::string::npos);
  EXPECT_EQ(ErrorOf({"-p", "4194305"}),
            "--pid: 4194305 is too large: at most 4194304");
  EXPECT_NE(ErrorOf({"--duration", "0"}).find("--duration"), std::string::npos);
  EXPECT_NE(ErrorOf({"--duration", "soon"}).find("--duration"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--duration", "-3s"}).find("--duration"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--ringbuf-kib", "100"}).find("power of two"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--ringbuf-kib", "2"}).find("power of two"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--op", "trim"}).find("read or write"), std::string::npos);
  EXPECT_NE(ErrorOf({"--comm", "a-name-longer-than-15"}).find("15 bytes"),
            std::string::npos);
}

// A whole number spelled right but too large is not "expected a whole
// number": it says so, and the largest, for every such option, also past
// 2^64 - 1.
TEST(OptionsTest, TooLargeNumbersSaySoAndTheLargest) {
  EXPECT_EQ(ErrorOf({"--min-us", "18446744073709551615"}),
            "--min-us: 18446744073709551615 is too large: at most "
            "18446744073709551");
  EXPECT_EQ(ErrorOf({"--min-us", "18446744073709552"}),
            "--min-us: 18446744073709552 is too large: at most "
            "18446744073709551");
  EXPECT_EQ(ErrorOf({"--min-us", "99999999999999999999999"}),
            "--min-us: 99999999999999999999999 is too large: at most "
            "18446744073709551");
  EXPECT_EQ(ErrorOf({"-p", "99999999999999999999999"}),
            "--pid: 99999999999999999999999 is too large: at most 4194304");
  EXPECT_EQ(ErrorOf({"--ringbuf-kib", "2097152"}),
            "--ringbuf-kib: 2097152 is too large: at most 1048576");
  // The largest is taken.
  absl::StatusOr<Options> o = Parse({"--min-us", "18446744073709551"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_us, 18446744073709551u);
  // Not a number at all is still "expected ...".
  EXPECT_EQ(ErrorOf({"--min-us", "1e9"}),
            "--min-us: expected a whole number of microseconds, got \"1e9\"");
}

// Every number and duration follows the rule all the project's command
// lines share (cpp/common/cli_numbers.h): digits only, a duration in
// seconds or with units.
TEST(OptionsTest, NumbersAndDurationsByTheCommonRule) {
  for (const char* option :
       {"--min-us", "--pid", "--ringbuf-kib", "--ledger-entries"}) {
    for (const char* bad : {"+5", " 5", "5 ", "0x10", "-1", "", "10ms"}) {
      EXPECT_NE(ErrorOf({option, bad}).find(absl::StrCat(option, ": expected")),
                std::string::npos)
          << option << " \"" << bad << "\"";
    }
    EXPECT_NE(ErrorOf({option, "18446744073709551616"})
                  .find(absl::StrCat(
                      option, ": 18446744073709551616 is too large: at most")),
              std::string::npos)
        << option;
  }
  absl::StatusOr<Options> o = Parse({"--duration", "10ms", "--min-us", "010"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->duration, absl::Milliseconds(10));
  EXPECT_EQ(o->min_us, 10u) << "decimal, not octal";
  for (const char* bad : {"+5", " 5", "5 ", "0x10", "-1", "", "10 ms"}) {
    EXPECT_NE(ErrorOf({"--duration", bad}).find("--duration: expected"),
              std::string::npos)
        << bad;
  }
}

// --csv and --json are two formats for one report: given both, biosnoop
// would print one of them; that is bad usage, not a silent choice.
TEST(OptionsTest, CsvAndJsonTogetherAreBadUsage) {
  EXPECT_EQ(ErrorOf({"--hist", "--csv", "--json"}),
            "--csv and --json are two output formats: give one");
  EXPECT_EQ(ErrorOf({"--hist", "--json", "--csv"}),
            "--csv and --json are two output formats: give one");
  absl::StatusOr<Options> o = Parse({"--hist", "--csv", "--csv"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->hist_format, Options::HistFormat::kCsv);
}

// What the user typed is echoed escaped (C-style; UTF-8 kept), so that
// every error is one line on stderr whatever the value holds.
TEST(OptionsTest, ValuesInErrorsAreEscapedToOneLine) {
  // ErrorOf checks that each is one line.
  EXPECT_EQ(ErrorOf({"--comm", "abcdefgh\nijklmnopq"}),
            "--comm: expected a process name of 1 to 15 bytes, got "
            "\"abcdefgh\\nijklmnopq\"");
  EXPECT_EQ(ErrorOf({"--min-us", "1\n2"}),
            "--min-us: expected a whole number of microseconds, got \"1\\n2\"");
  EXPECT_EQ(ErrorOf({"--op", "r\"e\rad"}),
            "--op: expected read or write, got \"r\\\"e\\rad\"");
  EXPECT_EQ(ErrorOf({"1", "x\ny"}),
            "unexpected argument \"x\\ny\": the one argument is the "
            "DURATION (see --help)");
  EXPECT_EQ(ErrorOf({"--x\ny"}), "unknown option --x\\ny (see --help)");
  EXPECT_NE(ErrorOf({"--duration", "caf\xc3\xa9"}).find("\"caf\xc3\xa9\""),
            std::string::npos)
      << "UTF-8 is kept as typed";
}

TEST(OptionsTest, PlainDurationsAreSecondsWholeOrDecimal) {
  absl::StatusOr<Options> o = Parse({"--duration", "0.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->duration, absl::Milliseconds(500));
  o = Parse({"--interval", "2.25", "--hist"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->interval, absl::Milliseconds(2250));
  EXPECT_EQ(ErrorOf({"--duration", "0.0"}),
            "--duration: expected a positive number of seconds, got \"0.0\"");
  EXPECT_NE(ErrorOf({"--duration", "1.2.3"}).find("--duration"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--duration", "5."}).find("--duration"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--duration", "1e3"}).find("--duration"),
            std::string::npos);
}

// One set of rules for every duration, whatever its spelling: a zero
// interval turns it off however written, and no duration exceeds 10 years
// whether given in seconds or with a unit; a number too large for any
// parser is "too large", not "not a number".
TEST(OptionsTest, DurationsFollowTheSameRulesInEverySpelling) {
  for (const char* zero : {"0", "0s", "0.0", "0m", "0.000"}) {
    absl::StatusOr<Options> o =
        Parse({"--stats-interval", zero, "--summary-interval", zero});
    ASSERT_TRUE(o.ok()) << zero << ": " << o.status();
    EXPECT_EQ(o->stats_interval, absl::ZeroDuration()) << zero;
    EXPECT_EQ(o->summary_interval, absl::ZeroDuration()) << zero;
  }
  for (const char* zero : {"0", "0s", "0.0"}) {
    EXPECT_NE(ErrorOf({"--duration", zero}).find("expected a positive"),
              std::string::npos)
        << zero;
  }
  const std::string too_large = "is too large: at most 10 years (87600h)";
  for (const char* big :
       {"999999999999", "99999999999999999999", "9999999999h",
        "99999999999999999999h", "87601h", "315360001", "5256001m"}) {
    EXPECT_EQ(ErrorOf({"--duration", big}),
              absl::StrCat("--duration: ", big, " ", too_large))
        << big;
  }
  absl::StatusOr<Options> o = Parse({"--duration", "87600h"});
  ASSERT_TRUE(o.ok()) << o.status();
  o = Parse({"--duration", "315360000"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->duration, absl::Hours(87600));
  EXPECT_NE(ErrorOf({"--stats-interval", "9999999999h"}).find(too_large),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--duration", "1h-5m"}).find("expected a positive"),
            std::string::npos);
}

TEST(OptionsTest, AFilterGivenTwiceIsAnErrorNotTheLastOne) {
  EXPECT_EQ(ErrorOf({"-d", "vda", "-d", "loop0"}),
            "--disk given more than once: it takes one disk or partition; "
            "omit it to watch every disk");
  EXPECT_NE(ErrorOf({"-p", "1", "--pid=2"}).find("--pid given more than once"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--comm", "a", "--comm", "b"}).find("--comm given"),
            std::string::npos);
  EXPECT_NE(ErrorOf({"--op", "read", "--op", "write"}).find("--op given"),
            std::string::npos);
  // Settings, unlike filters, take the last value (a wrapper's default
  // overridden on the command line).
  absl::StatusOr<Options> o = Parse({"--min-us", "5", "--min-us", "7"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_us, 7u);
}

// The kernel keeps fine buckets per disk and op: per flags they would be
// wrong, so -F with --fine is refused; -D and the default are taken.
TEST(OptionsTest, FineGoesWithHistButNotPerFlags) {
  EXPECT_EQ(ErrorOf({"--hist", "--fine", "-F"}),
            "--fine buckets are kept per disk and operation, not per flags: "
            "drop -F (or --fine)");
  absl::StatusOr<Options> o = Parse({"--hist", "--fine", "-D"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->hist_fine);
  EXPECT_TRUE(o->per_disk);
}

// Options of one mode given in the other would be silently ignored: bad
// usage instead, both ways.
TEST(OptionsTest, OptionsOfTheOtherModeAreRefused) {
  EXPECT_EQ(ErrorOf({"--json"}),
            "--interval, --count, -D, -F, -m, --fine, --csv and --json go "
            "with --hist");
  EXPECT_EQ(ErrorOf({"-j"}), ErrorOf({"--json"}));
  EXPECT_EQ(ErrorOf({"--count", "3"}), ErrorOf({"--json"}));
  EXPECT_EQ(ErrorOf({"--fine"}), ErrorOf({"--json"}));
  EXPECT_EQ(ErrorOf({"--hist", "--format", "proto"}),
            "--format, --stats-interval, --summary-interval, --stuck-after "
            "and --metrics-listen go with the event stream, not --hist");
  EXPECT_EQ(ErrorOf({"--hist", "--stats-interval", "10s"}),
            ErrorOf({"--hist", "--format", "proto"}));
  EXPECT_EQ(ErrorOf({"--summary-interval", "0", "--hist"}),
            ErrorOf({"--hist", "--format", "proto"}));
  EXPECT_EQ(ErrorOf({"--hist", "--stuck-after", "5s"}),
            ErrorOf({"--hist", "--format", "proto"}));
  EXPECT_EQ(ErrorOf({"--hist", "--metrics-listen", "9100"}),
            ErrorOf({"--hist", "--format", "proto"}));
  absl::StatusOr<Options> o =
      Parse({"--hist", "-D", "--json", "--interval", "5"});
  EXPECT_TRUE(o.ok()) << o.status();
  o = Parse({"--format", "proto", "--stats-interval", "5", "--summary-interval",
             "0"});
  EXPECT_TRUE(o.ok()) << o.status();
}

// --format: json by default; ecs and proto by name (json's and proto's
// long spellings too); anything else is bad usage naming the three.
TEST(OptionsTest, Formats) {
  // No --format: decided by the output (a terminal: the table).
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kAuto);
  o = Parse({"--format", "json"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kJson);
  o = Parse({"--format", "table"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kTable);
  o = Parse({"--format", "ecs"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kEcs);
  o = Parse({"--format", "protobuf"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kProto);
  o = Parse({"--format", "jsonl"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->format, Options::Format::kJson);
  EXPECT_EQ(ErrorOf({"--format", "ECS"}),
            "--format: expected json, ecs, proto or table, got \"ECS\"");
  EXPECT_EQ(ErrorOf({"--hist", "--format", "ecs"}),
            ErrorOf({"--hist", "--format", "proto"}));
}

// --stuck-after: 1 s by default; any duration spelling of at least a
// second (the in-flight table is looked at once a second), or 0 for off.
TEST(OptionsTest, StuckAfter) {
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->stuck_after, absl::Seconds(1));
  o = Parse({"--stuck-after", "30s"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->stuck_after, absl::Seconds(30));
  o = Parse({"--stuck-after", "2.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->stuck_after, absl::Milliseconds(2500));
  o = Parse({"--stuck-after", "0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->stuck_after, absl::ZeroDuration());
  EXPECT_EQ(
      ErrorOf({"--stuck-after", "0.5"}),
      "--stuck-after: expected 0 (off) or at least 1 second, got \"0.5\"");
  EXPECT_NE(ErrorOf({"--stuck-after", "soon"}).find("--stuck-after"),
            std::string::npos);
}

// --metrics-listen: off by default; a port alone is loopback, an
// address is numeric (IPv6 in brackets); anything else is bad usage.
TEST(OptionsTest, MetricsListen) {
  absl::StatusOr<Options> o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->metrics_port, -1);
  struct Case {
    const char* value;
    const char* host;
    int port;
  };
  for (const Case& c :
       {Case{"9100", "127.0.0.1", 9100}, Case{"0", "127.0.0.1", 0},
        Case{"0.0.0.0:9100", "0.0.0.0", 9100},
        Case{"10.1.2.3:65535", "10.1.2.3", 65535},
        Case{"[::1]:9100", "::1", 9100}, Case{"[::]:80", "::", 80}}) {
    o = Parse({"--metrics-listen", c.value});
    ASSERT_TRUE(o.ok()) << c.value << ": " << o.status();
    EXPECT_EQ(o->metrics_host, c.host) << c.value;
    EXPECT_EQ(o->metrics_port, c.port) << c.value;
  }
  EXPECT_EQ(ErrorOf({"--metrics-listen", "x"}),
            "--metrics-listen: expected PORT (loopback), ADDR:PORT or "
            "[IPV6]:PORT, such as 9100, 127.0.0.1:9100, 0.0.0.0:9100 (every "
            "interface) or [::1]:9100, got \"x\"");
  for (const char* bad :
       {"", ":9100", "65536", "99999999", "-1", "+80", "localhost:9100",
        "127.0.0.1:", "127.0.0.1", "1.2.3:80", "::1:9100", "[::1]9100",
        "[::1]:", "[127.0.0.1]:80", "[::1]:x", "1.2.3.4:80:80"}) {
    EXPECT_NE(ErrorOf({"--metrics-listen", bad}).find("--metrics-listen"),
              std::string::npos)
        << bad;
  }
}

TEST(OptionsTest, UnknownOptionsAndStrayArguments) {
  EXPECT_EQ(ErrorOf({"--bogus"}), "unknown option --bogus (see --help)");
  EXPECT_EQ(ErrorOf({"-z"}), "unknown option -z (see --help)");
  EXPECT_EQ(ErrorOf({"10", "20"}),
            "unexpected argument \"20\": the one argument is the DURATION "
            "(see --help)");
  EXPECT_EQ(ErrorOf({"-d"}), "-d: missing value");
  EXPECT_EQ(ErrorOf({"--min-us"}), "--min-us: missing value");
}

TEST(OptionsTest, HelpAndVersion) {
  absl::StatusOr<Options> o = Parse({"-h"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->help);
  o = Parse({"--version"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->version);
  // argp's spellings (libbpf-tools): -? and -V.
  o = Parse({"-?"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->help);
  o = Parse({"-V"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->version);
  std::string usage = UsageText();
  for (const char* flag :
       {"--min-us", "--disk", "--pid", "--comm", "--queued", "--output",
        "--duration", "--op", "--ringbuf-kib", "--rescue"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

// What users of libbpf-tools' and bcc's biosnoop and biolatency type,
// taken where biosnoop has the same thing.
TEST(OptionsTest, ArgumentsAsLibbpfToolsTakeThem) {
  // biosnoop 5: trace for 5 seconds.
  absl::StatusOr<Options> o = Parse({"5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->duration, absl::Seconds(5));
  EXPECT_FALSE(o->hist);
  // Any duration spelling, the argument anywhere among the options.
  o = Parse({"-Q", "1m30s", "-d", "vda"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->duration, absl::Seconds(90));
  EXPECT_EQ(o->disk, "vda");
  // biolatency 1 3: a report every second, three of them.
  o = Parse({"--hist", "1", "3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->interval, absl::Seconds(1));
  EXPECT_EQ(o->count, 3u);
  EXPECT_FALSE(o->duration.has_value());
  o = Parse({"--hist", "2.5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->interval, absl::Milliseconds(2500));
  EXPECT_FALSE(o->count.has_value());
  // biolatency -mT 1 3: milliseconds, timestamps (always there).
  o = Parse({"--hist", "-mT", "1", "3"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->hist_ms);
  EXPECT_EQ(o->count, 3u);
  o = Parse({"--hist", "--interval", "10", "--count", "6"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->interval, absl::Seconds(10));
  EXPECT_EQ(o->count, 6u);
  // -c CG as libbpf-tools' cgroup, -t (biosnoop) and -T (biolatency).
  o = Parse({"-c", "/sys/fs/cgroup/unified/x", "-t"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->cgroup, "/sys/fs/cgroup/unified/x");
  EXPECT_TRUE(Parse({"-T"}).ok());
  EXPECT_TRUE(Parse({"--hist", "-j", "-T"}).ok());
}

TEST(OptionsTest, ArgumentsGivenTwiceOrTooManyAreRefused) {
  EXPECT_EQ(ErrorOf({"--duration", "3", "4"}),
            "the duration is given twice (--duration and \"4\"): give one");
  EXPECT_EQ(ErrorOf({"--hist", "--interval", "3", "4"}),
            "the interval is given twice (--interval and \"4\"): give one");
  EXPECT_EQ(ErrorOf({"--hist", "--count", "3", "4", "5"}),
            "the count is given twice (--count and \"5\"): give one");
  EXPECT_EQ(ErrorOf({"--hist", "1", "2", "3"}),
            "unexpected argument \"3\": --hist takes INTERVAL and COUNT (see "
            "--help)");
  EXPECT_EQ(ErrorOf({"vda"}),
            "DURATION (the argument): expected a positive duration such as "
            "30, 90s, 5m or 1h, got \"vda\"");
  EXPECT_EQ(ErrorOf({"--hist", "1", "0"}),
            "COUNT (the argument): expected a number of reports from 1 to "
            "1000000000, got \"0\"");
  EXPECT_EQ(ErrorOf({"--hist", "--count", "2"}),
            "--count needs an interval (--interval T, or --hist T N): without "
            "one there is a single report, at the end");
  EXPECT_EQ(ErrorOf({"--hist", "-T", "--csv", "1"}),
            "-T: --csv rows carry no time: drop -T, or give --json for "
            "reports with their time");
}

// Where a letter means something else here, the message names biosnoop's
// equivalent, converted: never a silent other meaning.
TEST(OptionsTest, OtherToolsMeaningsAreRefusedWithTheEquivalent) {
  // libbpf-tools' biosnoop -m MS: a minimum latency (here -m takes no
  // value, and the 10 would have been a duration).
  const std::string m10 =
      "-m is --hist's millisecond buckets here and takes no value; for a "
      "minimum latency as libbpf-tools' biosnoop -m 10, give --min-us 10000";
  EXPECT_EQ(ErrorOf({"-m", "10"}), m10);
  EXPECT_EQ(ErrorOf({"-m10"}), "-m10: " + m10);
  EXPECT_EQ(ErrorOf({"-Qm10"}), "-m10: " + m10);
  EXPECT_EQ(ErrorOf({"-m"}),
            "-m is --hist's millisecond buckets here and takes no value; for "
            "a minimum latency as libbpf-tools' biosnoop -m MS, give --min-us "
            "in microseconds (10 ms is --min-us 10000)");
  // --min: getopt_long would take it for --min-us, 1000 times too low.
  EXPECT_EQ(ErrorOf({"--min", "5"}),
            "--min: the threshold is --min-us here, in microseconds; for "
            "libbpf-tools' --min 5 (milliseconds), give --min-us 5000");
  // After an argument getopt_long moves: the option is still found.
  EXPECT_TRUE(absl::EndsWith(ErrorOf({"1", "--min=7"}), "give --min-us 7000"));
  EXPECT_TRUE(absl::EndsWith(ErrorOf({"1", "--min", "7"}), "--min-us 7000"));
  EXPECT_EQ(ErrorOf({"--mi", "2"}).rfind("--mi: ", 0), 0u);
  // The full name, and a longer abbreviation, are --min-us.
  absl::StatusOr<Options> o = Parse({"--min-u", "5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_us, 5u);
  // In --hist, -m is biolatency's -m: milliseconds, and 10 the interval.
  o = Parse({"--hist", "-m", "10"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->hist_ms);
  EXPECT_EQ(o->interval, absl::Seconds(10));
  EXPECT_EQ(ErrorOf({"--milliseconds"}),
            "unknown option --milliseconds: biolatency's --milliseconds is -m "
            "(--ms) here, with --hist");
  EXPECT_EQ(ErrorOf({"--disks"}),
            "unknown option --disks: biolatency's --disks is -D (--per-disk) "
            "here, with --hist");
  EXPECT_EQ(ErrorOf({"--flag"}),
            "unknown option --flag: biolatency's --flags is -F (--per-flags) "
            "here, with --hist");
  EXPECT_EQ(ErrorOf({"-e"}).rfind("unknown option -e: bcc's extended", 0), 0u);
  EXPECT_EQ(ErrorOf({"-P"}).rfind("unknown option -P: bcc's sequential", 0),
            0u);
  // bioreport's old -c NAME typed to biosnoop: the path is asked for.
  EXPECT_EQ(ErrorOf({"-c", "postgres"}),
            "--cgroup: expected a cgroup v2 path such as "
            "/system.slice/x.service (a process name is --comm NAME), got "
            "\"postgres\"");
}

TEST(ExitCodesTest, MapStatusesToDocumentedCodes) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), 0);
  EXPECT_EQ(ExitCodeFor(absl::CancelledError("pipe")), 0);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), 64);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("unknown disk")), 64);
  EXPECT_EQ(ExitCodeFor(absl::PermissionDeniedError("x")), 77);
  EXPECT_EQ(ExitCodeFor(absl::UnavailableError("no BTF")), 69);
  EXPECT_EQ(ExitCodeFor(absl::InternalError("x")), 70);
  EXPECT_EQ(ExitCodeFor(WithExitCode(absl::PermissionDeniedError("open"),
                                     kExitCantCreate)),
            73);
  EXPECT_EQ(ExitCodeFor(WithExitCode(absl::ResourceExhaustedError("ENOSPC"),
                                     kExitIoError)),
            74);
  EXPECT_EQ(ExitCodeFor(WithExitCode(absl::ResourceExhaustedError("ENOMEM"),
                                     kExitOsError)),
            71);
}

}  // namespace
}  // namespace biosnoop
