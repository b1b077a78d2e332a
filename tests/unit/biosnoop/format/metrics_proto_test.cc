// The metrics' protobuf exposition read back with Prometheus's own
// messages (metrics.proto as Debian ships it, parsed by the protobuf
// library): the same families as the text, the classic buckets, and the
// native histogram on the kernel's own grid; and which scrapers get it.

#include "metrics_proto.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "biosnoop_abi.h"  // the kernel's bucket function
#include "gtest/gtest.h"
#include "io/prometheus/client/metrics.pb.h"
#include "metrics_text.h"

namespace biosnoop {
namespace {

namespace pb = ::io::prometheus::client;

// Every MetricFamily of `bytes`, which must hold nothing else.
std::vector<pb::MetricFamily> Parse(const std::string& bytes) {
  google::protobuf::io::ArrayInputStream in(bytes.data(),
                                            static_cast<int>(bytes.size()));
  std::vector<pb::MetricFamily> out;
  for (;;) {
    pb::MetricFamily f;
    bool clean_eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&f, &in,
                                                                  &clean_eof)) {
      EXPECT_TRUE(clean_eof) << "bytes after " << out.size() << " families";
      return out;
    }
    // Nothing the schema does not know, and the library writes the same
    // bytes again: our encoding is the canonical one.
    EXPECT_TRUE(f.unknown_fields().empty()) << f.name();
    out.push_back(f);
  }
}

std::string Reencoded(const std::vector<pb::MetricFamily>& families) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  for (const pb::MetricFamily& f : families) {
    EXPECT_TRUE(
        google::protobuf::util::SerializeDelimitedToZeroCopyStream(f, &stream));
  }
  return out;
}

const pb::MetricFamily* Find(const std::vector<pb::MetricFamily>& families,
                             const std::string& name) {
  for (const pb::MetricFamily& f : families) {
    if (f.name() == name) return &f;
  }
  return nullptr;
}

// The native histogram's buckets as Prometheus reads them: index -> count.
std::map<int, uint64_t> NativeBuckets(const pb::Histogram& h) {
  std::map<int, uint64_t> out;
  int index = 0, delta = 0;
  int64_t count = 0;
  for (int s = 0; s < h.positive_span_size(); ++s) {
    const pb::BucketSpan& span = h.positive_span(s);
    index += span.offset();
    for (uint32_t i = 0; i < span.length(); ++i, ++index) {
      count += h.positive_delta(delta++);
      EXPECT_GE(count, 0) << "bucket " << index;
      if (count > 0) out[index] = static_cast<uint64_t>(count);
    }
  }
  EXPECT_EQ(delta, h.positive_delta_size()) << "deltas past the spans";
  return out;
}

MetricsSnapshot Rich() {
  MetricsSnapshot m;
  m.version = "0.1.0";
  HistGroup g;
  g.disk = "vda";
  g.op = "read";
  g.data.count = 7;
  g.data.bytes = 7 * 4096;
  g.data.slow = 2;
  g.data.errors = 1;
  g.data.latency_ns = 40123456789;
  g.data.latency[6] = 5;               // 64..127 us
  g.data.latency[14] = 2;              // 16.384..32.767 ms
  g.data.fine[0] = 1;                  // the zero bucket
  g.data.fine[-212 - kFineFirst] = 4;  // k = -212: ~0.1 ms
  g.data.fine[-90 - kFineFirst] = 2;   // k = -90: ~20 ms
  m.groups.push_back(g);
  g.disk = "nvme0n1";
  g.op = "write";
  m.groups.push_back(g);
  m.stats.completions = 14;
  m.stats.lost = 3;
  m.stuck = 2;
  m.ops = true;
  ProcessMetrics p;
  p.cpu_seconds = 1.25;
  p.resident_bytes = 12 << 20;
  p.virtual_bytes = 300 << 20;
  p.open_fds = 17;
  p.max_fds = 1024;
  p.start_time_seconds = 1767225600.5;
  m.process = p;
  return m;
}

// Every family and sample of the text, in the same order, with the same
// values; histograms as the same series.
TEST(MetricsProtoTest, TheSameFamiliesAndValuesAsTheText) {
  const MetricsSnapshot m = Rich();
  const std::string bytes = FormatMetricsProto(m);
  const std::vector<pb::MetricFamily> families = Parse(bytes);
  EXPECT_EQ(Reencoded(families), bytes);

  std::vector<std::string> text_names;
  std::map<std::string, std::string> text_help, text_type;
  for (absl::string_view line : absl::StrSplit(FormatMetrics(m), '\n')) {
    std::vector<std::string> w = absl::StrSplit(line, absl::MaxSplits(' ', 3));
    if (w.size() == 4 && w[1] == "HELP") {
      text_names.push_back(w[2]);
      text_help[w[2]] = w[3];
    } else if (w.size() == 4 && w[1] == "TYPE") {
      text_type[w[2]] = w[3];
    }
  }
  ASSERT_EQ(families.size(), text_names.size());
  const std::map<std::string, pb::MetricType> types = {
      {"counter", pb::COUNTER},
      {"gauge", pb::GAUGE},
      {"histogram", pb::HISTOGRAM}};
  for (size_t i = 0; i < families.size(); ++i) {
    const pb::MetricFamily& f = families[i];
    EXPECT_EQ(f.name(), text_names[i]);
    EXPECT_EQ(f.help(), text_help[f.name()]);
    EXPECT_EQ(f.type(), types.at(text_type[f.name()])) << f.name();
    for (const pb::Metric& s : f.metric()) {
      EXPECT_EQ(s.has_counter(), f.type() == pb::COUNTER) << f.name();
      EXPECT_EQ(s.has_gauge(), f.type() == pb::GAUGE) << f.name();
      EXPECT_EQ(s.has_histogram(), f.type() == pb::HISTOGRAM) << f.name();
    }
  }
  const pb::MetricFamily* io = Find(families, "biosnoop_io_total");
  ASSERT_NE(io, nullptr);
  ASSERT_EQ(io->metric_size(), 2);
  EXPECT_EQ(io->metric(0).label(0).name(), "disk");
  EXPECT_EQ(io->metric(0).label(0).value(), "vda");
  EXPECT_EQ(io->metric(0).label(1).name(), "op");
  EXPECT_EQ(io->metric(0).label(1).value(), "read");
  EXPECT_EQ(io->metric(0).counter().value(), 7);
  EXPECT_EQ(Find(families, "biosnoop_lost_total")->metric(0).counter().value(),
            3);
  EXPECT_EQ(Find(families, "biosnoop_stuck_total")->metric(0).counter().value(),
            2);
  const pb::MetricFamily* info = Find(families, "biosnoop_build_info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->metric(0).label(0).name(), "version");
  EXPECT_EQ(info->metric(0).label(0).value(), "0.1.0");
  EXPECT_EQ(info->metric(0).gauge().value(), 1);
  EXPECT_EQ(
      Find(families, "process_cpu_seconds_total")->metric(0).counter().value(),
      1.25);
  EXPECT_EQ(
      Find(families, "process_start_time_seconds")->metric(0).gauge().value(),
      1767225600.5);
  EXPECT_EQ(Find(families, "process_open_fds")->metric(0).gauge().value(), 17);
}

TEST(MetricsProtoTest, HistogramsAreClassicAndNativeAtOnce) {
  const std::vector<pb::MetricFamily> families =
      Parse(FormatMetricsProto(Rich()));
  const pb::MetricFamily* f = Find(families, "biosnoop_io_latency_seconds");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->metric_size(), 2);
  const pb::Histogram& h = f->metric(0).histogram();
  EXPECT_EQ(h.sample_count(), 7u);
  EXPECT_DOUBLE_EQ(h.sample_sum(), 40.123456789);
  // Classic: the 31 bounded log2 microsecond buckets, cumulative.
  ASSERT_EQ(h.bucket_size(), kHistBuckets - 1);
  for (int i = 0; i < h.bucket_size(); ++i) {
    EXPECT_DOUBLE_EQ(h.bucket(i).upper_bound(), std::stod(LatencyBucketLe(i)))
        << i;
    EXPECT_EQ(h.bucket(i).cumulative_count(), i < 6    ? 0u
                                              : i < 14 ? 5u
                                                       : 7u)
        << i;
  }
  // Native: schema 4, the zero bucket up to 2^-20 s, buckets -212, -90.
  EXPECT_EQ(h.schema(), 4);
  EXPECT_EQ(h.zero_threshold(), std::exp2(-20.0));
  EXPECT_EQ(h.zero_count(), 1u);
  EXPECT_EQ(NativeBuckets(h), (std::map<int, uint64_t>{{-212, 4}, {-90, 2}}));
  EXPECT_EQ(h.negative_span_size(), 0);
  EXPECT_EQ(h.positive_count_size(), 0);  // integer counts: deltas
}

// Spans: gaps of one or two empty buckets stay inside a span, longer ones
// start a new span; the highest bucket is served too.
TEST(MetricsProtoTest, SpansCoverEveryBucketThatHoldsSomething) {
  MetricsSnapshot m;
  HistGroup g;
  g.disk = "sda";
  g.op = "write";
  const std::map<int, uint64_t> fine = {{1, 3},   {2, 1},   {4, 9},
                                        {7, 2},   {10, 5},  {11, 5},
                                        {100, 1}, {254, 6}, {255, 8}};
  std::map<int, uint64_t> want;
  for (const auto& [n, count] : fine) {
    g.data.fine[n] = count;
    want[n + kFineFirst] = count;
  }
  m.groups.push_back(g);
  const std::vector<pb::MetricFamily> families = Parse(FormatMetricsProto(m));
  const pb::Histogram& h =
      Find(families, "biosnoop_io_latency_seconds")->metric(0).histogram();
  EXPECT_EQ(NativeBuckets(h), want);
  // 1-2, 4 (gap 1), 7 and 10-11 (gaps 2): one span; 100; 254-255.
  ASSERT_EQ(h.positive_span_size(), 3);
  EXPECT_EQ(h.positive_span(0).offset(), 1 + kFineFirst);
  EXPECT_EQ(h.positive_span(0).length(), 11u);
  EXPECT_EQ(h.positive_span(1).offset(), 100 - 12);
  EXPECT_EQ(h.positive_span(1).length(), 1u);
  EXPECT_EQ(h.positive_span(2).offset(), 254 - 101);
  EXPECT_EQ(h.positive_span(2).length(), 2u);
  EXPECT_EQ(h.sample_count(), 40u);
  // No I/O in the classic buckets: capped at the native count (here they
  // are below it: nothing to cap).
  EXPECT_EQ(h.bucket(kHistBuckets - 2).cumulative_count(), 0u);
}

// The two kernel maps are read one after the other: classic counts above
// the fine ones are capped, so the histogram never counts more in a bucket
// than in all.
TEST(MetricsProtoTest, ClassicBucketsNeverExceedTheCount) {
  MetricsSnapshot m;
  HistGroup g;
  g.data.latency[3] = 5;
  g.data.fine[60] = 4;
  m.groups.push_back(g);
  const std::vector<pb::MetricFamily> families = Parse(FormatMetricsProto(m));
  const pb::Histogram& h =
      Find(families, "biosnoop_io_latency_seconds")->metric(0).histogram();
  EXPECT_EQ(h.sample_count(), 4u);
  EXPECT_EQ(h.bucket(3).cumulative_count(), 4u);
  EXPECT_EQ(h.bucket(kHistBuckets - 2).cumulative_count(), 4u);
}

// The schema matches the kernel's buckets exactly: latencies counted by
// the kernel's own bucket function land, as Prometheus reads the native
// buckets (bucket k holds (2^((k-1)/8), 2^(k/8)] s, the zero bucket up to
// its threshold), in the bucket that holds each of them.
TEST(MetricsProtoTest, NativeBucketsHoldWhatTheKernelCountedInThem) {
  MetricsSnapshot m;
  HistGroup g;
  std::map<int, uint64_t> want;
  uint64_t zero = 0;
  uint64_t x = 0x2545F4914F6CDD1Dull;
  int counted = 0;
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;       // xorshift64
    const uint64_t ns = (x >> (24 + i % 34)) + 1;  // 1 ns to ~17 min
    const long double s = ns / 1e9L;
    const long double per_octave = 1 << kFineSchema;
    const long double k = std::ceil(std::log2(s) * per_octave);
    // Latencies within rounding of a bucket bound are left out.
    if (std::fabs(std::log2(s) * per_octave -
                  std::nearbyint(std::log2(s) * per_octave)) < 1e-9L) {
      continue;
    }
    g.data.fine[biosnoop_fine_bucket(ns)] += 1;
    if (s <= std::exp2(-20.0L)) {
      ++zero;
    } else {
      ++want[static_cast<int>(k)];
    }
    ++counted;
  }
  // The exact tops of buckets: 1953125 << j ns is 2^(j-9) s.
  for (int j = 0; j <= 20; ++j) {
    const uint64_t top = uint64_t{1953125} << j;
    g.data.fine[biosnoop_fine_bucket(top)] += 1;
    ++want[(1 << kFineSchema) * (j - 9)];
    g.data.fine[biosnoop_fine_bucket(top + 1)] += 1;
    ++want[(1 << kFineSchema) * (j - 9) + 1];
  }
  m.groups.push_back(g);
  const std::vector<pb::MetricFamily> families = Parse(FormatMetricsProto(m));
  const pb::Histogram& h =
      Find(families, "biosnoop_io_latency_seconds")->metric(0).histogram();
  EXPECT_GT(counted, 99000);
  EXPECT_GT(zero, 0u);
  EXPECT_EQ(h.zero_count(), zero);
  EXPECT_EQ(NativeBuckets(h), want);
  EXPECT_EQ(h.sample_count(), counted + 42u);
}

TEST(MetricsProtoTest, OnlyScrapersAskingForDelimitedMetricFamiliesGetIt) {
  // Prometheus 2.42 with --enable-feature=native-histograms, and without.
  EXPECT_TRUE(AcceptsMetricsProto(
      "application/vnd.google.protobuf;proto=io.prometheus.client."
      "MetricFamily;encoding=delimited,application/openmetrics-text;version="
      "1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/"
      "plain;version=0.0.4;q=0.5,*/*;q=0.1"));
  EXPECT_FALSE(AcceptsMetricsProto(
      "application/openmetrics-text;version=1.0.0,application/"
      "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
      "*/*;q=0.1"));
  EXPECT_TRUE(AcceptsMetricsProto(
      " Application/Vnd.Google.Protobuf ; PROTO=\"io.prometheus.client."
      "MetricFamily\" ; Encoding=delimited ; q=0.9, text/plain;q=0.9"));
  for (const char* text :
       {"", "*/*", "text/plain", "text/plain;version=0.0.4", "garbage",
        ",,,;;;", "application/vnd.google.protobuf",
        // other encodings, another message, refused, or preferred less
        "application/vnd.google.protobuf;proto=io.prometheus.client."
        "MetricFamily;encoding=text",
        "application/vnd.google.protobuf;proto=x.Y;encoding=delimited",
        "application/vnd.google.protobuf;proto=io.prometheus.client."
        "MetricFamily;encoding=delimited;q=0",
        "application/vnd.google.protobuf;proto=io.prometheus.client."
        "MetricFamily;encoding=delimited;q=0.4,text/plain;q=0.5",
        "application/vnd.google.protobuf;proto=io.prometheus.client."
        "MetricFamily;encoding=delimited;q=2",
        "application/vnd.google.protobuf;proto=io.prometheus.client."
        "MetricFamily;encoding=delimited;q=x"}) {
    EXPECT_FALSE(AcceptsMetricsProto(text)) << text;
  }
}

TEST(MetricsProtoTest, LabelValuesAreValidUtf8) {
  MetricsSnapshot m;
  HistGroup g;
  g.disk = "x\xff\"y";
  g.op = "read";
  m.groups.push_back(g);
  const std::vector<pb::MetricFamily> families = Parse(FormatMetricsProto(m));
  const pb::MetricFamily* f = Find(families, "biosnoop_io_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->metric(0).label(0).value(), "x\xef\xbf\xbd\"y");  // U+FFFD
}

}  // namespace
}  // namespace biosnoop
