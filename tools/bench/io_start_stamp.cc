// io_start_stamp DISK: prints, for every read and write request of DISK
// that completes, its sector, bytes, op and four stamps on CLOCK_MONOTONIC
// (start_time_ns, our own clock at block_rq_issue, the block layer's
// io_start_time_ns, our own clock at block_rq_complete), one line each,
// until SIGINT or SIGTERM.  See io_start_stamp.bpf.c; tools/bench/
// io_start_check runs it beside the kernel's blktrace.
#include <bpf/libbpf.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "io_start_stamp.skel.h"

namespace {

struct Stamp {
  uint64_t sector, start_ns, issue_ns, io_start_ns, complete_ns;
  uint32_t bytes, op;
};

volatile sig_atomic_t stop = 0;

void OnSignal(int) { stop = 1; }

int Print(void*, void* data, size_t size) {
  if (size < sizeof(Stamp)) return 0;
  Stamp s;
  memcpy(&s, data, sizeof(s));
  if (s.op > 1) return 0;  // reads (0) and writes (1) only
  printf("%llu %u %c %llu %llu %llu %llu\n",
         static_cast<unsigned long long>(s.sector), s.bytes,
         s.op == 0 ? 'R' : 'W', static_cast<unsigned long long>(s.start_ns),
         static_cast<unsigned long long>(s.issue_ns),
         static_cast<unsigned long long>(s.io_start_ns),
         static_cast<unsigned long long>(s.complete_ns));
  return 0;
}

int Fail(const char* what, int err) {
  fprintf(stderr, "io_start_stamp: %s: %s\n", what,
          strerror(err < 0 ? -err : err));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DISK (e.g. loop3)\n", argv[0]);
    return 64;
  }
  unsigned major = 0, minor = 0;
  char colon = 0;
  std::ifstream dev(std::string("/sys/block/") + argv[1] + "/dev");
  if (!(dev >> major >> colon >> minor)) return Fail(argv[1], ENOENT);
  io_start_stamp_bpf* skel = io_start_stamp_bpf__open();
  if (skel == nullptr) return Fail("open BPF object", errno);
  skel->rodata->target_dev = major << 20 | minor;
  int err = io_start_stamp_bpf__load(skel);
  if (err == 0) err = io_start_stamp_bpf__attach(skel);
  ring_buffer* rb = err == 0 ? ring_buffer__new(bpf_map__fd(skel->maps.stamps),
                                                Print, nullptr, nullptr)
                             : nullptr;
  if (rb == nullptr) {
    io_start_stamp_bpf__destroy(skel);
    return Fail("load and attach", err ? err : errno);
  }
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  fprintf(stderr, "io_start_stamp: attached to %s\n", argv[1]);
  while (!stop) ring_buffer__poll(rb, 100);
  ring_buffer__consume(rb);
  fflush(stdout);
  ring_buffer__free(rb);
  io_start_stamp_bpf__destroy(skel);
  return 0;
}
