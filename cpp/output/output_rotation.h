#pragma once

// SIGHUP's reopen of the output (log rotation), never in the way of the
// run: the path is opened on a helper thread (BackgroundOpen) while
// events keep going to the old file, and the new file takes over once the
// open returns.  An open that fails (a symbolic link, a refused target, a
// FIFO nobody reads, permission) leaves the old file in use and is said
// in one line; one that takes kSlowOpenNs (a file system that does not
// answer) is said once, and the new file still takes over whenever it
// returns.  A run that ends with an open under way says so: its last
// records are in the old file.

#include <cstdint>
#include <cstdio>
#include <memory>

#include "absl/status/statusor.h"
#include "background_open.h"
#include "output_file.h"

namespace biosnoop {

class OutputRotation {
 public:
  // An open still under way after this is said on diag.
  static constexpr uint64_t kSlowOpenNs = 2000000000;

  // `file` and `diag` outlive this.
  OutputRotation(OutputFile* file, std::FILE* diag);

  // Call once per loop turn, `hangup` being TakeReopenRequest().  On a
  // hangup, flushes to the old file and starts the reopen (on stdout:
  // nothing to open).  True when a new file (on stdout, a new section of
  // the stream) starts with this call: the caller writes what starts a
  // file.  Errors are the old file's write errors (fatal as anywhere).
  absl::StatusOr<bool> Tick(bool hangup, uint64_t now_ns);

  // At the end of the run: says on diag if an open is still under way,
  // and abandons it.
  void Finish();

 private:
  OutputFile* file_;
  std::FILE* diag_;
  std::unique_ptr<BackgroundOpen> pending_;
  bool said_slow_ = false;
};

}  // namespace biosnoop
