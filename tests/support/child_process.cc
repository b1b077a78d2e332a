#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

namespace biosnoop::testing {
namespace {

// Sources of the child's descriptors are moved at or above this before
// any target is replaced.
constexpr int kHighFd = 200;
// Without a pidfd, how often a wait looks whether the child has ended.
constexpr int kReapStepMs = 10;

// What a child that could not start tells the test, through a pipe.
struct StartFailure {
  int error;
  char what[120];
};

// In the child: tells the failure and exits.  Async-signal-safe.
[[noreturn]] void FailStart(int status_fd, const char* what, int error) {
  StartFailure f = {};
  f.error = error;
  for (size_t i = 0; what[i] != '\0' && i + 1 < sizeof(f.what); ++i) {
    f.what[i] = what[i];
  }
  (void)!write(status_fd, &f, sizeof(f));
  _exit(127);
}

// In the child: `fd` moved to a close-on-exec descriptor at or above
// kHighFd, or -1.
int MoveHigh(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, kHighFd); }

// Reads what `*fd` holds now into `into`; at end of file closes it.
void Drain(int* fd, std::string* into) {
  if (*fd < 0) return;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(*fd, buf, sizeof(buf));
    if (n > 0) {
      into->append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        close(*fd);
        *fd = -1;
      }
      return;
    }
  }
}

void SetNonBlocking(int fd) {
  if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line = absl::StrJoin(argv, " ");
  if (line.size() > 240) line = line.substr(0, 237) + "...";
  return line;
}

}  // namespace

ChildSetup& ChildSetup::Dup(int fd, int parent_fd) {
  actions_.push_back({Action::kDup, fd, parent_fd});
  return *this;
}

ChildSetup& ChildSetup::Open(int fd, std::string path, int flags, mode_t mode) {
  actions_.push_back({Action::kOpen, fd, -1, std::move(path), flags, mode});
  return *this;
}

ChildSetup& ChildSetup::Null(int fd) {
  return Open(fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

ChildSetup& ChildSetup::Close(int fd) {
  actions_.push_back({Action::kClose, fd});
  return *this;
}

ChildSetup& ChildSetup::Capture(int fd) {
  actions_.push_back({Action::kCapture, fd});
  return *this;
}

ChildSetup& ChildSetup::CloseOthers() {
  close_others_ = true;
  return *this;
}

ChildSetup& ChildSetup::DeathSignal(int sig) {
  death_signal_ = sig;
  return *this;
}

ChildSetup& ChildSetup::Prepare(std::string what, std::function<int()> step) {
  prepare_what_ = std::move(what);
  prepare_ = std::move(step);
  return *this;
}

ChildSetup& ChildSetup::Named(std::string what) {
  name_ = std::move(what);
  return *this;
}

std::string ChildResult::Describe() const {
  const std::string who =
      pid > 0 ? absl::StrCat(what, " (pid ", pid, ")") : what;
  switch (end) {
    case End::kNotStarted:
      return absl::StrCat(who, ": could not start: ", error);
    case End::kRunning:
      return absl::StrCat(who, " is still running");
    case End::kExited:
      return absl::StrCat(who, " exited with ", code);
    case End::kSignaled:
      return absl::StrCat(who, " was killed by signal ", code, " (",
                          strsignal(code), ")");
    case End::kKilledAtBound:
      return absl::StrCat(who, " was still running after ",
                          absl::FormatDuration(bound), ": killed");
  }
  return who;
}

::testing::AssertionResult ExitedWith(const ChildResult& r, int status) {
  if (r.Exited(status)) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << "awaited an exit with " << status << ": " << r.Describe();
  if (!r.output.empty()) failure << "\noutput:\n" << r.output;
  if (!r.report.empty()) failure << "\nreport:\n" << r.report;
  return failure;
}

Child Child::Program(std::vector<std::string> argv, ChildSetup setup) {
  return Start({.argv = std::move(argv)}, std::move(setup));
}

Child Child::Function(std::function<int()> body, ChildSetup setup) {
  return Start({.function = std::move(body)}, std::move(setup));
}

Child Child::Start(Body body, ChildSetup setup) {
  Child c;
  const bool program = !body.argv.empty();
  c.result_.what = !setup.name_.empty() ? setup.name_
                   : program            ? CommandLine(body.argv)
                                        : "the test's child function";
  if (!program && !body.function && !body.reporter) {
    c.result_.error = "no program and no function";
    return c;
  }
  for (const ChildSetup::Action& a : setup.actions_) {
    if (a.fd < 0 || a.fd >= kHighFd) {
      c.result_.error = absl::StrCat("descriptor ", a.fd, " out of range");
      return c;
    }
  }
  // Everything the child needs is made before fork(): after it, only
  // system calls on memory that exists already.
  std::vector<char*> argv;
  for (std::string& a : body.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  const bool capture =
      std::any_of(setup.actions_.begin(), setup.actions_.end(),
                  [](const ChildSetup::Action& a) {
                    return a.kind == ChildSetup::Action::kCapture;
                  });
  int status_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1},
      report_pipe[2] = {-1, -1};
  if (pipe2(status_pipe, O_CLOEXEC) != 0 ||
      (capture && pipe2(out_pipe, O_CLOEXEC) != 0) ||
      (body.reporter && pipe2(report_pipe, O_CLOEXEC) != 0)) {
    c.result_.error = absl::StrCat("pipe: ", strerror(errno));
    for (int fd : {status_pipe[0], status_pipe[1], out_pipe[0], out_pipe[1],
                   report_pipe[0], report_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
    return c;
  }
  std::vector<int> sources(setup.actions_.size(), -1);
  // The descriptors CloseOthers() keeps: the targets and the pipes'.
  std::vector<int> keep;
  for (const ChildSetup::Action& a : setup.actions_) keep.push_back(a.fd);
  keep.resize(keep.size() + 2);
  const pid_t parent = getpid();
  std::fflush(nullptr);  // or the child's stdio would write it again

  const pid_t pid = fork();
  if (pid == 0) {
    if (setup.death_signal_ != 0) {
      prctl(PR_SET_PDEATHSIG, setup.death_signal_);
      if (getppid() != parent) _exit(127);  // the test is gone already
    }
    const int status_w = MoveHigh(status_pipe[1]);
    if (status_w < 0) _exit(127);
    const int out_w = capture ? MoveHigh(out_pipe[1]) : -1;
    const int report_w = body.reporter ? MoveHigh(report_pipe[1]) : -1;
    if ((capture && out_w < 0) || (body.reporter && report_w < 0)) {
      FailStart(status_w, "moving a pipe", errno);
    }
    // The pipes' descriptors where pipe2() put them may be targets.
    for (int fd : {status_pipe[0], status_pipe[1], out_pipe[0], out_pipe[1],
                   report_pipe[0], report_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
    for (size_t i = 0; i < setup.actions_.size(); ++i) {
      const ChildSetup::Action& a = setup.actions_[i];
      switch (a.kind) {
        case ChildSetup::Action::kDup:
          sources[i] = MoveHigh(a.parent_fd);
          if (sources[i] < 0) FailStart(status_w, "Dup", errno);
          break;
        case ChildSetup::Action::kOpen: {
          const int fd = open(a.path.c_str(), a.flags | O_CLOEXEC, a.mode);
          if (fd < 0) FailStart(status_w, a.path.c_str(), errno);
          sources[i] = MoveHigh(fd);
          if (sources[i] < 0) FailStart(status_w, a.path.c_str(), errno);
          close(fd);
          break;
        }
        case ChildSetup::Action::kCapture:
          sources[i] = out_w;
          break;
        case ChildSetup::Action::kClose:
          break;
      }
    }
    for (size_t i = 0; i < setup.actions_.size(); ++i) {
      const ChildSetup::Action& a = setup.actions_[i];
      if (a.kind == ChildSetup::Action::kClose) {
        close(a.fd);
      } else if (dup2(sources[i], a.fd) < 0) {
        FailStart(status_w, "dup2", errno);
      }
    }
    for (int fd : sources) {
      if (fd >= 0 && fd != out_w) close(fd);
    }
    if (out_w >= 0) close(out_w);
    if (setup.close_others_) {
      keep[keep.size() - 2] = status_w;
      keep[keep.size() - 1] = report_w;
      std::sort(keep.begin(), keep.end());
      unsigned int from = 3;
      for (int fd : keep) {
        if (fd < static_cast<int>(from)) continue;
        if (fd > static_cast<int>(from)) {
          syscall(SYS_close_range, from, static_cast<unsigned int>(fd - 1), 0U);
        }
        from = static_cast<unsigned int>(fd) + 1;
      }
      syscall(SYS_close_range, from, ~0U, 0U);
    }
    if (setup.prepare_) {
      const int error = setup.prepare_();
      if (error != 0) FailStart(status_w, setup.prepare_what_.c_str(), error);
    }
    if (program) {
      // As from a shell: nothing blocked, nothing ignored.
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      struct sigaction dfl = {};
      dfl.sa_handler = SIG_DFL;
      for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
      }
      execvp(argv[0], argv.data());
      FailStart(status_w, "exec", errno);
    }
    close(status_w);
    if (body.reporter) {
      const std::string report = body.reporter();
      for (size_t done = 0; done < report.size();) {
        const ssize_t n =
            write(report_w, report.data() + done, report.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(126);
        done += static_cast<size_t>(n);
      }
      _exit(0);
    }
    _exit(body.function());
  }

  close(status_pipe[1]);
  if (out_pipe[1] >= 0) close(out_pipe[1]);
  if (report_pipe[1] >= 0) close(report_pipe[1]);
  c.out_fd_ = out_pipe[0];
  c.report_fd_ = report_pipe[0];
  c.status_fd_ = status_pipe[0];
  if (pid < 0) {
    c.result_.error = absl::StrCat("fork: ", strerror(errno));
    c.CloseFds();
    return c;
  }
  c.pid_ = pid;
  c.result_.pid = pid;
  c.result_.end = ChildResult::End::kRunning;
  c.pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  SetNonBlocking(c.out_fd_);
  SetNonBlocking(c.report_fd_);
  SetNonBlocking(c.status_fd_);
  if (program) {
    // The pipe closes at the exec, or brings the reason it failed (a
    // function's is read once it has ended).  A child another thread
    // forked meanwhile may hold it open too: bounded.
    struct pollfd p = {c.status_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(kChildBound))) ==
        1) {
      StartFailure f;
      if (read(c.status_fd_, &f, sizeof(f)) == sizeof(f)) {
        c.Pump(absl::Now() + kChildBound);  // it exits at once
        f.what[sizeof(f.what) - 1] = '\0';
        c.result_.end = ChildResult::End::kNotStarted;
        c.result_.error = absl::StrCat(f.what, ": ", strerror(f.error));
      } else {
        close(c.status_fd_);
        c.status_fd_ = -1;
      }
    }
  }
  return c;
}

Child::~Child() {
  if (pid_ > 0) KillAndReap();
  CloseFds();
}

Child::Child(Child&& other) noexcept { *this = std::move(other); }

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) KillAndReap();
    CloseFds();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::exchange(other.pidfd_, -1);
    out_fd_ = std::exchange(other.out_fd_, -1);
    report_fd_ = std::exchange(other.report_fd_, -1);
    status_fd_ = std::exchange(other.status_fd_, -1);
    result_ = std::exchange(other.result_, ChildResult());
  }
  return *this;
}

void Child::CloseFds() {
  for (int* fd : {&pidfd_, &out_fd_, &report_fd_, &status_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

bool Child::TryReap() {
  if (pid_ <= 0) return true;
  int status = 0;
  pid_t got;
  do {
    got = waitpid(pid_, &status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == 0) return false;
  if (got < 0) {
    // Reaped by someone else (ECHILD): how it ended is not known.
    result_.end = ChildResult::End::kExited;
    result_.code = -1;
    pid_ = -1;
    return true;
  }
  Finish(status);
  return true;
}

void Child::Finish(int status) {
  pid_ = -1;
  if (WIFEXITED(status)) {
    result_.end = ChildResult::End::kExited;
    result_.code = WEXITSTATUS(status);
  } else {
    result_.end = ChildResult::End::kSignaled;
    result_.code = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
  }
  // All it wrote is in the pipes by now (what a process it started may
  // write later is not waited for).
  Drain(&out_fd_, &result_.output);
  Drain(&report_fd_, &result_.report);
  if (status_fd_ >= 0) {
    StartFailure f;
    if (read(status_fd_, &f, sizeof(f)) == sizeof(f)) {
      f.what[sizeof(f.what) - 1] = '\0';
      result_.end = ChildResult::End::kNotStarted;
      result_.error = absl::StrCat(f.what, ": ", strerror(f.error));
    }
  }
  CloseFds();
}

bool Child::Pump(absl::Time deadline, const std::function<bool()>& done) {
  for (;;) {
    Drain(&out_fd_, &result_.output);
    Drain(&report_fd_, &result_.report);
    if (TryReap()) return true;
    if (done && done()) return false;
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    struct pollfd fds[3];
    nfds_t n = 0;
    for (int fd : {pidfd_, out_fd_, report_fd_}) {
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    }
    int timeout_ms = static_cast<int>(std::min<int64_t>(
        absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))),
        1000 * 1000));
    if (pidfd_ < 0) timeout_ms = std::min(timeout_ms, kReapStepMs);
    poll(fds, n, timeout_ms);
  }
}

void Child::KillAndReap() {
  kill(pid_, SIGKILL);
  if (!Pump(absl::Now() + kChildBound)) {
    // In uninterruptible sleep for good (a FUSE request, a hung disk).
    ADD_FAILURE() << result_.what << " (pid " << result_.pid
                  << ") did not die within " << kChildBound
                  << " of SIGKILL; left behind";
    pid_ = -1;
  }
}

bool Child::Running() {
  if (pid_ <= 0) return false;
  return !Pump(absl::Now());
}

bool Child::WaitExit(absl::Duration bound) {
  if (pid_ <= 0) return result_.end != ChildResult::End::kNotStarted;
  return Pump(absl::Now() + bound);
}

bool Child::WaitForOutput(absl::string_view text, absl::Duration bound) {
  auto found = [&] {
    return result_.output.find(text.data(), 0, text.size()) !=
           std::string::npos;
  };
  if (pid_ > 0) Pump(absl::Now() + bound, found);
  return found();
}

const ChildResult& Child::Wait(absl::Duration bound) {
  if (pid_ <= 0 || Pump(absl::Now() + bound)) return result_;
  KillAndReap();
  result_.end = ChildResult::End::kKilledAtBound;
  result_.bound = bound;
  ADD_FAILURE() << result_.Describe()
                << (result_.output.empty() ? "" : "\noutput:\n")
                << result_.output;
  return result_;
}

const ChildResult& Child::Stop(int sig, absl::Duration bound) {
  if (pid_ > 0) kill(pid_, sig);
  return Wait(bound);
}

const ChildResult& Child::Kill() {
  if (pid_ > 0) KillAndReap();
  return result_;
}

ChildResult RunProgram(std::vector<std::string> argv, ChildSetup setup,
                       absl::Duration bound) {
  Child c = Child::Program(std::move(argv), std::move(setup));
  return c.Wait(bound);
}

ChildResult RunInChild(std::function<std::string()> body, ChildSetup setup,
                       absl::Duration bound) {
  Child c = Child::Start({.reporter = std::move(body)}, std::move(setup));
  return c.Wait(bound);
}

}  // namespace biosnoop::testing
