// Histogram reports as text (biolatency's bars), CSV and JSON (hist_format.h).

#include "hist_format.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"

namespace biosnoop {
namespace {

constexpr int kBarWidth = 40;

int HighestBucket(const std::array<uint64_t, kHistBuckets>& b) {
  for (int i = kHistBuckets - 1; i >= 0; --i) {
    if (b[i] != 0) return i;
  }
  return -1;
}

const char* UnitName(HistUnit unit) {
  return unit == HistUnit::kMilliseconds ? "msecs" : "usecs";
}

uint64_t ToMicros(uint64_t v, HistUnit unit) {
  return unit == HistUnit::kMilliseconds ? v * 1000 : v;
}

void AppendBars(const std::array<uint64_t, kHistBuckets>& b,
                absl::string_view unit_label, uint64_t scale_lo,
                std::string* out) {
  int top = HighestBucket(b);
  if (top < 0) {
    absl::StrAppend(out, "     (no I/O)\n");
    return;
  }
  uint64_t max = *std::max_element(b.begin(), b.end());
  // Header columns line up with "%12d -> %-12d : ".
  absl::StrAppendFormat(out, "%12s    %-12s : count    distribution\n",
                        unit_label, "");
  for (int i = 0; i <= top; ++i) {
    int stars = max == 0 ? 0 : static_cast<int>(b[i] * kBarWidth / max);
    uint64_t lo = BucketLow(i) * scale_lo, hi = BucketHigh(i) * scale_lo;
    if (scale_lo > 1 && i == 0) lo = 0;
    absl::StrAppendFormat(out, "%12d -> %-12d : %-8d |%-*s|\n", lo, hi, b[i],
                          kBarWidth, std::string(stars, '*'));
  }
}

double UnitsPerSecond(HistUnit unit) {
  return unit == HistUnit::kMilliseconds ? 1e3 : 1e6;
}

// Element n's bounds in `unit`: (FineUpperSeconds(n - 1), FineUpperSeconds(n)],
// and [0, 2^-20 s] for the zero bucket.
std::pair<double, double> FineBounds(int n, HistUnit unit) {
  const double lo = n == 0 ? 0 : FineUpperSeconds(n - 1);
  return {lo * UnitsPerSecond(unit),
          FineUpperSeconds(n) * UnitsPerSecond(unit)};
}

// At least 4 significant digits, so that neighbours (4.4% apart) differ.
std::string FineBound(double v) {
  if (v >= 1000) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.4g", v);
}

void AppendFineBars(const HistData& data, HistUnit unit, std::string* out) {
  const FineSpan span = NonEmptyFine(data);
  if (span.counts.empty()) {
    absl::StrAppend(out, "     (no I/O)\n");
    return;
  }
  const uint64_t max =
      *std::max_element(span.counts.begin(), span.counts.end());
  // As wide as "%12s -> %-12s" below.
  absl::StrAppendFormat(out, "%28s : count    distribution\n",
                        absl::StrCat(UnitName(unit), " (lo, hi]"));
  for (size_t i = 0; i < span.counts.size(); ++i) {
    const uint64_t n = span.counts[i];
    const int stars = static_cast<int>(n * kBarWidth / max);
    const auto [lo, hi] =
        FineBounds(span.first + static_cast<int>(i) - kFineFirst, unit);
    absl::StrAppendFormat(out, "%12s -> %-12s : %-8d |%-*s|\n", FineBound(lo),
                          FineBound(hi), n, kBarWidth, std::string(stars, '*'));
  }
}

std::string GroupLabel(const HistGroup& g) {
  if (g.disk.empty() && g.op.empty()) return "all I/O";
  if (g.op.empty()) return absl::StrCat("disk = ", g.disk);
  if (g.disk.empty()) return absl::StrCat("op = ", g.op);
  return absl::StrCat("disk = ", g.disk, ", op = ", g.op);
}

}  // namespace

std::string FormatHistText(const std::vector<HistGroup>& groups, HistUnit unit,
                           absl::string_view title, HistRows rows) {
  std::string out;
  if (!title.empty()) absl::StrAppend(&out, title, "\n");
  for (const HistGroup& g : groups) {
    absl::StrAppendFormat(&out, "\n%s: %d I/Os, %d bytes, %d slow, %d failed\n",
                          GroupLabel(g), g.data.count, g.data.bytes,
                          g.data.slow, g.data.errors);
    if (rows == HistRows::kFine) {
      AppendFineBars(g.data, unit, &out);
    } else {
      AppendBars(g.data.latency, UnitName(unit), 1, &out);
    }
    if (g.data.count != 0) {
      absl::StrAppend(&out, "\n");
      // Sizes are counted in bytes; bitesize users read KiB.
      std::array<uint64_t, kHistBuckets> kib{};
      for (int i = 0; i < kHistBuckets; ++i) {
        kib[std::max(0, i - 10)] += g.data.size[i];
      }
      AppendBars(kib, "size (KiB)", 1, &out);
    }
  }
  return out;
}

std::string FormatHistCsv(const std::vector<HistGroup>& groups,
                          HistGrouping grouping, HistUnit unit, bool header,
                          HistRows rows) {
  const bool by_disk = GroupsByDisk(grouping);
  const bool by_op = GroupsByOp(grouping);
  std::string out;
  if (header) {
    if (by_disk) out += "disk,";
    if (by_op) out += "op,";
    out += "bucket,lo_us,hi_us,count\n";
  }
  for (const HistGroup& g : groups) {
    if (rows == HistRows::kFine) {
      const FineSpan span = NonEmptyFine(g.data);
      for (size_t i = 0; i < span.counts.size(); ++i) {
        if (by_disk) absl::StrAppend(&out, g.disk, ",");
        if (by_op) absl::StrAppend(&out, g.op, ",");
        const int k = span.first + static_cast<int>(i);
        const auto [lo, hi] =
            FineBounds(k - kFineFirst, HistUnit::kMicroseconds);
        absl::StrAppendFormat(&out, "%d,%.3f,%.3f,%d\n", k, lo, hi,
                              span.counts[i]);
      }
      continue;
    }
    int top = HighestBucket(g.data.latency);
    for (int i = 0; i <= top; ++i) {
      if (by_disk) absl::StrAppend(&out, g.disk, ",");
      if (by_op) absl::StrAppend(&out, g.op, ",");
      uint64_t lo = ToMicros(BucketLow(i), unit);
      uint64_t hi = unit == HistUnit::kMilliseconds
                        ? (BucketHigh(i) + 1) * 1000 - 1
                        : BucketHigh(i);
      absl::StrAppend(&out, i, ",", lo, ",", hi, ",", g.data.latency[i], "\n");
    }
  }
  return out;
}

std::string FormatHistJson(const std::vector<HistGroup>& groups, HistUnit unit,
                           absl::string_view timestamp, double interval_s,
                           HistRows rows) {
  std::string out = "{\"type\":\"histogram\",\"timestamp\":";
  AppendJsonString(timestamp, &out);
  absl::StrAppendFormat(&out, ",\"interval_s\":%.3f,\"unit\":\"%s\"",
                        interval_s,
                        unit == HistUnit::kMilliseconds ? "ms" : "us");
  if (rows == HistRows::kFine) out += ",\"buckets\":\"fine\"";
  out += ",\"histograms\":[";
  bool first_group = true;
  for (const HistGroup& g : groups) {
    if (!first_group) out += ",";
    first_group = false;
    out += "{\"disk\":";
    if (g.disk.empty())
      out += "null";
    else
      AppendJsonString(g.disk, &out);
    out += ",\"op\":";
    if (g.op.empty())
      out += "null";
    else
      AppendJsonString(g.op, &out);
    absl::StrAppend(&out, ",\"count\":", g.data.count,
                    ",\"bytes\":", g.data.bytes, ",\"slow\":", g.data.slow,
                    ",\"errors\":", g.data.errors, ",\"latency\":[");
    bool first = true;
    for (int n = 0; rows == HistRows::kFine && n < kFineBuckets; ++n) {
      if (g.data.fine[n] == 0) continue;
      const auto [lo, hi] = FineBounds(n, unit);
      absl::StrAppendFormat(&out,
                            "%s{\"k\":%d,\"lo\":%.3f,\"hi\":%.3f,"
                            "\"count\":%d}",
                            first ? "" : ",", n + kFineFirst, lo, hi,
                            g.data.fine[n]);
      first = false;
    }
    for (int i = 0; rows == HistRows::kLog2 && i < kHistBuckets; ++i) {
      if (g.data.latency[i] == 0) continue;
      absl::StrAppend(&out, first ? "" : ",", "{\"lo\":", BucketLow(i),
                      ",\"hi\":", BucketHigh(i),
                      ",\"count\":", g.data.latency[i], "}");
      first = false;
    }
    out += "],\"size_bytes\":[";
    first = true;
    for (int i = 0; i < kHistBuckets; ++i) {
      if (g.data.size[i] == 0) continue;
      absl::StrAppend(&out, first ? "" : ",", "{\"lo\":", BucketLow(i),
                      ",\"hi\":", BucketHigh(i), ",\"count\":", g.data.size[i],
                      "}");
      first = false;
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace biosnoop
