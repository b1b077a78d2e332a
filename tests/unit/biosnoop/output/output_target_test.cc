// What a stream may be written to (output_target.h), through
// OutputFile::Open as biosnoop and bioreport use it: real directories,
// sockets, devices, FIFOs and terminals.

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "child_process.h"
#include "gtest/gtest.h"
#include "output_file.h"

namespace biosnoop {
namespace {

class OutputTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-target-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

// The refusal: FailedPrecondition, naming the path and what it is.
void ExpectRefused(const std::string& path, const std::string& what) {
  absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Open(path);
  ASSERT_FALSE(file.ok()) << path;
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition)
      << file.status();
  EXPECT_EQ(
      file.status().message().rfind(
          absl::StrCat("cannot open output \"", path, "\": it is ", what), 0),
      0u)
      << file.status();
  EXPECT_EQ(file.status().message().find('\n'), std::string::npos);
}

TEST_F(OutputTargetTest, RefusesWhatCannotHoldALog) {
  ExpectRefused(dir_, "a directory");

  const std::string sock_path = Path("sock");
  const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(sock, reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)),
            0)
      << std::strerror(errno);
  ExpectRefused(sock_path, "a socket");
  close(sock);

  ExpectRefused("/dev/zero", "a character device that cannot hold a log");
  // A terminal's multiplexer: opening it makes a terminal nobody reads.
  ExpectRefused("/dev/ptmx", "a character device that cannot hold a log");
}

TEST_F(OutputTargetTest, TakesFilesDevNullTerminalsAndReadFifos) {
  for (const std::string& path :
       {Path("slow.jsonl"), std::string("/dev/null")}) {
    auto file = OutputFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_TRUE((*file)->Append("{}\n").ok());
    EXPECT_TRUE((*file)->Flush().ok());
  }

  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0) << std::strerror(errno);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const std::string pts = ptsname(master);
  {
    auto tty = OutputFile::Open(pts);
    ASSERT_TRUE(tty.ok()) << tty.status();
    ASSERT_TRUE((*tty)->Append("{}\n").ok());
    ASSERT_TRUE((*tty)->Flush().ok());
  }
  char got[16] = {};
  EXPECT_GT(read(master, got, sizeof(got)), 0) << std::strerror(errno);
  EXPECT_EQ(got[0], '{');
  close(master);

  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    auto file = OutputFile::Open(fifo);
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_FALSE((*file)->is_regular());
    ASSERT_TRUE((*file)->Append("{\"a\":1}\n").ok());
    ASSERT_TRUE((*file)->Flush().ok());
  }
  char line[16] = {};
  EXPECT_EQ(read(reader, line, sizeof(line)), 8);
  EXPECT_STREQ(line, "{\"a\":1}\n");
  close(reader);
}

// Opening a FIFO nobody reads must not block (a SIGHUP reopen, a start
// that must still see a stop): it is UnavailableError at once.
TEST_F(OutputTargetTest, FifoWithoutReaderIsUnavailableWithoutBlocking) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::future<absl::Status> opened = std::async(
      std::launch::async, [&] { return OutputFile::Open(fifo).status(); });
  if (opened.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    // Unblock the open, so the test can end.
    const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    opened.wait();
    if (reader >= 0) close(reader);
    FAIL() << "opening a FIFO with no reader still blocked after 30 s";
  }
  const absl::Status s = opened.get();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_EQ(s.message(), absl::StrCat("cannot open output \"", fifo,
                                      "\": it is a FIFO that no process has "
                                      "open for reading"));
}

bool NeverStop() { return false; }
bool AlwaysStop() { return true; }

// The start's wait: said once, and over when a reader opens the FIFO.
TEST_F(OutputTargetTest, OpenWaitingForReaderReturnsOnceAReaderComes) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int waiting_calls = 0;
  int reader = -1;
  std::thread reader_thread;
  auto file = OutputFile::OpenWaitingForReader(
      fifo, RecordFraming::kLines, &NeverStop, [&] {
        ++waiting_calls;
        // The log agent comes later, on its own.
        reader_thread = std::thread(
            [&] { reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK); });
      });
  if (reader_thread.joinable()) reader_thread.join();
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(waiting_calls, 1);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE((*file)->Append("{}\n").ok());
  ASSERT_TRUE((*file)->Flush().ok());
  char got[4] = {};
  EXPECT_EQ(read(reader, got, sizeof(got)), 3);
  close(reader);
}

TEST_F(OutputTargetTest, OpenWaitingForReaderEndsAtAStop) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int waiting_calls = 0;
  auto file = OutputFile::OpenWaitingForReader(
      fifo, RecordFraming::kLines, &AlwaysStop, [&] { ++waiting_calls; });
  EXPECT_EQ(waiting_calls, 1);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(file.status().message(),
            absl::StrCat("no process opened the FIFO \"", fifo,
                         "\" for reading before the stop"));
  // Anything else is not waited for.
  int calls = 0;
  auto dir = OutputFile::OpenWaitingForReader(dir_, RecordFraming::kLines,
                                              &NeverStop, [&] { ++calls; });
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(calls, 0);
}

// stdout is judged by the same rule (`biosnoop > /dev/sdb` is as
// destructive as -o /dev/sdb), except that a socket is taken there:
// systemd's journal stream.
// What OutputFile::Open("-") says in a child whose stdout is `fd`.
std::string InChild(int fd) {
  const testing::ChildResult r = testing::RunInChild(
      [] {
        absl::StatusOr<std::unique_ptr<OutputFile>> file =
            OutputFile::Open("-");
        return file.ok() ? "ok" : std::string(file.status().message());
      },
      testing::ChildSetup().Dup(STDOUT_FILENO, fd));
  EXPECT_TRUE(testing::ExitedWith(r, 0));
  return r.report;
}

TEST_F(OutputTargetTest, StdoutIsJudgedByTheSameRule) {
  const int zero = open("/dev/zero", O_WRONLY);
  ASSERT_GE(zero, 0);
  EXPECT_EQ(InChild(zero),
            "stdout: it is a character device that cannot hold a log (of "
            "those, only /dev/null and terminals are taken); redirect stdout "
            "to a file, or give -o FILE");
  close(zero);
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  EXPECT_EQ(InChild(pair[0]), "ok");
  close(pair[0]);
  close(pair[1]);
  const int null = open("/dev/null", O_WRONLY);
  EXPECT_EQ(InChild(null), "ok");
  close(null);
}

}  // namespace
}  // namespace biosnoop
