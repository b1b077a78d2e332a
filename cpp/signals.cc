#include "signals.h"

#include <signal.h>

namespace biosnoop {
namespace {

volatile sig_atomic_t g_stop = 0;
volatile sig_atomic_t g_reopen = 0;

void OnStopSignal(int) { g_stop = 1; }
void OnHangup(int) { g_reopen = 1; }

}  // namespace

void InstallSignalHandlers() {
  struct sigaction sa = {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = OnStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = OnHangup;
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
}

bool StopRequested() { return g_stop != 0; }

bool TakeReopenRequest() {
  if (g_reopen == 0) return false;
  g_reopen = 0;
  return true;
}

}  // namespace biosnoop
