#pragma once

// A child process for a test: a function of the test, or a program, run in
// a child with the file descriptors the test chooses; how it ended and
// what it wrote are collected, and every wait for it is bounded.
//
// The contract:
// - A wait that can kill (Wait, Stop, RunProgram, RunInChild) kills the
//   child with SIGKILL at its bound, reaps it, and fails the test with a
//   message naming the child and the bound; the result then says
//   kKilledAtBound.  A hung child so fails its own test, with a reason,
//   instead of the whole binary being cut off by ctest's TIMEOUT.
// - A wait that only looks (WaitExit, WaitForOutput, Running) never kills
//   and never fails the test: the caller says what it awaited.
// - A child still running when its Child goes is killed and reaped:
//   nothing a test starts outlives it.  Only the child is killed: a
//   program that starts processes of its own (fio's jobs, a shell's
//   commands) leaves them running, holding what they inherited (ctest
//   waits for the test's stdout to close): run them as threads (fio
//   --thread) or exec them (sh -c 'exec ...').
// - What the child writes to a captured descriptor (ChildSetup::Capture)
//   is read while the test waits for it, so a child that writes a lot
//   does not block on a full pipe while the test waits.
// - A program starts as from a shell: no signal blocked or ignored (the
//   test's SIG_IGN for SIGPIPE is not inherited), descriptors as set up.
//   A function runs in a copy of the test process as it was at fork():
//   if the test has other threads, the function must keep to system calls
//   on memory prepared before (what is safe after fork()).

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace biosnoop::testing {

// The bound of a wait that is not given one: far more than any child of
// these tests takes on a loaded machine, and less than ctest's TIMEOUT.
inline constexpr absl::Duration kChildBound = absl::Seconds(120);

// How a child starts.  Descriptor actions are applied in the child in the
// order given; every action's source is taken before any target is
// replaced, so Dup(1, 2).Dup(2, 1) swaps the test's stdout and stderr.
// Descriptors no action names are inherited as they are (unless
// CloseOthers()).  Target descriptors must be below 200.
class ChildSetup {
 public:
  // The child's `fd` is a copy of the test's descriptor `parent_fd`.
  ChildSetup& Dup(int fd, int parent_fd);
  // The child's `fd` is `path` opened with `flags` (and `mode`, for
  // O_CREAT), opened by the child.
  ChildSetup& Open(int fd, std::string path, int flags, mode_t mode = 0644);
  // /dev/null: read-only as descriptor 0, write-only as any other.
  ChildSetup& Null(int fd);
  // The child's `fd` is closed.
  ChildSetup& Close(int fd);
  // What the child writes to `fd` is collected (ChildResult::output).
  // Every captured descriptor writes into the same pipe.
  ChildSetup& Capture(int fd);
  // Every descriptor above 2 that no action sets up is closed.
  ChildSetup& CloseOthers();
  // The child gets `sig` when the thread that started it ends
  // (PR_SET_PDEATHSIG): a daemon must not outlive a crashed test.
  ChildSetup& DeathSignal(int sig);
  // Runs in the child once its descriptors are set up, before the program
  // or the function: returns 0, or an errno value, and then the child does
  // not start (ChildResult::error says "`what`: <error>").  The same care
  // as a function's (see above).
  ChildSetup& Prepare(std::string what, std::function<int()> step);
  // How messages name the child (a program is named by its command line).
  ChildSetup& Named(std::string what);

 private:
  friend class Child;
  struct Action {
    enum Kind { kDup, kOpen, kClose, kCapture } kind;
    int fd;
    int parent_fd = -1;
    std::string path;
    int flags = 0;
    mode_t mode = 0;
  };
  std::vector<Action> actions_;
  bool close_others_ = false;
  int death_signal_ = 0;
  std::string prepare_what_;
  std::function<int()> prepare_;
  std::string name_;
};

// How a child ended, and what it wrote.
struct ChildResult {
  enum class End {
    kNotStarted,     // fork, a descriptor, Prepare or exec failed: `error`
    kRunning,        // not reaped yet
    kExited,         // `code`: its exit status
    kSignaled,       // `code`: the signal that ended it
    kKilledAtBound,  // still running at the bound of a wait: killed
  };
  End end = End::kNotStarted;
  int code = -1;
  pid_t pid = -1;
  std::string what;    // the child, as messages name it
  std::string error;   // why it did not start
  std::string output;  // what its captured descriptors carried
  std::string report;  // what RunInChild's function returned
  absl::Duration bound = absl::ZeroDuration();  // of kKilledAtBound

  bool Exited(int status) const {
    return end == End::kExited && code == status;
  }
  // One line: "dd if=/dev/loop3 ... (pid 123) exited with 1", "... was
  // still running after 20s: killed", "...: could not start: exec: No such
  // file or directory".
  std::string Describe() const;
};

// Success when `r` exited with `status`; else how it ended, with its
// output and report.
::testing::AssertionResult ExitedWith(const ChildResult& r, int status);

class Child {
 public:
  Child() = default;  // no child: started() is false
  // Starts the program argv[0] (looked up in PATH) with `argv`.
  static Child Program(std::vector<std::string> argv, ChildSetup setup = {});
  // Starts `body` in a forked copy of the test; the child exits with what
  // it returns.
  static Child Function(std::function<int()> body, ChildSetup setup = {});

  ~Child();
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Whether it started (a function's failed Prepare is known only once
  // it has ended); it may have ended since.
  bool started() const {
    return result_.pid > 0 && result_.end != ChildResult::End::kNotStarted;
  }
  // Its pid while it runs and after (-1 if it never started).
  pid_t pid() const { return result_.pid; }
  // Whether it has not ended yet (reaps it if it has).
  bool Running();
  // Waits up to `bound` for it to end by itself; whether it did (result()
  // then says how).  Never kills.
  bool WaitExit(absl::Duration bound);
  // Waits up to `bound` until its captured output holds `text`; whether
  // it does.  Gives up early when the child ends.  Never kills.
  bool WaitForOutput(absl::string_view text, absl::Duration bound);
  // Waits for it to end; past `bound` kills it and fails the test.
  const ChildResult& Wait(absl::Duration bound = kChildBound);
  // Sends `sig`, then Wait(bound).
  const ChildResult& Stop(int sig, absl::Duration bound = kChildBound);
  // SIGKILL now, and reaps it: for a child meant to run until the test
  // ends it (no failure).
  const ChildResult& Kill();

  // Its captured output so far (all of it once it has been reaped).
  const std::string& output() const { return result_.output; }
  const ChildResult& result() const { return result_; }

 private:
  struct Body {
    std::vector<std::string> argv;          // a program, or
    std::function<int()> function;          // a function, or
    std::function<std::string()> reporter;  // one whose text is the report
  };
  static Child Start(Body body, ChildSetup setup);
  friend ChildResult RunInChild(std::function<std::string()> body,
                                ChildSetup setup, absl::Duration bound);

  // Reads the pipes and reaps the child until it is reaped (true), `done`
  // holds or `deadline` passes.
  bool Pump(absl::Time deadline, const std::function<bool()>& done = nullptr);
  bool TryReap();
  void Finish(int status);
  void KillAndReap();
  void CloseFds();

  pid_t pid_ = -1;  // while not reaped
  int pidfd_ = -1;
  int out_fd_ = -1;
  int report_fd_ = -1;
  int status_fd_ = -1;  // a start failure, told by the child
  ChildResult result_;
};

// Program(argv, setup).Wait(bound).
ChildResult RunProgram(std::vector<std::string> argv, ChildSetup setup = {},
                       absl::Duration bound = kChildBound);
// Runs `body` in a forked copy of the test (limits, credentials and
// descriptors it changes stay there); what it returns is the result's
// report, and the child then exits with 0.  Waits as Wait(bound).
ChildResult RunInChild(std::function<std::string()> body, ChildSetup setup = {},
                       absl::Duration bound = kChildBound);

}  // namespace biosnoop::testing
