// The calls: the slowest in a small sorted vector (a full one is entered
// only by a slower call), every call's four times per process and per
// file, and the records of the --op-id call tagged with their run.

#include "ops.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "record.h"

namespace biosnoop::report {
namespace {

// Slowest first; then a fixed order, so that reports are the same
// whatever order the inputs were read in.
bool Slower(const OpCall& a, const OpCall& b) {
  if (a.op.latency_us() != b.op.latency_us()) {
    return a.op.latency_us() > b.op.latency_us();
  }
  return std::make_tuple(a.ns, a.op.op_id(), std::cref(a.op.host()),
                         std::cref(a.run)) <
         std::make_tuple(b.ns, b.op.op_id(), std::cref(b.op.host()),
                         std::cref(b.run));
}

void AddTo(OpGroup& g, const v1::Op& op) {
  ++g.count;
  if (op.error_code() != 0) ++g.errors;
  g.bytes_done += op.bytes_done();
  g.requests += op.block().requests() + op.writeback().requests();
  g.total_us.push_back(op.latency_us());
  g.block_us.push_back(op.block().wait_us());
  g.writeback_us.push_back(op.writeback().wait_us());
  g.journal_us.push_back(op.journal().wait_us());
  g.flush_us.push_back(op.flush().wait_us());
  g.others_writeback_us.push_back(op.others_writeback().wait_us());
  g.throttle_us.push_back(op.throttle().wait_us());
  g.other_us.push_back(op.other_us());
}

bool NamesCall(const v1::Event& e, uint64_t id) {
  if (e.has_dirtied_by() && e.dirtied_by().op_id() == id) return true;
  return std::find(e.dirtier_op_ids().begin(), e.dirtier_op_ids().end(), id) !=
         e.dirtier_op_ids().end();
}

}  // namespace

std::string FileName(const v1::FileRef& f) {
  if (!f.path().empty()) return f.path();
  if (f.inode() != 0 || !f.dev().empty()) {
    return absl::StrCat("inode ", f.inode(), " on ", f.dev());
  }
  return "(unknown)";
}

void OpCollector::AddHeader(const v1::StreamHeader& h) {
  ++headers_.headers;
  if (h.ops()) {
    ++headers_.ops_headers;
    headers_.op_min_us.insert(h.op_min_us());
  }
  run_ = h.run_id().empty()
             ? absl::StrCat(h.boot_id(), "/", ToNs(h.start_time()))
             : h.run_id();
  runs_of_host_[h.host()].insert(run_);
}

void OpCollector::Add(const v1::Op& op, int64_t ns) {
  ++selected_;
  if (op_id_.has_value()) {
    if (op.op_id() == *op_id_) matches_.push_back({ns, run_, op});
    return;
  }
  OpGroup& p = processes_[{op.host(), op.pid(), op.comm()}];
  if (p.count == 0) {
    p.host = op.host();
    p.pid = op.pid();
    p.name = op.comm();
  }
  AddTo(p, op);
  const std::string file = FileName(op.file());
  OpGroup& f = files_[{op.host(), file}];
  if (f.count == 0) {
    f.host = op.host();
    f.name = file;
  }
  AddTo(f, op);

  if (top_ == 0) return;
  if (slowest_.size() == top_ &&
      op.latency_us() < slowest_.back().op.latency_us()) {
    return;
  }
  OpCall call{ns, run_, op};
  slowest_.insert(
      std::upper_bound(slowest_.begin(), slowest_.end(), call, Slower),
      std::move(call));
  if (slowest_.size() > top_) slowest_.pop_back();
}

OpRequest OpCollector::RequestOf(const v1::Event& e, int64_t ns) const {
  OpRequest r;
  r.ns = ns;
  r.run = run_;
  r.host = e.host();
  r.disk = e.disk();
  r.op = e.op();
  r.sector = e.sector();
  r.bytes = e.bytes();
  r.latency_us = e.latency_us();
  if (e.has_queue_us()) r.queue_us = e.queue_us();
  r.device_us = e.device_us();
  r.pid = e.pid();
  r.comm = e.comm();
  if (e.error_code() != 0) {
    r.error =
        e.has_error() ? e.error() : absl::StrCat("errno ", e.error_code());
  }
  r.seq = e.seq();
  return r;
}

void OpCollector::AddEvent(const v1::Event& e, int64_t ns) {
  if (!op_id_.has_value()) return;
  if (e.op_id() == *op_id_) submitted_.push_back(RequestOf(e, ns));
  if (NamesCall(e, *op_id_)) written_.push_back(RequestOf(e, ns));
}

void OpCollector::AddStuck(const v1::Stuck& k, int64_t ns) {
  if (!op_id_.has_value() || k.op_id() != *op_id_) return;
  OpRequest r;
  r.ns = ns;
  r.run = run_;
  r.host = k.host();
  r.disk = k.disk();
  r.op = k.op();
  r.sector = k.sector();
  r.bytes = k.bytes();
  r.latency_us = k.inflight_us();
  if (k.has_queue_us()) r.queue_us = k.queue_us();
  r.pid = k.pid();
  r.comm = k.comm();
  stuck_.push_back(std::move(r));
}

std::string OpCollector::ResolveRun(const std::string& run,
                                    const std::string& host) const {
  if (!run.empty()) return run;
  const auto it = runs_of_host_.find(host);
  if (it != runs_of_host_.end() && it->second.size() == 1) {
    return *it->second.begin();
  }
  return "";
}

std::vector<OpRequest> OpCollector::Resolved(std::vector<OpRequest> v) const {
  for (OpRequest& r : v) r.run = ResolveRun(r.run, r.host);
  return v;
}

std::vector<OpCall> OpCollector::Matches() const {
  std::vector<OpCall> out = matches_;
  for (OpCall& c : out) c.run = ResolveRun(c.run, c.op.host());
  return out;
}

std::set<std::string> OpCollector::Runs() const {
  std::set<std::string> runs;
  for (const OpCall& c : Matches()) runs.insert(c.run);
  for (const auto* v : {&submitted_, &written_, &stuck_}) {
    for (const OpRequest& r : *v) runs.insert(ResolveRun(r.run, r.host));
  }
  return runs;
}

}  // namespace biosnoop::report
