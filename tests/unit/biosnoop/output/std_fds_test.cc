#include "std_fds.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <initializer_list>

#include "child_process.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

bool IsDevNull(int fd) {
  struct stat got, null;
  return fstat(fd, &got) == 0 && stat("/dev/null", &null) == 0 &&
         S_ISCHR(got.st_mode) && got.st_rdev == null.st_rdev;
}

// Runs OccupyClosedStdFds() in a child with `to_close` closed and returns
// the child's verdict: 0 when every expectation held, else the first that
// failed.
int InChild(std::initializer_list<int> to_close) {
  bool closed[3] = {false, false, false};
  testing::ChildSetup setup;
  for (int fd : to_close) {
    setup.Close(fd);
    closed[fd] = true;
  }
  testing::Child child = testing::Child::Function(
      [&closed] {
        // What each open descriptor is before, to see it is left alone.
        struct stat before[3];
        for (int fd = 0; fd < 3; ++fd) {
          if (!closed[fd] && fstat(fd, &before[fd]) != 0) return 90 + fd;
        }
        const ClosedStdFds got = OccupyClosedStdFds();
        if (got.in != closed[0] || got.out != closed[1] ||
            got.err != closed[2]) {
          return 10;
        }
        for (int fd = 0; fd < 3; ++fd) {
          if (fcntl(fd, F_GETFD) == -1) return 20 + fd;
          if (closed[fd] && !IsDevNull(fd)) return 30 + fd;
          struct stat now;
          if (!closed[fd] &&
              (fstat(fd, &now) != 0 || now.st_dev != before[fd].st_dev ||
               now.st_ino != before[fd].st_ino)) {
            return 40 + fd;
          }
        }
        // stdin read-only, stdout and stderr writable.
        if (closed[0] && (fcntl(0, F_GETFL) & O_ACCMODE) != O_RDONLY) {
          return 50;
        }
        for (int fd : {1, 2}) {
          if (closed[fd] && (fcntl(fd, F_GETFL) & O_ACCMODE) != O_WRONLY) {
            return 50 + fd;
          }
        }
        // The next file opened gets a number above 2.
        const int next = open("/dev/zero", O_RDONLY);
        return next > 2 ? 0 : 60;
      },
      setup);
  const testing::ChildResult& r = child.Wait();
  EXPECT_EQ(r.end, testing::ChildResult::End::kExited) << r.Describe();
  return r.end == testing::ChildResult::End::kExited ? r.code : 99;
}

TEST(StdFdsTest, NothingClosedNothingChanged) { EXPECT_EQ(InChild({}), 0); }

TEST(StdFdsTest, ClosedStdoutBecomesDevNullAndIsReported) {
  EXPECT_EQ(InChild({1}), 0);
}

TEST(StdFdsTest, EachAndAllClosed) {
  EXPECT_EQ(InChild({0}), 0);
  EXPECT_EQ(InChild({2}), 0);
  EXPECT_EQ(InChild({0, 2}), 0);
  EXPECT_EQ(InChild({0, 1, 2}), 0);
}

}  // namespace
}  // namespace biosnoop
