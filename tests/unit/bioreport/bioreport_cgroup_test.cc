// bioreport and cgroups: --cgroup (a subtree) and --container (an id
// prefix) select events and stuck records, top ranks cgroups and
// containers, and the new fields convert losslessly both ways.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"

namespace biosnoop::report {
namespace {

using test_util::ReadFile;
using test_util::RunCli;
using test_util::WriteFile;

const std::string kDocker(64, 'd');
const std::string kCri = std::string(60, '0') + "beef";
const std::string kUid = "8d2f1e3a-4b5c-4d6e-9f70-a1b2c3d4e5f6";

std::string Event(int seq, const std::string& cgroup_fields,
                  uint64_t latency_us) {
  return absl::StrCat(
      R"({"type":"event","timestamp":"2026-11-21T05:00:0)", seq,
      R"(.000000000Z","host":"db7","disk":"vda","partition":null,"dev":"254:0",)"
      R"("op":"read","rwbs":"R","sector":)",
      seq * 8, R"(,"bytes":4096,"latency_us":)", latency_us, R"(,"device_us":)",
      latency_us,
      R"(,"queue_us":1,"queue_depth":1,"pid":7,"tid":7,"comm":"dd",)"
      R"("error_code":0,"error":null,"seq":)",
      seq, cgroup_fields, "}\n");
}

std::string Cgroup(const std::string& path, uint64_t id,
                   const std::string& container = "",
                   const std::string& pod = "") {
  auto quoted = [](const std::string& s) {
    return s.empty() ? std::string("null") : "\"" + s + "\"";
  };
  return absl::StrCat(R"(,"cgroup":)", quoted(path), R"(,"cgroup_id":)", id,
                      R"(,"container_id":)", quoted(container),
                      R"(,"pod_uid":)", quoted(pod),
                      R"(,"completion_context":"softirq")");
}

// Six events: two in /system.slice/a.service, one in /system.slice2 (not
// below /system.slice), one in a docker container, one in a pod's
// container, one in a removed cgroup (null path, id kept).
std::string Stream() {
  return absl::StrCat(
      R"({"type":"header","format_version":1,"host":"db7","boot_id":"b","start_time":"2026-11-21T05:00:00.000000000Z","biosnoop_version":"0.1.0","kernel_release":"6.18.0","min_us":10000,"queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"","op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000,"run_id":"9f86d081884c7d65","cgroup_filter":"/"})"
      "\n",
      Event(1, Cgroup("/system.slice/a.service", 10), 20000),
      Event(2, Cgroup("/system.slice/a.service", 10), 30000),
      Event(3, Cgroup("/system.slice2", 11), 90000),
      Event(4,
            Cgroup("/system.slice/docker-" + kDocker + ".scope", 12, kDocker),
            15000),
      Event(5,
            Cgroup("/kubepods.slice/p/cri-containerd-" + kCri + ".scope", 13,
                   kCri, kUid),
            25000),
      Event(6, Cgroup("", 14), 11000),
      R"({"type":"stuck","timestamp":"2026-11-21T05:00:07.000000000Z","host":"db7","disk":"vda","partition":null,"dev":"254:0","op":"read","rwbs":"R","sector":800,"bytes":4096,"inflight_us":1500000,"queue_us":3,"queue_depth":1,"pid":8,"tid":8,"comm":"dd","cgroup":"/system.slice/b.service","cgroup_id":15,"container_id":null,"pod_uid":null})"
      "\n",
      R"({"type":"stats","timestamp":"2026-11-21T05:00:09.000000000Z","elapsed_s":9,"completions":6,"emitted":6,"lost":0,"orphans":0,"below_threshold":0,"filtered":0,"decode_errors":0,"expired":0,"written":6,"dropped":0,"final":true,"missed":0,"unfinished":0,"run_id":"9f86d081884c7d65"})"
      "\n");
}

class BioreportCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/bioreport-cgroup-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    input_ = dir_ + "/in.jsonl";
    WriteFile(input_, Stream());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // How many events the summary report counts after `filter`.
  size_t Events(const std::vector<std::string>& filter) {
    std::vector<std::string> args = {"summary"};
    args.insert(args.end(), filter.begin(), filter.end());
    args.push_back(input_);
    const test_util::CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const size_t at = r.out.find("events: ");
    if (at == std::string::npos) {
      ADD_FAILURE() << r.out;
      return 0;
    }
    return std::stoul(r.out.substr(at + 8));
  }
  std::string dir_, input_;
};

TEST_F(BioreportCgroupTest, CgroupFilterIsASubtree) {
  EXPECT_EQ(Events({"--cgroup", "/system.slice"}), 3u);  // a.service x2, docker
  EXPECT_EQ(Events({"--cgroup", "/system.slice/"}), 3u);
  EXPECT_EQ(Events({"--cgroup", "/system.slice/a.service"}), 2u);
  EXPECT_EQ(Events({"--cgroup", "/system.slice2"}), 1u);
  EXPECT_EQ(Events({"--cgroup", "/"}), 5u);  // all but the unnamed one
  EXPECT_EQ(Events({"--cgroup", "/kubepods.slice"}), 1u);
}

TEST_F(BioreportCgroupTest, ContainerFilterIsAnIdPrefix) {
  EXPECT_EQ(Events({"--container", kDocker.substr(0, 12)}), 1u);
  EXPECT_EQ(Events({"--container", "DDDD"}), 1u);
  EXPECT_EQ(Events({"--container", kCri}), 1u);
  EXPECT_EQ(Events({"--container", "0000"}), 1u);
  EXPECT_EQ(Events({"--container", "ab"}), 0u);
}

TEST_F(BioreportCgroupTest, FiltersSelectStuckRecordsToo) {
  const test_util::CliResult r =
      RunCli({"summary", "--cgroup", "/system.slice/b.service", input_});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stuck requests: 1"), std::string::npos) << r.out;
  const test_util::CliResult none =
      RunCli({"summary", "--cgroup", "/user.slice", input_});
  EXPECT_EQ(none.out.find("stuck requests"), std::string::npos) << none.out;
}

TEST_F(BioreportCgroupTest, BadValuesAreUsageErrors) {
  EXPECT_EQ(RunCli({"--cgroup", "system.slice", input_}).code, 64);
  EXPECT_EQ(RunCli({"--cgroup", "", input_}).code, 64);
  EXPECT_EQ(RunCli({"--container", "", input_}).code, 64);
  EXPECT_EQ(RunCli({"--cgroup", "/a", "--cgroup", "/b", input_}).code, 64);
  EXPECT_EQ(RunCli({"baseline", "--cgroup", "/a", input_}).code, 64);
}

TEST_F(BioreportCgroupTest, TopRanksCgroupsAndContainers) {
  const test_util::CliResult r = RunCli({"top", input_});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string& out = r.out;
  const size_t count = out.find("top cgroups by slow I/O count:");
  const size_t total = out.find("top cgroups by total latency:");
  const size_t containers = out.find("top containers by slow I/O count:");
  ASSERT_NE(count, std::string::npos) << out;
  ASSERT_NE(total, std::string::npos) << out;
  ASSERT_NE(containers, std::string::npos) << out;
  // By count a.service (2 events) leads; by latency /system.slice2 (90 ms).
  const std::string by_count = out.substr(count, total - count);
  EXPECT_LT(by_count.find("/system.slice/a.service"),
            by_count.find("/system.slice2"))
      << by_count;
  EXPECT_NE(by_count.find("cgroup id 14"), std::string::npos) << by_count;
  const std::string by_total = out.substr(total, containers - total);
  EXPECT_LT(by_total.find("/system.slice2"),
            by_total.find("/system.slice/a.service"))
      << by_total;
  const std::string tail = out.substr(containers);
  EXPECT_NE(tail.find(kDocker.substr(0, 12) + " "), std::string::npos) << tail;
  EXPECT_EQ(tail.find(kDocker.substr(0, 13)), std::string::npos) << tail;
  EXPECT_NE(tail.find(kCri.substr(0, 12)), std::string::npos) << tail;
}

TEST_F(BioreportCgroupTest, ConvertsLosslesslyBothWays) {
  const std::string pb = dir_ + "/out.pb";
  const std::string back = dir_ + "/back.jsonl";
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb, input_}).code, 0);
  ASSERT_EQ(RunCli({"convert", "--to", "jsonl", "-o", back, pb}).code, 0);
  EXPECT_EQ(ReadFile(back), Stream());
  const std::string pb2 = dir_ + "/again.pb";
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb2, back}).code, 0);
  EXPECT_EQ(ReadFile(pb2), ReadFile(pb));
}

}  // namespace
}  // namespace biosnoop::report
