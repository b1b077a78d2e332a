// The kernel matrix's assertions (label `kernels`, issue #37): what one of
// Debian 12's kernels, booted under qemu by tests/kernels/run-kernel, made
// of biosnoop in each mode.  The guest only records (guest-checks.sh); every
// check is here: each direct read of a known file is reported exactly once
// with its sector, size, op, process, disk, file and queue time; biosnoop
// starts with its header and exits 0.  The results directory and the
// expected kernel release come from the environment (BIOSNOOP_KERNEL_RESULTS,
// BIOSNOOP_KERNEL_VERSION), set by run-kernel.

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "guest_results_test.h"
#include "nlohmann/json.hpp"
#include "results.h"

namespace biosnoop::kernels {
namespace {

constexpr uint64_t kBlock = 4096;

// (dd's pid, sector) -> the one event reporting that read.
using ReadEvents = std::map<std::pair<int64_t, uint64_t>, IoEvent>;

class KernelMatrixTest : public GuestResultsTest {
 protected:
  // biosnoop's output in `mode`, after checking that it exited 0.
  std::string Output(const std::string& mode) {
    modes_.push_back(mode);
    std::optional<std::string> rc = ReadResult(dir_, mode + ".rc");
    if (!rc.has_value()) {
      ADD_FAILURE() << "mode " << mode << ": no exit status (the guest never "
                    << "ran it)";
    } else {
      EXPECT_EQ(Trim(*rc), "0")
          << "mode " << mode << ": biosnoop's exit status";
    }
    return ReadResult(dir_, mode + ".out").value_or("");
  }

  std::vector<nlohmann::json> Records(const std::string& mode,
                                      const std::string& text) {
    std::vector<std::string> errors;
    std::vector<nlohmann::json> records = ParseJsonLines(text, &errors);
    for (const std::string& e : errors) {
      ADD_FAILURE() << "mode " << mode << ": not JSON: " << e;
    }
    return records;
  }

  // A JSON Lines stream: its header, then every direct read once.
  ReadEvents CheckJsonLines(const std::string& mode, const std::string& text,
                            bool files) {
    std::vector<nlohmann::json> records = Records(mode, text);
    if (records.empty() || records[0].value("type", "") != "header") {
      ADD_FAILURE() << "mode " << mode << ": the first record is not the "
                    << "header: "
                    << (records.empty() ? "no records" : records[0].dump());
    } else {
      EXPECT_EQ(records[0].value("kernel_release", ""), uname_)
          << "mode " << mode << ": the header's kernel_release";
    }
    return CheckEveryReadOnce(mode, EventsFromJsonLines(records), files);
  }

  // Each 4 KiB direct read the manifest lists for `mode`: exactly one
  // event at its sector from its dd, with its size, op, comm, disk, file
  // (or no files key with --no-files) and a queue time.
  ReadEvents CheckEveryReadOnce(const std::string& mode,
                                const std::vector<IoEvent>& events,
                                bool files) {
    ReadEvents found;
    std::vector<Dd> reads = ManifestReads(manifest_, mode);
    EXPECT_FALSE(reads.empty()) << "mode " << mode << ": the guest drove no "
                                << "reads (biosnoop did not attach?)";
    for (const Dd& dd : reads) {
      EXPECT_EQ(dd.status, 0) << "mode " << mode << ": dd of " << dd.path;
      for (size_t k = 0; k < dd.sectors.size(); ++k) {
        const uint64_t sector = dd.sectors[k];
        // Only this dd reads these sectors in this mode: any other event
        // there is a duplicate or a misattribution.
        std::vector<const IoEvent*> at;
        for (const IoEvent& e : events) {
          if (e.sector == sector) at.push_back(&e);
        }
        const std::string what = "mode " + mode + ": direct read of " +
                                 dd.path + " block " + std::to_string(k) +
                                 " (sector " + std::to_string(sector) +
                                 ") by dd pid " + std::to_string(dd.pid);
        if (at.size() != 1) {
          ADD_FAILURE() << what << ": " << at.size() << " events at the "
                        << "sector, want 1: " << Describe(at)
                        << "; dd's events: " << Describe(events, dd.pid);
          continue;
        }
        const IoEvent& e = *at[0];
        EXPECT_EQ(e.pid, dd.pid) << what << ": " << e.raw.dump();
        EXPECT_EQ(e.op, "read") << what;
        EXPECT_EQ(e.bytes, kBlock) << what;
        EXPECT_EQ(e.comm, "dd") << what;
        EXPECT_EQ(e.disk, "vda") << what;
        EXPECT_TRUE(e.queue_us.has_value())
            << what << ": queue_us is null: " << e.raw.dump();
        // virtio-blk has no driver tracepoints: no driver times.
        for (const char* key : {"driver_prep_us", "driver_done_us"}) {
          EXPECT_FALSE(e.raw.contains(key))
              << what << ": " << key << " on a virtio disk: " << e.raw.dump();
        }
        if (files) {
          EXPECT_EQ(e.first_path.value_or("(no files[0].path)"), dd.path)
              << what << ": files[0].path";
        } else {
          EXPECT_FALSE(e.has_files) << what << ": files with --no-files";
        }
        found.emplace(std::make_pair(dd.pid, sector), e);
      }
    }
    return found;
  }

  static std::string Describe(const IoEvent& e) {
    return "[" + e.op + " sector " + std::to_string(e.sector) + " " +
           std::to_string(e.bytes) + " bytes pid " + std::to_string(e.pid) +
           " " + e.comm + "] ";
  }
  static std::string Describe(const std::vector<const IoEvent*>& events) {
    std::string s;
    for (const IoEvent* e : events) s += Describe(*e);
    return s.empty() ? "none" : s;
  }
  static std::string Describe(const std::vector<IoEvent>& events, int64_t pid) {
    std::string s;
    for (const IoEvent& e : events) {
      if (e.pid == pid) s += Describe(e);
    }
    return s.empty() ? "none" : s;
  }
};

TEST_F(KernelMatrixTest, GuestBootedTheKernelAndRanEveryMode) {
  EXPECT_EQ(uname_, Env("BIOSNOOP_KERNEL_VERSION")) << "the guest's uname -r";
  for (const char* mode : {"default", "no-files", "ops", "throttle",
                           "writeback-owner", "hist", "proto", "ecs"}) {
    EXPECT_TRUE(ReadResult(dir_, std::string(mode) + ".rc").has_value())
        << "mode " << mode << " never ran";
  }
  const std::string offered = ReadResult(dir_, "schedulers").value_or("");
  for (const char* s : {"none", "mq-deadline"}) {
    EXPECT_NE(offered.find(s), std::string::npos)
        << "vda does not offer scheduler " << s << ": " << offered;
  }
  EXPECT_TRUE(ManifestSchedulers(manifest_, /*refused=*/true).empty())
      << "vda refused a scheduler it listed: " << manifest_;
}

TEST_F(KernelMatrixTest, DefaultModeReportsEveryDirectRead) {
  CheckJsonLines("default", Output("default"), /*files=*/true);
}

// Once loaded, biosnoop runs as nobody (the guest's /etc/passwd has no
// biosnoop user), and still reads its maps and ring buffer: every read is
// reported above.  Before 6.5 (Debian's 6.1) that takes the CAP_BPF it
// keeps across the switch.
TEST_F(KernelMatrixTest, DefaultModeRanAsNobodyAfterLoading) {
  const std::string err = ReadResult(dir_, "default.err").value_or("");
  EXPECT_NE(err.find("running as nobody (uid 65534, gid 65534)"),
            std::string::npos)
      << err;
}

// The completing CPU's context is read on every kernel (Debian's 6.12
// keeps preempt_count in struct pcpu_hot: it read "unknown" there until
// that was looked for); on PREEMPT_RT interrupt handlers are threads, so
// a completion is in task context.
TEST_F(KernelMatrixTest, CompletionContextIsKnown) {
  const bool rt = uname_.find("-rt-") != std::string::npos;
  const std::string out = Output("default");
  int reads = 0;
  for (const auto& [key, e] : CheckJsonLines("default", out, true)) {
    ++reads;
    const std::string context = e.raw.value("completion_context", "");
    EXPECT_NE(context, "unknown") << e.raw.dump();
    if (rt) {
      EXPECT_EQ(context, "task") << "PREEMPT_RT: " << e.raw.dump();
    }
  }
  EXPECT_GT(reads, 0);
}

TEST_F(KernelMatrixTest, NoFilesModeReportsEveryDirectReadWithoutFiles) {
  CheckJsonLines("no-files", Output("no-files"), /*files=*/false);
}

// --ops: each read() of dd is an op record of its own, and the event of
// its request names that record's op_id.
TEST_F(KernelMatrixTest, OpsModeRecordsEachReadCall) {
  const std::string text = Output("ops");
  ReadEvents events = CheckJsonLines("ops", text, /*files=*/true);
  std::vector<nlohmann::json> ops;
  for (nlohmann::json& r : Records("ops", text)) {
    if (r.value("type", "") == "op") ops.push_back(std::move(r));
  }
  for (const Dd& dd : ManifestReads(manifest_, "ops")) {
    for (size_t k = 0; k < dd.sectors.size(); ++k) {
      const uint64_t offset = k * kBlock;
      const std::string what = "read() of " + dd.path + " at offset " +
                               std::to_string(offset) + " by dd pid " +
                               std::to_string(dd.pid);
      std::vector<const nlohmann::json*> at;
      for (const nlohmann::json& op : ops) {
        if (op.value("pid", int64_t{0}) == dd.pid &&
            op.value("call", "") == "read" && op.contains("offset") &&
            op["offset"] == offset) {
          at.push_back(&op);
        }
      }
      if (at.size() != 1) {
        ADD_FAILURE() << what << ": " << at.size() << " op records, want 1 ("
                      << ops.size() << " op records in all)";
        continue;
      }
      const nlohmann::json& op = *at[0];
      EXPECT_EQ(op.value("bytes_done", int64_t{-1}), int64_t{kBlock}) << what;
      EXPECT_EQ(op.value("/file/path"_json_pointer, ""), dd.path) << what;
      EXPECT_GE(op.value("/block/requests"_json_pointer, int64_t{0}), 1)
          << what << ": " << op.dump();
      auto e = events.find({dd.pid, dd.sectors[k]});
      if (e != events.end()) {
        EXPECT_EQ(e->second.raw.value("op_id", int64_t{-1}),
                  op.value("op_id", int64_t{-2}))
            << what << ": the event's op_id";
      }
    }
  }
}

// Microseconds since the epoch of a record's time, as biosnoop writes it
// ("2026-11-28T10:00:00.123456789Z"); -1 when it is not one.
int64_t Rfc3339Us(const std::string& s) {
  struct tm tm = {};
  long ns = 0;
  int len = 0;
  if (sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%9ldZ%n", &tm.tm_year, &tm.tm_mon,
             &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ns,
             &len) != 7 ||
      size_t(len) != s.size() || s.size() != 30) {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t(timegm(&tm)) * 1000000 + ns / 1000;
}

// --ops under cgroup v2's io.cost (the throttle mode): dd's direct reads
// in a group held to 10 reads a second wait in rq_qos_throttle before
// they become requests.  A read's time before its request's submission
// (the event's completion less its device and queue times) is its
// throttle wait plus the CPU work before its bio (under TCG, emulated:
// up to a few ms), so the throttle layer is at least half of that time
// over all reads, and a read that waited names io.cost among the queue's
// controllers.  It never exceeds the read's time before its request's
// issue (within 1 ms).  (Before 6.5 the event's submission is the
// request's allocation, which a plug's cached request can make earlier
// than the end of the wait: issue is the bound that holds on every
// kernel.)
TEST_F(KernelMatrixTest, IoCostWaitsAreTheThrottleLayer) {
  const std::string text = Output("throttle");
  CheckJsonLines("throttle", text, /*files=*/true);
  std::vector<nlohmann::json> records = Records("throttle", text);
  std::map<int64_t, const nlohmann::json*> event_of;  // by op_id
  for (const nlohmann::json& r : records) {
    if (r.value("type", "") == "event" && r.contains("op_id") &&
        r["op_id"].is_number()) {
      event_of[r["op_id"].get<int64_t>()] = &r;
    }
  }
  std::set<int64_t> dd_pids;
  for (const Dd& dd : ManifestReads(manifest_, "throttle")) {
    dd_pids.insert(dd.pid);
  }
  ASSERT_FALSE(dd_pids.empty()) << "no reads in the throttle mode";
  int64_t longest = 0;
  int64_t throttled = 0;
  int64_t before_requests = 0;
  int reads = 0;
  for (const nlohmann::json& op : records) {
    // (dd's last read() of each file, at its end, makes no request.)
    if (op.value("type", "") != "op" || op.value("call", "") != "read" ||
        dd_pids.count(op.value("pid", int64_t{0})) == 0 ||
        op.value("bytes_done", int64_t{0}) == 0) {
      continue;
    }
    ++reads;
    const auto e = event_of.find(op.value("op_id", int64_t{0}));
    if (e == event_of.end()) {
      ADD_FAILURE() << "no event of the read's request: " << op.dump();
      continue;
    }
    const nlohmann::json& ev = *e->second;
    const int64_t submitted = Rfc3339Us(ev.value("timestamp", "")) -
                              ev.value("device_us", int64_t{0}) -
                              ev.value("queue_us", int64_t{0});
    const int64_t start = Rfc3339Us(op.value("start_time", ""));
    const int64_t before = submitted - start;
    const int64_t before_issue =
        submitted + ev.value("queue_us", int64_t{0}) - start;
    const int64_t got = op.value("/throttle/wait_us"_json_pointer, int64_t{-1});
    EXPECT_GE(got, 0) << op.dump();
    EXPECT_LE(got, before_issue + 1000) << op.dump() << "\n" << ev.dump();
    if (got >= 1000) {
      const nlohmann::json& names = op["throttle_controllers"];
      EXPECT_NE(std::find(names.begin(), names.end(), "io.cost"), names.end())
          << op.dump();
    }
    throttled += got;
    before_requests += before;
    longest = std::max(longest, got);
  }
  EXPECT_GT(reads, 0);
  EXPECT_GE(throttled * 2, before_requests)
      << "of " << before_requests << " us before the reads' requests, "
      << throttled << " us were throttle";
  // 10 reads a second: dd's reads, back to back, wait most of 100 ms each.
  EXPECT_GE(longest, 20000) << "no read waited in io.cost";
}

// --writeback-owner: the writeback of a file dd wrote names dd in
// dirtied_by.
TEST_F(KernelMatrixTest, WritebackOwnerModeNamesTheDirtier) {
  const std::string text = Output("writeback-owner");
  CheckJsonLines("writeback-owner", text, /*files=*/true);
  std::vector<IoEvent> events =
      EventsFromJsonLines(Records("writeback-owner", text));
  std::vector<Dd> writes = ManifestWrites(manifest_, "writeback-owner");
  ASSERT_EQ(writes.size(), 1u) << "the guest's buffered write is missing";
  const Dd& dd = writes[0];
  EXPECT_EQ(dd.status, 0) << "dd writing " << dd.path;
  int n = 0;
  for (const IoEvent& e : events) {
    if (e.op != "write" || e.first_path != dd.path) continue;
    ++n;
    const nlohmann::json& by = e.raw.value("dirtied_by", nlohmann::json());
    ASSERT_TRUE(by.is_object()) << "a write of " << dd.path << " without "
                                << "dirtied_by: " << e.raw.dump();
    EXPECT_EQ(by.value("pid", int64_t{0}), dd.pid) << e.raw.dump();
    EXPECT_EQ(by.value("comm", ""), "dd") << e.raw.dump();
  }
  EXPECT_GT(n, 0) << "no write event names " << dd.path;
}

// --hist --json: the histograms count at least the direct reads.
TEST_F(KernelMatrixTest, HistModeCountsTheReads) {
  std::vector<nlohmann::json> records = Records("hist", Output("hist"));
  uint64_t reads = 0;
  for (const Dd& dd : ManifestReads(manifest_, "hist")) {
    reads += dd.sectors.size();
  }
  EXPECT_GT(reads, 0u) << "the guest drove no reads in mode hist";
  uint64_t count = 0, four_k = 0;
  for (const nlohmann::json& r : records) {
    if (r.value("type", "") != "histogram") continue;
    for (const nlohmann::json& h : r.value("histograms", nlohmann::json())) {
      count += h.value("count", uint64_t{0});
      for (const nlohmann::json& b : h.value("size_bytes", nlohmann::json())) {
        if (b.value("lo", uint64_t{0}) == kBlock) {
          four_k += b.value("count", uint64_t{0});
        }
      }
    }
  }
  EXPECT_GE(count, reads) << "I/Os counted in the histograms";
  EXPECT_GE(four_k, reads) << "I/Os counted in the 4 KiB size bucket";
}

// --format proto, decoded on the host by bioreport convert.
TEST_F(KernelMatrixTest, ProtoModeReportsEveryDirectRead) {
  Output("proto");
  int status;
  const std::string jsonl =
      CommandStdout(std::string("'") + BIOREPORT_BIN +
                        "' convert --to jsonl '" + dir_ + "/proto.out'",
                    &status);
  ASSERT_EQ(status, 0) << "bioreport convert --to jsonl proto.out";
  CheckJsonLines("proto", jsonl, /*files=*/true);
}

TEST_F(KernelMatrixTest, EcsModeReportsEveryDirectRead) {
  std::vector<nlohmann::json> docs = Records("ecs", Output("ecs"));
  if (docs.empty() ||
      docs[0].value("/event/action"_json_pointer, "") != "stream-start") {
    ADD_FAILURE() << "the first ECS document is not the stream-start header: "
                  << (docs.empty() ? "none" : docs[0].dump());
  } else {
    EXPECT_EQ(docs[0].value("/host/os/kernel"_json_pointer, ""), uname_);
  }
  for (const auto& [key, e] :
       CheckEveryReadOnce("ecs", EventsFromEcs(docs), /*files=*/true)) {
    EXPECT_EQ(e.raw.value("/file/path"_json_pointer, ""),
              e.first_path.value_or("?"))
        << "ECS file.path of " << e.raw.dump();
  }
}

// The default mode under each scheduler vda offers: the queue time is
// known for every direct read whatever the scheduler.
TEST_F(KernelMatrixTest, EveryDirectReadUnderEachScheduler) {
  std::vector<std::string> schedulers = ManifestSchedulers(manifest_, false);
  EXPECT_FALSE(schedulers.empty()) << "no scheduler run in the manifest";
  for (const std::string& s : schedulers) {
    SCOPED_TRACE("scheduler " + s);
    CheckJsonLines("sched-" + s, Output("sched-" + s), /*files=*/true);
  }
}

}  // namespace
}  // namespace biosnoop::kernels
