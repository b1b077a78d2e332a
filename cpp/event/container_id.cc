// Container ids and pod uids from cgroup paths (container_id.h).

#include "container_id.h"

#include <cstddef>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace biosnoop {
namespace {

constexpr size_t kIdLength = 64;

// The systemd scope prefixes of the runtimes (docker, containerd's CRI
// plugin, cri-o, podman).
constexpr absl::string_view kScopePrefixes[] = {"docker-", "cri-containerd-",
                                                "crio-", "libpod-"};

bool IsHexId(absl::string_view s) {
  if (s.size() != kIdLength) return false;
  for (char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The container id a path component names, or empty.
std::string ContainerIdOf(absl::string_view component) {
  absl::string_view c = component;
  if (absl::ConsumeSuffix(&c, ".scope")) {
    for (absl::string_view prefix : kScopePrefixes) {
      absl::string_view rest = c;
      if (absl::ConsumePrefix(&rest, prefix) && IsHexId(rest)) {
        return absl::AsciiStrToLower(rest);
      }
    }
    return "";
  }
  // cgroupfs driver: the id alone, or cri-o's "crio-<id>".
  absl::ConsumePrefix(&c, "crio-");
  return IsHexId(c) ? absl::AsciiStrToLower(c) : "";
}

// 8-4-4-4-12 hex digits with dashes.
bool IsUid(absl::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-'
             : !absl::ascii_isxdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

// The pod uid a component under kubepods names, or empty:
// "kubepods-besteffort-pod<uid_>.slice", "kubepods-pod<uid_>.slice"
// (guaranteed QoS) or "pod<uid>".
std::string PodUidOf(absl::string_view component) {
  absl::string_view c = component;
  std::string uid;
  if (absl::ConsumeSuffix(&c, ".slice")) {
    const size_t at = c.rfind("-pod");
    if (!absl::StartsWith(c, "kubepods") || at == absl::string_view::npos) {
      return "";
    }
    uid = absl::StrReplaceAll(c.substr(at + 4), {{"_", "-"}});
  } else if (absl::ConsumePrefix(&c, "pod")) {
    uid = std::string(c);
  }
  return IsUid(uid) ? absl::AsciiStrToLower(uid) : "";
}

}  // namespace

ContainerNames ParseContainerNames(absl::string_view cgroup_path) {
  const std::vector<absl::string_view> parts =
      absl::StrSplit(cgroup_path, '/', absl::SkipEmpty());
  ContainerNames out;
  bool under_kubepods = false;
  for (absl::string_view part : parts) {
    if (absl::StartsWith(part, "kubepods")) under_kubepods = true;
    if (under_kubepods && out.pod_uid.empty()) out.pod_uid = PodUidOf(part);
  }
  for (size_t i = parts.size(); i-- > 0;) {
    out.container_id = ContainerIdOf(parts[i]);
    if (!out.container_id.empty()) break;
  }
  return out;
}

}  // namespace biosnoop
