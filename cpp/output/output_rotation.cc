// Why rotation works this way is in output_rotation.h; here, how.

#include "output_rotation.h"

#include <pwd.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop {
namespace {

// Says on `diag`, in one line, that SIGHUP could not reopen the output
// (`error`, from OutputFile::Reopen) and that output goes on to the old
// file.  For a permission error it adds why: after loading, biosnoop runs
// as an unprivileged user (-Z) without capabilities.
void ReportFailedReopen(const absl::Status& error, std::FILE* diag) {
  // The old file is still open and writable, and events in it are not
  // lost: a rotation that cannot happen yet is no reason to end the run
  // (the next SIGHUP, logrotate's next run, tries again).
  std::string why;
  if (error.code() == absl::StatusCode::kPermissionDenied) {
    // logrotate's `create MODE OWNER GROUP` with another owner, or a
    // directory only root may write, gives a file that only capabilities
    // biosnoop no longer has could open or create.
    const uid_t uid = geteuid();
    std::string who =
        uid == 0 ? std::string("root") : absl::StrCat("uid ", uid);
    if (uid != 0) {
      if (const struct passwd* pw = getpwuid(uid); pw != nullptr) {
        who = pw->pw_name;
      }
    }
    why = absl::StrCat(
        " (after loading, biosnoop runs as ", who,
        " without capabilities: the new file must be writable by ", who,
        ", or the directory must let ", who,
        " create it; e.g. logrotate's `create 0640 ", who, " adm`)");
  }
  absl::FPrintF(diag,
                "biosnoop: %s%s; still writing to the old file, the next "
                "SIGHUP tries again\n",
                error.message(), why);
}

}  // namespace

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
      pending_ = std::make_unique<BackgroundOpen>(file_->dir_fd(),
                                                  file_->name(), file_->path());
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
