// bioreport why (issue #39): from op records as biosnoop --ops writes them,
// the causes of the selected calls' latency ranked with their shares and
// the tasks behind each, summed over the --slowest N; the steady calls set
// against the worst; the selection options and their errors.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bioreport_test_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "why.h"

namespace biosnoop::report {
namespace {

using nlohmann::json;
using test_util::CliResult;
using test_util::ReadFile;
using test_util::RunCli;
using test_util::TempDir;
using test_util::WriteFile;

struct Culprit {
  uint32_t pid = 0;
  std::string comm;
  std::string cgroup;  // "": cgroup_id 0, its keys left out
  uint64_t cgroup_id = 0;
  std::string container;  // "": null
  std::string role;
  uint32_t requests = 0;
  uint64_t wait_us = 0;
};

struct Layer {
  uint64_t wait_us = 0;
  uint32_t requests = 0;
  std::vector<Culprit> culprits;
};

std::string CulpritJson(const Culprit& c) {
  std::string cg;
  if (c.cgroup_id != 0) {
    cg = absl::StrCat(
        R"("cgroup":")", c.cgroup, R"(","cgroup_id":)", c.cgroup_id,
        R"(,"container_id":)",
        c.container.empty() ? "null" : absl::StrCat("\"", c.container, "\""),
        R"(,"pod_uid":null,)");
  }
  return absl::StrCat(R"({"pid":)", c.pid, R"(,"comm":")", c.comm, R"(",)", cg,
                      R"("role":")", c.role, R"(","requests":)", c.requests,
                      R"(,"bytes":)", c.requests * 4096, R"(,"wait_us":)",
                      c.wait_us, "}");
}

std::string LayerJson(const Layer& l) {
  std::vector<std::string> culprits;
  for (const Culprit& c : l.culprits) culprits.push_back(CulpritJson(c));
  return absl::StrCat(
      R"({"requests":)", l.requests, R"(,"bytes":)", l.requests * 4096,
      R"(,"disks":[],"queue_us_sum":0,"queue_us_max":0,"device_us_sum":)",
      l.wait_us, R"(,"device_us_max":)", l.wait_us, R"(,"wait_us":)", l.wait_us,
      R"(,"dirty_age_us_max":null,"dirty_age_us_min":null,"dirty_known":0,)"
      R"("culprits":[)",
      absl::StrJoin(culprits, ","), "]}");
}

struct Call {
  uint64_t id = 0;
  std::string call = "fdatasync";
  uint32_t pid = 812;
  std::string comm = "pgwal";
  std::string cgroup = "/victim";
  uint64_t cgroup_id = 40;
  int second = 0;  // returned at 16:01:<second>
  uint64_t latency_us = 0;
  Layer block, writeback, journal, flush, others;
};

// An op record as biosnoop writes it: schema order, "type" first, every
// layer with its culprits; other_us is what the layers leave (0 at least).
std::string OpLine(const Call& c) {
  const uint64_t layers = c.block.wait_us + c.writeback.wait_us +
                          c.journal.wait_us + c.flush.wait_us +
                          c.others.wait_us;
  const uint64_t other = c.latency_us > layers ? c.latency_us - layers : 0;
  const std::string at = absl::StrCat(c.second < 10 ? "0" : "", c.second);
  return absl::StrCat(
      R"({"type":"op","timestamp":"2026-11-25T16:01:)", at,
      R"(.500000000Z","host":"db7","op_id":)", c.id, R"(,"call":")", c.call,
      R"(","pid":)", c.pid, R"(,"tid":)", c.pid, R"(,"comm":")", c.comm,
      R"(","cgroup":")", c.cgroup, R"(","cgroup_id":)", c.cgroup_id,
      R"(,"container_id":null,"pod_uid":null,)"
      R"("file":{"path":"/pg/wal","path_kind":"absolute","inode":12,)"
      R"("dev":"7:3","direct":false},"disk":"loop3","partition":null,)"
      R"("offset":null,"bytes_requested":0,"bytes_requested_partial":false,)"
      R"("bytes_done":0,"error_code":0,"error":null,)"
      R"("start_time":"2026-11-25T16:01:)",
      at, R"(.000000000Z","latency_us":)", c.latency_us, R"(,"block":)",
      LayerJson(c.block), R"(,"writeback":)", LayerJson(c.writeback),
      R"(,"other_us":)", other, R"(,"journal":)", LayerJson(c.journal),
      R"(,"flush":)", LayerJson(c.flush), R"(,"others_writeback":)",
      LayerJson(c.others), "}");
}

const Culprit kJbd2{412, "jbd2/loop3-8", "/", 1, "", "submitter", 2, 0};
const Culprit kFlusher{88, "kworker/1:1H", "/", 1, "", "submitter", 1, 0};
const Culprit kDd{
    4242,      "dd", "/noisy", 41, "3f2a1b9c0d4e5f60718293a4b5c6d7e8",
    "dirtier", 0,    0};
const Culprit kWriter{31, "kworker/u4:2", "", 0, "", "submitter", 1, 2000};

Culprit With(Culprit c, uint64_t wait_us, uint32_t requests = 0) {
  c.wait_us = wait_us;
  if (requests != 0) c.requests = requests;
  return c;
}

// The victim (pgwal in /victim) and the noisy neighbour (dd in /noisy):
//   ops 1-5   pgwal fdatasync  35 ms each (steady): its own data 5 ms,
//             its journal commit 20 ms (jbd2), the flush 8 ms, other 2 ms
//   op 10     pgwal fdatasync 151 ms: others' writeback 110 ms (dd's
//             pages 108 ms, kworker/u4:2 2 ms), journal 25, flush 9,
//             own data 4, other 3
//   op 11     pgwal fdatasync 120 ms: dd 85, journal 20, flush 9, 4, 2
//   op 12     pgwal fdatasync 100 ms: dd 66, journal 20, flush 8, 4, 2
//   op 20     dd write 200 ms: its own requests 190 ms
std::vector<Call> Calls() {
  std::vector<Call> v;
  for (uint64_t id = 1; id <= 5; ++id) {
    Call c;
    c.id = id;
    c.second = static_cast<int>(id);
    c.latency_us = 35000;
    c.writeback = {5000, 1, {}};
    c.journal = {20000, 2, {With(kJbd2, 20000)}};
    c.flush = {8000, 1, {With(kFlusher, 8000)}};
    v.push_back(c);
  }
  struct Worst {
    uint64_t id, latency, journal, flush, dd;
    uint32_t dd_requests;
    bool writer;
  };
  for (const Worst& w : {Worst{10, 151000, 25000, 9000, 108000, 29, true},
                         Worst{11, 120000, 20000, 9000, 85000, 20, false},
                         Worst{12, 100000, 20000, 8000, 66000, 16, false}}) {
    Call c;
    c.id = w.id;
    c.second = static_cast<int>(w.id + 10);
    c.latency_us = w.latency;
    c.writeback = {4000, 1, {}};
    c.journal = {w.journal, 2, {With(kJbd2, w.journal)}};
    c.flush = {w.flush, 1, {With(kFlusher, w.flush)}};
    c.others = {w.dd + (w.writer ? 2000 : 0),
                w.dd_requests + (w.writer ? 1 : 0),
                {With(kDd, w.dd, w.dd_requests)}};
    if (w.writer) c.others.culprits.push_back(kWriter);
    v.push_back(c);
  }
  Call dd;
  dd.id = 20;
  dd.call = "write";
  dd.pid = 4242;
  dd.comm = "dd";
  dd.cgroup = "/noisy";
  dd.cgroup_id = 41;
  dd.second = 21;
  dd.latency_us = 200000;
  dd.block = {190000, 50, {}};
  v.push_back(dd);
  return v;
}

std::string Header() {
  return R"({"type":"header","format_version":1,"host":"db7","boot_id":"b","start_time":"2026-11-25T16:00:00.000000000Z","biosnoop_version":"0.1.0","kernel_release":"6.18.0","min_us":10000,"queued":false,"disk_filter":"","pid_filter":0,"comm_filter":"","op_filter":"","ringbuf_kib":4096,"stuck_after_us":1000000,"run_id":"aaaa000000000001","ops":true,"op_min_us":10000})";
}

std::string Stats() {
  return R"({"type":"stats","timestamp":"2026-11-25T16:01:30.000000000Z","elapsed_s":90,"completions":600,"emitted":0,"lost":0,"orphans":0,"below_threshold":600,"filtered":0,"decode_errors":0,"expired":0,"written":0,"dropped":0,"final":true,"missed":0,"unfinished":0,"run_id":"aaaa000000000001","ops_lost":0,"ops_written":9,"ops_untracked":0})";
}

std::string Stream(const std::vector<Call>& calls) {
  std::vector<std::string> lines = {Header()};
  for (const Call& c : calls) lines.push_back(OpLine(c));
  lines.push_back(Stats());
  return absl::StrJoin(lines, "\n") + "\n";
}

class BioreportWhyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = dir_.Path("in.jsonl");
    WriteFile(input_, Stream(Calls()));
  }
  CliResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), "why");
    args.push_back(input_);
    return RunCli(args);
  }
  // The --json document, parsed.
  json Json(std::vector<std::string> args) {
    args.push_back("--json");
    const CliResult r = Run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  TempDir dir_;
  std::string input_;
};

// The text from the line that starts with "why:".
std::string FromWhy(const std::string& out) {
  const size_t at = out.find("why:");
  return at == std::string::npos ? out : out.substr(at);
}

TEST_F(BioreportWhyTest, RanksTheCausesOfTheSlowestCallsWithTheirCulprits) {
  const CliResult r = Run({"--comm", "pgwal", "--slowest", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // 371 ms in all: others' writeback 261 (70.35%), journal 65 (17.52%),
  // flush 26 (7.01%), its own data 12 (3.23%), other 7 (1.89%): rounded
  // to tenths that add up to 100.0.
  EXPECT_EQ(
      FromWhy(r.out),
      R"(why: 3 fdatasync calls by pgwal[812] in cgroup /victim, 371 ms in all, slowest 151 ms (op_id 10)
selected: --comm pgwal: 8 calls, the 3 slowest explained (--slowest 3)

cause             share     time  requests      bytes  waited for                            cgroup  container     role       calls   waited
others_writeback  70.4%   261 ms        66  264.0 KiB  dd[4242]                              /noisy  3f2a1b9c0d4e  dirtier        3   259 ms
                                                       kworker/u4:2[31]                      -       -             submitter      1  2.00 ms
journal           17.5%  65.0 ms         6   24.0 KiB  jbd2/loop3-8[412]                     /       -             submitter      3  65.0 ms
flush              7.0%  26.0 ms         3   12.0 KiB  kworker/1:1H[88]                      /       -             submitter      3  26.0 ms
writeback          3.2%  12.0 ms         3   12.0 KiB  (its own file's data)
other              1.9%  7.00 ms                       (tied to no request: fs, locks, CPU)
block              0.0%     0 us         0        0 B  -
throttle           0.0%     0 us         0        0 B  -

worst (the 3 slowest) and steady (the 5 other selected calls), share of each group's time:
group   calls    time     mean  block  writeback  journal  flush  others_writeback  throttle  other  main cause
worst       3  371 ms   124 ms   0.0%       3.2%    17.5%   7.0%             70.4%      0.0%   1.9%  others_writeback: dd[4242] /noisy (dirtier)
steady      5  175 ms  35.0 ms   0.0%      14.3%    57.1%  22.9%              0.0%      0.0%   5.7%  journal: jbd2/loop3-8[412] / (submitter)
)");
}

TEST_F(BioreportWhyTest, JsonHasTheSameFiguresAndSharesSumTo100) {
  const json j = Json({"--comm", "pgwal", "--slowest", "3"});
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["selection"]["op_id"], nullptr);
  EXPECT_EQ(j["selection"]["filters"], "--comm pgwal");
  EXPECT_EQ(j["selection"]["slowest"], 3);
  EXPECT_EQ(j["selected_calls"], 8);
  EXPECT_EQ(j["calls"], 3);
  EXPECT_EQ(j["op_ids"], json::parse("[10,11,12]"));
  EXPECT_EQ(j["slowest_us"], 151000);
  EXPECT_EQ(j["slowest_op_id"], 10);
  EXPECT_EQ(j["latency_us"], 371000);
  EXPECT_EQ(j["causes_us"], 371000);
  const std::vector<std::string> order = {
      "others_writeback", "journal", "flush", "writeback", "other", "block",
      "throttle"};
  ASSERT_EQ(j["causes"].size(), order.size());
  double shares = 0;
  uint64_t waited = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const json& c = j["causes"][i];
    EXPECT_EQ(c["cause"], order[i]);
    shares += c["share_pct"].get<double>();
    waited += c["wait_us"].get<uint64_t>();
  }
  EXPECT_NEAR(shares, 100.0, 1e-9);
  EXPECT_EQ(waited, 371000u);
  const json& others = j["causes"][0];
  EXPECT_EQ(others["wait_us"], 261000);
  EXPECT_EQ(others["share_pct"], 70.4);
  EXPECT_EQ(others["requests"], 66);
  ASSERT_EQ(others["culprits"].size(), 2u);
  const json& dd = others["culprits"][0];
  EXPECT_EQ(dd["comm"], "dd");
  EXPECT_EQ(dd["pid"], 4242);
  EXPECT_EQ(dd["cgroup"], "/noisy");
  EXPECT_EQ(dd["cgroup_id"], 41);
  EXPECT_EQ(dd["container_id"], "3f2a1b9c0d4e5f60718293a4b5c6d7e8");
  EXPECT_EQ(dd["role"], "dirtier");
  EXPECT_EQ(dd["calls"], 3);
  EXPECT_EQ(dd["requests"], 65);
  EXPECT_EQ(dd["bytes"], 65 * 4096);
  EXPECT_EQ(dd["wait_us"], 259000);
  const json& writer = others["culprits"][1];
  EXPECT_EQ(writer["comm"], "kworker/u4:2");
  EXPECT_EQ(writer["cgroup"], nullptr);
  EXPECT_EQ(writer["role"], "submitter");
  EXPECT_EQ(writer["calls"], 1);
  EXPECT_EQ(j["causes"][1]["culprits"][0]["comm"], "jbd2/loop3-8");
  EXPECT_EQ(j["causes"][1]["culprits"][0]["wait_us"], 65000);
  EXPECT_EQ(j["causes"][3]["culprits"], json::array());
  // The steady calls: their own journal commits first.
  const json& steady = j["steady"];
  EXPECT_EQ(steady["calls"], 5);
  EXPECT_EQ(steady["latency_us"], 175000);
  EXPECT_EQ(steady["causes"][0]["cause"], "journal");
  EXPECT_EQ(steady["causes"][0]["share_pct"], 57.1);
  EXPECT_EQ(steady["causes"][0]["culprits"][0]["calls"], 5);
  EXPECT_EQ(steady["causes"][0]["culprits"][0]["wait_us"], 100000);
  // No one else's writeback among them: dd is not a steady culprit.
  for (const json& c : steady["causes"]) {
    if (c["cause"] == "others_writeback") {
      EXPECT_EQ(c["wait_us"], 0);
      EXPECT_EQ(c["culprits"], json::array());
    }
  }
}

TEST_F(BioreportWhyTest, SelectsByPidCgroupWindowAndOpId) {
  // -p and --cgroup pick the same eight calls as --comm; dd's own write
  // (block) is never among them.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"-p", "812"}, {"--cgroup", "/victim"}, {"--comm", "pgwal"}}) {
    const json j = Json(args);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["selected_calls"], 8) << args[0];
    EXPECT_EQ(j["calls"], 8) << args[0];  // --slowest 10 by default
    EXPECT_EQ(j["steady"], nullptr) << args[0];
    EXPECT_EQ(j["causes"][0]["cause"], "others_writeback") << args[0];
  }
  // Every call: dd's 200 ms write is the slowest, its own block I/O.
  const json all = Json({"--slowest", "1"});
  EXPECT_EQ(all["selected_calls"], 9);
  EXPECT_EQ(all["op_ids"], json::parse("[20]"));
  EXPECT_EQ(all["causes"][0]["cause"], "block");
  EXPECT_EQ(all["causes"][0]["share_pct"], 95.0);
  // The window: from 16:01:05 to 16:01:22 (exclusive) holds pgwal's calls
  // 5 (returned at 16:01:05.5), 10 and 11 (20.5 and 21.5), not 12 (22.5).
  const json w = Json({"--comm", "pgwal", "--since", "2026-11-25T16:01:05Z",
                       "--until", "2026-11-25T16:01:22Z"});
  EXPECT_EQ(w["op_ids"], json::parse("[10,11,5]"));
  // One call: its own layers, no steady part.
  const CliResult one = Run({"--op-id", "12"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("why: 1 fdatasync call by pgwal[812] in cgroup "
                         "/victim, 100 ms in all, slowest 100 ms (op_id 12)\n"
                         "selected: --op-id 12\n"),
            std::string::npos)
      << one.out;
  EXPECT_NE(one.out.find("others_writeback  66.0%  66.0 ms"), std::string::npos)
      << one.out;
  EXPECT_EQ(one.out.find("steady"), std::string::npos) << one.out;
  const json oj = Json({"--op-id", "12"});
  EXPECT_EQ(oj["selection"]["op_id"], 12);
  EXPECT_EQ(oj["calls"], 1);
  EXPECT_EQ(oj["causes"][0]["culprits"][0]["wait_us"], 66000);
}

TEST_F(BioreportWhyTest, ProtobufGivesTheSameReport) {
  const std::string pb = dir_.Path("in.pb");
  ASSERT_EQ(RunCli({"convert", "--to", "proto", "-o", pb, input_}).code, 0);
  const CliResult from_jsonl = Run({"--comm", "pgwal", "--slowest", "3"});
  const CliResult from_pb =
      RunCli({"why", "--comm", "pgwal", "--slowest", "3", pb});
  ASSERT_EQ(from_pb.code, 0) << from_pb.err;
  EXPECT_EQ(FromWhy(from_pb.out), FromWhy(from_jsonl.out));
}

TEST_F(BioreportWhyTest, OverlappingLayersAreSaidAndSharesStillSumTo100) {
  // Layers that sum to more than the call (other_us 0): the shares are of
  // the causes' sum, and a line says so.
  Call c;
  c.id = 1;
  c.second = 1;
  c.latency_us = 30000;
  c.journal = {20000, 1, {With(kJbd2, 20000)}};
  c.flush = {20000, 1, {With(kFlusher, 20000)}};
  WriteFile(input_, Stream({c}));
  const json j = Json({});
  EXPECT_EQ(j["latency_us"], 30000);
  EXPECT_EQ(j["causes_us"], 40000);
  EXPECT_EQ(j["causes"][0]["cause"], "journal");  // a tie: schema order
  EXPECT_EQ(j["causes"][0]["share_pct"], 50.0);
  EXPECT_EQ(j["causes"][1]["share_pct"], 50.0);
  const CliResult r = Run({});
  EXPECT_NE(r.out.find("note: layers overlapped: the causes sum to 40.0 ms, "
                       "the calls took 30.0 ms; shares are of the causes' "
                       "sum\n"),
            std::string::npos)
      << r.out;
}

TEST_F(BioreportWhyTest, NothingToExplainIsSaid) {
  CliResult r = Run({"--comm", "nobody"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("why: no calls to explain: no call passed the "
                       "filters\n"),
            std::string::npos)
      << r.out;
  const json j = Json({"--comm", "nobody"});
  EXPECT_EQ(j["calls"], 0);
  EXPECT_EQ(j["causes"].size(), 7u);
  // A stream of a run without --ops.
  std::string header = Header();
  header.replace(header.find(R"(,"ops":true,"op_min_us":10000)"),
                 std::string(R"(,"ops":true,"op_min_us":10000)").size(), "");
  WriteFile(input_, header + "\n");
  r = Run({});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("why: no calls to explain: no op records: biosnoop "
                       "ran without --ops"),
            std::string::npos)
      << r.out;
}

TEST_F(BioreportWhyTest, AnUnknownOpIdIsAnError) {
  for (const bool as_json : {false, true}) {
    std::vector<std::string> args = {"--op-id", "999"};
    if (as_json) args.push_back("--json");
    const CliResult r = Run(args);
    EXPECT_EQ(r.code, 65);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("bioreport: why: call 999: no op record in the "
                         "input"),
              std::string::npos)
        << r.err;
  }
  // Within the window only: call 12 returned at 16:01:22.
  const CliResult r = Run({"--op-id", "12", "--until", "2026-11-25T16:01:22Z"});
  EXPECT_EQ(r.code, 65) << r.out;
}

TEST_F(BioreportWhyTest, BadUsage) {
  for (const auto& [args, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"why", "--slowest", "0"}, "--slowest: expected a number from 1"},
           {{"ops", "--slowest", "3"}, "--slowest is only for why"},
           {{"why", "--op-id", "3", "--comm", "pgwal"},
            "--comm does not apply to --op-id"},
           {{"why", "--csv"}, "--per-interval and --csv are only for baseline"},
           {{"summary", "--op-id", "3"}, "--op-id is only for ops and why"},
       }) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 64) << absl::StrJoin(args, " ");
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  // --help names the report and its option (the man page is made from
  // the same table).
  const CliResult help = RunCli({"--help"});
  EXPECT_NE(help.out.find("  why "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--slowest N"), std::string::npos) << help.out;
}

// The shares' rounding, on the collector alone: three equal causes are
// 33.3, 33.3 and 33.4 (the tenth left to the first of the ties).
TEST(WhyTotalsTest, SharesAreRoundedToSumToExactly100) {
  v1::Op op;
  op.set_latency_us(3000);
  op.mutable_journal()->set_wait_us(1000);
  op.mutable_flush()->set_wait_us(1000);
  op.set_other_us(1000);
  WhyCollector why(10);
  why.Add(op, 0);
  const WhyTotals t = why.Worst();
  const std::array<int, kCauses> s = SharesPermille(t);
  EXPECT_EQ(s[static_cast<size_t>(Cause::kJournal)], 334);
  EXPECT_EQ(s[static_cast<size_t>(Cause::kFlush)], 333);
  EXPECT_EQ(s[static_cast<size_t>(Cause::kOther)], 333);
  int sum = 0;
  for (const int share : s) sum += share;
  EXPECT_EQ(sum, 1000);
  // Nothing selected: no shares.
  EXPECT_EQ(SharesPermille(WhyTotals{}), (std::array<int, kCauses>{}));
}

// Steady is every call but the slowest, culprits included.
TEST(WhyTotalsTest, SteadyIsAllButTheSlowest) {
  WhyCollector why(1);
  for (uint64_t i = 1; i <= 3; ++i) {
    v1::Op op;
    op.set_op_id(i);
    op.set_latency_us(i * 1000);
    v1::OpCulprit* c = op.mutable_others_writeback()->add_culprits();
    c->set_pid(static_cast<uint32_t>(i == 3 ? 7 : 8));
    c->set_comm(i == 3 ? "noisy" : "quiet");
    c->set_role("dirtier");
    c->set_wait_us(i * 1000);
    op.mutable_others_writeback()->set_wait_us(i * 1000);
    why.Add(op, static_cast<int64_t>(i));
  }
  ASSERT_EQ(why.Slowest().size(), 1u);
  EXPECT_EQ(why.Slowest()[0].op.op_id(), 3u);
  const WhyTotals steady = why.Steady();
  EXPECT_EQ(steady.calls, 2u);
  EXPECT_EQ(steady.latency_us, Sum{3000});
  const auto culprits = RankedCulprits(steady.of(Cause::kOthersWriteback));
  ASSERT_EQ(culprits.size(), 1u);
  EXPECT_EQ(culprits[0].first.comm, "quiet");
  EXPECT_EQ(culprits[0].second.calls, 2u);
  EXPECT_EQ(culprits[0].second.wait_us, Sum{3000});
}

}  // namespace
}  // namespace biosnoop::report
