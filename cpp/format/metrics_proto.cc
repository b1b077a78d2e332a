// The protobuf exposition of the metrics (metrics_proto.h), encoded
// directly: a few varints, doubles and nested lengths per sample, in
// field-number order, as the protobuf library would write them
// (tests/unit/biosnoop/format/metrics_proto_test.cc parses them with it).

#include "metrics_proto.h"

#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "io/prometheus/client/metrics.pb.h"
#include "json_escape.h"  // AppendSanitizedUtf8: the same UTF-8 rule
#include "metrics_families.h"

namespace biosnoop {
namespace {

namespace pb = ::io::prometheus::client;

enum Wire { kVarint = 0, kFixed64 = 1, kLen = 2 };

void Varint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void Tag(int field, Wire wire, std::string* out) {
  Varint((static_cast<uint64_t>(field) << 3) | wire, out);
}

void Uint(int field, uint64_t v, std::string* out) {
  Tag(field, kVarint, out);
  Varint(v, out);
}

// sint32/sint64: zigzag, so small negative numbers stay short.
void Sint(int field, int64_t v, std::string* out) {
  Tag(field, kVarint, out);
  Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

void Double(int field, double v, std::string* out) {
  Tag(field, kFixed64, out);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  for (int i = 0; i < 8; ++i)
    out->push_back(static_cast<char>(bits >> (8 * i)));
}

void Bytes(int field, absl::string_view bytes, std::string* out) {
  Tag(field, kLen, out);
  Varint(bytes.size(), out);
  out->append(bytes.data(), bytes.size());
}

void Utf8(int field, absl::string_view text, std::string* out) {
  std::string valid;
  AppendSanitizedUtf8(text, &valid);
  Bytes(field, valid, out);
}

void Labels(const MetricLabels& labels, std::string* metric) {
  std::string pair;
  for (const auto& [name, value] : labels) {
    pair.clear();
    Utf8(pb::LabelPair::kNameFieldNumber, name, &pair);
    Utf8(pb::LabelPair::kValueFieldNumber, value, &pair);
    Bytes(pb::Metric::kLabelFieldNumber, pair, metric);
  }
}

// The native half of a histogram: the fine buckets as spans and deltas.
// A run of at most kMaxGap empty buckets between two that hold something
// stays inside a span (a zero delta costs less than a new span).
constexpr int kMaxGap = 2;

void NativeBuckets(const HistData& h, std::string* hist) {
  Sint(pb::Histogram::kSchemaFieldNumber, kFineSchema, hist);
  Double(pb::Histogram::kZeroThresholdFieldNumber, FineUpperSeconds(0), hist);
  Uint(pb::Histogram::kZeroCountFieldNumber, h.fine[0], hist);
  struct Span {
    int first, length;
  };
  std::vector<Span> spans;
  for (int n = 1; n < kFineBuckets; ++n) {
    if (h.fine[n] == 0) continue;
    if (!spans.empty() &&
        n - (spans.back().first + spans.back().length) <= kMaxGap) {
      spans.back().length = n - spans.back().first + 1;
    } else {
      spans.push_back({n, 1});
    }
  }
  std::string span;
  int next = 0;  // the element after the last span
  for (size_t i = 0; i < spans.size(); ++i) {
    span.clear();
    // The first span's offset is its bucket index; the others', the
    // buckets skipped since the span before.
    Sint(pb::BucketSpan::kOffsetFieldNumber,
         i == 0 ? spans[i].first + kFineFirst : spans[i].first - next, &span);
    Uint(pb::BucketSpan::kLengthFieldNumber,
         static_cast<uint64_t>(spans[i].length), &span);
    Bytes(pb::Histogram::kPositiveSpanFieldNumber, span, hist);
    next = spans[i].first + spans[i].length;
  }
  // Each bucket's count as the difference from the bucket before it in
  // the spans (the first from zero).
  int64_t before = 0;
  for (const Span& s : spans) {
    for (int n = s.first; n < s.first + s.length; ++n) {
      const int64_t count = static_cast<int64_t>(h.fine[n]);
      Sint(pb::Histogram::kPositiveDeltaFieldNumber, count - before, hist);
      before = count;
    }
  }
}

class ProtoWriter : public MetricsWriter {
 public:
  explicit ProtoWriter(std::string* out) : out_(out) {}
  ~ProtoWriter() override { Flush(); }

  void Family(absl::string_view name, MetricKind kind,
              absl::string_view help) override {
    Flush();
    Utf8(pb::MetricFamily::kNameFieldNumber, name, &family_);
    Utf8(pb::MetricFamily::kHelpFieldNumber, help, &family_);
    Uint(pb::MetricFamily::kTypeFieldNumber,
         kind == MetricKind::kCounter ? pb::COUNTER
         : kind == MetricKind::kGauge ? pb::GAUGE
                                      : pb::HISTOGRAM,
         &family_);
    kind_ = kind;
  }

  void Sample(const MetricLabels& labels, uint64_t value) override {
    Sample(labels, static_cast<double>(value));
  }
  void Sample(const MetricLabels& labels, double value) override {
    metric_.clear();
    Labels(labels, &metric_);
    value_.clear();
    Double(pb::Counter::kValueFieldNumber, value, &value_);
    static_assert(static_cast<int>(pb::Counter::kValueFieldNumber) ==
                  static_cast<int>(pb::Gauge::kValueFieldNumber));
    Bytes(kind_ == MetricKind::kCounter ? pb::Metric::kCounterFieldNumber
                                        : pb::Metric::kGaugeFieldNumber,
          value_, &metric_);
    Bytes(pb::MetricFamily::kMetricFieldNumber, metric_, &family_);
  }

  void Histogram(const MetricLabels& labels, const HistData& h) override {
    metric_.clear();
    Labels(labels, &metric_);
    uint64_t count = 0;
    for (uint64_t n : h.fine) count += n;
    value_.clear();
    Uint(pb::Histogram::kSampleCountFieldNumber, count, &value_);
    Double(pb::Histogram::kSampleSumFieldNumber, h.latency_ns / 1e9, &value_);
    std::string bucket;
    uint64_t below = 0;
    // As in the text: the last kernel bucket has no upper bound but +Inf,
    // which sample_count stands for.
    for (int i = 0; i + 1 < kHistBuckets; ++i) {
      below += h.latency[i];
      bucket.clear();
      Uint(pb::Bucket::kCumulativeCountFieldNumber, std::min(below, count),
           &bucket);
      Double(pb::Bucket::kUpperBoundFieldNumber,
             static_cast<double>(uint64_t{2} << i) / 1e6, &bucket);
      Bytes(pb::Histogram::kBucketFieldNumber, bucket, &value_);
    }
    NativeBuckets(h, &value_);
    Bytes(pb::Metric::kHistogramFieldNumber, value_, &metric_);
    Bytes(pb::MetricFamily::kMetricFieldNumber, metric_, &family_);
  }

 private:
  void Flush() {
    if (family_.empty()) return;
    Varint(family_.size(), out_);
    out_->append(family_);
    family_.clear();
  }

  std::string* out_;
  MetricKind kind_ = MetricKind::kCounter;
  std::string family_, metric_, value_;
};

// One media range of an Accept header, parameters included.
struct MediaRange {
  std::string type;  // lower case, "text/plain"
  std::string proto, encoding, version;
  double q = 1;
};

// False when the range is malformed (it is then ignored).
bool ParseRange(absl::string_view text, MediaRange* r) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ';');
  r->type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
  if (r->type.find('/') == std::string::npos) return false;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view p = absl::StripAsciiWhitespace(parts[i]);
    const size_t eq = p.find('=');
    if (eq == absl::string_view::npos) return false;
    const std::string key =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(p.substr(0, eq)));
    absl::string_view value = absl::StripAsciiWhitespace(p.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (key == "q") {
      if (!absl::SimpleAtod(value, &r->q) || !(r->q >= 0 && r->q <= 1)) {
        return false;
      }
    } else if (key == "proto") {
      r->proto = std::string(value);
    } else if (key == "encoding") {
      r->encoding = std::string(value);
    } else if (key == "version") {
      r->version = std::string(value);
    }
  }
  return true;
}

}  // namespace

std::string FormatMetricsProto(const MetricsSnapshot& m) {
  std::string out;
  {
    ProtoWriter writer(&out);
    WriteMetricFamilies(m, &writer);
  }
  return out;
}

bool AcceptsMetricsProto(absl::string_view accept) {
  double proto_q = 0, text_q = 0;
  for (absl::string_view range : absl::StrSplit(accept, ',')) {
    MediaRange r;
    if (!ParseRange(range, &r)) continue;
    if (r.type == "application/vnd.google.protobuf") {
      if (r.proto == "io.prometheus.client.MetricFamily" &&
          r.encoding == "delimited") {
        proto_q = std::max(proto_q, r.q);
      }
    } else if ((r.type == "text/plain" &&
                (r.version.empty() || r.version == "0.0.4")) ||
               r.type == "text/*" || r.type == "*/*") {
      text_q = std::max(text_q, r.q);
    }
  }
  return proto_q > 0 && proto_q >= text_q;
}

}  // namespace biosnoop
