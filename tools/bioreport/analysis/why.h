#pragma once

// What the selected calls waited for (biosnoop --ops op records), for
// `bioreport why`: their latency split into six causes, the five layers
// of an op record (block, writeback, journal, flush, others_writeback)
// and what remains (other_us), each with the tasks behind it (the layers'
// culprits: dirtiers and submitters), summed over a set of calls.
//
// The collector keeps the --slowest N of the calls it is given and the
// sums over all of them, so that the report can set the slowest ("worst")
// against the rest ("steady") without keeping every call.  Which calls it
// is given (filters, --op-id) is the caller's choice.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/string_view.h"
#include "aggregator.h"
#include "biosnoop.pb.h"
#include "ops.h"

namespace biosnoop::report {

// In the order of the op record; kOther is latency_us minus the layers.
enum class Cause {
  kBlock,
  kWriteback,
  kJournal,
  kFlush,
  kOthersWriteback,
  kThrottle,
  kOther
};
inline constexpr size_t kCauses = 7;
// "block", "writeback", "journal", "flush", "others_writeback",
// "throttle", "other".
absl::string_view CauseName(Cause c);

// One task behind a layer's requests, as OpCulprit names it, on its host.
struct CulpritKey {
  std::string host;
  uint32_t pid = 0;
  std::string comm;
  std::string cgroup;  // "" when not known
  uint64_t cgroup_id = 0;
  std::string container_id;  // "" when none
  std::string pod_uid;       // "" when none
  std::string role;          // "dirtier" or "submitter"

  auto Tie() const {
    return std::tie(host, pid, comm, cgroup, cgroup_id, container_id, pod_uid,
                    role);
  }
  bool operator<(const CulpritKey& o) const { return Tie() < o.Tie(); }
};

struct CulpritFigures {
  uint64_t calls = 0;  // calls that waited for it (in this layer)
  Sum requests = 0;
  Sum bytes = 0;
  Sum wait_us = 0;
};

struct CauseFigures {
  Sum wait_us = 0;  // kOther: other_us
  Sum requests = 0;
  Sum bytes = 0;
  std::map<CulpritKey, CulpritFigures> culprits;
};

// The sums over a set of calls.
struct WhyTotals {
  uint64_t calls = 0;
  Sum latency_us = 0;
  std::array<CauseFigures, kCauses> causes;

  void Add(const v1::Op& op);
  // Takes away a subset's sums (a culprit whose calls all go is removed).
  void Subtract(const WhyTotals& part);
  const CauseFigures& of(Cause c) const {
    return causes[static_cast<size_t>(c)];
  }
  // The sum of the six causes: latency_us unless layers overlapped (then
  // other_us is 0 and the layers sum to more).
  Sum CausesUs() const;
};

class WhyCollector {
 public:
  // `slowest`: how many of the slowest calls are kept (at least 1).
  explicit WhyCollector(size_t slowest) : slowest_(slowest) {}

  // A selected call.
  void Add(const v1::Op& op, int64_t ns);

  uint64_t selected() const { return all_.calls; }
  // The slowest calls, slowest first (ties: earliest, then op_id, host).
  const std::vector<OpCall>& Slowest() const { return kept_; }
  // The sums over the slowest calls, over the others, over all.
  WhyTotals Worst() const;
  WhyTotals Steady() const;
  const WhyTotals& All() const { return all_; }

 private:
  size_t slowest_;
  std::vector<OpCall> kept_;
  WhyTotals all_;
};

// The causes of `t` ranked: most time first, ties in the order of Cause.
std::vector<Cause> RankedCauses(const WhyTotals& t);
// A cause's culprits ranked: most waited-for first, then by key.
std::vector<std::pair<CulpritKey, CulpritFigures>> RankedCulprits(
    const CauseFigures& c);
// Each cause's share of CausesUs() in tenths of a percent, rounded so that
// they sum to exactly 1000 (largest remainder) unless all are 0.
std::array<int, kCauses> SharesPermille(const WhyTotals& t);

}  // namespace biosnoop::report
