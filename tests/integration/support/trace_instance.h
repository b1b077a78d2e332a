#pragma once

// A tracefs instance of the tests' own (the global trace buffer is left
// alone) recording one disk's block_rq_complete lines, and any other
// events asked for; tracefs is mounted for it if it is not, and unmounted
// again.  Tests parse its trace() text themselves.

#include <string>
#include <vector>

namespace biosnoop::testing {

class TraceInstance {
 public:
  // `name` tells instances apart (the pid is added); `buffer_kb` 0 keeps
  // the kernel's default size; `extra_events` are "system/event" names.
  TraceInstance(const std::string& disk, const std::string& name,
                int buffer_kb = 0,
                const std::vector<std::string>& extra_events = {});
  ~TraceInstance();
  TraceInstance(const TraceInstance&) = delete;
  TraceInstance& operator=(const TraceInstance&) = delete;

  bool ok() const { return ok_; }
  // The instance's trace so far.
  std::string trace() const;

  // A line's "block_rq_complete: 7,3 RA () 2048 + 8 ..." fields: rwbs and
  // sector; false for any other line (a comm may hold spaces: parsed from
  // the event's name on).
  static bool ParseCompletion(const std::string& line, std::string* rwbs,
                              uint64_t* sector);

 private:
  bool mounted_ = false;
  bool ok_ = false;
  std::string dir_;
};

}  // namespace biosnoop::testing
