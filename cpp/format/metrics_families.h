#pragma once

// The metric families of a scrape, listed once (metrics_families.cc) and
// written by each exposition format: the Prometheus text
// (metrics_text.cc) and the protobuf messages (metrics_proto.cc).  A
// writer gets each family, then its samples, in order.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "histogram.h"

namespace biosnoop {

struct MetricsSnapshot;

enum class MetricKind { kCounter, kGauge, kHistogram };

// Label name and value; the value as the run has it (writers make it
// valid UTF-8 and escape it as their format asks).
using MetricLabels =
    std::vector<std::pair<absl::string_view, absl::string_view>>;

class MetricsWriter {
 public:
  virtual ~MetricsWriter() = default;
  // A new family: its samples follow.
  virtual void Family(absl::string_view name, MetricKind kind,
                      absl::string_view help) = 0;
  // A counter's or gauge's sample: integers exactly, the rest as doubles.
  virtual void Sample(const MetricLabels& labels, uint64_t value) = 0;
  virtual void Sample(const MetricLabels& labels, double value) = 0;
  // A latency histogram's sample (kHistogram families): the classic
  // log2 microsecond buckets, and where the format has them, the fine
  // buckets as a native histogram.
  virtual void Histogram(const MetricLabels& labels, const HistData& h) = 0;
};

// Every family of `m`, in the order a scrape shows them.
void WriteMetricFamilies(const MetricsSnapshot& m, MetricsWriter* out);

}  // namespace biosnoop
