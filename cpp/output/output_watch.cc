// Loss and a blocked output said on stderr, from a thread of its own
// (output_watch.h).

#include "output_watch.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_format.h"
#include "wall_clock.h"

namespace biosnoop {
namespace {

constexpr uint64_t kNsPerS = 1000000000;

uint64_t Seconds(uint64_t ns) { return ns / kNsPerS; }

}  // namespace

LossReporter::LossReporter(std::string output, bool has_reader)
    : output_(std::move(output)), has_reader_(has_reader) {}

std::vector<std::string> LossReporter::Next(const Look& look) {
  std::vector<std::string> lines;
  const bool writing = look.write_started_ns != 0;
  const uint64_t writing_ns = writing && look.now_ns > look.write_started_ns
                                  ? look.now_ns - look.write_started_ns
                                  : 0;

  if (blocked_) {
    if (writing) {
      // Still blocked, or blocked again right after a write went through
      // (a reader that takes a little now and then): one episode.
      if (look.now_ns - last_line_ns_ >= kRepeatEveryNs) {
        lines.push_back(absl::StrFormat(
            "biosnoop: writing %s still blocked after %d s; %d events lost "
            "in the last %d s, %d since start.",
            output_, Seconds(look.now_ns - blocked_since_ns_),
            look.lost - lost_reported_, Seconds(look.now_ns - last_line_ns_),
            look.lost));
        lost_reported_ = look.lost;
        last_line_ns_ = look.now_ns;
      }
      return lines;
    }
    blocked_ = false;
    lines.push_back(absl::StrFormat(
        "biosnoop: writing %s went through again after about %d s blocked; "
        "%d events were lost meanwhile (%d since start).",
        output_, Seconds(look.now_ns - blocked_since_ns_),
        look.lost - lost_before_, look.lost));
    lost_reported_ = look.lost;
    return lines;
  }

  if (writing_ns >= kBlockedAfterNs) {
    blocked_ = true;
    blocked_since_ns_ = look.write_started_ns;
    lost_before_ = lost_reported_;
    last_line_ns_ = look.now_ns;
    lines.push_back(absl::StrFormat(
        "biosnoop: writing %s has been blocked for %d s: %s. Events wait in "
        "the kernel's ring buffer meanwhile and are lost once it is full (%d "
        "lost since start).",
        output_, Seconds(writing_ns),
        has_reader_ ? "the reader is not taking the output"
                    : "the file system has not completed the write",
        look.lost));
    lost_reported_ = look.lost;
    return lines;
  }

  // Loss while a write is under way may be the start of an episode: it
  // is said with the episode, or at the next look once the write is done.
  if (!writing && look.lost > lost_reported_) {
    lines.push_back(absl::StrFormat(
        "biosnoop: lost %d events (kernel ring buffer full); %d lost since "
        "start. Raise --ringbuf-kib or --min-us.",
        look.lost - lost_reported_, look.lost));
    lost_reported_ = look.lost;
  }
  return lines;
}

OutputWatch::OutputWatch(LossReporter reporter,
                         std::function<uint64_t()> write_started,
                         std::function<absl::StatusOr<uint64_t>()> read_lost,
                         std::FILE* diag, uint64_t period_ns)
    : reporter_(std::move(reporter)),
      write_started_(std::move(write_started)),
      read_lost_(std::move(read_lost)),
      diag_(diag),
      period_ns_(period_ns) {
  // The new thread inherits this mask: every signal blocked there, so the
  // process-directed ones (SIGINT, SIGTERM, the timer's SIGALRM) go to
  // the writer thread, whose blocked write(2) or poll they must cut short.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  thread_ = std::thread([this] { Loop(); });
  // So it can be told apart (`top -H`, /proc/<pid>/task/*/comm).
  pthread_setname_np(thread_.native_handle(), kThreadName);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

OutputWatch::~OutputWatch() { Stop(); }

void OutputWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OutputWatch::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::nanoseconds(period_ns_),
                         [this] { return stop_; })) {
    // Looked at unlocked: reading the kernel's counters is a system call.
    lock.unlock();
    // In this order, so that now_ns is never before the write's start.
    LossReporter::Look look;
    look.write_started_ns = write_started_();
    absl::StatusOr<uint64_t> lost = read_lost_();
    look.now_ns = MonotonicNs();
    lock.lock();
    if (!lost.ok() || stop_) continue;
    look.lost = *lost;
    for (const std::string& line : reporter_.Next(look)) {
      absl::FPrintF(diag_, "%s\n", line);
    }
  }
}

}  // namespace biosnoop
