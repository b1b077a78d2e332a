#pragma once

// The container and Kubernetes pod a cgroup v2 path names, as container
// runtimes and the kubelet lay their cgroups out:
//   systemd driver   /system.slice/docker-<id>.scope
//                    /kubepods.slice/kubepods-burstable.slice/
//                      kubepods-burstable-pod<uid with _>.slice/
//                      cri-containerd-<id>.scope   (also crio-, docker-)
//                    /machine.slice/libpod-<id>.scope   (podman)
//   cgroupfs driver  /docker/<id>, /kubepods/burstable/pod<uid>/<id>
// where <id> is 64 hex digits.  Pure: no I/O.

#include <string>

#include "absl/strings/string_view.h"

namespace biosnoop {

struct ContainerNames {
  std::string container_id;  // 64 lowercase hex digits; empty: none
  std::string pod_uid;       // 8-4-4-4-12 hex with dashes; empty: none
};

// The innermost component that names a container gives its id (a task in
// a cgroup below a container's scope is still in that container); a
// runtime's monitor (crio-conmon-<id>, libpod-conmon-<id>) is not a
// container.  The pod uid comes from a pod component under a kubepods
// one, the systemd driver's underscores turned back into dashes.
ContainerNames ParseContainerNames(absl::string_view cgroup_path);

}  // namespace biosnoop
