#pragma once

// The metrics of metrics_text.h in Prometheus's protobuf exposition
// format: length-delimited io.prometheus.client.MetricFamily messages, the
// format a Prometheus with native histograms asks for.  The same families
// and samples as the text, and each latency histogram is both:
//
//   classic   its log2 microsecond buckets as `bucket` (cumulative,
//             upper_bound 2^(i+1) us in seconds, no +Inf bucket), so
//             that histogram_quantile over _bucket series works as with
//             the text (for a server that keeps them: Prometheus 2.42
//             keeps only the native part of a histogram that has one);
//   native    the kernel's fine buckets at schema 4 (kFineSchema): fine
//             element n is native bucket n + kFineFirst,
//             (2^((k-1)/16), 2^(k/16)] s, the
//             same grid, so counts are copied, never re-bucketed; element
//             0 is the zero bucket, zero_threshold 2^-20 s.  Buckets
//             holding nothing are left out (spans), except runs of at most
//             two between buckets that hold something.
//
// sample_count is the fine buckets' sum, so that the native histogram adds
// up, and the classic buckets are capped at it (the kernel counts the two
// sets in separate maps, read one after the other: a completion may be in
// one read and not yet in the other).
//
// Field numbers are the generated constants of metrics.proto as Debian's
// golang-github-prometheus-client-model-dev ships it (read at build time;
// biosnoop links no protobuf library, as for its own records).

#include <string>

#include "absl/strings/string_view.h"
#include "metrics_text.h"

namespace biosnoop {

// The Content-Type of FormatMetricsProto's bytes.
inline constexpr char kMetricsProtoContentType[] =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
    "encoding=delimited";

// Every family of `m` as length-delimited MetricFamily messages.
std::string FormatMetricsProto(const MetricsSnapshot& m);

// Whether a scraper whose Accept header is `accept` gets the protobuf
// format: it lists application/vnd.google.protobuf with
// proto=io.prometheus.client.MetricFamily and encoding=delimited, with a
// q above 0 and at least that of any text it takes (text/plain, text/*,
// */*).  Anything else, a missing or malformed header included, gets the
// text, as before.
bool AcceptsMetricsProto(absl::string_view accept);

}  // namespace biosnoop
