// biosnoop at a terminal, for real: its stdout a pseudo-terminal, real
// slow reads on a slow disk.  What a person sees is the aligned table
// (no JSON), every row under the header's columns, process names that
// would be escape sequences shown as '?', and the other records' lines on
// stderr; -o FILE and --format json from the same terminal stay JSON.

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cgroups.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "harness.h"
#include "slowdisk_fixture.h"

namespace biosnoop::testing {
namespace {

// A pseudo-terminal whose master side is read on a thread of its own
// until the last holder of the slave side closes it (so that biosnoop
// never blocks on a full terminal), in raw mode: the bytes biosnoop
// writes arrive as they are (no "\r\n" for "\n").
class Pty {
 public:
  explicit Pty(unsigned short columns) {
    struct termios raw {};
    cfmakeraw(&raw);
    struct winsize size {};
    size.ws_col = columns;
    size.ws_row = 50;
    if (openpty(&master_, &slave_, nullptr, &raw, &size) != 0) return;
    fcntl(master_, F_SETFD, FD_CLOEXEC);
    fcntl(slave_, F_SETFD, FD_CLOEXEC);
    reader_ = std::thread([this] { Read(); });
  }
  ~Pty() {
    CloseSlave();
    if (reader_.joinable()) reader_.join();
    if (master_ >= 0) close(master_);
  }
  bool ok() const { return master_ >= 0; }
  int slave() const { return slave_; }
  // Once the child has its copy.
  void CloseSlave() {
    if (slave_ >= 0) close(slave_);
    slave_ = -1;
  }
  // Everything read so far.
  std::string Text() {
    std::lock_guard<std::mutex> lock(mu_);
    return text_;
  }
  // Whether the reader reached the end (every slave closed) within the
  // bound; Text() is then all there was.
  bool WaitEnd(int timeout_ms = 20000) {
    return WaitUntil(
        [this] {
          std::lock_guard<std::mutex> lock(mu_);
          return ended_;
        },
        timeout_ms);
  }

 private:
  void Read() {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(master_, buf, sizeof buf);
      if (n > 0) {
        std::lock_guard<std::mutex> lock(mu_);
        text_.append(buf, static_cast<size_t>(n));
        continue;
      }
      // EIO: no slave is open any more (the child has exited), after
      // what was written before.
      if (n == 0 || errno != EINTR) break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
  }

  int master_ = -1;
  int slave_ = -1;
  std::thread reader_;
  std::mutex mu_;
  std::string text_;
  bool ended_ = false;
};

// biosnoop with stdout on `pty`, stderr to `err`, in `locale`.
Child StartOnTerminal(Pty& pty, const std::string& err,
                      const std::string& locale,
                      const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"env", "LC_ALL=" + locale, BIOSNOOP_BIN,
                                   "-v"};
  argv.insert(argv.end(), args.begin(), args.end());
  Child c = Child::Program(argv, ChildSetup()
                                     .Null(0)
                                     .Dup(1, pty.slave())
                                     .Open(2, err, O_WRONLY | O_CREAT | O_TRUNC)
                                     .CloseOthers());
  pty.CloseSlave();
  return c;
}

// Columns a UTF-8 line takes, every character one column wide (as the
// names here are): its bytes that do not continue a character.
size_t Columns(absl::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

// A row's cells before FILE, split at blanks: TIME COMM PID DISK OP BYTES
// LAT QUE (a comm without blanks, as here).
std::vector<std::string> Cells(absl::string_view row) {
  return absl::StrSplit(row, ' ', absl::SkipEmpty());
}

// The process name the JSON test (operations_test.cc) uses: quotes, a
// backslash, a newline, a C0 control, DEL, bytes that are not UTF-8.
constexpr char kHostileComm[] = "\"q\\\n\x01\x7f\xff\xfe\xc3x";
constexpr char kHostileShown[] = "\"q\\??????x";
constexpr char kUtf8Comm[] = "caf\xc3\xa9-\xe2\x9c\x93";  // café-✓

TEST(Terminal, ATerminalGetsTheAlignedTableWithSafeNames) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 32, .read_delay_ms = 12});
  ASSERT_TRUE(slow.ok()) << slow.error();
  TempDir dir;
  const std::string err = dir.path() + "/err";
  Pty pty(200);
  ASSERT_TRUE(pty.ok());
  Child b = StartOnTerminal(
      pty, err, "C.UTF-8",
      {"--min-us", "10000", "-d", slow.loop_name(), "--stats-interval", "1"});
  ASSERT_TRUE(b.started()) << b.result().Describe();
  ASSERT_TRUE(WaitUntil([&] {
    return absl::StrContains(ReadFile(err), "biosnoop: attached") ||
           !b.Running();
  }));
  ASSERT_TRUE(absl::StrContains(ReadFile(err), "biosnoop: attached"))
      << ReadFile(err);

  const pid_t hostile = ReadWithComm(slow.loop_path(), kHostileComm, 3);
  ASSERT_GT(hostile, 0);
  const pid_t plain = ReadWithComm(slow.loop_path(), kUtf8Comm, 2);
  ASSERT_GT(plain, 0);
  // The stats records' line on stderr, once a second.
  EXPECT_TRUE(WaitUntil(
      [&] { return absl::StrContains(ReadFile(err), " stats: completions="); },
      30000))
      << ReadFile(err);
  ASSERT_TRUE(ExitedWith(b.Stop(SIGINT), 0));
  ASSERT_TRUE(pty.WaitEnd()) << pty.Text();

  const std::string out = pty.Text();
  const std::string err_text = ReadFile(err);
  // Nothing a terminal acts on: no C0 control but the line ends, no DEL,
  // no C1 control; and no JSON.
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    ASSERT_TRUE(c == '\n' || (c >= 0x20 && c != 0x7f)) << i << ": " << out;
    if (c == 0xc2 && i + 1 < out.size()) {
      const unsigned char next = static_cast<unsigned char>(out[i + 1]);
      ASSERT_FALSE(next >= 0x80 && next <= 0x9f) << i << ": " << out;
    }
  }
  EXPECT_EQ(out.find('{'), std::string::npos) << out;
  ASSERT_FALSE(out.empty());
  ASSERT_EQ(out.back(), '\n');

  std::vector<std::string> lines = absl::StrSplit(out, '\n');
  lines.pop_back();
  ASSERT_GE(lines.size(), 2u) << out;
  const std::string& header = lines[0];
  ASSERT_TRUE(absl::StartsWith(header, "TIME ")) << out;
  ASSERT_TRUE(absl::EndsWith(header, " FILE")) << out;
  const size_t file_at = header.size() - 4;
  const size_t pid_end = header.find("PID") + 3;
  const size_t lat_end = header.find("LAT(ms)") + 7;

  size_t hostile_rows = 0;
  size_t plain_rows = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& row = lines[i];
    // Every row under the header's columns: the file column starts where
    // the header's does (one header: no value needed a wider column),
    // counted in columns, not bytes (each character here is one column).
    ASSERT_FALSE(absl::StartsWith(row, "TIME ")) << "header again:\n" << out;
    ASSERT_GT(Columns(row), file_at) << row;
    EXPECT_NE(row[row.size() - 1], ' ') << row;
    const size_t extra = row.size() - Columns(row);
    const std::string before_file = row.substr(0, file_at + extra);
    EXPECT_EQ(before_file.back(), ' ') << row;
    EXPECT_NE(row[file_at + extra], ' ') << row;
    const bool is_hostile = absl::StrContains(row, kHostileShown);
    const bool is_plain = absl::StrContains(row, kUtf8Comm);
    // Another process's read of the slow disk (udev probing it) is a row
    // too; the workloads' rows are checked cell by cell.
    if (!is_hostile && !is_plain) continue;
    const std::vector<std::string> cells = Cells(before_file);
    ASSERT_EQ(cells.size(), 8u) << row;
    const pid_t pid = is_hostile ? hostile : plain;
    EXPECT_EQ(cells[2], std::to_string(pid)) << row;
    // PID and LAT(ms) right-aligned under their labels.
    EXPECT_EQ(row.find(" " + cells[2] + " ") + 1 + cells[2].size(),
              pid_end + extra)
        << row;
    EXPECT_EQ(cells[3], slow.loop_name()) << row;
    EXPECT_EQ(cells[4], "read") << row;
    EXPECT_EQ(cells[5], "4096") << row;
    double lat_ms = 0;
    ASSERT_TRUE(absl::SimpleAtod(cells[6], &lat_ms)) << row;
    EXPECT_GE(lat_ms, 12.0) << row;
    EXPECT_EQ(row.find(" " + cells[6] + " ") + 1 + cells[6].size(),
              lat_end + extra)
        << row;
    (is_hostile ? hostile_rows : plain_rows)++;
  }
  // Every read a row, or counted as missed (a completion the kernel ran no
  // BPF program for: docs/reference/counters.md, "missed").
  std::map<std::string, double> s = ParseSummary(err_text);
  ASSERT_TRUE(s.count("missed")) << err_text;
  EXPECT_EQ(hostile_rows + plain_rows + s["missed"], 5u) << out << err_text;
  EXPECT_LE(hostile_rows, 3u);
  EXPECT_LE(plain_rows, 2u);
  EXPECT_GT(hostile_rows + plain_rows, 0u) << out;
  EXPECT_EQ(s["written"], lines.size() - 1) << err_text;
  // What the header record says, on stderr.
  EXPECT_TRUE(absl::StrContains(err_text,
                                "biosnoop: tracing block I/O taking at least "
                                "10 ms, and every failed one (Ctrl-C ends)"))
      << err_text;
}

// Without a UTF-8 locale, a name's non-ASCII characters are '?' too (to a
// terminal that is not UTF-8 their bytes could be C1 controls).
TEST(Terminal, NonAsciiIsAQuestionMarkWithoutAUtf8Locale) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 32, .read_delay_ms = 12});
  ASSERT_TRUE(slow.ok()) << slow.error();
  TempDir dir;
  const std::string err = dir.path() + "/err";
  Pty pty(200);
  ASSERT_TRUE(pty.ok());
  Child b = StartOnTerminal(pty, err, "C",
                            {"--min-us", "10000", "-d", slow.loop_name()});
  ASSERT_TRUE(WaitUntil([&] {
    return absl::StrContains(ReadFile(err), "biosnoop: attached") ||
           !b.Running();
  }));
  const pid_t plain = ReadWithComm(slow.loop_path(), kUtf8Comm, 2);
  ASSERT_GT(plain, 0);
  ASSERT_TRUE(ExitedWith(b.Stop(SIGINT), 0));
  ASSERT_TRUE(pty.WaitEnd());
  const std::string out = pty.Text();
  std::map<std::string, double> s = ParseSummary(ReadFile(err));
  if (s["missed"] == 2) GTEST_SKIP() << "both reads missed by the kernel";
  EXPECT_TRUE(absl::StrContains(out, " caf?-? ")) << out;
  for (char c : out) {
    ASSERT_LT(static_cast<unsigned char>(c), 0x80) << out;
  }
}

// From the same terminal, -o FILE writes JSON Lines to the file (nothing
// to the terminal), and --format json writes JSON to the terminal.
TEST(Terminal, AFileOrFormatJsonStaysJson) {
  BIOSNOOP_REQUIRE_ROOT();
  SlowDisk slow({.size_mib = 32, .read_delay_ms = 12});
  ASSERT_TRUE(slow.ok()) << slow.error();
  TempDir dir;
  const std::string log = dir.path() + "/slow.jsonl";
  for (bool to_file : {true, false}) {
    SCOPED_TRACE(to_file ? "-o FILE" : "--format json");
    const std::string err = dir.path() + "/err";
    Pty pty(200);
    ASSERT_TRUE(pty.ok());
    std::vector<std::string> args = {"--min-us", "10000", "-d",
                                     slow.loop_name()};
    if (to_file) {
      args.insert(args.end(), {"-o", log});
    } else {
      args.insert(args.end(), {"--format", "json"});
    }
    Child b = StartOnTerminal(pty, err, "C.UTF-8", args);
    ASSERT_TRUE(WaitUntil([&] {
      return absl::StrContains(ReadFile(err), "biosnoop: attached") ||
             !b.Running();
    }));
    ASSERT_TRUE(absl::StrContains(ReadFile(err), "biosnoop: attached"));
    Workload dd = DirectDd(slow.loop_path(), true, 4096, 2);
    ASSERT_EQ(dd.exit_code, 0);
    ASSERT_TRUE(ExitedWith(b.Stop(SIGINT), 0));
    ASSERT_TRUE(pty.WaitEnd());
    const std::string json_text = to_file ? ReadFile(log) : pty.Text();
    if (to_file) {
      EXPECT_EQ(pty.Text(), "");
    }
    std::vector<std::string> lines = absl::StrSplit(json_text, '\n');
    ASSERT_GE(lines.size(), 3u) << json_text;  // header ... stats, ""
    lines.pop_back();
    for (const std::string& line : lines) {
      const nlohmann::json record = nlohmann::json::parse(line);
      EXPECT_TRUE(record.contains("type")) << line;
    }
    EXPECT_EQ(nlohmann::json::parse(lines.front())["type"], "header");
    EXPECT_FALSE(absl::StrContains(ReadFile(err), "biosnoop: tracing "));
  }
}

}  // namespace
}  // namespace biosnoop::testing
