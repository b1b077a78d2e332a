#include "delay_queue.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <utility>
#include <vector>

namespace biosnoop::slowdisk {

DelayQueue::DelayQueue() {
  // The new thread inherits the creator's mask; block everything for the
  // spawn only, so the creator keeps receiving signals.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  thread_ = std::thread([this] { Loop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

DelayQueue::~DelayQueue() { Shutdown(); }

void DelayQueue::RunAfter(std::chrono::microseconds delay,
                          std::function<void()> fn) {
  if (delay.count() > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      due_.emplace(Clock::now() + delay, std::move(fn));
      cv_.notify_one();
      return;
    }
  }
  fn();
}

void DelayQueue::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_one();
  }
  // Join first: the thread may be running a batch it already took, and the
  // caller is about to destroy what those callbacks reply to.
  if (thread_.joinable()) thread_.join();
  std::multimap<Clock::time_point, std::function<void()>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(due_);
  }
  for (auto& [when, fn] : left) fn();
}

void DelayQueue::Loop() {
  // The kernel may wake a timed wait up to the thread's timer slack late
  // (50 us by default): nothing for a delay of milliseconds, but as much
  // again for a fast delay of 50 us.  1 ns: woken when due.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (due_.empty()) {
      cv_.wait(lock);
      continue;
    }
    Clock::time_point next = due_.begin()->first;
    if (Clock::now() < next) {
      cv_.wait_until(lock, next);
      continue;
    }
    // Take everything due and run it unlocked: callbacks reply to the
    // kernel, and new requests must be able to park meanwhile.
    std::vector<std::function<void()>> ready;
    Clock::time_point now = Clock::now();
    while (!due_.empty() && due_.begin()->first <= now) {
      ready.push_back(std::move(due_.begin()->second));
      due_.erase(due_.begin());
    }
    lock.unlock();
    for (std::function<void()>& fn : ready) fn();
    lock.lock();
  }
}

}  // namespace biosnoop::slowdisk
