#include "stuck_requests.h"

#include <cstring>
#include <vector>

#include "decoder.h"
#include "gtest/gtest.h"

namespace biosnoop {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

biosnoop_inflight_val Issued(uint64_t rq, uint64_t issue_ns) {
  biosnoop_inflight_val v{};
  v.rq = rq;
  v.submit_ns = issue_ns - 3000;
  v.issue_ns = issue_ns;
  v.dev = (7u << 20) | 3;
  v.sector = 2048;
  v.bytes = 4096;
  v.pid = 4242;
  v.tid = 4243;
  v.queue_depth = 2;
  v.op = BIOSNOOP_OP_READ;
  v.submit_known = 1;
  std::memcpy(v.comm, "dd", 3);
  return v;
}

std::vector<uint64_t> Requests(const std::vector<biosnoop_inflight_val>& vs) {
  std::vector<uint64_t> out;
  for (const biosnoop_inflight_val& v : vs) out.push_back(v.rq);
  return out;
}

TEST(StuckTrackerTest, ReportsEachRequestOnceItHasBeenInFlightLongEnough) {
  StuckTracker t(2 * kSecond);
  const std::vector<biosnoop_inflight_val> table = {Issued(1, 10 * kSecond),
                                                    Issued(2, 11 * kSecond)};
  EXPECT_TRUE(t.Observe(table, 11 * kSecond).empty());
  EXPECT_EQ(Requests(t.Observe(table, 12 * kSecond)), std::vector<uint64_t>{1});
  EXPECT_EQ(Requests(t.Observe(table, 13 * kSecond)), std::vector<uint64_t>{2});
  // Still there, still stuck: not again.
  EXPECT_TRUE(t.Observe(table, 60 * kSecond).empty());
}

TEST(StuckTrackerTest, UnissuedAndRequeuedEntriesAreNotOnTheDevice) {
  StuckTracker t(kSecond);
  biosnoop_inflight_val queued = Issued(1, 5 * kSecond);
  queued.issue_ns = 0;
  biosnoop_inflight_val requeued = Issued(2, 5 * kSecond);
  requeued.requeued = 1;
  biosnoop_inflight_val future = Issued(3, 50 * kSecond);  // clock read races
  EXPECT_TRUE(t.Observe({queued, requeued, future}, 20 * kSecond).empty());
}

TEST(StuckTrackerTest, ANewIssueOfTheSameRequestIsANewRequest) {
  StuckTracker t(kSecond);
  EXPECT_EQ(Requests(t.Observe({Issued(7, 1 * kSecond)}, 3 * kSecond)),
            std::vector<uint64_t>{7});
  // It completed; the same struct request is handed out again and hangs.
  EXPECT_TRUE(t.Observe({}, 4 * kSecond).empty());
  EXPECT_EQ(Requests(t.Observe({Issued(7, 5 * kSecond)}, 6 * kSecond)),
            std::vector<uint64_t>{7});
  // Issued again after a requeue (a new issue time) while still held.
  EXPECT_EQ(Requests(t.Observe({Issued(7, 6 * kSecond)}, 8 * kSecond)),
            std::vector<uint64_t>{7});
}

TEST(StuckFiltersTest, TheKernelsFiltersApply) {
  const biosnoop_inflight_val v = Issued(1, kSecond);
  ProbeConfig all;
  EXPECT_TRUE(StuckPassesFilters(all, v));

  ProbeConfig pid;
  pid.pid = 4242;
  EXPECT_TRUE(StuckPassesFilters(pid, v));
  pid.pid = 1;
  EXPECT_FALSE(StuckPassesFilters(pid, v));

  ProbeConfig comm;
  comm.comm = "dd";
  EXPECT_TRUE(StuckPassesFilters(comm, v));
  comm.comm = "d";  // exact, not a prefix
  EXPECT_FALSE(StuckPassesFilters(comm, v));
  biosnoop_inflight_val full = v;
  std::memcpy(full.comm, "0123456789abcdef", 16);  // no NUL at all
  comm.comm = "0123456789abcde";
  EXPECT_FALSE(StuckPassesFilters(comm, full));

  ProbeConfig op;
  op.op_filter = BIOSNOOP_FILTER_OP_WRITE;
  EXPECT_FALSE(StuckPassesFilters(op, v));
  op.op_filter = BIOSNOOP_FILTER_OP_READ;
  EXPECT_TRUE(StuckPassesFilters(op, v));

  ProbeConfig part;  // a partition: sectors [2048, 4096)
  part.sector_start = 2048;
  part.sector_end = 4096;
  EXPECT_TRUE(StuckPassesFilters(part, v));
  part.sector_start = 2049;
  EXPECT_FALSE(StuckPassesFilters(part, v));
  part.sector_start = 0;
  part.sector_end = 2048;
  EXPECT_FALSE(StuckPassesFilters(part, v));

  // --cgroup: the kernel decided at submission, against the id of then.
  ProbeConfig cgroup;
  cgroup.cgroup_id = 77;
  EXPECT_TRUE(StuckPassesFilters(cgroup, v));
  biosnoop_inflight_val outside = v;
  outside.outside_cgroup = 1;
  EXPECT_FALSE(StuckPassesFilters(cgroup, outside));
  cgroup.cgroup_id = kNoCgroup;  // removed since: still the entry's answer
  EXPECT_TRUE(StuckPassesFilters(cgroup, v));
  EXPECT_TRUE(StuckPassesFilters(all, outside));
}

TEST(DecodeStuckTest, AnEventsFieldsAtIssueAndTheTimeInFlightSoFar) {
  biosnoop_inflight_val v = Issued(1, 10 * kSecond);
  v.flags = BIOSNOOP_FLAG_SYNC;
  const StuckRequest s = DecodeStuck(v, 12 * kSecond + 500);
  EXPECT_EQ(s.inflight_ns, 2 * kSecond + 500);
  EXPECT_EQ(s.found_ns, 12 * kSecond + 500);
  const Request& e = s.request;
  ASSERT_TRUE(e.queue_ns.has_value());
  EXPECT_EQ(*e.queue_ns, 3000u);
  EXPECT_EQ(e.major, 7u);
  EXPECT_EQ(e.minor, 3u);
  EXPECT_EQ(e.sector, 2048u);
  EXPECT_EQ(e.bytes, 4096u);
  EXPECT_EQ(e.pid, 4242u);
  EXPECT_EQ(e.tid, 4243u);
  EXPECT_EQ(e.queue_depth, 2u);
  EXPECT_EQ(e.op, Op::kRead);
  EXPECT_EQ(Rwbs(e.op, e.flags), "RS");
  EXPECT_EQ(e.Comm(), "dd");
  // Submission not seen (tracer started between submission and issue).
  v.submit_ns = 0;
  EXPECT_FALSE(DecodeStuck(v, 12 * kSecond).request.queue_ns.has_value());
  v.op = 200;  // not a biosnoop_op
  EXPECT_EQ(DecodeStuck(v, 12 * kSecond).request.op, Op::kOther);
}

}  // namespace
}  // namespace biosnoop
