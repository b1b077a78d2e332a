// The kernel counters' names as the summary line prints them (counters.h).

#include "counters.h"

namespace biosnoop {

const char* CounterName(int index) {
  switch (index) {
    case BIOSNOOP_CTR_COMPLETIONS:
      return "completions";
    case BIOSNOOP_CTR_EMITTED:
      return "emitted";
    case BIOSNOOP_CTR_LOST:
      return "lost";
    case BIOSNOOP_CTR_ORPHANS:
      return "orphans";
    case BIOSNOOP_CTR_MISSED_REUSE:
      return "missed_reuse";
    case BIOSNOOP_CTR_MAP_FULL:
      return "inflight_full";
    case BIOSNOOP_CTR_FILTERED:
      return "filtered";
    case BIOSNOOP_CTR_BELOW_THRESHOLD:
      return "below_threshold";
    case BIOSNOOP_CTR_RQ_MERGES:
      return "request_merges";
    case BIOSNOOP_CTR_PARTIAL:
      return "partial_completions";
    case BIOSNOOP_CTR_REQUEUES:
      return "requeues";
    case BIOSNOOP_CTR_ISSUE_UNSUBMITTED:
      return "issued_unsubmitted";
    case BIOSNOOP_CTR_HIST_FULL:
      return "hist_full";
    case BIOSNOOP_CTR_RESCUED_COMPLETE:
      return "rescued_complete";
    case BIOSNOOP_CTR_ORPHANS_UNISSUED:
      return "orphans_unissued";
    case BIOSNOOP_CTR_LEDGER_MISSES:
      return "ledger_misses";
    case BIOSNOOP_CTR_LEDGER_REPLACED:
      return "ledger_replaced";
    case BIOSNOOP_CTR_LEDGER_STALE:
      return "ledger_stale";
    case BIOSNOOP_CTR_ATTR_LOST:
      return "attr_lost";
    case BIOSNOOP_CTR_OPS_STARTED:
      return "ops_started";
    case BIOSNOOP_CTR_OPS_EMITTED:
      return "ops_emitted";
    case BIOSNOOP_CTR_OPS_LOST:
      return "ops_lost";
    case BIOSNOOP_CTR_OPS_UNTRACKED:
      return "ops_untracked";
    case BIOSNOOP_CTR_OPS_UNFOLLOWED:
      return "ops_unfollowed";
    default:
      return "unknown";
  }
}

}  // namespace biosnoop
