// The causes of the calls' latency: per call, each layer's wait and its
// culprits added to six sums; the slowest calls kept in a small sorted
// vector, so that "steady" is the sums over all minus those over them.

#include "why.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

namespace biosnoop::report {
namespace {

// Slowest first; then a fixed order, so that the report is the same
// whatever order the inputs were read in.
bool Slower(const OpCall& a, const OpCall& b) {
  if (a.op.latency_us() != b.op.latency_us()) {
    return a.op.latency_us() > b.op.latency_us();
  }
  return std::make_tuple(a.ns, a.op.op_id(), std::cref(a.op.host())) <
         std::make_tuple(b.ns, b.op.op_id(), std::cref(b.op.host()));
}

const v1::OpLayer& LayerOf(const v1::Op& op, Cause c) {
  switch (c) {
    case Cause::kBlock:
      return op.block();
    case Cause::kWriteback:
      return op.writeback();
    case Cause::kJournal:
      return op.journal();
    case Cause::kFlush:
      return op.flush();
    case Cause::kThrottle:
      return op.throttle();
    default:
      return op.others_writeback();
  }
}

CulpritKey KeyOf(const std::string& host, const v1::OpCulprit& c) {
  return CulpritKey{.host = host,
                    .pid = c.pid(),
                    .comm = c.comm(),
                    .cgroup = c.cgroup(),
                    .cgroup_id = c.cgroup_id(),
                    .container_id = c.container_id(),
                    .pod_uid = c.pod_uid(),
                    .role = c.role()};
}

}  // namespace

absl::string_view CauseName(Cause c) {
  static constexpr absl::string_view kNames[kCauses] = {
      "block",    "writeback", "journal", "flush", "others_writeback",
      "throttle", "other"};
  return kNames[static_cast<size_t>(c)];
}

void WhyTotals::Add(const v1::Op& op) {
  ++calls;
  latency_us += op.latency_us();
  for (size_t i = 0; i + 1 < kCauses; ++i) {
    const v1::OpLayer& l = LayerOf(op, static_cast<Cause>(i));
    CauseFigures& f = causes[i];
    f.wait_us += l.wait_us();
    f.requests += l.requests();
    f.bytes += l.bytes();
    // A task named twice in one layer (it should not be) counts one call.
    std::vector<const CulpritKey*> seen;
    for (const v1::OpCulprit& c : l.culprits()) {
      auto [it, added] = f.culprits.try_emplace(KeyOf(op.host(), c));
      CulpritFigures& g = it->second;
      if (std::find(seen.begin(), seen.end(), &it->first) == seen.end()) {
        ++g.calls;
        seen.push_back(&it->first);
      }
      g.requests += c.requests();
      g.bytes += c.bytes();
      g.wait_us += c.wait_us();
    }
  }
  causes[static_cast<size_t>(Cause::kOther)].wait_us += op.other_us();
}

void WhyTotals::Subtract(const WhyTotals& part) {
  calls -= part.calls;
  latency_us -= part.latency_us;
  for (size_t i = 0; i < kCauses; ++i) {
    CauseFigures& f = causes[i];
    const CauseFigures& p = part.causes[i];
    f.wait_us -= p.wait_us;
    f.requests -= p.requests;
    f.bytes -= p.bytes;
    for (const auto& [key, pf] : p.culprits) {
      const auto it = f.culprits.find(key);
      if (it == f.culprits.end()) continue;  // not a subset: nothing to take
      CulpritFigures& g = it->second;
      g.calls -= pf.calls;
      g.requests -= pf.requests;
      g.bytes -= pf.bytes;
      g.wait_us -= pf.wait_us;
      if (g.calls == 0) f.culprits.erase(it);
    }
  }
}

Sum WhyTotals::CausesUs() const {
  Sum s = 0;
  for (const CauseFigures& f : causes) s += f.wait_us;
  return s;
}

void WhyCollector::Add(const v1::Op& op, int64_t ns) {
  all_.Add(op);
  if (kept_.size() == slowest_ &&
      op.latency_us() < kept_.back().op.latency_us()) {
    return;
  }
  OpCall call{ns, "", op};
  kept_.insert(std::upper_bound(kept_.begin(), kept_.end(), call, Slower),
               std::move(call));
  if (kept_.size() > slowest_) kept_.pop_back();
}

WhyTotals WhyCollector::Worst() const {
  WhyTotals t;
  for (const OpCall& c : kept_) t.Add(c.op);
  return t;
}

WhyTotals WhyCollector::Steady() const {
  WhyTotals t = all_;
  t.Subtract(Worst());
  return t;
}

std::vector<Cause> RankedCauses(const WhyTotals& t) {
  std::vector<Cause> v;
  for (size_t i = 0; i < kCauses; ++i) v.push_back(static_cast<Cause>(i));
  std::stable_sort(v.begin(), v.end(), [&](Cause a, Cause b) {
    return t.of(a).wait_us > t.of(b).wait_us;
  });
  return v;
}

std::vector<std::pair<CulpritKey, CulpritFigures>> RankedCulprits(
    const CauseFigures& c) {
  std::vector<std::pair<CulpritKey, CulpritFigures>> v(c.culprits.begin(),
                                                       c.culprits.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second.wait_us > b.second.wait_us;
  });
  return v;
}

std::array<int, kCauses> SharesPermille(const WhyTotals& t) {
  std::array<int, kCauses> out{};
  const Sum total = t.CausesUs();
  if (total == 0) return out;
  // Floors first, then the tenths left go to the largest remainders
  // (ties to the earlier cause), so that the column sums to 100.0%.
  std::array<Sum, kCauses> rest{};
  int given = 0;
  for (size_t i = 0; i < kCauses; ++i) {
    const Sum scaled = t.causes[i].wait_us * 1000;
    out[i] = static_cast<int>(scaled / total);
    rest[i] = scaled % total;
    given += out[i];
  }
  std::array<size_t, kCauses> order{};
  for (size_t i = 0; i < kCauses; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rest[a] > rest[b]; });
  for (size_t k = 0; given < 1000 && k < kCauses; ++k, ++given) {
    ++out[order[k]];
  }
  return out;
}

}  // namespace biosnoop::report
