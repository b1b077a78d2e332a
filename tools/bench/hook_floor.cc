// hook_floor: attaches empty BPF programs to the three tracepoints
// biosnoop runs on for every I/O and waits for SIGINT or SIGTERM.
//
// The benchmark harness (tools/bench/run, configuration `floor`) measures
// fio's IOPS under it beside biosnoop: the cost of the hooks themselves,
// which no tracer built on them can go below.  See hook_floor.bpf.c.
//
// `hook_floor submit,issue` (any subset of submit, issue, complete)
// attaches only those, so that a series can measure what each hook costs
// by itself (the "floor ladder" in BENCHMARKS.md).
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "hook_floor.skel.h"
#include "kernel_btf.h"

namespace {

int PrintWarnings(libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || level == LIBBPF_INFO) return 0;
  return vfprintf(stderr, format, args);
}

int Fail(const char* what, int err) {
  fprintf(stderr, "hook_floor: %s: %s\n", what, strerror(err < 0 ? -err : err));
  return 1;
}

struct Hooks {
  bool submit = true;
  bool issue = true;
  bool complete = true;
};

// "submit,issue,complete" or any non-empty subset; false on anything else.
bool ParseHooks(const char* list, Hooks* hooks) {
  *hooks = Hooks{false, false, false};
  std::string rest = list;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string name = rest.substr(0, comma);
    if (name == "submit")
      hooks->submit = true;
    else if (name == "issue")
      hooks->issue = true;
    else if (name == "complete")
      hooks->complete = true;
    else
      return false;
    if (comma == std::string::npos) break;
    rest = rest.substr(comma + 1);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Hooks hooks;
  if (argc > 2 || (argc == 2 && !ParseHooks(argv[1], &hooks))) {
    fprintf(stderr,
            "usage: %s [HOOKS]\n"
            "Attaches empty BPF programs to biosnoop's per-I/O tracepoints\n"
            "until SIGINT or SIGTERM.  HOOKS: a comma-separated subset of\n"
            "submit, issue, complete (default: all three).\n",
            argv[0]);
    return 64;
  }
  // Blocked before anything else, so a signal that comes during loading
  // waits for sigwait below instead of killing us with links half made.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  libbpf_set_print(PrintWarnings);

  struct btf* vmlinux = biosnoop::LoadKernelBtf();
  if (vmlinux == nullptr) return Fail("read kernel BTF", errno);
  const bool io_start =
      biosnoop::KernelHasTracepoint(vmlinux, "block_io_start");
  btf__free(vmlinux);

  hook_floor_bpf* skel = hook_floor_bpf__open();
  if (skel == nullptr) return Fail("open BPF object", errno);
  bpf_program__set_autoload(skel->progs.floor_io_start,
                            hooks.submit && io_start);
  bpf_program__set_autoload(skel->progs.floor_rq_insert,
                            hooks.submit && !io_start);
  bpf_program__set_autoload(skel->progs.floor_rq_issue, hooks.issue);
  bpf_program__set_autoload(skel->progs.floor_rq_complete, hooks.complete);
  int err = hook_floor_bpf__load(skel);
  if (err == 0) err = hook_floor_bpf__attach(skel);
  if (err != 0) {
    hook_floor_bpf__destroy(skel);
    return Fail("load and attach", err);
  }
  fprintf(stderr, "hook_floor: empty programs on%s%s%s; stop with SIGINT\n",
          !hooks.submit ? ""
          : io_start    ? " block_io_start"
                        : " block_rq_insert",
          hooks.issue ? " block_rq_issue" : "",
          hooks.complete ? " block_rq_complete" : "");
  int sig = 0;
  sigwait(&stop, &sig);
  hook_floor_bpf__destroy(skel);
  return 0;
}
