// The process's signal state: stop and reopen requests, the --duration timer,
// interruptible writes (signals.h).

#include "signals.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

namespace biosnoop {
namespace {

// Read from other threads too (the stderr stream's writes, the output
// watch's): an atomic, lock-free and so safe to set in a handler.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
volatile sig_atomic_t g_reopen = 0;
// Inside an InterruptibleWrite.
volatile sig_atomic_t g_in_write = 0;
// One timer for both of its uses, which never overlap: until a stop it
// ends --duration; after one, it wakes a blocked write.  It raises
// SIGALRM, a stop signal like SIGTERM.
timer_t g_timer;
volatile sig_atomic_t g_timer_ready = 0;

void ArmTimer(int64_t ns) {
  struct itimerspec when = {};
  when.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
  when.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
  timer_settime(g_timer, 0, &when, nullptr);  // async-signal-safe
}

void ArmWriteWakeup() {
  ArmTimer(absl::ToInt64Nanoseconds(InterruptibleWrite::kWriteWakeup));
}

void OnStopSignal(int) {
  const int saved_errno = errno;
  g_stop.store(true);
  // A write blocked on a pipe nobody reads returns EINTR for this signal
  // (no SA_RESTART), or a short count; the next write(2) then blocks
  // again with no signal to come.  So while a write is under way, wake it
  // again in a while, and again (each wakeup is this handler once more),
  // until the writer gives up or finishes.  Armed here, not by the
  // writer, so a stop that lands between its check and its write(2)
  // cannot leave it blocked for good.
  if (g_in_write && g_timer_ready) ArmWriteWakeup();
  errno = saved_errno;
}

void OnHangup(int) { g_reopen = 1; }

}  // namespace

void InstallSignalHandlers() {
  struct sigaction sa = {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = OnStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGALRM, &sa, nullptr);
  sa.sa_handler = OnHangup;
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  if (g_timer_ready == 0) {
    struct sigevent sev = {};
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGALRM;
    if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) == 0) g_timer_ready = 1;
  }
}

void RequestStopAfter(absl::Duration after) {
  if (g_timer_ready == 0) return;
  // At least 1 ns: a zero it_value would disarm the timer instead.
  ArmTimer(std::max<int64_t>(absl::ToInt64Nanoseconds(after), 1));
}

bool StopRequested() { return g_stop.load(); }

bool TakeReopenRequest() {
  if (g_reopen == 0) return false;
  g_reopen = 0;
  return true;
}

InterruptibleWrite::InterruptibleWrite() {
  g_in_write = 1;
  // A stop that came before the flag was set armed nothing.
  if (g_stop && g_timer_ready) ArmWriteWakeup();
}

InterruptibleWrite::~InterruptibleWrite() {
  g_in_write = 0;
  // Once stopping the timer only wakes writes: disarm it.  (Before a
  // stop it holds the end of --duration, which must stay.)
  if (g_stop && g_timer_ready) ArmTimer(0);
}

}  // namespace biosnoop
