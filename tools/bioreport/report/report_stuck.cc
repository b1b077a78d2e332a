// The stuck section of the reports: requests biosnoop found still in
// flight past --stuck-after.  A disk that stops answering shows here even
// when no request on it ever completes (and so no event is ever written),
// which is why the section comes before the latency table.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "json_format.h"
#include "report.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {
namespace {

// Disks named in the notice before "...".
constexpr size_t kNamedDisks = 3;

// "1 s", "250 ms", "1500 us": a --stuck-after value as it was probably
// given.
std::string Duration(uint64_t us) {
  if (us % 1'000'000 == 0) return absl::StrCat(us / 1'000'000, " s");
  if (us % 1000 == 0) return absl::StrCat(us / 1000, " ms");
  return absl::StrCat(us, " us");
}

// "after 1 s" when every run used one --stuck-after, else a phrase without
// a value.
std::string AfterWhat(const StuckCollector& s) {
  if (s.stuck_after_us().size() == 1) {
    return absl::StrCat("after ", Duration(*s.stuck_after_us().begin()),
                        " (--stuck-after)");
  }
  return "past biosnoop's --stuck-after";
}

std::string Inflight(uint64_t us, bool ms) {
  if (!ms) return absl::StrCat(us);
  return absl::StrFormat("%.1f", static_cast<double>(us) / 1000);
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

bool MultiHost(const ReportInput& in) {
  return in.agg != nullptr && in.agg->MultiHost();
}

// The cells of a row, the host's first when there are several hosts.
std::vector<std::string> Cells(bool multi, const std::string& host,
                               std::vector<std::string> cells) {
  if (multi) cells.insert(cells.begin(), HostName(host));
  return cells;
}

}  // namespace

std::string StuckSection(const ReportInput& in, const ReportOptions& opt) {
  if (in.stuck == nullptr || in.stuck->count() == 0) return "";
  const StuckCollector& s = *in.stuck;
  const char* u = opt.ms ? "ms" : "us";
  std::string out = absl::StrCat(
      "STUCK: ", Plural(s.count(), "request", "requests"), " still in flight ",
      AfterWhat(s), ", on ", Plural(s.disks().size(), "disk", "disks"),
      " (not events: a request that completed later is also an event)\n\n");
  const bool multi = MultiHost(in);
  Table disks(Cells(multi, "host",
                    {"disk", "stuck", absl::StrCat("max_inflight_", u),
                     "first (UTC)", "last (UTC)"}),
              multi ? "llrrll" : "lrrll");
  for (const auto& [key, d] : s.disks()) {
    disks.Add(
        Cells(multi, key.first,
              {Printable(key.second), absl::StrCat(d.count),
               Inflight(d.max_inflight_us, opt.ms),
               FormatShortTimeMs(d.first_ns), FormatShortTimeMs(d.last_ns)}));
  }
  out += disks.Render();
  absl::StrAppend(&out, "\nlongest in flight:\n");
  // The host after the time, before the disk it qualifies.
  std::vector<std::string> header = {
      "found (UTC)", "disk",  "op",
      "sector",      "bytes", absl::StrCat("inflight_", u),
      "pid",         "comm"};
  if (multi) header.insert(header.begin() + 1, "host");
  Table longest(header, multi ? "llllrrrrl" : "lllrrrrl");
  for (const StuckRow& r : s.Longest()) {
    std::vector<std::string> cells = {
        FormatShortTimeMs(r.ns), Printable(r.disk),
        Printable(r.op),         absl::StrCat(r.sector),
        HumanBytes(r.bytes),     Inflight(r.inflight_us, opt.ms),
        absl::StrCat(r.pid),     Printable(r.comm)};
    if (multi) cells.insert(cells.begin() + 1, HostName(r.host));
    longest.Add(std::move(cells));
  }
  out += longest.Render();
  out += "\n";
  return out;
}

std::string StuckNotice(const ReportInput& in) {
  if (in.stuck == nullptr || in.stuck->count() == 0) return "";
  const StuckCollector& s = *in.stuck;
  // "db7:loop0" when there are several hosts.
  const bool multi = MultiHost(in);
  std::vector<std::string> names;
  for (const auto& [key, d] : s.disks()) {
    if (names.size() == kNamedDisks) {
      names.push_back("...");
      break;
    }
    names.push_back(
        multi ? absl::StrCat(HostName(key.first), ":", Printable(key.second))
              : Printable(key.second));
  }
  return absl::StrCat(
      "STUCK: ", Plural(s.count(), "request", "requests"), " still in flight ",
      AfterWhat(s), " on ", absl::StrJoin(names, ", "), ", the longest for ",
      absl::StrFormat("%.1f", s.Longest().front().inflight_us / 1e6),
      " s (bioreport summary lists them)\n\n");
}

void AppendStuckJson(const ReportInput& in, std::string* out) {
  static const StuckCollector kNone;
  const StuckCollector& s = in.stuck != nullptr ? *in.stuck : kNone;
  absl::StrAppend(out, "{\"requests\":", s.count(), ",\"stuck_after_us\":[",
                  absl::StrJoin(s.stuck_after_us(), ","), "],\"disks\":[");
  const bool multi = MultiHost(in);
  bool first = true;
  for (const auto& [key, d] : s.disks()) {
    if (!first) out->push_back(',');
    first = false;
    out->push_back('{');
    if (multi) {
      out->append("\"host\":");
      AppendJsonString(key.first, out);
      out->push_back(',');
    }
    out->append("\"disk\":");
    AppendJsonString(key.second, out);
    absl::StrAppend(out, ",\"count\":", d.count,
                    ",\"max_inflight_us\":", d.max_inflight_us, ",\"first\":\"",
                    FormatRfc3339(d.first_ns), "\",\"last\":\"",
                    FormatRfc3339(d.last_ns), "\"}");
  }
  out->append("],\"longest\":[");
  first = true;
  for (const StuckRow& r : s.Longest()) {
    if (!first) out->push_back(',');
    first = false;
    absl::StrAppend(out, "{\"timestamp\":\"", FormatRfc3339(r.ns),
                    "\",\"host\":");
    AppendJsonString(r.host, out);
    out->append(",\"disk\":");
    AppendJsonString(r.disk, out);
    out->append(",\"partition\":");
    if (r.partition.empty()) {
      out->append("null");
    } else {
      AppendJsonString(r.partition, out);
    }
    out->append(",\"op\":");
    AppendJsonString(r.op, out);
    absl::StrAppend(out, ",\"sector\":", r.sector, ",\"bytes\":", r.bytes,
                    ",\"inflight_us\":", r.inflight_us, ",\"pid\":", r.pid,
                    ",\"tid\":", r.tid, ",\"comm\":");
    AppendJsonString(r.comm, out);
    out->push_back('}');
  }
  out->append("]}");
}

}  // namespace biosnoop::report
