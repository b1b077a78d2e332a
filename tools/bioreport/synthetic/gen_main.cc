// bioreport_gen: writes a synthetic biosnoop stream (see synthetic.h), for
// benchmarks and test fixtures.
//   bioreport_gen --events N --format jsonl|proto [--seed S]
//                 [--stats-every N] [--summary-every N] [--lost N]
//                 [--fine] [--host NAME --boot-id ID] -o FILE

#include <getopt.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "cli_numbers.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"
#include "synthetic.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  biosnoop::report::SyntheticOptions options;
  std::string format = "jsonl";
  std::string output = "-";
  static const struct option kOptions[] = {
      {"events", required_argument, nullptr, 'n'},
      {"format", required_argument, nullptr, 'f'},
      {"seed", required_argument, nullptr, 's'},
      {"stats-every", required_argument, nullptr, 'S'},
      {"lost", required_argument, nullptr, 'l'},
      {"summary-every", required_argument, nullptr, 'U'},
      {"output", required_argument, nullptr, 'o'},
      {"host", required_argument, nullptr, 'H'},
      {"boot-id", required_argument, nullptr, 'B'},
      {"fine", no_argument, nullptr, 'F'},
      {nullptr, 0, nullptr, 0},
  };
  // Numbers by the rule of every other command line (cli_numbers.h); the
  // error names the option and the value.
  auto number = [](const char* option, uint64_t* out) {
    auto v = biosnoop::cli::ParseNumber(option, optarg, {});
    if (!v.ok()) {
      std::fprintf(stderr, "bioreport_gen: %s\n",
                   std::string(v.status().message()).c_str());
      return false;
    }
    *out = *v;
    return true;
  };
  for (int c; (c = getopt_long(argc, argv, "n:f:s:S:l:U:o:H:B:F", kOptions,
                               nullptr)) != -1;) {
    bool ok = true;
    switch (c) {
      case 'n':
        ok = number("--events", &options.events);
        break;
      case 's':
        ok = number("--seed", &options.seed);
        break;
      case 'S':
        ok = number("--stats-every", &options.stats_every);
        break;
      case 'l':
        ok = number("--lost", &options.lost);
        break;
      case 'U':
        ok = number("--summary-every", &options.summary_every);
        break;
      case 'f':
        format = optarg;
        ok = format == "jsonl" || format == "proto";
        break;
      case 'o':
        output = optarg;
        break;
      case 'H':
        options.host = optarg;
        ok = !options.host.empty();
        break;
      case 'B':
        options.boot_id = optarg;
        ok = !options.boot_id.empty();
        break;
      case 'F':
        options.fine = true;
        break;
      default:
        ok = false;
    }
    if (!ok) {
      optind = argc + 1;  // the usage message below
      break;
    }
  }
  if (optind != argc) {
    std::fprintf(stderr,
                 "usage: bioreport_gen --events N --format jsonl|proto "
                 "[--seed S] [--stats-every N] [--summary-every N] [--lost N] "
                 "[--fine] [--host NAME --boot-id ID] [-o FILE]\n");
    return 64;
  }
  const bool proto = format == "proto";
  auto file = biosnoop::OutputFile::Open(
      output, proto ? biosnoop::RecordFraming::kVarintDelimited
                    : biosnoop::RecordFraming::kLines);
  if (!file.ok()) {
    std::fprintf(stderr, "bioreport_gen: %s\n",
                 std::string(file.status().message()).c_str());
    return 73;
  }
  std::unique_ptr<biosnoop::Sink> sink;
  if (proto) {
    sink =
        std::make_unique<biosnoop::ProtoSink>(std::move(*file), options.host);
  } else {
    sink =
        std::make_unique<biosnoop::JsonlSink>(std::move(*file), options.host);
  }
  absl::Status s = biosnoop::report::WriteSyntheticStream(options, sink.get());
  if (s.ok()) s = sink->Flush();
  if (!s.ok()) {
    std::fprintf(stderr, "bioreport_gen: %s\n",
                 std::string(s.message()).c_str());
    return 74;
  }
  return 0;
}
