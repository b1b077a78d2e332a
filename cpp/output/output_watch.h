#pragma once

// Loss and a blocked output, said on stderr while they happen.
//
// The writer thread cannot report a blocked output: it is inside write(2)
// (a log shipper that stopped reading, a hung network file system).  So a
// second thread looks once a second.  While the output stays blocked it
// says so, for how long, and how many events the kernel lost meanwhile
// (the ring buffer fills once nobody consumes it); when the output moves
// again it says how many were lost while it was blocked.  Loss with the
// output moving (a burst bigger than the ring buffer) gets the usual
// advice, once a second while it happens.
//
// LossReporter is the decision, pure and unit-tested; OutputWatch is the
// thread that feeds it.

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace biosnoop {

class LossReporter {
 public:
  // A write blocked this long is reported (a healthy write to a pipe or a
  // file takes microseconds; a log shipper's pause of a second is not
  // worth a line, and the ring buffer absorbs it).
  static constexpr uint64_t kBlockedAfterNs = 2000000000;
  // While it stays blocked, a line this often.
  static constexpr uint64_t kRepeatEveryNs = 10000000000;

  // One look: the time (CLOCK_MONOTONIC ns), when the write under way
  // began (0 when none is) and the kernel's lost count since start.
  struct Look {
    uint64_t now_ns = 0;
    uint64_t write_started_ns = 0;
    uint64_t lost = 0;
  };

  // `output` as messages name it (stdout, or the path quoted);
  // `has_reader`: a pipe or socket rather than a regular file, which
  // decides what the blocked line blames.
  LossReporter(std::string output, bool has_reader);

  // The lines to print for this look (no '\n'), usually none.
  std::vector<std::string> Next(const Look& look);

 private:
  std::string output_;
  bool has_reader_;
  uint64_t lost_reported_ = 0;
  // A blocked episode: from a look that found a write under way for
  // kBlockedAfterNs to the first look that finds none under way.
  bool blocked_ = false;
  uint64_t blocked_since_ns_ = 0;  // when its first blocked write began
  uint64_t lost_before_ = 0;       // lost count before the episode
  uint64_t last_line_ns_ = 0;
};

// Runs a LossReporter once a second on its own thread until Stop() or
// destruction.  Create it after privileges are dropped (capabilities are
// per thread, and the new thread inherits the creator's) and stop it
// before the run's last line.  The thread blocks every signal, so that
// SIGINT, SIGTERM and the --duration timer still interrupt the writer's
// blocked write(2) and poll.
class OutputWatch {
 public:
  // The thread's name (its comm).
  static constexpr char kThreadName[] = "output-watch";

  // `write_started` and `read_lost` are called on the watch thread (a
  // lost count that cannot be read skips that look).  Lines go to `diag`,
  // which should not block for ever once the run is stopping (stderr may
  // be the stalled pipe itself: diag_stream.h), or Stop() waits with it.
  OutputWatch(LossReporter reporter, std::function<uint64_t()> write_started,
              std::function<absl::StatusOr<uint64_t>()> read_lost,
              std::FILE* diag, uint64_t period_ns = 1000000000);
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  // Ends the thread; no line is printed after this returns.  Idempotent.
  void Stop();

 private:
  void Loop();

  LossReporter reporter_;
  std::function<uint64_t()> write_started_;
  std::function<absl::StatusOr<uint64_t>()> read_lost_;
  std::FILE* diag_;
  uint64_t period_ns_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace biosnoop
