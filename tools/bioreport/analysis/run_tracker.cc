// Runs and their loss: which run each record belongs to (a headerless
// start of an input is resolved at its first header or its end) and the
// seq ranges that show events missing from the input.

#include "run_tracker.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "record.h"

namespace biosnoop::report {
namespace {

constexpr char kAnonymousRun[] = "\x01 before any header";

}  // namespace

bool SeqRanges::Add(uint64_t seq) {
  if (!ranges_.empty() && last_added_->second + 1 == seq) {
    const auto next = std::next(last_added_);
    if (next == ranges_.end() || next->first != seq + 1) {
      last_added_->second = seq;
      ++count_;
      return true;
    }
  }
  auto after = ranges_.upper_bound(seq);  // the first range starting after
  const bool has_before = after != ranges_.begin();
  const auto before = has_before ? std::prev(after) : ranges_.end();
  if (has_before && before->second >= seq) return false;
  const bool joins_before = has_before && before->second + 1 == seq;
  const bool joins_after = after != ranges_.end() && after->first == seq + 1;
  if (joins_before && joins_after) {
    before->second = after->second;
    ranges_.erase(after);
    last_added_ = before;
  } else if (joins_before) {
    before->second = seq;
    last_added_ = before;
  } else if (joins_after) {
    const uint64_t end = after->second;
    ranges_.erase(after);
    last_added_ = ranges_.emplace(seq, end).first;
  } else {
    last_added_ = ranges_.emplace(seq, seq).first;
  }
  ++count_;
  return true;
}

void RunTracker::StartInput() {
  if (inputs_ > 0) Finish();
  ++inputs_;
  current_ = nullptr;
  prefix_.reset();
  prefix_run_id_.clear();
  header_seen_ = false;
  // The first record of a headerless input opens it as a header would.
  after_header_ = true;
}

void RunTracker::Finish() {
  if (prefix_.has_value()) ResolvePrefix(nullptr);
  if (current_ != nullptr && !current_->host.empty()) {
    last_run_of_host_[current_->host] = current_key_;
  }
}

RunTracker::Run& RunTracker::Current() {
  if (current_ != nullptr) return *current_;
  // Run{} rather than emplace(): clang (which clang-tidy is) decides that
  // Run, with its default member initializers, is not default-constructible
  // inside RunTracker, where std::optional<Run> first asks.
  if (!prefix_.has_value()) prefix_ = Run{};
  return *prefix_;
}

RunTracker::Run* RunTracker::FindRunId(const std::string& run_id) {
  if (run_id.empty()) return nullptr;
  const auto it = run_ids_.find(run_id);
  return it == run_ids_.end() ? nullptr : &runs_[it->second];
}

void RunTracker::MergeInto(const Run& from, Run* to) {
  if (to->host.empty()) to->host = from.host;
  if (from.has_stats) {
    to->has_stats = true;
    to->final = to->final || from.final;
    to->lost = std::max(to->lost, from.lost);
    to->dropped = std::max(to->dropped, from.dropped);
    to->missed = std::max(to->missed, from.missed);
    to->unfinished = std::max(to->unfinished, from.unfinished);
    to->decode_errors = std::max(to->decode_errors, from.decode_errors);
    to->written = std::max(to->written, from.written);
    to->ops_lost = std::max(to->ops_lost, from.ops_lost);
    to->ops_untracked = std::max(to->ops_untracked, from.ops_untracked);
    to->ops_written = std::max(to->ops_written, from.ops_written);
  }
  if (from.ops_written_before.has_value() && to->op_ids.empty() &&
      !to->ops_written_before.has_value()) {
    to->ops_written_before = from.ops_written_before;
  }
  to->op_duplicates += from.op_duplicates;
  for (const auto& [first, last] : from.op_ids.ranges()) {
    for (uint64_t id = first;; ++id) {
      if (!to->op_ids.Add(id)) ++to->op_duplicates;
      if (id == last) break;
    }
  }
  if (from.written_before_events.has_value() && to->seqs.empty() &&
      !to->written_before_events.has_value()) {
    to->written_before_events = from.written_before_events;
  }
  to->duplicates += from.duplicates;
  for (const auto& [first, last] : from.seqs.ranges()) {
    for (uint64_t seq = first;; ++seq) {
      if (!to->seqs.Add(seq)) ++to->duplicates;
      if (seq == last) break;
    }
  }
}

void RunTracker::ResolvePrefix(Run* header_run) {
  Run prefix = std::move(*prefix_);
  prefix_.reset();
  Run* target = FindRunId(prefix_run_id_);
  if (target == nullptr && header_run != nullptr &&
      (prefix.host.empty() || header_run->host == prefix.host)) {
    target = header_run;
  }
  if (target == nullptr && !prefix.host.empty()) {
    const auto it = last_run_of_host_.find(prefix.host);
    if (it != last_run_of_host_.end()) target = &runs_[it->second];
  }
  if (target != nullptr) {
    MergeInto(prefix, target);
    return;
  }
  Run& anonymous = runs_[absl::StrCat(kAnonymousRun, " ", inputs_)];
  MergeInto(prefix, &anonymous);
}

void RunTracker::AddHeader(const v1::StreamHeader& h) {
  current_key_ = absl::StrCat(h.boot_id(), "/", ToNs(h.start_time()));
  current_ = &runs_[current_key_];
  current_->host = h.host();
  if (!h.run_id().empty()) {
    current_->run_id = h.run_id();
    run_ids_[h.run_id()] = current_key_;
  }
  after_header_ = true;
  if (!header_seen_) {
    header_seen_ = true;
    if (prefix_.has_value()) ResolvePrefix(current_);
  }
}

void RunTracker::AddStats(const v1::Stats& s) {
  Run* run = &Current();
  Run* named = FindRunId(s.run_id());
  if (named != nullptr && named != run) {
    if (current_ != nullptr) {
      // After another run's header: two biosnoops write this file.
      current_->mixed = true;
      named->mixed = true;
    }
    run = named;
  } else if (current_ == nullptr && !s.run_id().empty()) {
    prefix_run_id_ = s.run_id();
  }
  // Counters are cumulative, so a run's totals are the highest each one
  // reached, whatever order its files were read in (a run's rotated files
  // all share its header's time, so nothing else orders them for sure).
  run->has_stats = true;
  run->final = run->final || s.final();
  run->lost = std::max(run->lost, s.lost());
  run->dropped = std::max(run->dropped, s.dropped());
  run->missed = std::max(run->missed, s.missed());
  run->unfinished = std::max(run->unfinished, s.unfinished());
  run->decode_errors = std::max(run->decode_errors, s.decode_errors());
  // Only a stats record that opens the run's part of an input (SIGHUP
  // writes one right after the new file's header) counts the events of
  // earlier files: one later in a file that starts with the run's header
  // counts events that should be in this one.  SIGHUP's record is never
  // final: a final one right after the header ends a run whose events are
  // all missing from this file, not in an earlier one.
  const bool opens_file = after_header_ && !s.final() && run == &Current();
  if (opens_file && run->seqs.empty() &&
      !run->written_before_events.has_value()) {
    run->written_before_events = s.written();
  }
  run->written = std::max(run->written, s.written());
  if (opens_file && run->op_ids.empty() &&
      !run->ops_written_before.has_value()) {
    run->ops_written_before = s.ops_written();
  }
  run->ops_lost = std::max(run->ops_lost, s.ops_lost());
  run->ops_untracked = std::max(run->ops_untracked, s.ops_untracked());
  run->ops_written = std::max(run->ops_written, s.ops_written());
  after_header_ = false;
}

void RunTracker::AddEvent(uint64_t seq, absl::string_view host) {
  after_header_ = false;
  if (current_ == nullptr && (!prefix_.has_value() || prefix_->host.empty())) {
    Current().host = std::string(host);
  }
  if (seq == 0) return;
  Run& run = Current();
  if (!run.seqs.Add(seq)) ++run.duplicates;
}

void RunTracker::AddOp(uint64_t op_id, absl::string_view host) {
  after_header_ = false;
  if (current_ == nullptr && (!prefix_.has_value() || prefix_->host.empty())) {
    Current().host = std::string(host);
  }
  if (op_id == 0) return;  // the readers refuse it; kept out all the same
  Run& run = Current();
  if (!run.op_ids.Add(op_id)) ++run.op_duplicates;
}

LossSummary RunTracker::Loss(absl::string_view host) const {
  LossSummary loss;
  for (const auto& [key, run] : runs_) {
    if (!host.empty() && run.host != host) continue;
    ++loss.runs;
    if (run.mixed) {
      ++loss.mixed_runs;
    } else {
      loss.duplicates += run.duplicates;
      // Numbers 1..before are in earlier files; the others up to the last
      // `written` should be here.
      const SeqRanges& q = run.seqs;
      uint64_t before = q.empty() ? run.written : q.first() - 1;
      if (run.written_before_events.has_value()) {
        before = std::min(before, *run.written_before_events);
      } else if (q.empty()) {
        before = 0;  // none of its events is here: all are missing
      }
      const uint64_t expected = std::max(run.written, q.empty() ? 0 : q.last());
      loss.before_input += before;
      loss.not_in_input += expected - before - q.count();
      loss.ops_duplicates += run.op_duplicates;
      // The op records a run wrote, but those counted by a stats record
      // that opens its part of the input (in earlier files), less those
      // here.
      const uint64_t ops_expected =
          run.ops_written -
          std::min(run.ops_written, run.ops_written_before.value_or(0));
      if (ops_expected > run.op_ids.count()) {
        loss.ops_not_in_input += ops_expected - run.op_ids.count();
      }
    }
    loss.ops_read += run.op_ids.count();
    if (!run.has_stats) {
      ++loss.runs_without_stats;
      continue;
    }
    loss.any_stats = true;
    if (!run.final) ++loss.runs_not_final;
    loss.lost += run.lost;
    loss.dropped += run.dropped;
    loss.missed += run.missed;
    loss.unfinished += run.unfinished;
    loss.decode_errors += run.decode_errors;
    loss.ops_lost += run.ops_lost;
    loss.ops_untracked += run.ops_untracked;
  }
  return loss;
}

}  // namespace biosnoop::report
