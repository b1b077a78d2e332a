// -p PID checked against the system before the run (session.h,
// CheckPidFilter), on a fake /proc.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "exit_codes.h"
#include "gtest/gtest.h"
#include "session.h"

namespace biosnoop {
namespace {

class PidFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "biosnoop-proc-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    proc_ = tmpl;
    std::filesystem::create_directories(proc_ + "/sys/kernel");
    std::ofstream(proc_ + "/sys/kernel/pid_max") << "32768\n";
    std::filesystem::create_directories(proc_ + "/4242");
    diag_ = std::tmpfile();
    ASSERT_NE(diag_, nullptr);
  }
  void TearDown() override {
    std::fclose(diag_);
    std::filesystem::remove_all(proc_);
  }
  std::string Said() {
    std::fflush(diag_);
    std::rewind(diag_);
    std::string text;
    char buf[512];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), diag_)) > 0;) {
      text.append(buf, n);
    }
    return text;
  }

  std::string proc_;
  std::FILE* diag_ = nullptr;
};

TEST_F(PidFilterTest, APidAbovePidMaxIsBadUsage) {
  const absl::Status s = CheckPidFilter(32769, proc_, diag_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(ExitCodeFor(s), kExitUsage);
  EXPECT_EQ(s.message(),
            "-p 32769: above this system's pid_max (32768), so no process can "
            "have it");
  EXPECT_EQ(Said(), "");
}

TEST_F(PidFilterTest, APidWithNoProcessIsOneWarningLine) {
  EXPECT_TRUE(CheckPidFilter(32768, proc_, diag_).ok());
  EXPECT_EQ(Said(),
            "biosnoop: warning: no process 32768 is running now; its I/O is "
            "logged if a process with that PID starts\n");
}

TEST_F(PidFilterTest, ARunningProcessOrNoFilterSaysNothing) {
  EXPECT_TRUE(CheckPidFilter(4242, proc_, diag_).ok());
  EXPECT_TRUE(CheckPidFilter(0, proc_, diag_).ok());
  EXPECT_TRUE(
      CheckPidFilter(static_cast<uint32_t>(getpid()), "/proc", diag_).ok());
  EXPECT_EQ(Said(), "");
}

}  // namespace
}  // namespace biosnoop
