// Several hosts in one report (the fleet case: logs of many machines
// fetched from the log store): each report keeps the hosts apart (the same
// disk name and pids on two hosts are two rows), measures the baseline's
// covered time per host, and --host keeps one host's rows and loss.  The
// inputs are synthetic streams (synthetic.h) of two hosts with the same
// disks and pids, in both formats; each host's rows must be exactly what
// the report of that host's file alone says.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "proto_sink.h"
#include "synthetic.h"

namespace biosnoop::report {
namespace {

using test_util::CliResult;
using test_util::RunCli;
using test_util::TempDir;
using test_util::WriteFile;

// Writes a synthetic stream of `host` (the golden fixture's events: the
// same disks, pids and comms whatever the host).
void WriteStream(const std::string& path, const std::string& host,
                 const std::string& boot_id, uint64_t events,
                 uint64_t summary_every, uint64_t lost, bool proto) {
  SyntheticOptions o;
  o.events = events;
  o.seed = 7;
  o.stats_every = 150;
  o.summary_every = summary_every;
  o.lost = lost;
  o.host = host;
  o.boot_id = boot_id;
  auto file = OutputFile::Open(path, proto ? RecordFraming::kVarintDelimited
                                           : RecordFraming::kLines);
  ASSERT_TRUE(file.ok()) << file.status();
  std::unique_ptr<Sink> sink;
  if (proto) {
    sink = std::make_unique<ProtoSink>(std::move(*file), host);
  } else {
    sink = std::make_unique<JsonlSink>(std::move(*file), host);
  }
  ASSERT_TRUE(WriteSyntheticStream(o, sink.get()).ok());
  ASSERT_TRUE(sink->Flush().ok());
}

// db7: 400 events, 3 lost, 4 summaries; web3: 100 events (the first 100
// of db7's: same disks, pids), 1 lost, 2 summaries; web3 in JSON Lines
// and in protobuf.
class BioreportHostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteStream(db7_, "db7", "3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b", 400, 100,
                3, /*proto=*/false);
    WriteStream(web3_, "web3", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", 100, 50,
                1, /*proto=*/false);
    WriteStream(web3_pb_, "web3", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", 100,
                50, 1, /*proto=*/true);
  }

  TempDir dir_;
  const std::string db7_ = dir_.Path("db7.jsonl");
  const std::string web3_ = dir_.Path("web3.jsonl");
  const std::string web3_pb_ = dir_.Path("web3.pb");
};

TEST_F(BioreportHostsTest, SyntheticStreamsNameTheirHost) {
  const CliResult r = RunCli({"summary", web3_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "hosts: web3\n")) << r.out;
  EXPECT_TRUE(absl::StrContains(test_util::ReadFile(web3_),
                                "\"host\":\"web3\",\"boot_id\":\"9a8b7c6d-"));
  EXPECT_FALSE(absl::StrContains(test_util::ReadFile(web3_), "db7"));
}

}  // namespace
}  // namespace biosnoop::report
