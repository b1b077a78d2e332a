// Text report forms.  Layouts are fixed (golden tests compare them byte for
// byte): columns separated by two spaces, names left-aligned, numbers
// right-aligned.

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

const std::vector<int> kPermilles = {500, 900, 990, 999};

// Also for sums of latencies (top's totals), exact in microseconds.
std::string Latency(Sum us, bool ms) {
  if (!ms) return Decimal(us);
  return absl::StrFormat("%.1f", static_cast<double>(us) / 1000);
}

std::string Mean(double us, bool ms) {
  return ms ? absl::StrFormat("%.1f", us / 1000) : absl::StrFormat("%.0f", us);
}

const char* Unit(bool ms) { return ms ? "ms" : "us"; }

// `host` is the host column's cell, or nullptr for no host column.
void AddSummaryRow(const std::string* host, const std::string& disk,
                   const std::string& op, const LatencyStats& s,
                   std::vector<uint64_t> latencies, bool ms, Table* table) {
  const std::vector<uint64_t> p = Percentiles(&latencies, kPermilles);
  std::vector<std::string> cells;
  if (host != nullptr) cells.push_back(*host);
  cells.insert(
      cells.end(),
      {Printable(disk), Printable(op), absl::StrCat(s.count),
       HumanBytes(s.bytes), Latency(s.min_us, ms), Mean(s.mean_us(), ms),
       Latency(p[0], ms), Latency(p[1], ms), Latency(p[2], ms),
       Latency(p[3], ms), Latency(s.max_us, ms), absl::StrCat(s.errors)});
  table->Add(std::move(cells));
}

// The header of a table, with a host column first when `multi_host`.
std::vector<std::string> WithHost(bool multi_host,
                                  std::vector<std::string> header) {
  if (multi_host) header.insert(header.begin(), "host");
  return header;
}
std::string WithHostAlign(bool multi_host, const std::string& align) {
  return multi_host ? "l" + align : align;
}

std::string Heading(const ReportInput& in) {
  const Aggregator& a = *in.agg;
  std::string out =
      absl::StrCat("inputs: ", in.inputs, " (", in.formats,
                   "), records: ", a.records(), ", events: ", a.events());
  // Stuck records are not events either: their own count.
  if (in.stuck != nullptr && in.stuck->count() > 0) {
    absl::StrAppend(&out, ", stuck requests: ", in.stuck->count());
  }
  // Nor are calls (--ops): say they are there, and where to see them.
  if (a.op_records() > 0) {
    absl::StrAppend(&out, ", op records: ", a.op_records(), " (bioreport ops)");
  }
  // Summaries are not events: say they are there, and where to see them.
  if (a.summary_records() > 0) {
    absl::StrAppend(&out, ", summaries: ", a.summary_records(),
                    " (bioreport baseline)");
  }
  out += "\n";
  if (a.records() > 0) {
    absl::StrAppend(&out, "span: ", FormatShortTime(a.first_record_ns()),
                    " .. ", FormatShortTime(a.last_record_ns()), " UTC (",
                    absl::StrFormat("%.1f", SecondsBetween(a.first_record_ns(),
                                                           a.last_record_ns())),
                    " s)\n");
  }
  std::vector<std::string> hosts = a.Hosts();
  for (std::string& host : hosts) host = Printable(host);
  if (!hosts.empty())
    absl::StrAppend(&out, "hosts: ", absl::StrJoin(hosts, " "), "\n");
  return out;
}

// The title of one histogram: "disk = vda", "host = db7, op = read" (the
// host only when there are several).
std::string GroupTitle(HistGroup by, const GroupKey& key, bool multi_host) {
  std::vector<std::string> parts;
  if (multi_host) parts.push_back(absl::StrCat("host = ", HostName(key.host)));
  if (by == HistGroup::kDisk || by == HistGroup::kDiskOp) {
    parts.push_back(absl::StrCat("disk = ", Printable(key.disk)));
  }
  if (by == HistGroup::kOp || by == HistGroup::kDiskOp) {
    parts.push_back(absl::StrCat("op = ", Printable(key.op)));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::string SummaryReport(const ReportInput& in, const ReportOptions& opt) {
  const Aggregator& a = *in.agg;
  std::string out =
      WarningBlock(in) + Heading(in) + "\n" + StuckSection(in, opt);
  if (a.events() == 0) return out + "no events\n";
  const char* u = Unit(opt.ms);
  const bool multi = a.MultiHost();
  Table table(
      WithHost(multi,
               {"disk", "op", "count", "bytes", absl::StrCat("min_", u),
                absl::StrCat("mean_", u), absl::StrCat("p50_", u),
                absl::StrCat("p90_", u), absl::StrCat("p99_", u),
                absl::StrCat("p99.9_", u), absl::StrCat("max_", u), "errors"}),
      WithHostAlign(multi, "llrrrrrrrrrr"));
  // With several hosts: each host's rows, then its "all" row; the "all"
  // row of every host last.
  const auto& groups = a.groups();
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    const auto& [key, s] = *it;
    const std::string host = HostName(key.host);
    AddSummaryRow(multi ? &host : nullptr, key.disk, key.op, s, s.latencies_us,
                  opt.ms, &table);
    const auto next = std::next(it);
    if (multi && (next == groups.end() || next->first.host != key.host)) {
      AddSummaryRow(&host, "all", "all", a.host_totals().at(key.host).overall,
                    a.LatenciesOf(key.host), opt.ms, &table);
    }
  }
  const std::string all = "all";
  AddSummaryRow(multi ? &all : nullptr, "all", "all", a.overall(),
                a.AllLatencies(), opt.ms, &table);
  return out + table.Render();
}

std::string HistReport(const ReportInput& in, const ReportOptions& opt) {
  const Aggregator& a = *in.agg;
  std::string out = WarningBlock(in) + StuckNotice(in);
  const char* label = opt.ms ? "msecs" : "usecs";
  auto hist_of = [&](const LatencyStats& s) -> const Log2Hist& {
    return opt.ms ? s.hist_ms : s.hist;
  };
  const bool multi = a.MultiHost();
  if ((opt.by == HistGroup::kAll && !multi) || a.events() == 0) {
    return out + RenderLog2Hist(hist_of(a.overall()), label);
  }
  // Merge (host, disk, op) groups into the requested grouping, sorted; the
  // host stays a part of it when there are several.
  std::map<GroupKey, LatencyStats> merged;
  for (const auto& [key, s] : a.groups()) {
    GroupKey k = key;
    if (!multi) k.host.clear();
    if (opt.by == HistGroup::kDisk || opt.by == HistGroup::kAll) k.op.clear();
    if (opt.by == HistGroup::kOp || opt.by == HistGroup::kAll) k.disk.clear();
    LatencyStats& m = merged[k];
    for (int b = 0; b < kBuckets; ++b) {
      m.hist[b] += s.hist[b];
      m.hist_ms[b] += s.hist_ms[b];
    }
  }
  bool first = true;
  for (const auto& [key, s] : merged) {
    if (!first) out += "\n";
    first = false;
    absl::StrAppend(&out, GroupTitle(opt.by, key, multi), "\n",
                    RenderLog2Hist(hist_of(s), label));
  }
  return out;
}

std::string TopReport(const ReportInput& in, const ReportOptions& opt) {
  const Aggregator& a = *in.agg;
  std::string out = WarningBlock(in) + StuckNotice(in);
  if (a.events() == 0) return out + "no events\n";
  const char* u = Unit(opt.ms);

  const bool multi = a.MultiHost();
  // Processes by pid and comm: the submitters, and the dirtiers.
  auto proc_tables = [&](const char* what, std::vector<ProcessTotals> procs,
                         const char* between) {
    auto table = [&](const std::string& title, auto better) {
      std::sort(procs.begin(), procs.end(), better);
      Table t(
          WithHost(multi, {"pid", "comm", "count", absl::StrCat("total_", u),
                           absl::StrCat("max_", u), "bytes"}),
          WithHostAlign(multi, "rlrrrr"));
      for (size_t i = 0; i < procs.size() && i < opt.top; ++i) {
        const ProcessTotals& p = procs[i];
        std::vector<std::string> cells;
        if (multi) cells.push_back(HostName(p.host));
        cells.insert(cells.end(),
                     {absl::StrCat(p.pid), Printable(p.comm),
                      absl::StrCat(p.count), Latency(p.total_us, opt.ms),
                      Latency(p.max_us, opt.ms), HumanBytes(p.bytes)});
        t.Add(std::move(cells));
      }
      absl::StrAppend(&out, title, "\n", t.Render());
    };
    // Ties broken by pid, comm then host, so that the output is
    // deterministic.
    auto tie = [](const ProcessTotals& x, const ProcessTotals& y) {
      return std::tie(x.pid, x.comm, x.host) < std::tie(y.pid, y.comm, y.host);
    };
    table(absl::StrCat("top ", what, " by slow I/O count:"),
          [&](const ProcessTotals& x, const ProcessTotals& y) {
            if (x.count != y.count) return x.count > y.count;
            return tie(x, y);
          });
    out += between;
    table(absl::StrCat("top ", what, " by total latency:"),
          [&](const ProcessTotals& x, const ProcessTotals& y) {
            if (x.total_us != y.total_us) return x.total_us > y.total_us;
            return tie(x, y);
          });
  };
  proc_tables("processes", a.Processes(), "\n");

  // (host, disk): the host empty when there is one.
  std::map<std::pair<std::string, std::string>, LatencyStats> disk_map;
  for (const auto& [key, s] : a.groups()) {
    LatencyStats& d = disk_map[{multi ? key.host : "", key.disk}];
    d.count += s.count;
    d.bytes += s.bytes;
    d.sum_us += s.sum_us;
    d.max_us = std::max(d.max_us, s.max_us);
  }
  using DiskRow = std::pair<std::pair<std::string, std::string>, LatencyStats>;
  std::vector<DiskRow> disks(disk_map.begin(), disk_map.end());
  auto disk_table = [&](const char* title, auto better) {
    std::stable_sort(disks.begin(), disks.end(), better);
    Table t(WithHost(multi, {"disk", "count", absl::StrCat("total_", u),
                             absl::StrCat("max_", u), "bytes"}),
            WithHostAlign(multi, "lrrrr"));
    for (size_t i = 0; i < disks.size() && i < opt.top; ++i) {
      const auto& [name, d] = disks[i];
      std::vector<std::string> cells;
      if (multi) cells.push_back(HostName(name.first));
      cells.insert(cells.end(),
                   {Printable(name.second), absl::StrCat(d.count),
                    Latency(d.sum_us, opt.ms), Latency(d.max_us, opt.ms),
                    HumanBytes(d.bytes)});
      t.Add(std::move(cells));
    }
    absl::StrAppend(&out, "\n", title, "\n", t.Render());
  };
  disk_table("top disks by slow I/O count:",
             [](const DiskRow& x, const DiskRow& y) {
               return x.second.count > y.second.count;
             });
  disk_table("top disks by total latency:",
             [](const DiskRow& x, const DiskRow& y) {
               return x.second.sum_us > y.second.sum_us;
             });
  // Cgroups, containers, contents, files, dirtiers: only when the events
  // name any (streams from before them, from a machine without containers
  // or a biosnoop without file attribution, keep their layout).  `what`
  // names the rows in the titles ("cgroups"), `column` the name column.
  auto named_tables = [&](const char* what, const char* column,
                          std::vector<NamedTotals> rows, size_t name_width) {
    if (rows.empty()) return;
    auto tie = [](const NamedTotals& x, const NamedTotals& y) {
      return std::tie(x.name, x.host) < std::tie(y.name, y.host);
    };
    auto table = [&](const std::string& title, auto better) {
      std::sort(rows.begin(), rows.end(), better);
      Table t(WithHost(multi, {column, "count", absl::StrCat("total_", u),
                               absl::StrCat("max_", u), "bytes"}),
              WithHostAlign(multi, "lrrrr"));
      for (size_t i = 0; i < rows.size() && i < opt.top; ++i) {
        const NamedTotals& r = rows[i];
        std::vector<std::string> cells;
        if (multi) cells.push_back(HostName(r.host));
        cells.insert(cells.end(),
                     {Printable(r.name.substr(0, name_width)),
                      absl::StrCat(r.count), Latency(r.total_us, opt.ms),
                      Latency(r.max_us, opt.ms), HumanBytes(r.bytes)});
        t.Add(std::move(cells));
      }
      absl::StrAppend(&out, "\n", title, "\n", t.Render());
    };
    table(absl::StrCat("top ", what, " by slow I/O count:"),
          [&](const NamedTotals& x, const NamedTotals& y) {
            if (x.count != y.count) return x.count > y.count;
            return tie(x, y);
          });
    table(absl::StrCat("top ", what, " by total latency:"),
          [&](const NamedTotals& x, const NamedTotals& y) {
            if (x.total_us != y.total_us) return x.total_us > y.total_us;
            return tie(x, y);
          });
  };
  named_tables("cgroups", "cgroup", a.Cgroups(), std::string::npos);
  // Twelve digits, as `docker ps` shows them (--container takes a prefix).
  named_tables("containers", "container", a.Containers(), 12);
  named_tables("contents", "content", a.Contents(), std::string::npos);
  named_tables("files", "file", a.Files(), std::string::npos);
  if (std::vector<ProcessTotals> dirtiers = a.Dirtiers(); !dirtiers.empty()) {
    out += "\n";
    proc_tables("dirtiers", std::move(dirtiers), "\n");
  }
  named_tables("dirtier cgroups", "cgroup", a.DirtierCgroups(),
               std::string::npos);
  return out;
}

std::string SizesReport(const ReportInput& in, const ReportOptions& opt) {
  const Aggregator& a = *in.agg;
  std::string out = WarningBlock(in) + StuckNotice(in);
  auto append = [&out](const Log2Hist& hist, uint64_t zero_byte_events) {
    out += RenderLog2Hist(hist, "kbytes");
    if (zero_byte_events > 0) {
      absl::StrAppend(&out, "(", zero_byte_events,
                      " requests without data, such as flushes, not shown)\n");
    }
  };
  if (!a.MultiHost() || a.events() == 0) {
    append(a.size_hist_kib(), a.zero_byte_events());
    return out;
  }
  bool first = true;
  for (const auto& [host, h] : a.host_totals()) {
    if (!first) out += "\n";
    first = false;
    absl::StrAppend(&out, "host = ", HostName(host), "\n");
    append(h.size_hist_kib, h.zero_byte_events);
  }
  return out;
}

std::string ErrorsReport(const ReportInput& in, const ReportOptions& opt) {
  const Aggregator& a = *in.agg;
  std::string out = WarningBlock(in) + StuckNotice(in);
  if (a.errors().empty()) {
    return absl::StrCat(out, "no I/O errors in ", a.events(), " events\n");
  }
  const bool multi = a.MultiHost();
  Table t(
      WithHost(multi, {"disk", "error", "count", "first (UTC)", "last (UTC)"}),
      WithHostAlign(multi, "llrll"));
  uint64_t total = 0;
  for (const auto& [key, e] : a.errors()) {
    std::vector<std::string> cells;
    if (multi) cells.push_back(HostName(key.host));
    cells.insert(
        cells.end(),
        {Printable(key.disk), Printable(key.error), absl::StrCat(e.count),
         FormatShortTime(e.first_ns), FormatShortTime(e.last_ns)});
    t.Add(std::move(cells));
    total += e.count;
  }
  absl::StrAppend(&out, t.Render(), "\n", total, " errors in ", a.events(),
                  " events\n");
  return out;
}

}  // namespace biosnoop::report
