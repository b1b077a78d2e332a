// syscall_cost: the cost of the system calls that --ops hooks, per call,
// for tools/bench/ops_cost (which runs it with and without biosnoop --ops
// and prints the difference).  Three loops, each timed with
// CLOCK_MONOTONIC over N calls:
//   pread_cached  pread(2) of 4 KiB at offset 0 of FILE (a regular file,
//                 read once first so it is cached): a followed call;
//   socket_pair   write(2) of one byte to a UNIX socket and read(2) of it
//                 from its peer: two calls --ops must look at and drop;
//   getpid        syscall(SYS_getpid): a call --ops does not follow, the
//                 cost of its two programs' first test.
// Output: one line, "pread_cached_ns=... socket_pair_ns=... getpid_ns=...",
// of the loops LOOP names (all three by default).
//
//   syscall_cost FILE [N [pread_cached|socket_pair|getpid]]

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli_numbers.h"

namespace {

double NowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr,
                 "usage: syscall_cost FILE [N [pread_cached|socket_pair|"
                 "getpid]]\n");
    return 64;
  }
  long n = 1000000;
  if (argc >= 3) {
    // The rule of every other command line (cli_numbers.h).
    auto v = biosnoop::cli::ParseNumber("N", argv[2],
                                        {.min = 1, .max = 1'000'000'000});
    if (!v.ok()) {
      std::fprintf(stderr, "syscall_cost: %s\n",
                   std::string(v.status().message()).c_str());
      return 64;
    }
    n = static_cast<long>(*v);
  }
  const char* only = argc == 4 ? argv[3] : "";
  auto wanted = [only](const char* loop) {
    return *only == 0 || std::strcmp(only, loop) == 0;
  };
  if (*only && !wanted("pread_cached") && !wanted("socket_pair") &&
      !wanted("getpid")) {
    std::fprintf(stderr, "syscall_cost: no loop named %s\n", only);
    return 64;
  }
  if (n <= 0) {
    std::fprintf(stderr, "syscall_cost: N must be a positive number\n");
    return 64;
  }
  const int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    std::fprintf(stderr, "syscall_cost: open %s: %s\n", argv[1],
                 std::strerror(errno));
    return 66;
  }
  static char buf[4096];
  if (pread(fd, buf, sizeof(buf), 0) < 0) {
    std::fprintf(stderr, "syscall_cost: read %s: %s\n", argv[1],
                 std::strerror(errno));
    return 66;
  }
  int s[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) {
    std::perror("syscall_cost: socketpair");
    return 71;
  }

  const char* sep = "";
  if (wanted("pread_cached")) {
    const double t = NowNs();
    for (long i = 0; i < n; ++i) {
      if (pread(fd, buf, sizeof(buf), 0) < 0) return 74;
    }
    std::printf("%spread_cached_ns=%.1f", sep, (NowNs() - t) / double(n));
    sep = " ";
  }
  if (wanted("socket_pair")) {
    const double t = NowNs();
    for (long i = 0; i < n; ++i) {
      if (write(s[0], "x", 1) != 1 || read(s[1], buf, 1) != 1) return 74;
    }
    std::printf("%ssocket_pair_ns=%.1f", sep, (NowNs() - t) / double(n));
    sep = " ";
  }
  if (wanted("getpid")) {
    const double t = NowNs();
    for (long i = 0; i < n; ++i) syscall(SYS_getpid);
    std::printf("%sgetpid_ns=%.1f", sep, (NowNs() - t) / double(n));
  }
  std::printf("\n");
  return 0;
}
