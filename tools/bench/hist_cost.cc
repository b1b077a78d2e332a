// hist_cost: ns per completion of the kernel-side histograms, by
// BPF_PROG_TEST_RUN of hist_cost.bpf.c's three programs (floor, log2,
// fine), interleaved over rounds on one CPU.  Prints each program's ns per
// run and the per-round differences that matter: fine - log2, what issue
// #40's fine buckets add to every completion, and log2 - floor, the
// power-of-two histograms before them.
//
//   hist_cost [--rounds N] [--repeat M] [--cpu C] [--disks D]
//
// Root (or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN for the tc programs).
// The runs keep the histograms' lines in the cache, as a busy disk's
// completions do: with the default 4 disks (8 keys, 54 KiB of histograms)
// in L1 and L2; --disks 32 (64 keys, the fine histograms' slots, 430 KiB)
// spreads them past L2 on most machines.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli_numbers.h"
// The types of the maps and globals the skeleton declares.
#include "biosnoop_abi.h"
#include "hist_cost.skel.h"

namespace {

int PrintWarnings(libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || level == LIBBPF_INFO) return 0;
  return vfprintf(stderr, format, args);
}

int Usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--rounds N] [--repeat M] [--cpu C] [--disks D]\n"
          "Times biosnoop's histogram work per completion with\n"
          "BPF_PROG_TEST_RUN: N rounds (default 15) of M runs (default\n"
          "1000000) of each program, on CPU C (default 0), over reads\n"
          "and writes of D disks (1, 2, 4, 8, 16 or 32; default 4).\n",
          argv0);
  return 64;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void PrintRow(const char* name, const std::vector<double>& v) {
  printf("%-22s %8.1f %8.1f %8.1f\n", name, Median(v),
         *std::min_element(v.begin(), v.end()),
         *std::max_element(v.begin(), v.end()));
}

}  // namespace

int main(int argc, char** argv) {
  long rounds = 15;
  long repeat = 1000000;
  long cpu = 0;
  long disks = 4;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    long* target = arg == "--rounds"   ? &rounds
                   : arg == "--repeat" ? &repeat
                   : arg == "--cpu"    ? &cpu
                   : arg == "--disks"  ? &disks
                                       : nullptr;
    if (target == nullptr || i + 1 >= argc) return Usage(argv[0]);
    // The rule of every other command line (cli_numbers.h).
    const absl::StatusOr<uint64_t> v = biosnoop::cli::ParseNumber(
        arg, argv[++i],
        {.min = target == &cpu ? 0u : 1u,
         .max = target == &repeat ? 100'000'000u : 100'000u});
    if (!v.ok()) {
      fprintf(stderr, "hist_cost: %s\n",
              std::string(v.status().message()).c_str());
      return 64;
    }
    *target = static_cast<long>(*v);
  }
  if (disks > 32 || (disks & (disks - 1)) != 0) return Usage(argv[0]);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    fprintf(stderr, "hist_cost: CPU %ld: %s\n", cpu, strerror(errno));
    return 1;
  }
  libbpf_set_print(PrintWarnings);
  hist_cost_bpf* skel = hist_cost_bpf__open();
  if (skel == nullptr) {
    fprintf(stderr, "hist_cost: open the BPF object: %s\n", strerror(errno));
    return 1;
  }
  skel->rodata->disk_mask = static_cast<__u32>(disks - 1);
  if (int err = hist_cost_bpf__load(skel); err != 0) {
    fprintf(stderr, "hist_cost: load the BPF programs: %s\n", strerror(-err));
    hist_cost_bpf__destroy(skel);
    return err == -EPERM ? 77 : 1;
  }
  constexpr int kPrograms = 3;
  const int fds[kPrograms] = {bpf_program__fd(skel->progs.hist_floor),
                              bpf_program__fd(skel->progs.hist_log2),
                              bpf_program__fd(skel->progs.hist_fine)};
  // A minimal Ethernet frame for the tc programs' context.
  char packet[64] = {};
  std::vector<double> ns[kPrograms];
  for (long round = 0; round < rounds; ++round) {
    // Each round starts with the next program, so no program is always
    // the one that runs first after the others.
    for (int k = 0; k < kPrograms; ++k) {
      const int p = (round + k) % kPrograms;
      LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = packet,
                  .data_size_in = sizeof(packet),
                  .repeat = static_cast<int>(repeat));
      if (bpf_prog_test_run_opts(fds[p], &opts) != 0) {
        fprintf(stderr, "hist_cost: test run: %s\n", strerror(errno));
        hist_cost_bpf__destroy(skel);
        return 1;
      }
      ns[p].push_back(opts.duration);
    }
  }
  hist_cost_bpf__destroy(skel);
  std::vector<double> fine_added, log2_added;
  for (long r = 0; r < rounds; ++r) {
    fine_added.push_back(ns[2][r] - ns[1][r]);
    log2_added.push_back(ns[1][r] - ns[0][r]);
  }
  printf("hist_cost: ns per run, %ld rounds of %ld runs on CPU %ld, %ld keys\n",
         rounds, repeat, cpu, 2 * disks);
  printf("%-22s %8s %8s %8s\n", "program", "median", "min", "max");
  PrintRow("floor (the draw)", ns[0]);
  PrintRow("log2 (before #40)", ns[1]);
  PrintRow("fine (hist_count)", ns[2]);
  printf("per-round differences\n");
  PrintRow("fine - log2", fine_added);
  PrintRow("log2 - floor", log2_added);
  return 0;
}
