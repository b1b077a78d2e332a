#include "diag_stream.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

std::atomic<bool> g_stopping{false};
// How often a waiting write asked whether the run is stopping.
std::atomic<int> g_asked{0};
bool Stopping() {
  ++g_asked;
  return g_stopping.load();
}

// Polls `done` every 10 ms until it holds or `bound` passes.
bool WaitUntil(const std::function<bool()>& done, absl::Duration bound) {
  const auto until =
      std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(bound);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class DiagStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_stopping = false;
    g_asked = 0;
    signal(SIGPIPE, SIG_IGN);
    ASSERT_EQ(pipe2(fds_, O_CLOEXEC), 0);
  }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    close(fds_[1]);
  }
  // Fills the pipe until a write would block.
  void FillPipe() {
    fcntl(fds_[1], F_SETFL, O_NONBLOCK);
    char chunk[4096] = {};
    while (write(fds_[1], chunk, sizeof(chunk)) > 0) {
    }
    fcntl(fds_[1], F_SETFL, 0);
  }
  std::string Drain() {
    fcntl(fds_[0], F_SETFL, O_NONBLOCK);
    std::string s;
    char buf[65536];
    for (ssize_t n; (n = read(fds_[0], buf, sizeof(buf))) > 0;)
      s.append(buf, n);
    return s;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(DiagStreamTest, LinesReachAReaderWhole) {
  std::FILE* f = OpenDiagStream(fds_[1], &Stopping, absl::Seconds(2));
  ASSERT_NE(f, nullptr);
  const std::string long_line(3 * PIPE_BUF + 17, 'x');
  absl::FPrintF(f, "biosnoop: one\n");
  std::string got;
  // A line longer than PIPE_BUF goes in pieces; the reader takes them.
  std::thread reader([&] {
    char buf[4096];
    while (got.size() < 14 + long_line.size() + 1 + 4) {
      ssize_t n = read(fds_[0], buf, sizeof(buf));
      if (n <= 0) break;
      got.append(buf, n);
    }
  });
  absl::FPrintF(f, "%s\n", long_line);
  absl::FPrintF(f, "two\n");
  reader.join();
  EXPECT_EQ(got, "biosnoop: one\n" + long_line + "\ntwo\n");
  EXPECT_EQ(std::ferror(f), 0);
  EXPECT_EQ(std::fclose(f), 0);
  // fclose leaves the descriptor open: it is stderr's.
  EXPECT_NE(fcntl(fds_[1], F_GETFD), -1);
}

TEST_F(DiagStreamTest, AFullPipeWaitsUntilAStopThenGivesUpAfterTheGrace) {
  std::FILE* f = OpenDiagStream(fds_[1], &Stopping, absl::Milliseconds(300));
  ASSERT_NE(f, nullptr);
  FillPipe();
  std::atomic<bool> returned{false};
  std::chrono::steady_clock::time_point stopped_at;
  std::thread writer([&] {
    absl::FPrintF(f, "biosnoop: completions=1 ...\n");
    returned = true;
  });
  // Before a stop it waits, as a blocking stderr does: it has found no
  // room twice (each wait for room ends by asking whether the run is
  // stopping) and is still writing.
  ASSERT_TRUE(WaitUntil([] { return g_asked >= 2; }, absl::Seconds(60)))
      << "awaited the write's second wait for room; it asked " << g_asked.load()
      << " time(s)";
  EXPECT_FALSE(returned.load());
  stopped_at = std::chrono::steady_clock::now();
  g_stopping = true;
  writer.join();
  const auto took = std::chrono::steady_clock::now() - stopped_at;
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::seconds(5));
  // Given up: later text is dropped at once, with no error to report.
  const auto again = std::chrono::steady_clock::now();
  absl::FPrintF(f, "biosnoop: more\n");
  EXPECT_LT(std::chrono::steady_clock::now() - again, std::chrono::seconds(1));
  EXPECT_EQ(std::ferror(f), 0);
  std::fclose(f);
  // Nothing of the dropped lines reached the pipe.
  EXPECT_EQ(Drain().find("biosnoop:"), std::string::npos);
}

TEST_F(DiagStreamTest, ARoomyPipeIsWrittenAfterAStopToo) {
  std::FILE* f = OpenDiagStream(fds_[1], &Stopping, absl::Milliseconds(300));
  ASSERT_NE(f, nullptr);
  g_stopping = true;
  absl::FPrintF(f, "biosnoop: summary\n");
  std::fflush(f);
  EXPECT_EQ(Drain(), "biosnoop: summary\n");
  std::fclose(f);
}

TEST_F(DiagStreamTest, AClosedReaderIsAnErrorOfTheStream) {
  std::FILE* f = OpenDiagStream(fds_[1], &Stopping, absl::Seconds(2));
  ASSERT_NE(f, nullptr);
  close(fds_[0]);
  fds_[0] = -1;
  absl::FPrintF(f, "biosnoop: lost\n");
  std::fflush(f);
  EXPECT_NE(std::ferror(f), 0);
  std::fclose(f);
}

}  // namespace
}  // namespace biosnoop
