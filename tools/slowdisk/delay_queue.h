#pragma once

// Runs callbacks after a delay on one timer thread.  This is what lets
// slowdisk hold many requests at once: a delayed FUSE request parks here
// instead of occupying a worker thread in sleep(), so 64 requests delayed
// 20 ms are all answered about 20 ms after they arrived.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace biosnoop::slowdisk {

class DelayQueue {
 public:
  // Starts the timer thread with all signals blocked, so SIGTERM/SIGINT
  // reach the FUSE loop's handlers.
  DelayQueue();
  // Shutdown().
  ~DelayQueue();
  DelayQueue(const DelayQueue&) = delete;
  DelayQueue& operator=(const DelayQueue&) = delete;

  // Runs fn on the timer thread no earlier than `delay` from now; with a
  // zero delay, runs it on the calling thread before returning.  After
  // Shutdown(), runs fn at once on the caller.
  void RunAfter(std::chrono::microseconds delay, std::function<void()> fn);

  // Stops the timer thread and runs everything still waiting, now; later
  // RunAfter calls run inline.  Every callback runs exactly once, so every
  // parked FUSE request gets its reply.  Idempotent.
  void Shutdown();

 private:
  using Clock = std::chrono::steady_clock;
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, std::function<void()>> due_;  // by mu_
  bool stopping_ = false;                                        // by mu_
  std::thread thread_;
};

}  // namespace biosnoop::slowdisk
