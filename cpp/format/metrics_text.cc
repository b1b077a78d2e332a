// The Prometheus text of a metrics snapshot (metrics_text.h).  Written by
// hand, not through a client library: Debian has none for C++, and the
// format is a few lines of text per family.

#include "metrics_text.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"  // AppendSanitizedUtf8: the same UTF-8 rule
#include "metrics_families.h"

namespace biosnoop {
namespace {

// Whole nanoseconds as seconds, exactly (no binary rounding).
std::string Seconds(uint64_t ns) {
  return absl::StrFormat("%d.%09d", ns / 1000000000, ns % 1000000000);
}

// The shortest text that reads back as the same double.
std::string Double(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

class TextWriter : public MetricsWriter {
 public:
  explicit TextWriter(std::string* out) : out_(out) {}

  void Family(absl::string_view name, MetricKind kind,
              absl::string_view help) override {
    name_ = std::string(name);
    absl::StrAppend(out_, "# HELP ", name_, " ", help, "\n# TYPE ", name_, " ",
                    kind == MetricKind::kCounter ? "counter"
                    : kind == MetricKind::kGauge ? "gauge"
                                                 : "histogram",
                    "\n");
  }

  void Sample(const MetricLabels& labels, uint64_t value) override {
    absl::StrAppend(out_, name_, Labels(labels, "}"), " ", value, "\n");
  }
  void Sample(const MetricLabels& labels, double value) override {
    absl::StrAppend(out_, name_, Labels(labels, "}"), " ", Double(value), "\n");
  }

  // The classic buckets only: the text format has no native histograms.
  void Histogram(const MetricLabels& labels, const HistData& h) override {
    const std::string open = Labels(labels, "");
    const std::string sep = labels.empty() ? "{" : ",";
    uint64_t below = 0;
    // The last kernel bucket holds everything above the one before it:
    // it has no upper bound but +Inf.
    for (int i = 0; i + 1 < kHistBuckets; ++i) {
      below += h.latency[i];
      absl::StrAppend(out_, name_, "_bucket", open, sep, "le=\"",
                      LatencyBucketLe(i), "\"} ", below, "\n");
    }
    // _count and +Inf from the buckets, so they agree even when the read
    // met a completion half counted.
    const uint64_t all = below + h.latency[kHistBuckets - 1];
    absl::StrAppend(out_, name_, "_bucket", open, sep, "le=\"+Inf\"} ", all,
                    "\n");
    const std::string close = labels.empty() ? "" : "}";
    absl::StrAppend(out_, name_, "_sum", open, close, " ",
                    Seconds(h.latency_ns), "\n");
    absl::StrAppend(out_, name_, "_count", open, close, " ", all, "\n");
  }

 private:
  // {a="x",b="y" then `close`; nothing for no labels.
  static std::string Labels(const MetricLabels& labels,
                            absl::string_view close) {
    if (labels.empty()) return "";
    std::string s = "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      absl::StrAppend(&s, i == 0 ? "" : ",", labels[i].first, "=",
                      MetricsLabelValue(std::string(labels[i].second)));
    }
    absl::StrAppend(&s, close);
    return s;
  }

  std::string* out_;
  std::string name_;
};

}  // namespace

std::string LatencyBucketLe(int i) {
  const uint64_t us = uint64_t{2} << i;
  std::string frac = absl::StrFormat("%06d", us % 1000000);
  while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
  return absl::StrCat(us / 1000000, ".", frac);
}

std::string MetricsLabelValue(const std::string& value) {
  std::string utf8;
  AppendSanitizedUtf8(value, &utf8);
  std::string out = "\"";
  for (char c : utf8) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string FormatMetrics(const MetricsSnapshot& m) {
  std::string out;
  TextWriter writer(&out);
  WriteMetricFamilies(m, &writer);
  return out;
}

}  // namespace biosnoop
