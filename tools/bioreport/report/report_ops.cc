// The calls report (bioreport ops): the slowest calls with their time split
// by layer, then per process and per file the p50 and p99 of each layer
// (one call whole, --op-id, is report_op_id.cc's).  Text for people, JSON
// for scripts; the WARNING block says when op records may be missing.

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "json_format.h"
#include "op_layer_json.h"
#include "report.h"
#include "report_ops_common.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {

std::string Us(uint64_t us, bool ms) {
  if (!ms) return absl::StrCat(us);
  return absl::StrFormat("%.1f", static_cast<double>(us) / 1000);
}

const char* Unit(bool ms) { return ms ? "ms" : "us"; }

bool MultiHost(const ReportInput& in) {
  return in.agg != nullptr && in.agg->MultiHost();
}

std::vector<std::string> Cells(bool multi, const std::string& host,
                               std::vector<std::string> cells) {
  if (multi) cells.insert(cells.begin(), HostName(host));
  return cells;
}

std::string Heading(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  const OpCollector& ops = *in.ops;
  std::string out = absl::StrCat("inputs: ", in.inputs, " (", in.formats,
                                 "), records: ", a.records(),
                                 ", op records: ", ops.records());
  const std::set<uint64_t>& min_us = ops.headers().op_min_us;
  if (!min_us.empty()) {
    absl::StrAppend(&out, " (calls of at least ", absl::StrJoin(min_us, ", "),
                    " us: --op-min-us)");
  }
  out += "\n";
  if (a.records() > 0) {
    absl::StrAppend(&out, "span: ", FormatShortTime(a.first_record_ns()),
                    " .. ", FormatShortTime(a.last_record_ns()), " UTC (",
                    absl::StrFormat("%.1f", SecondsBetween(a.first_record_ns(),
                                                           a.last_record_ns())),
                    " s)\n");
  }
  return out;
}

std::string ErrorName(const v1::Op& op) {
  if (op.error_code() == 0) return "-";
  return op.has_error() ? Printable(op.error())
                        : absl::StrCat("errno ", op.error_code());
}

namespace {

const std::vector<int> kP50P99 = {500, 990};

// The loss lines of the calls for one set of runs.
void AppendOpLossLines(const LossSummary& loss, bool any_records,
                       const std::string& prefix,
                       std::vector<std::string>* lines) {
  const std::pair<Sum, const char*> counted[] = {
      {loss.ops_lost, " op records lost in the kernel (ring buffer full)"},
      {loss.ops_untracked,
       " calls not followed (biosnoop's table of calls in progress was "
       "full)"},
      {loss.ops_not_in_input,
       " op records biosnoop wrote are not in the input (log files not "
       "given, lines dropped on the way, or a filtered input)"},
      {loss.ops_duplicates,
       " op records are in the input more than once and counted each time "
       "(the same log given twice?)"},
  };
  for (const auto& [n, what] : counted) {
    if (n > 0) lines->push_back(absl::StrCat(prefix, Decimal(n), what));
  }
  AppendUnknownLossLines(loss, any_records, prefix, lines);
}

// Why there is no call to show: biosnoop was run without --ops, or with
// it and no call was that slow, or the filters took them all.
std::string NoCalls(const ReportInput& in) {
  const OpCollector& ops = *in.ops;
  if (ops.records() > 0) return "no calls passed the filters\n";
  if (ops.headers().headers > 0 && ops.headers().ops_headers == 0) {
    return "no op records: biosnoop ran without --ops (the headers say "
           "so)\n";
  }
  return "no op records in the input\n";
}

std::string DirtyAge(const v1::OpLayer& l, bool ms) {
  return l.has_dirty_age_us_max() ? Us(l.dirty_age_us_max(), ms) : "-";
}

void AppendSlowest(const ReportInput& in, const ReportOptions& opt,
                   std::string* out) {
  const bool multi = MultiHost(in);
  const char* u = Unit(opt.ms);
  absl::StrAppend(out, "slowest calls (times in ", u,
                  "; others: other files' writeback; throttle: bios "
                  "waiting to become requests; other = total - block - "
                  "writeback - journal - flush - others - throttle):\n");
  Table t(Cells(multi, "host",
                {"returned (UTC)", "op_id", "call", "pid", "comm", "file",
                 "bytes", "total", "block", "writeback", "journal", "flush",
                 "others", "throttle", "other", "blk_req", "wb_req",
                 "dirty_age_max", "error"}),
          multi ? "llrlrllrrrrrrrrrrrrl" : "lrlrllrrrrrrrrrrrrl");
  for (const OpCall& c : in.ops->Slowest()) {
    const v1::Op& op = c.op;
    t.Add(Cells(
        multi, op.host(),
        {FormatShortTimeMs(c.ns), absl::StrCat(op.op_id()),
         Printable(op.call()), absl::StrCat(op.pid()), Printable(op.comm()),
         Printable(FileName(op.file())), HumanBytes(op.bytes_done()),
         Us(op.latency_us(), opt.ms), Us(op.block().wait_us(), opt.ms),
         Us(op.writeback().wait_us(), opt.ms),
         Us(op.journal().wait_us(), opt.ms), Us(op.flush().wait_us(), opt.ms),
         Us(op.others_writeback().wait_us(), opt.ms),
         Us(op.throttle().wait_us(), opt.ms), Us(op.other_us(), opt.ms),
         absl::StrCat(op.block().requests()),
         absl::StrCat(op.writeback().requests()),
         DirtyAge(op.writeback(), opt.ms), ErrorName(op)}));
  }
  *out += t.Render();
}

// Groups by calls (most first), then by the slowest p99; at most `top`.
std::vector<OpGroup> Ranked(std::vector<OpGroup> groups, size_t top,
                            size_t* more) {
  // By the p99 of the total after the count (Percentiles reorders the
  // values, which changes no figure).
  std::vector<std::pair<uint64_t, size_t>> p99;
  for (size_t i = 0; i < groups.size(); ++i) {
    p99.emplace_back(Percentiles(&groups[i].total_us, {990})[0], i);
  }
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (groups[a].count != groups[b].count) {
      return groups[a].count > groups[b].count;
    }
    return p99[a].first > p99[b].first;
  });
  std::vector<OpGroup> out;
  for (size_t i = 0; i < order.size() && i < top; ++i) {
    out.push_back(std::move(groups[order[i]]));
  }
  *more = groups.size() - out.size();
  return out;
}

// p50 and p99 of the total and each layer: sixteen cells.
std::vector<std::string> LayerCells(OpGroup& g, bool ms) {
  std::vector<std::string> cells;
  for (std::vector<uint64_t>* v :
       {&g.total_us, &g.block_us, &g.writeback_us, &g.journal_us, &g.flush_us,
        &g.others_writeback_us, &g.throttle_us, &g.other_us}) {
    const std::vector<uint64_t> p = Percentiles(v, kP50P99);
    cells.push_back(Us(p[0], ms));
    cells.push_back(Us(p[1], ms));
  }
  return cells;
}

template <typename Map>
std::vector<OpGroup> Values(const Map& m) {
  std::vector<OpGroup> out;
  for (const auto& [key, g] : m) out.push_back(g);
  return out;
}

void AppendGroups(const ReportInput& in, const ReportOptions& opt,
                  bool per_process, std::string* out) {
  const bool multi = MultiHost(in);
  size_t more = 0;
  std::vector<OpGroup> groups = Ranked(
      per_process ? Values(in.ops->processes()) : Values(in.ops->files()),
      opt.top, &more);
  absl::StrAppend(out, "\ncalls per ", per_process ? "process" : "file",
                  " (p50 and p99, ", Unit(opt.ms), "):\n");
  std::vector<std::string> header =
      per_process ? std::vector<std::string>{"pid", "comm"}
                  : std::vector<std::string>{"file"};
  for (const char* h :
       {"calls", "errors", "bytes", "total_p50", "total_p99", "block_p50",
        "block_p99", "wb_p50", "wb_p99", "journal_p50", "journal_p99",
        "flush_p50", "flush_p99", "others_p50", "others_p99", "throttle_p50",
        "throttle_p99", "other_p50", "other_p99"}) {
    header.push_back(h);
  }
  std::string align = per_process ? "rl" : "l";
  align += std::string(3 + 16, 'r');
  Table t(Cells(multi, "host", header), multi ? "l" + align : align);
  for (OpGroup& g : groups) {
    std::vector<std::string> cells;
    if (per_process) cells.push_back(absl::StrCat(g.pid));
    cells.push_back(Printable(g.name));
    cells.push_back(absl::StrCat(g.count));
    cells.push_back(absl::StrCat(g.errors));
    cells.push_back(HumanBytes(g.bytes_done));
    for (std::string& c : LayerCells(g, opt.ms)) cells.push_back(std::move(c));
    t.Add(Cells(multi, g.host, std::move(cells)));
  }
  *out += t.Render();
  if (more > 0) absl::StrAppend(out, "(", more, " more: --top N)\n");
}

void AppendJsonKey(const char* key, std::string* out) {
  absl::StrAppend(out, "\"", key, "\":");
}

void AppendPercentilesJson(std::vector<uint64_t>* v, std::string* out) {
  const std::vector<uint64_t> p = Percentiles(v, kP50P99);
  const uint64_t max = v->empty() ? 0 : *std::max_element(v->begin(), v->end());
  absl::StrAppend(out, "{\"p50\":", p[0], ",\"p99\":", p[1], ",\"max\":", max,
                  "}");
}

// A culprit as the JSON writer takes it: the record's values as they were
// (comm_raw's bytes when set; the cgroup named when "cgroup" was set).
OpCulprit CulpritOf(const v1::OpCulprit& m) {
  OpCulprit c;
  c.pid = m.pid();
  const std::string& comm = m.has_comm_raw() ? m.comm_raw() : m.comm();
  std::copy_n(comm.begin(), std::min(comm.size(), c.comm.size()),
              c.comm.begin());
  c.cgroup_id = m.cgroup_id();
  c.cgroup.known = m.has_cgroup();
  c.cgroup.path = m.cgroup();
  c.cgroup.container_id = m.container_id();
  c.cgroup.pod_uid = m.pod_uid();
  c.dirtier = m.role() == CulpritRoleName(true);
  c.requests = m.requests();
  c.bytes = m.bytes();
  c.wait_ns = m.wait_us() * 1000;
  return c;
}

// A layer of the call: the op record's own object (op_layer_json.h).
void AppendLayerJson(const v1::OpLayer& l, std::string* out) {
  const std::vector<std::string> disks(l.disks().begin(), l.disks().end());
  std::vector<OpCulprit> culprits;
  for (const v1::OpCulprit& c : l.culprits()) culprits.push_back(CulpritOf(c));
  OpLayerValues v;
  v.requests = l.requests();
  v.bytes = l.bytes();
  v.disks = disks;
  v.queue_us_sum = l.queue_us_sum();
  v.queue_us_max = l.queue_us_max();
  v.device_us_sum = l.device_us_sum();
  v.device_us_max = l.device_us_max();
  v.wait_us = l.wait_us();
  if (l.has_dirty_age_us_max()) v.dirty_age_us_max = l.dirty_age_us_max();
  if (l.has_dirty_age_us_min()) v.dirty_age_us_min = l.dirty_age_us_min();
  v.dirty_known = l.dirty_known();
  v.culprits = culprits;
  AppendOpLayerJson(v, out);
}

void AppendGroupsJson(std::vector<OpGroup> groups, bool per_process, bool multi,
                      std::string* out) {
  out->push_back('[');
  bool first = true;
  for (OpGroup& g : groups) {
    if (!first) out->push_back(',');
    first = false;
    out->push_back('{');
    if (multi) {
      AppendJsonKey("host", out);
      AppendJsonString(g.host, out);
      out->push_back(',');
    }
    if (per_process) {
      absl::StrAppend(out, "\"pid\":", g.pid, ",\"comm\":");
    } else {
      out->append("\"file\":");
    }
    AppendJsonString(g.name, out);
    absl::StrAppend(out, ",\"calls\":", g.count, ",\"errors\":", g.errors,
                    ",\"bytes_done\":", Decimal(g.bytes_done),
                    ",\"requests\":", g.requests, ",\"total_us\":");
    AppendPercentilesJson(&g.total_us, out);
    out->append(",\"block_wait_us\":");
    AppendPercentilesJson(&g.block_us, out);
    out->append(",\"writeback_wait_us\":");
    AppendPercentilesJson(&g.writeback_us, out);
    out->append(",\"journal_wait_us\":");
    AppendPercentilesJson(&g.journal_us, out);
    out->append(",\"flush_wait_us\":");
    AppendPercentilesJson(&g.flush_us, out);
    out->append(",\"others_writeback_wait_us\":");
    AppendPercentilesJson(&g.others_writeback_us, out);
    out->append(",\"throttle_wait_us\":");
    AppendPercentilesJson(&g.throttle_us, out);
    out->append(",\"other_us\":");
    AppendPercentilesJson(&g.other_us, out);
    out->push_back('}');
  }
  out->push_back(']');
}

}  // namespace

// One call as the JSON forms give it.
void AppendCallJson(const OpCall& c, std::string* out) {
  const v1::Op& op = c.op;
  absl::StrAppend(out, "{\"timestamp\":\"", FormatRfc3339(c.ns),
                  "\",\"start_time\":\"", FormatRfc3339(ToNs(op.start_time())),
                  "\",\"run\":");
  AppendJsonString(c.run, out);
  out->append(",\"host\":");
  AppendJsonString(op.host(), out);
  absl::StrAppend(out, ",\"op_id\":", op.op_id(), ",\"call\":");
  AppendJsonString(op.call(), out);
  absl::StrAppend(out, ",\"pid\":", op.pid(), ",\"tid\":", op.tid(),
                  ",\"comm\":");
  AppendJsonString(op.comm(), out);
  out->append(",\"file\":");
  AppendJsonString(op.file().path(), out);
  absl::StrAppend(out, ",\"inode\":", op.file().inode(), ",\"disk\":");
  AppendJsonString(op.disk(), out);
  out->append(",\"offset\":");
  if (op.has_offset()) {
    absl::StrAppend(out, op.offset());
  } else {
    out->append("null");
  }
  absl::StrAppend(out, ",\"bytes_requested\":", op.bytes_requested(),
                  ",\"bytes_done\":", op.bytes_done(),
                  ",\"error_code\":", op.error_code(), ",\"error\":");
  if (op.has_error()) {
    AppendJsonString(op.error(), out);
  } else {
    out->append("null");
  }
  absl::StrAppend(out, ",\"latency_us\":", op.latency_us(),
                  ",\"other_us\":", op.other_us(), ",\"block\":");
  AppendLayerJson(op.block(), out);
  out->append(",\"writeback\":");
  AppendLayerJson(op.writeback(), out);
  out->append(",\"journal\":");
  AppendLayerJson(op.journal(), out);
  out->append(",\"flush\":");
  AppendLayerJson(op.flush(), out);
  out->append(",\"others_writeback\":");
  AppendLayerJson(op.others_writeback(), out);
  out->append(",\"throttle\":");
  AppendLayerJson(op.throttle(), out);
  out->append(",\"throttle_controllers\":");
  AppendJsonStringArray(
      std::vector<std::string>(op.throttle_controllers().begin(),
                               op.throttle_controllers().end()),
      out);
  out->push_back('}');
}

std::string OpsWarningBlock(const ReportInput& in, bool with_events) {
  const Aggregator& a = *in.agg;
  std::vector<std::string> lines;
  if (a.MultiHost()) {
    for (const std::string& host : a.Hosts()) {
      AppendOpLossLines(a.Loss(host), a.records() > 0,
                        absl::StrCat(HostName(host), ": "), &lines);
    }
  } else {
    AppendOpLossLines(a.Loss(), a.records() > 0, "", &lines);
  }
  // With the events' block, its damage lines say what damage cost both.
  if (!with_events) AppendDamageLines(in, &lines);
  std::string block = FormatWarningBlock("calls", lines);
  // The call's requests are events: their loss is the events'.
  if (with_events) block += WarningBlock(in);
  return block;
}

std::string OpsReport(const ReportInput& in, const ReportOptions& opt) {
  std::string out = OpsWarningBlock(in, false) + Heading(in) + "\n";
  if (in.ops->selected() == 0) return out + NoCalls(in);
  absl::StrAppend(&out, "calls: ", in.ops->selected(), "\n\n");
  AppendSlowest(in, opt, &out);
  AppendGroups(in, opt, true, &out);
  AppendGroups(in, opt, false, &out);
  return out;
}

std::string OpsJson(const ReportInput& in, const ReportOptions& opt) {
  const OpCollector& ops = *in.ops;
  const LossSummary loss = in.agg->Loss();
  std::string out = absl::StrCat(
      "{\"op_records\":", ops.records(), ",\"calls\":", ops.selected(),
      ",\"op_min_us\":[", absl::StrJoin(ops.headers().op_min_us, ","),
      "],\"ops_lost\":", Decimal(loss.ops_lost),
      ",\"ops_untracked\":", Decimal(loss.ops_untracked),
      ",\"ops_not_in_input\":", Decimal(loss.ops_not_in_input),
      ",\"ops_duplicates\":", Decimal(loss.ops_duplicates), ",\"slowest\":[");
  bool first = true;
  for (const OpCall& c : ops.Slowest()) {
    if (!first) out.push_back(',');
    first = false;
    AppendCallJson(c, &out);
  }
  out.append("],\"processes\":");
  size_t more = 0;
  const bool multi = MultiHost(in);
  AppendGroupsJson(Ranked(Values(ops.processes()), opt.top, &more), true, multi,
                   &out);
  out.append(",\"files\":");
  AppendGroupsJson(Ranked(Values(ops.files()), opt.top, &more), false, multi,
                   &out);
  out.append("}\n");
  return out;
}

}  // namespace biosnoop::report
