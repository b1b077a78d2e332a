// A status tagged with its exit code, and the code for any status
// (exit_codes.h).

#include "exit_codes.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"

namespace biosnoop {
namespace {
constexpr char kExitPayload[] = "biosnoop/exit-code";
}  // namespace

absl::Status WithExitCode(absl::Status status, int exit_code) {
  status.SetPayload(kExitPayload, absl::Cord(std::to_string(exit_code)));
  return status;
}

int ExitCodeFor(const absl::Status& status) {
  if (auto payload = status.GetPayload(kExitPayload); payload.has_value()) {
    int code = 0;
    if (absl::SimpleAtoi(std::string(*payload), &code)) return code;
  }
  switch (status.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kCancelled:  // the reader closed the pipe
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
      return kExitUsage;
    case absl::StatusCode::kPermissionDenied:
      return kExitNoPermission;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kUnimplemented:
      return kExitUnsupported;
    default:
      return kExitSoftware;
  }
}

}  // namespace biosnoop
