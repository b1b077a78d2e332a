// Container ids and pod uids from cgroup paths (container_id.h), as the
// runtimes and the kubelet name their cgroups.

#include "container_id.h"

#include <string>

#include "gtest/gtest.h"

namespace biosnoop {
namespace {

const std::string kId(64, 'a');
const std::string kMixed =
    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kLower =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kUid = "8d2f1e3a-4b5c-4d6e-9f70-a1b2c3d4e5f6";
const std::string kUid_ = "8d2f1e3a_4b5c_4d6e_9f70_a1b2c3d4e5f6";

TEST(ContainerNames, SystemdScopesOfEachRuntime) {
  for (const char* prefix :
       {"docker-", "cri-containerd-", "crio-", "libpod-"}) {
    const ContainerNames n = ParseContainerNames(
        "/system.slice/" + std::string(prefix) + kId + ".scope");
    EXPECT_EQ(n.container_id, kId) << prefix;
    EXPECT_EQ(n.pod_uid, "") << prefix;
  }
}

TEST(ContainerNames, KubepodsSystemdDriverGivesPodUidWithDashes) {
  for (const char* qos :
       {"kubepods-burstable.slice/kubepods-burstable-pod",
        "kubepods-besteffort.slice/kubepods-besteffort-pod", "kubepods-pod"}) {
    const ContainerNames n =
        ParseContainerNames("/kubepods.slice/" + std::string(qos) + kUid_ +
                            ".slice/cri-containerd-" + kId + ".scope");
    EXPECT_EQ(n.container_id, kId) << qos;
    EXPECT_EQ(n.pod_uid, kUid) << qos;
  }
}

TEST(ContainerNames, CgroupfsDriverLayouts) {
  EXPECT_EQ(ParseContainerNames("/docker/" + kId).container_id, kId);
  const ContainerNames k =
      ParseContainerNames("/kubepods/burstable/pod" + kUid + "/" + kId);
  EXPECT_EQ(k.container_id, kId);
  EXPECT_EQ(k.pod_uid, kUid);
  EXPECT_EQ(
      ParseContainerNames("/kubepods/pod" + kUid + "/crio-" + kId).container_id,
      kId);
}

TEST(ContainerNames, PodWithoutContainerYet) {
  const ContainerNames n = ParseContainerNames(
      "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" +
      kUid_ + ".slice");
  EXPECT_EQ(n.container_id, "");
  EXPECT_EQ(n.pod_uid, kUid);
}

TEST(ContainerNames, InnermostContainerWinsAndNestedCgroupsStayInIt) {
  EXPECT_EQ(ParseContainerNames("/system.slice/docker-" + kId +
                                ".scope/init.scope/app")
                .container_id,
            kId);
  const std::string outer(64, 'b');
  EXPECT_EQ(
      ParseContainerNames("/docker/" + outer + "/docker/" + kId).container_id,
      kId);
}

TEST(ContainerNames, IdsAreLowercase) {
  EXPECT_EQ(ParseContainerNames("/system.slice/docker-" + kMixed + ".scope")
                .container_id,
            kLower);
}

TEST(ContainerNames, NotContainers) {
  for (const std::string& path :
       {std::string("/"), std::string("/system.slice/postgresql.service"),
        std::string("/user.slice/user-1000.slice/session-3.scope"),
        "/machine.slice/libpod-conmon-" + kId + ".scope",    // podman's monitor
        "/system.slice/crio-conmon-" + kId + ".scope",       // cri-o's monitor
        "/system.slice/docker-" + kId.substr(1) + ".scope",  // 63 digits
        "/system.slice/docker-" + kId.substr(1) + "g.scope",
        "/system.slice/podman-" + kId + ".scope",  // no such runtime prefix
        "/docker/" + kId + "0"}) {
    const ContainerNames n = ParseContainerNames(path);
    EXPECT_EQ(n.container_id, "") << path;
    EXPECT_EQ(n.pod_uid, "") << path;
  }
}

TEST(ContainerNames, PodUidOnlyUnderKubepodsAndWellFormed) {
  EXPECT_EQ(ParseContainerNames("/pod" + kUid).pod_uid, "");
  EXPECT_EQ(ParseContainerNames("/kubepods/pod" + kUid.substr(1)).pod_uid, "");
  EXPECT_EQ(
      ParseContainerNames("/kubepods.slice/kubepods-pod" + kUid_ + "x.slice")
          .pod_uid,
      "");
}

}  // namespace
}  // namespace biosnoop
