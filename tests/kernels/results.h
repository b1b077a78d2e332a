#pragma once

// The results one guest of the kernel matrix brought back (tests/kernels/
// guest-checks.sh writes them, run-kernel unpacks them): per mode,
// biosnoop's output, stderr and exit status; the manifest of the reads and
// writes the guest drove; the guest's uname -r and I/O schedulers.  Read
// here into plain structures for the assertions in kernel_matrix_test.cc.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace biosnoop::kernels {

// One dd of the manifest: a direct read of a whole known file (one 4 KiB
// request per sector in `sectors`), or a buffered write of a new file.
struct Dd {
  std::string mode;
  int pid = 0;
  int status = -1;  // dd's exit status
  std::string path;
  std::vector<uint64_t> sectors;  // reads: the 512-byte sector of each block
};

// A block I/O event, from a JSON Lines event or an ECS document.
struct IoEvent {
  int64_t pid = 0;
  std::string comm;
  std::string op;
  std::string disk;
  uint64_t sector = 0;
  uint64_t bytes = 0;
  std::optional<int64_t> queue_us;
  bool has_files = false;                 // the key is there at all
  std::optional<std::string> first_path;  // files[0].path
  nlohmann::json raw;                     // the record as written
};

// A file of the results directory, or nullopt when the guest left none.
std::optional<std::string> ReadResult(const std::string& dir,
                                      const std::string& name);

// Each line of `text` parsed as JSON; a line that does not parse is left
// out and described in `errors`.
std::vector<nlohmann::json> ParseJsonLines(const std::string& text,
                                           std::vector<std::string>* errors);

// The manifest's dds of `kind` in `mode` ("MODE KIND PID STATUS PATH
// [SECTOR...]" lines), and its reads and writes ("read", "write").
std::vector<Dd> ManifestDds(const std::string& manifest,
                            const std::string& mode, const std::string& kind);
std::vector<Dd> ManifestReads(const std::string& manifest,
                              const std::string& mode);
std::vector<Dd> ManifestWrites(const std::string& manifest,
                               const std::string& mode);
// The schedulers the guest ran the default mode under ("sched-S scheduler
// S"), and those vda refused ("sched-S scheduler-refused S").
std::vector<std::string> ManifestSchedulers(const std::string& manifest,
                                            bool refused);

// The fields after "MODE KIND" of each manifest line of `kind` in `mode`.
std::vector<std::vector<std::string>> ManifestLines(const std::string& manifest,
                                                    const std::string& mode,
                                                    const std::string& kind);

// The block I/O events among the records of biosnoop's JSON Lines or ECS.
std::vector<IoEvent> EventsFromJsonLines(
    const std::vector<nlohmann::json>& records);
std::vector<IoEvent> EventsFromEcs(const std::vector<nlohmann::json>& docs);

// The environment variable `name`, "" when unset.
std::string Env(const char* name);

// `s` without its trailing newlines and spaces.
std::string Trim(std::string s);

// Runs `command` (a shell command line) and returns its stdout; `status`
// gets its exit status (-1 when it could not run).
std::string CommandStdout(const std::string& command, int* status);

}  // namespace biosnoop::kernels
