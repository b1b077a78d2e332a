// One call whole (bioreport ops --op-id): its op record with each layer
// and the tasks it waited for, then the requests tied to it.

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "json_format.h"
#include "report.h"
#include "report_ops_common.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

// --op-id: a run as a heading names it.
std::string RunName(const std::string& run) {
  return run.empty() ? "run unknown (records before any header)"
                     : absl::StrCat("run ", Printable(run));
}

std::string SubmittedAt(const OpRequest& r) {
  return FormatShortTimeMs(r.ns - static_cast<int64_t>(std::min<uint64_t>(
                                      r.latency_us, INT64_MAX / 1000)) *
                                      1000);
}

void AppendRequests(const std::vector<OpRequest>& v, bool stuck, bool ms,
                    bool multi, std::string* out) {
  std::vector<std::string> header =
      stuck ? std::vector<std::string>{"found (UTC)",
                                       "disk",
                                       "op",
                                       "sector",
                                       "bytes",
                                       absl::StrCat("inflight_", Unit(ms)),
                                       "pid",
                                       "comm"}
            : std::vector<std::string>{"submitted (UTC)",
                                       "completed (UTC)",
                                       "disk",
                                       "op",
                                       "sector",
                                       "bytes",
                                       absl::StrCat("latency_", Unit(ms)),
                                       absl::StrCat("queue_", Unit(ms)),
                                       absl::StrCat("device_", Unit(ms)),
                                       "pid",
                                       "comm",
                                       "seq",
                                       "error"};
  std::string align = stuck ? "lllrrrrl" : "llllrrrrrrlrl";
  Table t(Cells(multi, "host", header), multi ? "l" + align : align);
  for (const OpRequest& r : v) {
    std::vector<std::string> cells;
    if (!stuck) cells.push_back(SubmittedAt(r));
    cells.push_back(FormatShortTimeMs(r.ns));
    cells.push_back(Printable(r.disk));
    cells.push_back(Printable(r.op));
    cells.push_back(absl::StrCat(r.sector));
    cells.push_back(HumanBytes(r.bytes));
    cells.push_back(Us(r.latency_us, ms));
    if (!stuck) {
      cells.push_back(r.queue_us.has_value() ? Us(*r.queue_us, ms) : "-");
      cells.push_back(Us(r.device_us, ms));
    }
    cells.push_back(absl::StrCat(r.pid));
    cells.push_back(Printable(r.comm));
    if (!stuck) {
      cells.push_back(absl::StrCat(r.seq));
      cells.push_back(r.error.empty() ? "-" : Printable(r.error));
    }
    t.Add(Cells(multi, r.host, std::move(cells)));
  }
  *out += t.Render();
}

template <typename T, typename RunOf>
std::vector<T> OfRun(const std::vector<T>& v, const std::string& run,
                     RunOf run_of) {
  std::vector<T> out;
  for (const T& x : v) {
    if (run_of(x) == run) out.push_back(x);
  }
  return out;
}

void AppendLayerRow(const char* name, const v1::OpLayer& l, bool ms, Table* t) {
  std::vector<std::string> disks;
  for (const std::string& d : l.disks()) disks.push_back(Printable(d));
  t->Add(
      {name, Us(l.wait_us(), ms), absl::StrCat(l.requests()),
       HumanBytes(l.bytes()), absl::StrJoin(disks, ","),
       absl::StrCat(Us(l.queue_us_sum(), ms), " / ", Us(l.queue_us_max(), ms)),
       absl::StrCat(Us(l.device_us_sum(), ms), " / ",
                    Us(l.device_us_max(), ms)),
       l.has_dirty_age_us_max()
           ? absl::StrCat(
                 Us(l.dirty_age_us_max(), ms), " / ",
                 l.has_dirty_age_us_min() ? Us(l.dirty_age_us_min(), ms) : "-",
                 " (", l.dirty_known(), " known)")
           : "-"});
}

// A rendered table, each line indented by two spaces.
void AppendIndented(const std::string& rendered, std::string* out) {
  for (absl::string_view line : absl::StrSplit(rendered, '\n')) {
    if (!line.empty()) absl::StrAppend(out, "  ", line, "\n");
  }
}

void AppendCallText(const OpCall& c, bool ms, std::string* out) {
  const v1::Op& op = c.op;
  const char* u = Unit(ms);
  const v1::FileRef& f = op.file();
  absl::StrAppend(out, "  ", Printable(op.call()), " by pid ", op.pid(),
                  " tid ", op.tid(), " (", Printable(op.comm()), ") on ",
                  HostName(op.host()), "\n  file: ", Printable(FileName(f)));
  if (!f.path().empty()) {
    absl::StrAppend(out, " (inode ", f.inode(), " on ", Printable(f.dev()),
                    ")");
  }
  absl::StrAppend(out, ", disk ", Printable(op.disk()));
  if (op.has_real_file()) {
    // overlayfs: the file the events of its pages name.
    const v1::FileRef& real = op.real_file();
    absl::StrAppend(
        out, "\n  real file (overlayfs): ", Printable(FileName(real)),
        " (inode ", real.inode(), " on ", Printable(real.dev()), ")");
  }
  absl::StrAppend(out, "\n  offset ",
                  op.has_offset() ? absl::StrCat(op.offset()) : "-",
                  ", bytes requested ", op.bytes_requested(),
                  op.bytes_requested_partial() ? " (at least)" : "", ", done ",
                  op.bytes_done(), ", error ", ErrorName(op), "\n",
                  "  started ", FormatShortTimeMs(ToNs(op.start_time())),
                  ", returned ", FormatShortTimeMs(c.ns),
                  " UTC: ", Us(op.latency_us(), ms), " ", u, "\n\n");
  Table t({"layer", absl::StrCat("wait_", u), "requests", "bytes", "disks",
           absl::StrCat("queue_", u, " sum / max"),
           absl::StrCat("device_", u, " sum / max"),
           absl::StrCat("dirty_age_", u, " max / min")},
          "lrrrlrrl");
  const std::pair<const char*, const v1::OpLayer*> layers[] = {
      {"block", &op.block()},
      {"writeback", &op.writeback()},
      {"journal", &op.journal()},
      {"flush", &op.flush()},
      {"others_writeback", &op.others_writeback()},
      {"throttle", &op.throttle()}};
  for (const auto& [name, l] : layers) AppendLayerRow(name, *l, ms, &t);
  t.Add({"other", Us(op.other_us(), ms), "", "", "", "", "", ""});
  t.Add({"total", Us(op.latency_us(), ms), "", "", "", "", "", ""});
  AppendIndented(t.Render(), out);
  if (!op.throttle_controllers().empty()) {
    std::vector<std::string> names;
    for (const std::string& n : op.throttle_controllers()) {
      names.push_back(Printable(n));
    }
    absl::StrAppend(out, "  throttled where the queue had on: ",
                    absl::StrJoin(names, ", "), "\n");
  }
  // Whose requests the call waited for, per layer, most waited-for first.
  Table culprits({"layer", "culprit", "pid", "comm", "cgroup", "requests",
                  "bytes", absl::StrCat("wait_", u)},
                 "llrllrrr");
  size_t n = 0;
  for (const auto& [name, l] : layers) {
    for (const v1::OpCulprit& c : l->culprits()) {
      culprits.Add({name, Printable(c.role()), absl::StrCat(c.pid()),
                    Printable(c.comm()),
                    c.has_cgroup()       ? Printable(c.cgroup())
                    : c.cgroup_id() != 0 ? absl::StrCat("id ", c.cgroup_id())
                                         : "-",
                    absl::StrCat(c.requests()), HumanBytes(c.bytes()),
                    Us(c.wait_us(), ms)});
      ++n;
    }
  }
  if (n == 0) return;
  absl::StrAppend(out, "\n  waited for the requests of (culprits):\n");
  AppendIndented(culprits.Render(), out);
}

}  // namespace

std::string OpIdReport(const ReportInput& in, const ReportOptions& opt) {
  const OpCollector& ops = *in.ops;
  const uint64_t id = ops.op_id().value_or(0);
  std::string out = OpsWarningBlock(in, true) + Heading(in) + "\n";
  const std::set<std::string> runs = ops.Runs();
  if (runs.empty()) {
    return absl::StrCat(out, "call ", id,
                        ": nothing in the input names it (no op record, no "
                        "event, no stuck record)\n");
  }
  if (runs.size() > 1) {
    absl::StrAppend(&out, "call ", id, " is named in ", runs.size(),
                    " runs (op ids are unique in a run only): each apart\n\n");
  }
  const bool multi = MultiHost(in);
  const std::vector<OpCall> matches = ops.Matches();
  const std::vector<OpRequest> submitted = ops.Submitted();
  const std::vector<OpRequest> written = ops.Written();
  const std::vector<OpRequest> stuck = ops.Stuck();
  auto call_run = [](const OpCall& c) { return c.run; };
  auto req_run = [](const OpRequest& r) { return r.run; };
  for (const std::string& run : runs) {
    absl::StrAppend(&out, "call ", id, " (", RunName(run), "):\n");
    const std::vector<OpCall> m = OfRun(matches, run, call_run);
    if (m.empty()) {
      absl::StrAppend(
          &out,
          "  no op record: the call took less than --op-min-us (events "
          "name every call), or its record was lost or is in a file not "
          "given; its requests follow\n");
    }
    for (const OpCall& c : m) AppendCallText(c, opt.ms, &out);
    const std::vector<OpRequest> s = OfRun(submitted, run, req_run);
    const std::vector<OpRequest> w = OfRun(written, run, req_run);
    const std::vector<OpRequest> k = OfRun(stuck, run, req_run);
    absl::StrAppend(&out, "\nrequests submitted under it (event op_id ", id,
                    "): ", s.size(), "\n");
    if (!s.empty()) AppendRequests(s, false, opt.ms, multi, &out);
    absl::StrAppend(&out,
                    "\nwriteback of the pages it dirtied (event "
                    "dirtier_op_ids holding ",
                    id, "): ", w.size(), "\n");
    if (!w.empty()) AppendRequests(w, false, opt.ms, multi, &out);
    if (!k.empty()) {
      absl::StrAppend(&out, "\nstill in flight when found (stuck records): ",
                      k.size(), "\n");
      AppendRequests(k, true, opt.ms, multi, &out);
    }
    out += "\n";
  }
  out.pop_back();
  return out;
}

std::string OpIdJson(const ReportInput& in, const ReportOptions& opt) {
  (void)opt;
  const OpCollector& ops = *in.ops;
  std::string out =
      absl::StrCat("{\"op_id\":", ops.op_id().value_or(0), ",\"calls\":[");
  bool first = true;
  for (const OpCall& c : ops.Matches()) {
    if (!first) out.push_back(',');
    first = false;
    AppendCallJson(c, &out);
  }
  out.push_back(']');
  const std::pair<const char*, std::vector<OpRequest>> lists[] = {
      {"submitted", ops.Submitted()},
      {"writeback", ops.Written()},
      {"stuck", ops.Stuck()}};
  for (const auto& [name, v] : lists) {
    absl::StrAppend(&out, ",\"", name, "\":[");
    first = true;
    for (const OpRequest& r : v) {
      if (!first) out.push_back(',');
      first = false;
      absl::StrAppend(&out, "{\"timestamp\":\"", FormatRfc3339(r.ns),
                      "\",\"run\":");
      AppendJsonString(r.run, &out);
      out.append(",\"host\":");
      AppendJsonString(r.host, &out);
      out.append(",\"disk\":");
      AppendJsonString(r.disk, &out);
      out.append(",\"op\":");
      AppendJsonString(r.op, &out);
      absl::StrAppend(&out, ",\"sector\":", r.sector, ",\"bytes\":", r.bytes,
                      std::string(name) == "stuck" ? ",\"inflight_us\":"
                                                   : ",\"latency_us\":",
                      r.latency_us, ",\"pid\":", r.pid, ",\"comm\":");
      AppendJsonString(r.comm, &out);
      if (std::string(name) != "stuck") {
        absl::StrAppend(&out, ",\"seq\":", r.seq, ",\"error\":");
        if (r.error.empty()) {
          out.append("null");
        } else {
          AppendJsonString(r.error, &out);
        }
      }
      out.push_back('}');
    }
    out.push_back(']');
  }
  out.append("}\n");
  return out;
}

}  // namespace biosnoop::report
