// Stuck records are found and written in two calls, so that a table error
// (fatal) and a sink error (ends the run cleanly) reach the run apart.

#include "stuck_watch.h"

#include "decoder.h"
#include "status_macros.h"

namespace biosnoop {

absl::Status StuckWatch::Look(uint64_t now_ns, Enricher& enricher) {
  found_.clear();
  ASSIGN_OR_RETURN(std::vector<biosnoop_inflight_val> stuck,
                   finder_.Look(now_ns));
  for (const biosnoop_inflight_val& v : stuck) {
    StuckRequest& s = found_.emplace_back(DecodeStuck(v, now_ns));
    // Its files: a walk that fails or does not add up leaves the record
    // without them (as a discarded walk does), never stops the run.
    absl::StatusOr<std::string> files = table_.StuckFiles(v.rq, v.issue_ns);
    if (files.ok() && !files->empty()) {
      (void)DecodeStuckFiles(files->data(), files->size(), &s);
    }
    enricher.EnrichStuck(&s);
  }
  return absl::OkStatus();
}

absl::Status StuckWatch::WriteFound(Sink& sink) {
  for (const StuckRequest& s : found_) {
    RETURN_IF_ERROR(sink.WriteStuck(s));
    ++reported_;
  }
  found_.clear();
  return absl::OkStatus();
}

}  // namespace biosnoop
