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
  auto file = OutputFile::Open(
      path, proto ? RecordFraming::kVarintDelimited : RecordFraming::kLines);
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

// The lines of `text` split into whitespace-separated cells.
std::vector<std::vector<std::string>> Rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    rows.push_back(absl::StrSplit(line, ' ', absl::SkipEmpty()));
  }
  return rows;
}

bool HasRow(const std::string& text, const std::vector<std::string>& row) {
  for (const std::vector<std::string>& r : Rows(text)) {
    if (r == row) return true;
  }
  return false;
}

// Every row of the table starting at `header` (its first cell) in
// `alone`, the report of one host's file, is in `merged` with the host's
// name as its first cell.
void ExpectRowsOfHost(const std::string& alone, const std::string& merged,
                      const std::string& host, const std::string& header) {
  bool in_table = false;
  int checked = 0;
  for (const std::vector<std::string>& row : Rows(alone)) {
    if (!row.empty() && row[0] == header) {
      in_table = true;
      continue;
    }
    if (row.empty()) {
      in_table = false;
      continue;
    }
    if (!in_table) continue;
    std::vector<std::string> with_host = {host};
    with_host.insert(with_host.end(), row.begin(), row.end());
    EXPECT_TRUE(HasRow(merged, with_host))
        << absl::StrJoin(with_host, " ") << "\nnot in:\n"
        << merged;
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no " << header << " table in:\n" << alone;
}

TEST_F(BioreportHostsTest, SummaryHasRowsPerHostWithEachHostsFigures) {
  for (const std::string& web3 : {web3_, web3_pb_}) {
    const CliResult merged = RunCli({"summary", db7_, web3});
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_TRUE(absl::StrContains(merged.out, "hosts: db7 web3\n"))
        << merged.out;
    const CliResult db7 = RunCli({"summary", db7_});
    const CliResult w = RunCli({"summary", web3});
    // Every row of each host alone (its "all" row too), with its host.
    ExpectRowsOfHost(db7.out, merged.out, "db7", "disk");
    ExpectRowsOfHost(w.out, merged.out, "web3", "disk");
    EXPECT_TRUE(HasRow(merged.out, {"db7", "all", "all", "400", "49.6", "MiB",
                                    "10012", "26120", "17117", "39053", "92939",
                                    "1205356", "1205356", "8"}))
        << merged.out;
    const std::vector<std::string> all =
        Rows(merged.out).at(Rows(merged.out).size() - 2);
    ASSERT_GE(all.size(), 4u);
    EXPECT_EQ(all[0], "all");
    EXPECT_EQ(all[3], "500");  // 400 + 100
    // Loss warnings name their host.
    EXPECT_TRUE(absl::StrContains(
        merged.out, "WARNING:   db7: 3 events lost in the kernel"))
        << merged.out;
    EXPECT_TRUE(absl::StrContains(
        merged.out, "WARNING:   web3: 1 events lost in the kernel"))
        << merged.out;
  }
}

TEST_F(BioreportHostsTest, TopAndErrorsKeepTheSamePidAndDiskOfTwoHostsApart) {
  const CliResult merged = RunCli({"top", "--top", "100", db7_, web3_pb_});
  ASSERT_EQ(merged.code, 0) << merged.err;
  ExpectRowsOfHost(RunCli({"top", "--top", "100", db7_}).out, merged.out, "db7",
                   "pid");
  ExpectRowsOfHost(RunCli({"top", "--top", "100", web3_pb_}).out, merged.out,
                   "web3", "pid");
  ExpectRowsOfHost(RunCli({"top", "--top", "100", web3_pb_}).out, merged.out,
                   "web3", "disk");
  const CliResult errors = RunCli({"errors", db7_, web3_});
  ASSERT_EQ(errors.code, 0) << errors.err;
  ExpectRowsOfHost(RunCli({"errors", db7_}).out, errors.out, "db7", "disk");
  ExpectRowsOfHost(RunCli({"errors", web3_}).out, errors.out, "web3", "disk");
  EXPECT_TRUE(absl::StrContains(errors.out, "9 errors in 500 events"))
      << errors.out;
}

TEST_F(BioreportHostsTest, HistogramsCsvSizesAndJsonArePerHost) {
  const CliResult hist = RunCli({"hist", db7_, web3_pb_});
  ASSERT_EQ(hist.code, 0) << hist.err;
  // One histogram per host, each the one of the host alone.
  const std::string db7_hist = RunCli({"hist", db7_}).out;
  const std::string web3_hist = RunCli({"hist", web3_pb_}).out;
  auto body = [](const std::string& report) {  // after the WARNING block
    return report.substr(report.find("\n\n") + 2);
  };
  EXPECT_TRUE(absl::StrContains(
      hist.out, absl::StrCat("host = db7\n", body(db7_hist), "\nhost = web3\n",
                             body(web3_hist))))
      << hist.out;
  const CliResult by_disk = RunCli({"hist", "-D", db7_, web3_});
  EXPECT_TRUE(absl::StrContains(by_disk.out, "host = db7, disk = loop3\n"));
  EXPECT_TRUE(absl::StrContains(by_disk.out, "host = web3, disk = loop3\n"));

  const CliResult csv = RunCli({"csv", db7_, web3_});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(absl::StartsWith(csv.out, "host,bucket,lo_us,hi_us,count\n"));
  uint64_t per_host[2] = {0, 0};
  for (absl::string_view line : absl::StrSplit(csv.out, '\n')) {
    std::vector<std::string> f = absl::StrSplit(line, ',');
    if (f.size() != 5 || f[0] == "host") continue;
    per_host[f[0] == "web3"] += std::stoull(f[4]);
  }
  EXPECT_EQ(per_host[0], 400u);
  EXPECT_EQ(per_host[1], 100u);

  const CliResult sizes = RunCli({"sizes", db7_, web3_});
  EXPECT_TRUE(absl::StrContains(sizes.out, "host = db7\n")) << sizes.out;
  EXPECT_TRUE(absl::StrContains(sizes.out, "host = web3\n")) << sizes.out;

  const CliResult json = RunCli({"json", db7_, web3_pb_});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_TRUE(absl::StrContains(json.out, "\"events\":500,")) << json.out;
  EXPECT_TRUE(absl::StrContains(json.out, "\"lost\":4,")) << json.out;
  EXPECT_TRUE(absl::StrContains(json.out,
                                "\"hosts\":[{\"host\":\"db7\",\"events\":400,"))
      << json.out;
  EXPECT_TRUE(absl::StrContains(json.out, "{\"host\":\"web3\",\"events\":100,"))
      << json.out;
  // Each host's loss is its own.
  const size_t web3_at = json.out.find("{\"host\":\"web3\"");
  ASSERT_NE(web3_at, std::string::npos);
  EXPECT_TRUE(absl::StrContains(json.out.substr(web3_at), "\"lost\":1,"));
}

TEST_F(BioreportHostsTest, BaselineCoveredTimeIsPerHostAndNotSummed) {
  const CliResult merged = RunCli({"baseline", "--json", db7_, web3_pb_});
  ASSERT_EQ(merged.code, 0) << merged.err;
  const CliResult db7 = RunCli({"baseline", "--json", db7_});
  const CliResult web3 = RunCli({"baseline", "--json", web3_pb_});
  auto covered = [](const std::string& json) {
    const size_t at = json.find("\"covered_s\":");
    return json.substr(at, json.find(',', at) - at);
  };
  // web3's 1.085 s lie inside db7's 1.374 s: the two hosts cover 1.374 s
  // of the window, not 2.459 s.
  EXPECT_EQ(covered(db7.out), "\"covered_s\":1.374");
  EXPECT_EQ(covered(web3.out), "\"covered_s\":1.085");
  EXPECT_EQ(covered(merged.out), "\"covered_s\":1.374") << merged.out;
  EXPECT_TRUE(absl::StrContains(
      merged.out,
      "\"hosts\":[{\"host\":\"db7\",\"intervals\":4,"
      "\"window_start\":\"2026-11-21T05:00:00.000000000Z\","
      "\"window_end\":\"2026-11-21T05:00:01.373849367Z\",\"covered_s\":1.374},"
      "{\"host\":\"web3\",\"intervals\":2,"))
      << merged.out;
  EXPECT_TRUE(absl::StrContains(merged.out, "\"covered_s\":1.085}]"))
      << merged.out;

  // Rows per host, each the host's own.
  const CliResult text = RunCli({"baseline", db7_, web3_pb_});
  ASSERT_EQ(text.code, 0) << text.err;
  ExpectRowsOfHost(RunCli({"baseline", db7_}).out, text.out, "db7", "disk");
  ExpectRowsOfHost(RunCli({"baseline", web3_pb_}).out, text.out, "web3",
                   "disk");
  EXPECT_TRUE(absl::StrContains(text.out,
                                "(1.4 s covered by 6 intervals of 2 hosts)\n"
                                "  host db7: "))
      << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "of reads on loop3 of web3 took"))
      << text.out;
  const CliResult csv = RunCli({"baseline", "--csv", db7_, web3_});
  EXPECT_TRUE(absl::StartsWith(csv.out, "start,end,host,disk,op,")) << csv.out;
  EXPECT_TRUE(absl::StrContains(
      csv.out, "2026-11-21T05:00:00.000000000Z,2026-11-21T05:00:01.084"))
      << csv.out;  // web3's rows span web3's window
}

TEST_F(BioreportHostsTest, HostFilterKeepsOneHostsRowsAndLoss) {
  // What a report of web3 alone says, but the heading (two inputs).
  auto without_heading = [](const std::string& report) {
    const size_t at = report.find("inputs:");
    return report.substr(0, at) + report.substr(report.find("\n\n", at));
  };
  for (const char* form : {"summary", "top", "errors", "hist", "sizes"}) {
    const CliResult one = RunCli({form, "--host", "web3", db7_, web3_pb_});
    ASSERT_EQ(one.code, 0) << one.err;
    const CliResult alone = RunCli({form, web3_pb_});
    if (std::string(form) == "summary") {
      EXPECT_EQ(without_heading(one.out), without_heading(alone.out)) << form;
      EXPECT_TRUE(absl::StrContains(one.out, "hosts: web3\n"));
    } else {
      EXPECT_EQ(one.out, alone.out) << form;
    }
  }
  const CliResult json = RunCli({"json", "--host", "web3", db7_, web3_});
  EXPECT_TRUE(absl::StrContains(json.out, "\"events\":100,")) << json.out;
  EXPECT_TRUE(absl::StrContains(json.out, "\"runs\":1,")) << json.out;
  EXPECT_TRUE(absl::StrContains(json.out, "\"lost\":1,")) << json.out;
  EXPECT_FALSE(absl::StrContains(json.out, "\"hosts\"")) << json.out;
  const CliResult base =
      RunCli({"baseline", "--csv", "--host", "db7", db7_, web3_});
  EXPECT_EQ(base.out, RunCli({"baseline", "--csv", db7_}).out);

  // Bad usage: empty, or given twice.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--host", "", db7_},
        std::vector<std::string>{"--host", "a", "--host", "b", db7_}}) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 64);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "--host")) << r.err;
  }
}

TEST_F(BioreportHostsTest, SyntheticStreamsNameTheirHost) {
  const CliResult r = RunCli({"summary", web3_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "hosts: web3\n")) << r.out;
  EXPECT_TRUE(absl::StrContains(test_util::ReadFile(web3_),
                                "\"host\":\"web3\",\"boot_id\":\"9a8b7c6d-"));
  EXPECT_FALSE(absl::StrContains(test_util::ReadFile(web3_), "db7"));
}

// Stuck records of two hosts on a disk of the same name, by hand.
TEST(BioreportHostsStuckTest, StuckRequestsOfTwoHostsAreTwoDisks) {
  auto header = [](const std::string& host, const std::string& boot) {
    return absl::StrCat(
        R"({"type":"header","format_version":1,"host":")", host,
        R"(","boot_id":")", boot,
        R"(","start_time":"2026-11-24T23:40:00.000000000Z",)"
        R"("biosnoop_version":"0.2.0","kernel_release":"6.18.0","min_us":10000,)"
        R"("queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"",)"
        R"("op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000})");
  };
  auto stuck = [](const std::string& host, uint64_t inflight_us) {
    return absl::StrCat(
        R"({"type":"stuck","timestamp":"2026-11-24T23:40:01.123456789Z",)"
        R"("host":")",
        host,
        R"(","disk":"loop0","partition":null,"dev":"7:0","op":"read",)"
        R"("rwbs":"R","sector":2048,"bytes":4096,"inflight_us":)",
        inflight_us,
        R"(,"queue_us":3,"queue_depth":1,"pid":4242,"tid":4242,"comm":"dd"})");
  };
  TempDir dir;
  WriteFile(dir.Path("a.jsonl"), absl::StrCat(header("db7", "b-1"), "\n",
                                              stuck("db7", 1500000), "\n"));
  WriteFile(dir.Path("b.jsonl"), absl::StrCat(header("web3", "b-2"), "\n",
                                              stuck("web3", 2500000), "\n"));
  const CliResult r =
      RunCli({"summary", dir.Path("a.jsonl"), dir.Path("b.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "on 2 disks")) << r.out;
  EXPECT_TRUE(HasRow(r.out, {"db7", "loop0", "1", "1500000", "2026-11-24",
                             "23:40:01.123", "2026-11-24", "23:40:01.123"}))
      << r.out;
  EXPECT_TRUE(HasRow(r.out, {"web3", "loop0", "1", "2500000", "2026-11-24",
                             "23:40:01.123", "2026-11-24", "23:40:01.123"}))
      << r.out;
  EXPECT_TRUE(
      HasRow(r.out, {"2026-11-24", "23:40:01.123", "web3", "loop0", "read",
                     "2048", "4.0", "KiB", "2500000", "4242", "dd"}))
      << r.out;
  const CliResult notice =
      RunCli({"hist", dir.Path("a.jsonl"), dir.Path("b.jsonl")});
  EXPECT_TRUE(absl::StrContains(notice.out, "on db7:loop0, web3:loop0,"))
      << notice.out;
  const CliResult json =
      RunCli({"json", dir.Path("a.jsonl"), dir.Path("b.jsonl")});
  EXPECT_TRUE(absl::StrContains(
      json.out, R"("disks":[{"host":"db7","disk":"loop0","count":1,)"))
      << json.out;
  const CliResult one = RunCli(
      {"json", "--host", "web3", dir.Path("a.jsonl"), dir.Path("b.jsonl")});
  EXPECT_TRUE(absl::StrContains(one.out, R"("stuck":{"requests":1,)"))
      << one.out;
  EXPECT_TRUE(absl::StrContains(
      one.out,
      R"("disks":[{"disk":"loop0","count":1,"max_inflight_us":2500000,)"))
      << one.out;
}

}  // namespace
}  // namespace biosnoop::report
