// bioreport why: the causes of the selected calls' latency, ranked, with
// the tasks behind each.  The sums come from WhyCollector (analysis/why.h);
// this file only lays them out.  Text for people: one table, a cause per
// row and its first culprits on the rows below it; JSON for scripts.

#include "report_why.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "json_format.h"
#include "report_ops_common.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

// Culprit rows per cause in the text; the JSON has them all.
constexpr size_t kCulpritRows = 4;

// What a cause is when no task is named behind it.
const char* OwnWords(Cause c) {
  switch (c) {
    case Cause::kBlock:
      return "(its own requests)";
    case Cause::kWriteback:
      return "(its own file's data)";
    case Cause::kThrottle:
      return "(its bios waiting to become requests: throttled, or no tag)";
    case Cause::kOther:
      return "(tied to no request: fs, locks, CPU)";
    default:
      return "(tasks not named)";
  }
}

std::string Percent(int permille) {
  return absl::StrFormat("%d.%d%%", permille / 10, permille % 10);
}

// The filters as they were typed, for the line that says what was
// selected.
std::string DescribeFilters(const Filter& f) {
  std::vector<std::string> v;
  if (f.since_ns)
    v.push_back(absl::StrCat("--since ", FormatRfc3339(*f.since_ns)));
  if (f.until_ns)
    v.push_back(absl::StrCat("--until ", FormatRfc3339(*f.until_ns)));
  if (!f.host.empty()) v.push_back(absl::StrCat("--host ", Printable(f.host)));
  if (!f.disk.empty()) v.push_back(absl::StrCat("--disk ", Printable(f.disk)));
  if (f.pid) v.push_back(absl::StrCat("--pid ", *f.pid));
  if (f.comm) v.push_back(absl::StrCat("--comm ", Printable(*f.comm)));
  if (!f.cgroup.empty()) {
    v.push_back(absl::StrCat("--cgroup ", Printable(f.cgroup)));
  }
  if (!f.container.empty()) {
    v.push_back(absl::StrCat("--container ", Printable(f.container)));
  }
  if (!f.file.empty()) v.push_back(absl::StrCat("--file ", Printable(f.file)));
  if (!f.op.empty()) v.push_back(absl::StrCat("--op ", f.op));
  if (f.min_us > 0) v.push_back(absl::StrCat("--min-us ", f.min_us));
  return absl::StrJoin(v, " ");
}

// "fdatasync" or "8 fdatasync, 4 write" (most first).
std::string CallKinds(const std::vector<OpCall>& calls) {
  std::map<std::string, int> n;
  for (const OpCall& c : calls) ++n[c.op.call()];
  if (n.size() == 1) return Printable(n.begin()->first);
  std::vector<std::pair<std::string, int>> v(n.begin(), n.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second > b.second;
  });
  std::vector<std::string> parts;
  for (const auto& [call, k] : v)
    parts.push_back(absl::StrCat(k, " ", Printable(call)));
  return absl::StrJoin(parts, ", ");
}

// "by pgwal[812] (cgroup /victim)", "by 3 processes (pgwal, dd, ...)".
std::string Callers(const std::vector<OpCall>& calls) {
  std::set<std::pair<std::string, uint32_t>> tasks;
  std::set<std::string> comms, cgroups;
  for (const OpCall& c : calls) {
    tasks.insert({c.op.comm(), c.op.pid()});
    comms.insert(c.op.comm());
    cgroups.insert(c.op.has_cgroup() ? c.op.cgroup() : "");
  }
  std::string out;
  if (tasks.size() == 1) {
    out = absl::StrCat("by ", Printable(tasks.begin()->first), "[",
                       tasks.begin()->second, "]");
  } else if (comms.size() == 1) {
    out = absl::StrCat("by ", Printable(*comms.begin()), " (", tasks.size(),
                       " processes)");
  } else {
    std::vector<std::string> names;
    for (const std::string& c : comms) {
      if (names.size() == 3) {
        names.push_back("...");
        break;
      }
      names.push_back(Printable(c));
    }
    out = absl::StrCat("by ", tasks.size(), " processes (",
                       absl::StrJoin(names, ", "), ")");
  }
  if (cgroups.size() == 1 && !cgroups.begin()->empty()) {
    absl::StrAppend(&out, " in cgroup ", Printable(*cgroups.begin()));
  }
  return out;
}

std::string CgroupCell(const CulpritKey& k) {
  if (!k.cgroup.empty()) return Printable(k.cgroup);
  if (k.cgroup_id != 0) return absl::StrCat("id ", k.cgroup_id);
  return "-";
}

std::string TaskCell(const CulpritKey& k, bool multi) {
  return absl::StrCat(multi ? Printable(k.host) + ": " : "", Printable(k.comm),
                      "[", k.pid, "]");
}

bool AnyContainer(const WhyTotals& t) {
  for (const CauseFigures& f : t.causes) {
    for (const auto& [k, unused] : f.culprits) {
      if (!k.container_id.empty()) return true;
    }
  }
  return false;
}

// The causes table: a cause per row, with its first culprit; the next
// culprits on rows of their own below it.
std::string CausesTable(const WhyTotals& t, bool multi) {
  const bool containers = AnyContainer(t);
  std::vector<std::string> header = {"cause", "share",      "time",  "requests",
                                     "bytes", "waited for", "cgroup"};
  std::string align = "lrrrrll";
  if (containers) {
    header.push_back("container");
    align += "l";
  }
  for (const char* h : {"role", "calls", "waited"}) header.push_back(h);
  align += "lrr";
  Table table(header, align);
  const std::array<int, kCauses> shares = SharesPermille(t);
  for (const Cause c : RankedCauses(t)) {
    const CauseFigures& f = t.of(c);
    const bool layer = c != Cause::kOther;
    std::vector<std::string> lead = {
        std::string(CauseName(c)), Percent(shares[static_cast<size_t>(c)]),
        HumanUs(f.wait_us), layer ? Decimal(f.requests) : "",
        layer ? HumanBytes(f.bytes) : ""};
    const auto culprits = RankedCulprits(f);
    if (culprits.empty()) {
      std::vector<std::string> row = lead;
      row.push_back(f.wait_us == 0 ? "-" : OwnWords(c));
      row.resize(header.size());
      table.Add(std::move(row));
      continue;
    }
    Sum rest_us = 0;
    size_t rest = 0;
    for (size_t i = 0; i < culprits.size(); ++i) {
      const auto& [k, g] = culprits[i];
      if (i >= kCulpritRows) {
        rest_us += g.wait_us;
        ++rest;
        continue;
      }
      std::vector<std::string> row =
          i == 0 ? lead : std::vector<std::string>(lead.size());
      row.push_back(TaskCell(k, multi));
      row.push_back(CgroupCell(k));
      if (containers) {
        row.push_back(k.container_id.empty()
                          ? "-"
                          : Printable(k.container_id.substr(0, 12)));
      }
      row.push_back(Printable(k.role));
      row.push_back(absl::StrCat(g.calls));
      row.push_back(HumanUs(g.wait_us));
      table.Add(std::move(row));
    }
    if (rest > 0) {
      std::vector<std::string> row(lead.size());
      row.push_back(absl::StrCat("(", rest, " more)"));
      row.resize(header.size() - 1);
      row.push_back(HumanUs(rest_us));
      table.Add(std::move(row));
    }
  }
  return table.Render();
}

// The main cause of a group and who was behind it, for the steady line.
std::string MainCause(const WhyTotals& t, bool multi) {
  const Cause c = RankedCauses(t).front();
  if (t.of(c).wait_us == 0) return "-";
  const auto culprits = RankedCulprits(t.of(c));
  if (culprits.empty()) return absl::StrCat(CauseName(c), " ", OwnWords(c));
  const CulpritKey& k = culprits.front().first;
  return absl::StrCat(CauseName(c), ": ", TaskCell(k, multi), " ",
                      CgroupCell(k), " (", Printable(k.role), ")");
}

std::string SteadyTable(const WhyTotals& worst, const WhyTotals& steady,
                        bool multi) {
  std::vector<std::string> header = {"group", "calls", "time", "mean"};
  std::string align = "lrrr";
  for (size_t i = 0; i < kCauses; ++i) {
    header.emplace_back(CauseName(static_cast<Cause>(i)));
    align += "r";
  }
  header.push_back("main cause");
  align += "l";
  Table table(header, align);
  for (const auto& [name, t] :
       {std::pair<const char*, const WhyTotals*>{"worst", &worst},
        {"steady", &steady}}) {
    std::vector<std::string> row = {
        name, absl::StrCat(t->calls), HumanUs(t->latency_us),
        HumanUs(t->calls == 0 ? 0 : t->latency_us / t->calls)};
    const std::array<int, kCauses> shares = SharesPermille(*t);
    for (int s : shares) row.push_back(Percent(s));
    row.push_back(MainCause(*t, multi));
    table.Add(std::move(row));
  }
  return table.Render();
}

// Why there is nothing to explain.
std::string NoCallsReason(const ReportInput& in) {
  const OpCollector& ops = *in.ops;
  if (ops.records() > 0) return "no call passed the filters";
  if (ops.headers().headers > 0 && ops.headers().ops_headers == 0) {
    return "no op records: biosnoop ran without --ops (the headers say so)";
  }
  return "no op records in the input (biosnoop --ops writes them)";
}

absl::Status UnknownOpId(uint64_t id) {
  return absl::NotFoundError(absl::StrCat(
      "why: call ", id,
      ": no op record in the input (the call took less than --op-min-us, "
      "its record was lost, or it is in a file not given; bioreport ops "
      "--op-id ",
      id, " shows the requests that name it)"));
}

void AppendTotalsJson(const WhyTotals& t, std::string* out) {
  absl::StrAppend(out, "\"calls\":", t.calls,
                  ",\"latency_us\":", Decimal(t.latency_us),
                  ",\"causes_us\":", Decimal(t.CausesUs()), ",\"causes\":[");
  const std::array<int, kCauses> shares = SharesPermille(t);
  bool first = true;
  for (const Cause c : RankedCauses(t)) {
    const CauseFigures& f = t.of(c);
    if (!first) out->push_back(',');
    first = false;
    const int s = shares[static_cast<size_t>(c)];
    absl::StrAppend(out, "{\"cause\":\"", CauseName(c),
                    "\",\"wait_us\":", Decimal(f.wait_us),
                    ",\"share_pct\":", s / 10, ".", s % 10,
                    ",\"requests\":", Decimal(f.requests),
                    ",\"bytes\":", Decimal(f.bytes), ",\"culprits\":[");
    bool first_culprit = true;
    for (const auto& [k, g] : RankedCulprits(f)) {
      if (!first_culprit) out->push_back(',');
      first_culprit = false;
      out->append("{\"host\":");
      AppendJsonString(k.host, out);
      absl::StrAppend(out, ",\"pid\":", k.pid, ",\"comm\":");
      AppendJsonString(k.comm, out);
      out->append(",\"cgroup\":");
      if (k.cgroup.empty()) {
        out->append("null");
      } else {
        AppendJsonString(k.cgroup, out);
      }
      absl::StrAppend(out, ",\"cgroup_id\":", k.cgroup_id);
      for (const auto& [key, v] : {std::pair<const char*, const std::string*>{
                                       "container_id", &k.container_id},
                                   {"pod_uid", &k.pod_uid}}) {
        absl::StrAppend(out, ",\"", key, "\":");
        if (v->empty()) {
          out->append("null");
        } else {
          AppendJsonString(*v, out);
        }
      }
      out->append(",\"role\":");
      AppendJsonString(k.role, out);
      absl::StrAppend(out, ",\"calls\":", g.calls,
                      ",\"requests\":", Decimal(g.requests),
                      ",\"bytes\":", Decimal(g.bytes),
                      ",\"wait_us\":", Decimal(g.wait_us), "}");
    }
    out->append("]}");
  }
  out->push_back(']');
}

}  // namespace

std::string HumanUs(Sum us) {
  if (us < 1000) return absl::StrCat(Decimal(us), " us");
  const double v = static_cast<double>(us);
  if (us < 10000) return absl::StrFormat("%.2f ms", v / 1e3);
  if (us < 100000) return absl::StrFormat("%.1f ms", v / 1e3);
  if (us < 1000000) return absl::StrFormat("%.0f ms", v / 1e3);
  if (us < 10000000) return absl::StrFormat("%.2f s", v / 1e6);
  if (us < 100000000) return absl::StrFormat("%.1f s", v / 1e6);
  return absl::StrFormat("%.0f s", v / 1e6);
}

absl::StatusOr<std::string> WhyReport(const ReportInput& in,
                                      const WhyCollector& why,
                                      const WhyOptions& opt) {
  if (opt.op_id && why.selected() == 0) return UnknownOpId(*opt.op_id);
  std::string out = OpsWarningBlock(in, false) + Heading(in) + "\n";
  if (why.selected() == 0) {
    return absl::StrCat(out, "why: no calls to explain: ", NoCallsReason(in),
                        "\n");
  }
  const bool multi = MultiHost(in);
  const std::vector<OpCall>& calls = why.Slowest();
  const WhyTotals worst = why.Worst();
  const OpCall& slowest = calls.front();
  absl::StrAppend(&out, "why: ", calls.size(), " ", CallKinds(calls),
                  calls.size() == 1 ? " call " : " calls ", Callers(calls),
                  ", ", HumanUs(worst.latency_us), " in all, slowest ",
                  HumanUs(slowest.op.latency_us()), " (op_id ",
                  slowest.op.op_id(), ")\n");
  if (opt.op_id) {
    absl::StrAppend(&out, "selected: --op-id ", *opt.op_id);
    if (why.selected() > 1) {
      absl::StrAppend(&out, " (", why.selected(),
                      " calls of that number: op ids are unique in a run "
                      "only; give --host, --since or --until to pick one)");
    }
    out += "\n";
  } else {
    const std::string filters = DescribeFilters(*opt.filter);
    absl::StrAppend(
        &out, "selected: ", filters.empty() ? "every call" : filters, ": ",
        why.selected(), why.selected() == 1 ? " call" : " calls");
    if (why.selected() > calls.size()) {
      absl::StrAppend(&out, ", the ", calls.size(),
                      " slowest explained (--slowest ", opt.slowest, ")");
    }
    out += "\n";
  }
  if (worst.CausesUs() != worst.latency_us) {
    absl::StrAppend(&out, "note: layers overlapped: the causes sum to ",
                    HumanUs(worst.CausesUs()), ", the calls took ",
                    HumanUs(worst.latency_us),
                    "; shares are of the causes' sum\n");
  }
  out += "\n";
  out += CausesTable(worst, multi);
  const WhyTotals steady = why.Steady();
  if (!opt.op_id && steady.calls > 0) {
    absl::StrAppend(&out, "\nworst (the ", worst.calls,
                    " slowest) and steady (the ", steady.calls,
                    " other selected calls), share of each group's time:\n");
    out += SteadyTable(worst, steady, multi);
  }
  return out;
}

absl::StatusOr<std::string> WhyJson(const ReportInput& in,
                                    const WhyCollector& why,
                                    const WhyOptions& opt) {
  (void)in;
  if (opt.op_id && why.selected() == 0) return UnknownOpId(*opt.op_id);
  std::string out = "{\"selection\":{\"op_id\":";
  absl::StrAppend(&out, opt.op_id ? absl::StrCat(*opt.op_id) : "null",
                  ",\"filters\":");
  AppendJsonString(opt.op_id ? "" : DescribeFilters(*opt.filter), &out);
  absl::StrAppend(&out, ",\"slowest\":", opt.slowest,
                  "},\"selected_calls\":", why.selected(), ",\"op_ids\":[");
  const std::vector<OpCall>& calls = why.Slowest();
  std::vector<std::string> ids;
  for (const OpCall& c : calls) ids.push_back(absl::StrCat(c.op.op_id()));
  absl::StrAppend(
      &out, absl::StrJoin(ids, ","), "],\"slowest_us\":",
      calls.empty() ? "null" : absl::StrCat(calls.front().op.latency_us()),
      ",\"slowest_op_id\":",
      calls.empty() ? "null" : absl::StrCat(calls.front().op.op_id()), ",");
  AppendTotalsJson(why.Worst(), &out);
  out.append(",\"steady\":");
  const WhyTotals steady = why.Steady();
  if (!opt.op_id && steady.calls > 0) {
    out.push_back('{');
    AppendTotalsJson(steady, &out);
    out.push_back('}');
  } else {
    out.append("null");
  }
  out.append("}\n");
  return out;
}

}  // namespace biosnoop::report
