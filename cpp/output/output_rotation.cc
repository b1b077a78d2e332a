#include "output_rotation.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "session.h"

namespace biosnoop {

OutputRotation::OutputRotation(OutputFile* file, std::FILE* diag)
    : file_(file), diag_(diag) {}

absl::StatusOr<bool> OutputRotation::Tick(bool hangup, uint64_t now_ns) {
  if (hangup) {
    // What is buffered belongs in the rotated file.
    if (absl::Status s = file_->Flush(); !s.ok()) return s;
    // stdout has no path: the stream goes on, cut into a new section.
    if (file_->is_stdout()) return true;
    if (pending_ != nullptr) {
      absl::FPrintF(diag_,
                    "biosnoop: SIGHUP: the last reopen of %s has not "
                    "completed yet; still writing to the old file\n",
                    file_->DisplayName());
    } else {
      pending_ = std::make_unique<BackgroundOpen>(file_->path());
      said_slow_ = false;
    }
  }
  if (pending_ == nullptr) return false;
  std::optional<absl::StatusOr<OpenedOutput>> done = pending_->Take();
  if (!done.has_value()) {
    // `now_ns` may predate the start (read before this call).
    if (!said_slow_ && now_ns > pending_->started_ns() &&
        now_ns - pending_->started_ns() >= kSlowOpenNs) {
      said_slow_ = true;
      absl::FPrintF(diag_,
                    "biosnoop: reopening %s has not completed after %d s (its "
                    "file system does not answer); still writing to the old "
                    "file, the new one takes over when the open completes\n",
                    file_->DisplayName(), kSlowOpenNs / 1000000000);
    }
    return false;
  }
  const bool late = said_slow_;
  pending_.reset();
  if (!done->ok()) {
    ReportFailedReopen(done->status(), diag_);
    return false;
  }
  if (late) {
    absl::FPrintF(diag_,
                  "biosnoop: reopening %s completed; writing to the "
                  "new file\n",
                  file_->DisplayName());
  }
  if (absl::Status s = file_->Adopt(std::move(**done)); !s.ok()) return s;
  return true;
}

void OutputRotation::Finish() {
  if (pending_ == nullptr) return;
  absl::FPrintF(diag_,
                "biosnoop: reopening %s had not completed when the run ended; "
                "the run's last records are in the old file\n",
                file_->DisplayName());
  pending_.reset();
}

}  // namespace biosnoop
