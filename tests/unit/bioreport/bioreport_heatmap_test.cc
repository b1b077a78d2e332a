// The heat map's parts: columns chosen from the span, streaming binning
// on the kernel's fine grid (also across granule changes), the rows, the
// colour scale, the p50/p99 lines at their estimates, the texts (titles,
// axis titles, time labels, caps) and escaping of every name that reaches
// the SVG or HTML.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "baseline.h"
#include "color_scale.h"
#include "gtest/gtest.h"
#include "heatmap.h"
#include "heatmap_bins.h"
#include "heatmap_svg.h"
#include "json_format.h"
#include "svg_text.h"

namespace biosnoop::report {
namespace {

constexpr int64_t kT0 = 1795237200'000000000;  // 2026-11-21T05:00:00Z

TEST(HeatmapColumnsTest, RoundWidthFromTheSpan) {
  // 60 s in at most 160 columns: 0.375 s a column, rounded up to 500 ms.
  absl::StatusOr<HeatmapColumns> c = ChooseColumns(
      kT0, kT0 + 59'900'000'000, std::nullopt, std::nullopt, 160, 0, kUs);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->width_ns, 500 * kMs);
  EXPECT_EQ(c->columns, 120);
  EXPECT_EQ(c->Start(0), kT0);  // lined up with the clock
  EXPECT_EQ(c->Of(kT0 + 499'999'999), 0);
  EXPECT_EQ(c->Of(kT0 + 500'000'000), 1);
  // Not lined up: one more column so that both ends fit.
  c = ChooseColumns(kT0 + 250 * kMs, kT0 + 60 * kSec, std::nullopt,
                    std::nullopt, 160, 0, kUs);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->width_ns, 500 * kMs);
  EXPECT_EQ(c->columns, 121);
  EXPECT_EQ(c->Start(0), kT0);
}

TEST(HeatmapColumnsTest, AtLeastTheGranuleAndAMultipleOfIt) {
  absl::StatusOr<HeatmapColumns> c = ChooseColumns(
      kT0, kT0 + 10 * kMin, std::nullopt, std::nullopt, 160, 0, kMin);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->width_ns, kMin);  // 5 s would do, but the counts are per min
  EXPECT_EQ(c->columns, 11);
}

TEST(HeatmapColumnsTest, WindowGivesTheRange) {
  absl::StatusOr<HeatmapColumns> c = ChooseColumns(
      kT0 + 10 * kSec, kT0 + 20 * kSec, kT0, kT0 + kHour, 60, 0, kUs);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->width_ns, kMin);
  EXPECT_EQ(c->columns, 60);  // until is exclusive: not 61
  EXPECT_EQ(c->Start(0), kT0);
}

TEST(HeatmapColumnsTest, FixedWidthAndItsLimit) {
  absl::StatusOr<HeatmapColumns> c = ChooseColumns(
      kT0 + 1, kT0 + 10 * kSec, std::nullopt, std::nullopt, 160, kSec, kSec);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->width_ns, kSec);
  EXPECT_EQ(c->columns, 11);
  c = ChooseColumns(kT0, kT0 + 3 * kHour, std::nullopt, std::nullopt, 160, kSec,
                    kSec);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "--bucket 1s gives"))
      << c.status();
}

TEST(HeatmapColumnsTest, CenturiesFitInWholeDays) {
  const int64_t lo = INT64_MIN + 5;  // 1677
  const int64_t hi = INT64_MAX - 5;  // 2262
  absl::StatusOr<HeatmapColumns> c =
      ChooseColumns(lo, hi, std::nullopt, std::nullopt, 100, 0, kDay);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->width_ns % kDay, 0);
  EXPECT_LE(c->columns, 100);
  EXPECT_EQ(c->Of(lo), 0);
  EXPECT_EQ(c->Of(hi), c->columns - 1);
  EXPECT_EQ(c->Start(0), INT64_MIN);  // clamped, not wrapped
}

TEST(HeatmapColumnsTest, NothingToShow) {
  absl::StatusOr<HeatmapColumns> c =
      ChooseColumns(1, 0, std::nullopt, std::nullopt, 160, 0, kUs);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->columns, 0);
}

uint64_t Total(const std::vector<HeatmapPanel>& panels) {
  uint64_t n = 0;
  for (const HeatmapPanel& p : panels) {
    for (const HeatmapCell& c : p.cells) n += c.count;
  }
  return n;
}

// The count of cell (column, bucket) of a panel, 0 when it has none.
uint64_t At(const HeatmapPanel& p, int column, int bucket) {
  for (const HeatmapCell& c : p.cells) {
    if (c.column == column && c.bucket == bucket) return c.count;
  }
  return 0;
}

// The fine bucket of us from its definition, ceil(16 log2(us / 1e6)), in
// long double (none of the values used is near a boundary but the exact
// ones asserted apart).
int Bucket16(double us) {
  return static_cast<int>(
      std::ceil(16 * std::log2(static_cast<long double>(us) / 1e6L)));
}

TEST(HeatmapBinnerTest, FineBucketsAreTheKernels) {
  EXPECT_EQ(FineBucketOfUs(20000), Bucket16(20000));  // -90
  EXPECT_EQ(FineBucketOfUs(20000), -90);
  EXPECT_EQ(FineBucketOfUs(1000), Bucket16(1000));
  EXPECT_EQ(FineBucketOfUs(1), -318);
  // 15625 us is exactly 2^-6 s: the top of bucket -96, and one more is the
  // next bucket.
  EXPECT_EQ(FineBucketOfUs(15625), -96);
  EXPECT_EQ(FineBucketOfUs(15626), -95);
  EXPECT_EQ(FineBucketOfUs(1'000'000), 0);  // 1 s = 2^0 s
  // The zero bucket, and everything past the last one.
  EXPECT_EQ(FineBucketOfUs(0), kFineFirst);
  EXPECT_EQ(FineBucketOfUs(UINT64_MAX), kFineFirst + kFineBuckets - 1);
  // A line's value (fractional) lands where an event of it would.
  for (uint64_t us : {1, 7, 999, 20000, 123456, 15625, 15626}) {
    EXPECT_EQ(FineBucketOfValueUs(static_cast<double>(us)), FineBucketOfUs(us))
        << us;
  }
}

TEST(HeatmapBinnerTest, CountsEachEventInItsCell) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  bins.Add("db7", "vda", "read", kT0 + 5 * kSec, 20000);   // bucket 14
  bins.Add("db7", "vdb", "write", kT0 + 5 * kSec, 20000);  // same cell
  bins.Add("db7", "vda", "read", kT0 + 59 * kSec, 1);      // bucket 0
  bins.Add("db7", "vda", "read", kT0 + 30 * kSec, 1 << 20);
  absl::StatusOr<HeatmapColumns> c =
      ChooseColumns(bins.first_ns(), bins.last_ns(), kT0, kT0 + kMin, 60, 0,
                    bins.granule_ns());
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->width_ns, kSec);
  std::vector<HeatmapPanel> panels = bins.Panels(*c);
  ASSERT_EQ(panels.size(), 1u);
  EXPECT_EQ(panels[0].key, (PanelKey{"db7", "", ""}));
  EXPECT_EQ(panels[0].events, 4u);
  EXPECT_EQ(At(panels[0], 5, -90), 2u);                 // 20 ms
  EXPECT_EQ(At(panels[0], 59, -318), 1u);               // 1 us
  EXPECT_EQ(At(panels[0], 30, Bucket16(1 << 20)), 1u);  // 1.05 s: 2
  EXPECT_EQ(Total(panels), 4u);
  // Sorted by column, then bucket.
  ASSERT_EQ(panels[0].cells.size(), 3u);
  EXPECT_EQ(panels[0].cells[0], (HeatmapCell{5, -90, 2}));
  EXPECT_EQ(panels[0].cells[2].column, 59);
}

TEST(HeatmapBinnerTest, PanelsPerGroupAndHost) {
  HeatmapBinner bins(HistGroup::kDiskOp, 0);
  bins.Add("web3", "vda", "read", kT0, 100);
  bins.Add("db7", "vda", "write", kT0, 100);
  bins.Add("db7", "vda", "read", kT0, 100);
  bins.Add("db7", "vda", "read", kT0, 100);
  HeatmapColumns c{FloorDiv(kT0, kSec), kSec, 1};
  std::vector<HeatmapPanel> panels = bins.Panels(c);
  ASSERT_EQ(panels.size(), 3u);
  EXPECT_EQ(panels[0].key, (PanelKey{"db7", "vda", "read"}));
  EXPECT_EQ(panels[0].events, 2u);
  EXPECT_EQ(panels[1].key, (PanelKey{"db7", "vda", "write"}));
  EXPECT_EQ(panels[2].key, (PanelKey{"web3", "vda", "read"}));
  // Names that would run together unseparated stay apart.
  HeatmapBinner op(HistGroup::kDiskOp, 0);
  op.Add("h", "ab", "c", kT0, 1);
  op.Add("h", "a", "bc", kT0, 1);
  EXPECT_EQ(op.Panels(c).size(), 2u);
}

// Events over many granules: the granule grows, nothing is lost, and every
// event lands in the column its own time gives.
TEST(HeatmapBinnerTest, CoarsensWithoutLosingOrMovingEvents) {
  HeatmapBinner bins(HistGroup::kOp, 0);
  std::mt19937_64 rng(7);
  std::vector<int64_t> times;
  int64_t t = kT0;
  for (int i = 0; i < 200000; ++i) {
    t += static_cast<int64_t>(rng() % (2 * kMs));  // ~2.8 min in all
    times.push_back(t);
    bins.Add("db7", "vda", i % 3 == 0 ? "write" : "read", t, 10000 + i % 7);
  }
  EXPECT_GT(bins.granule_ns(), kUs);
  absl::StatusOr<HeatmapColumns> c =
      ChooseColumns(bins.first_ns(), bins.last_ns(), std::nullopt, std::nullopt,
                    160, 0, bins.granule_ns());
  ASSERT_TRUE(c.ok());
  std::vector<uint64_t> expected(c->columns);
  for (int64_t ns : times) ++expected[c->Of(ns)];
  std::vector<HeatmapPanel> panels = bins.Panels(*c);
  ASSERT_EQ(panels.size(), 2u);
  for (int col = 0; col < c->columns; ++col) {
    // 10.000 to 10.006 ms: all in bucket -106 (9.69-10.13 ms).
    EXPECT_EQ(At(panels[0], col, -106) + At(panels[1], col, -106),
              expected[col])
        << "column " << col;
  }
  EXPECT_EQ(Total(panels), times.size());
}

// Events that come back to granules left long before (inputs out of time
// order), in several panels and buckets, across granule changes: every
// cell holds exactly the events its column, panel and bucket give.
TEST(HeatmapBinnerTest, EventsOutOfOrderMergeIntoTheirCells) {
  HeatmapBinner bins(HistGroup::kDiskOp, 0);
  std::mt19937_64 rng(11);
  struct Seen {
    int64_t ns;
    int panel;
    int bucket;
  };
  std::vector<Seen> seen;
  const char* const kDisksOps[][2] = {
      {"vda", "read"}, {"vda", "write"}, {"vdb", "read"}};
  for (int i = 0; i < 120000; ++i) {
    // Three streams a minute apart, interleaved: each step goes back.
    const int64_t ns = kT0 + (i % 3) * kMin +
                       static_cast<int64_t>(i / 3) * 3 * kMs +
                       static_cast<int64_t>(rng() % kMs);
    const int panel = static_cast<int>(rng() % 3);
    const uint64_t us = 100 + rng() % 50000;
    bins.Add("db7", kDisksOps[panel][0], kDisksOps[panel][1], ns, us);
    seen.push_back({ns, panel, FineBucketOfUs(us)});
  }
  EXPECT_GT(bins.granule_ns(), kUs);  // coarsened on the way
  absl::StatusOr<HeatmapColumns> c =
      ChooseColumns(bins.first_ns(), bins.last_ns(), std::nullopt, std::nullopt,
                    200, 0, bins.granule_ns());
  ASSERT_TRUE(c.ok());
  // Panels are sorted by key: vda read, vda write, vdb read.
  std::vector<std::map<std::pair<int, int>, uint64_t>> want(3);
  for (const Seen& e : seen) {
    ++want[e.panel][{static_cast<int>(c->Of(e.ns)), e.bucket}];
  }
  const std::vector<HeatmapPanel> panels = bins.Panels(*c);
  ASSERT_EQ(panels.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    std::map<std::pair<int, int>, uint64_t> got;
    for (const HeatmapCell& cell : panels[p].cells) {
      got[{cell.column, cell.bucket}] = cell.count;
    }
    EXPECT_EQ(got, want[p]) << "panel " << p;
    EXPECT_TRUE(std::is_sorted(panels[p].cells.begin(), panels[p].cells.end(),
                               [](const HeatmapCell& a, const HeatmapCell& b) {
                                 return std::tie(a.column, a.bucket) <
                                        std::tie(b.column, b.bucket);
                               }));
  }
  EXPECT_EQ(Total(panels), seen.size());
}

TEST(ColorScaleTest, LogLevelsAndTheirRanges) {
  const ColorScale one(1);
  EXPECT_EQ(one.levels(), 1);
  EXPECT_EQ(one.Color(0), (Rgb{0x4a, 0x06, 0x3c}));  // the ramp's end
  const ColorScale k(1000);  // 10 powers of two: one level each
  EXPECT_EQ(k.levels(), 10);
  EXPECT_EQ(k.Level(1), 0);
  EXPECT_EQ(k.Level(3), 1);
  EXPECT_EQ(k.Level(4), 2);
  EXPECT_EQ(k.Level(1000), 9);
  EXPECT_EQ(k.Low(2), 4u);
  EXPECT_EQ(k.High(2), 7u);
  EXPECT_EQ(k.High(9), 1000u);
  EXPECT_EQ(k.Color(0), (Rgb{0xff, 0xe6, 0x8c}));
  EXPECT_EQ(k.Color(9), (Rgb{0x4a, 0x06, 0x3c}));
  const ColorScale m(10'000'000);  // 24 powers: steps of 3
  EXPECT_EQ(m.levels(), 8);
  EXPECT_EQ(m.Level(7), 0);
  EXPECT_EQ(m.Level(8), 1);
  EXPECT_EQ(m.High(0), 7u);
  // Levels darken monotonically (the sum of the channels falls).
  for (int l = 1; l < m.levels(); ++l) {
    const Rgb a = m.Color(l - 1), b = m.Color(l);
    EXPECT_LT(b.r + b.g + b.b, a.r + a.g + a.b) << l;
    EXPECT_NE(b, kBackground);
  }
  EXPECT_EQ(HexColor(Rgb{0xf2, 0x0a, 0x00}), "#f20a00");
}

TEST(SvgTextTest, EscapesMarkupAndControls) {
  EXPECT_EQ(XmlEscaped("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(XmlEscaped("</text><script>x</script>"),
            "&lt;/text&gt;&lt;script&gt;x&lt;/script&gt;");
  EXPECT_EQ(XmlEscaped("a\nb\\c\x01\x7f"), "a\\nb\\\\c\\x01\\x7f");
  EXPECT_EQ(XmlEscaped("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(XmlEscaped("bad\xff\xfe"), "bad\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(XmlEscaped("\xef\xbf\xbe\xef\xbf\xbf"),
            "\xef\xbf\xbd\xef\xbf\xbd");  // U+FFFE, U+FFFF
  EXPECT_EQ(XmlEscaped("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");
}

// Whatever the bytes: valid UTF-8, no character XML forbids, no markup.
TEST(SvgTextTest, AnyBytesGiveSafeText) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 12, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    if (i < 256) s = std::string(1, static_cast<char>(i));
    const std::string out = XmlEscaped(s);
    ASSERT_TRUE(IsValidUtf8(out)) << i;
    for (size_t k = 0; k < out.size(); ++k) {
      const auto u = static_cast<unsigned char>(out[k]);
      ASSERT_TRUE(u >= 0x20 && u != 0x7f) << i;
      ASSERT_TRUE(out[k] != '<' && out[k] != '>' && out[k] != '"' &&
                  out[k] != '\'')
          << i;
      if (out[k] == '&') {
        const size_t semi = out.find(';', k);
        ASSERT_NE(semi, std::string::npos);
        const std::string entity = out.substr(k, semi - k + 1);
        ASSERT_TRUE(entity == "&amp;" || entity == "&lt;" || entity == "&gt;" ||
                    entity == "&quot;" || entity == "&#39;")
            << entity;
      }
      ASSERT_FALSE(u == 0xef && k + 2 < out.size() &&
                   static_cast<unsigned char>(out[k + 1]) == 0xbf &&
                   static_cast<unsigned char>(out[k + 2]) >= 0xbe)
          << i;
    }
  }
}

TEST(SvgTextTest, Labels) {
  EXPECT_EQ(LatencyLabel(0), "0 \xc2\xb5s");
  EXPECT_EQ(LatencyLabel(512), "512 \xc2\xb5s");
  EXPECT_EQ(LatencyLabel(0.95367431640625), "0.954 \xc2\xb5s");
  EXPECT_EQ(LatencyLabel(1024), "1.02 ms");
  EXPECT_EQ(LatencyLabel(16384), "16.4 ms");
  EXPECT_EQ(LatencyLabel(1 << 20), "1.05 s");
  EXPECT_EQ(LatencyLabel(static_cast<double>(uint64_t{1} << 40)), "1099512 s");
  EXPECT_EQ(DurationLabel(500 * kMs), "500ms");
  EXPECT_EQ(DurationLabel(15 * kSec), "15s");
  EXPECT_EQ(DurationLabel(2 * kHour), "2h");
  EXPECT_EQ(DurationLabel(7 * kDay), "7d");
  EXPECT_EQ(DurationLabel(250 * kUs), "250us");
  EXPECT_EQ(TimeLabel(kT0 + 10 * kSec, kSec, DateForm::kNone), "05:00:10");
  EXPECT_EQ(TimeLabel(kT0 + 250 * kMs, 50 * kMs, DateForm::kNone),
            "05:00:00.250");
  EXPECT_EQ(TimeLabel(kT0 + 250 * kUs, 50 * kUs, DateForm::kNone),
            "05:00:00.000250");
  EXPECT_EQ(TimeLabel(kT0 + kHour, kMin, DateForm::kDay), "11-21 06:00");
  EXPECT_EQ(TimeLabel(kT0 + kHour, kSec, DateForm::kDay), "11-21 06:00:00");
  EXPECT_EQ(TimeLabel(kT0 + kHour, kMin, DateForm::kYear), "2026-11-21 06:00");
}

// The cap on names: characters, not bytes (UTF-8 is not cut inside a
// character), counted before the entities.
TEST(SvgTextTest, ShortNamesAreCutWholeCharacters) {
  EXPECT_EQ(XmlEscapedShort("db7", 5), "db7");
  EXPECT_EQ(XmlEscapedShort("abcdefgh", 5), "abcde\xe2\x80\xa6");
  EXPECT_EQ(XmlEscapedShort("\xc3\xa9\xc3\xa9\xc3\xa9", 2),
            "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
  EXPECT_EQ(XmlEscapedShort("<<<<", 2), "&lt;&lt;\xe2\x80\xa6");
  EXPECT_TRUE(IsValidUtf8(XmlEscapedShort("\xe2\x82\xac\xff\xe2\x82", 2)));
}

// Time labels carry the year exactly when the map's span crosses one.
TEST(SvgTextTest, DateFormFollowsTheSpan) {
  EXPECT_EQ(DateFormOf(kT0, kT0 + kHour), DateForm::kNone);
  EXPECT_EQ(DateFormOf(kT0, kT0 + kDay), DateForm::kDay);
  constexpr int64_t kNewYear = 1798761600'000000000;  // 2027-01-01T00:00:00Z
  EXPECT_EQ(DateFormOf(kNewYear - kHour, kNewYear + kHour), DateForm::kYear);
  EXPECT_EQ(DateFormOf(kNewYear - kDay, kNewYear - kHour), DateForm::kNone);
  EXPECT_EQ(DateFormOf(kNewYear - 2 * kDay, kNewYear - kHour), DateForm::kDay);
}

TEST(HeatmapRowsTest, FinestSchemaThatFits) {
  // Slow I/O, 1 ms to 1 s: 160 rows of the kernel's own buckets.
  EXPECT_EQ(ChooseRowSchema(FineBucketOfUs(1000), 0, FineBucketOfUs(1000)), 4);
  // Every bucket the kernel has (512): merged until at most kMaxRows.
  EXPECT_EQ(
      ChooseRowSchema(kFineFirst, kFineFirst + kFineBuckets - 1, std::nullopt),
      2);
  // Cells down to 10 us: a row at 16 (0.42 us wide) or 8 (0.83 us) per
  // power of two could hold no whole microsecond; at 4 it is 1.7 us wide.
  EXPECT_EQ(ChooseRowSchema(FineBucketOfUs(10), 0, FineBucketOfUs(10)), 2);
  // The zero bucket is not a row too narrow: it starts at 0.
  EXPECT_EQ(ChooseRowSchema(kFineFirst, kFineFirst + 150, kFineFirst), 4);
  EXPECT_DOUBLE_EQ(RowLowerUs(-160, 3), 0);
  EXPECT_DOUBLE_EQ(RowUpperUs(-160, 3), std::exp2(-20) * 1e6);
  EXPECT_DOUBLE_EQ(RowUpperUs(-6, 0), 15625);
  EXPECT_DOUBLE_EQ(RowLowerUs(-6, 0), 7812.5);
}

// Whole-microsecond latencies from 10 to 60 us, one event each: every row
// between the lowest and the highest cell holds one (no comb of empty rows
// that is not in the data).
TEST(HeatmapRowsTest, NoRowNarrowerThanAMicrosecond) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  for (uint64_t us = 10; us <= 60; ++us)
    bins.Add("db7", "vda", "read", kT0, us);
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok()) << map.status();
  ASSERT_EQ(map->panels.size(), 1u);
  const std::vector<HeatmapCell>& cells = map->panels[0].counts.cells;
  ASSERT_FALSE(cells.empty());
  EXPECT_LT(map->row_schema, kFineSchema);
  for (size_t i = 1; i < cells.size(); ++i) {
    EXPECT_EQ(cells[i].bucket, cells[i - 1].bucket + 1)
        << "no cell in a row between " << cells[i - 1].bucket << " and "
        << cells[i].bucket << " at schema " << map->row_schema;
  }
  uint64_t total = 0;
  for (const HeatmapCell& c : cells) total += c.count;
  EXPECT_EQ(total, 51u);
}

// A summary record of vda/read ending at kT0 + 5 s, 3 s long.  `us` are
// its completions' latencies; with `fine`, counted in fine buckets too (as
// biosnoop writes them since issue #40), else only in log2 buckets (an
// older biosnoop's).
v1::Summary SummaryOf(const std::vector<double>& us, bool fine,
                      int64_t end_ns = kT0 + 5 * kSec) {
  v1::Summary s;
  s.mutable_timestamp()->set_seconds(end_ns / kSec);
  s.mutable_timestamp()->set_nanos(static_cast<int32_t>(end_ns % kSec));
  s.set_interval_s(3);
  s.set_min_us(10000);
  v1::SummaryGroup* g = s.add_groups();
  g->set_disk("vda");
  g->set_op("read");
  g->set_count(us.size());
  std::vector<uint64_t> log2(64, 0);
  std::map<int, uint64_t> buckets;
  for (double v : us) {
    ++log2[Log2Bucket(static_cast<uint64_t>(v))];
    ++buckets[Bucket16(v)];
  }
  while (!log2.empty() && log2.back() == 0) log2.pop_back();
  for (uint64_t n : log2) g->add_latency_us_log2(n);
  if (fine) {
    g->set_latency_fine_schema(4);
    g->set_latency_fine_first(buckets.begin()->first);
    for (int k = buckets.begin()->first; k <= buckets.rbegin()->first; ++k) {
      g->add_latency_fine(buckets.count(k) ? buckets.at(k) : 0);
    }
  }
  return s;
}

// A baseline collector holding one interval [kT0 + 2 s, kT0 + 5 s) of
// vda/read whose latencies are 90 at 1 us and 10 at 40000 us, in log2
// buckets only.
BaselineCollector OneInterval() {
  BaselineCollector baseline{Filter{}};
  std::vector<double> us(90, 1);
  us.insert(us.end(), 10, 40000);
  baseline.Add(SummaryOf(us, /*fine=*/false));
  return baseline;
}

TEST(HeatmapLinesTest, FromTheSummaryIntervalsOverlappingEachColumn) {
  HeatmapBinner bins(HistGroup::kDisk, 0);
  bins.Add("", "vda", "read", kT0, 20000);
  bins.Add("", "vda", "read", kT0 + 9 * kSec, 20000);
  HeatmapOptions options;
  options.by = HistGroup::kDisk;
  options.fixed_width_ns = kSec;
  BaselineCollector baseline = OneInterval();
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, baseline, options);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->lines, LineSource::kSummaries);
  EXPECT_TRUE(map->lines_log2);  // no fine buckets: log2 upper bounds
  ASSERT_EQ(map->columns.columns, 10);
  ASSERT_EQ(map->panels.size(), 1u);
  const HeatmapPanelData& p = map->panels[0];
  using V = std::vector<std::optional<double>>;
  const std::nullopt_t n = std::nullopt;
  EXPECT_EQ(p.p50, (V{n, n, 1.0, 1.0, 1.0, n, n, n, n, n}));
  EXPECT_EQ(p.p99, (V{n, n, 65535.0, 65535.0, 65535.0, n, n, n, n, n}));
  // The rows span the p50 line's 1 us and the p99 line's 65.5 ms, two
  // fine buckets more each side.
  const int lo = FineBucketOfUs(1) - 2, hi = FineBucketOfUs(65535) + 2;
  EXPECT_EQ(lo, kFineFirst);
  EXPECT_EQ(hi - lo + 1, 261);  // over kMaxRows: 131 rows at 8 per octave
  EXPECT_EQ(map->row_schema, 3);
  EXPECT_EQ(map->lo_row, CoarserBucket(lo, 4, 3));
  EXPECT_EQ(map->hi_row, CoarserBucket(hi, 4, 3));
  EXPECT_EQ(map->max_count, 1u);
  EXPECT_EQ(map->events, 2u);
}

// The two modes (3 in 4 at 80-140 us, 1 in 4 at 20.05-20.4 ms with
// a tail to 23 ms) in a summary with fine buckets: each column's p50 and
// p99 within 4.43% of the true values; from the log2 buckets alone the
// p99 line would read 32767 us (+61%).
TEST(HeatmapLinesTest, FineSummariesGiveLinesWithinFivePercent) {
  std::vector<double> us;
  std::mt19937_64 rng(40);
  for (int i = 0; i < 20000; ++i) {
    const double u = static_cast<double>(rng() >> 11) / (1ull << 53);
    us.push_back(i % 4 != 0    ? 80 + 60 * u
                 : i % 40 == 0 ? 20400 + 2600 * u
                               : 20050 + 350 * u);
  }
  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  auto truth = [&](int permille) {
    return sorted[(sorted.size() * permille + 999) / 1000 - 1];
  };
  BaselineCollector baseline{Filter{}};
  baseline.Add(SummaryOf(us, /*fine=*/true));
  HeatmapBinner bins(HistGroup::kAll, 0);
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, baseline, options);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_FALSE(map->lines_log2);
  ASSERT_EQ(map->panels.size(), 1u);
  ASSERT_EQ(map->columns.columns, 3);
  for (int c = 0; c < 3; ++c) {
    ASSERT_TRUE(map->panels[0].p50[c] && map->panels[0].p99[c]);
    EXPECT_NEAR(*map->panels[0].p50[c] / truth(500), 1, 0.0443) << c;
    EXPECT_NEAR(*map->panels[0].p99[c] / truth(990), 1, 0.0443) << c;
  }
  BaselineCollector old{Filter{}};
  old.Add(SummaryOf(us, /*fine=*/false));
  map = BuildHeatmap(bins, old, options);
  ASSERT_TRUE(map.ok());
  EXPECT_TRUE(map->lines_log2);
  EXPECT_EQ(map->panels[0].p99[0], 32767.0);
}

TEST(HeatmapLinesTest, FromTheEventsWhenThereIsNoSummary) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  for (int i = 0; i < 99; ++i) bins.Add("db7", "vda", "read", kT0, 20000);
  bins.Add("db7", "vda", "read", kT0, 1 << 20);
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->lines, LineSource::kEvents);
  EXPECT_FALSE(map->lines_log2);
  ASSERT_EQ(map->panels.size(), 1u);
  // Rank 50 of the 99 events in bucket -90 (19404.0-20263.1 us): placed
  // half-way up it, log-linearly; rank 99 at its top.
  const double lo = RowLowerUs(-90, 4), hi = RowUpperUs(-90, 4);
  ASSERT_TRUE(map->panels[0].p50[0] && map->panels[0].p99[0]);
  EXPECT_DOUBLE_EQ(*map->panels[0].p50[0], lo * std::pow(hi / lo, 50.0 / 99));
  EXPECT_DOUBLE_EQ(*map->panels[0].p99[0], hi);
  EXPECT_NEAR(*map->panels[0].p50[0] / 20000, 1, 0.0443);
  EXPECT_EQ(map->max_count, 99u);
}

// A panel's line is drawn where its value lies, not on a row's edge: 100
// events in one bucket, so p50 is half-way up the bucket's row.
TEST(HeatmapSvgTest, LinesAtTheirEstimates) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  for (int i = 0; i < 100; ++i) bins.Add("db7", "vda", "read", kT0, 20000);
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  // Bucket -90 and two more each side: 5 rows of 24 pixels.
  ASSERT_EQ(map->row_schema, 4);
  ASSERT_EQ(map->lo_row, -92);
  ASSERT_EQ(map->hi_row, -88);
  using namespace heatmap_layout;
  ASSERT_EQ(RowHeight(5), kMaxRowHeight);
  const int grid_y = kTop + kPanelLabelHeight;
  const int row_top = grid_y + (-88 - -90) * kMaxRowHeight;
  // p50: rank 50 of 100, half-way up the row (log-linearly); p99: rank 99,
  // 1% under its top.
  const int p50_y = row_top + kMaxRowHeight / 2;
  const int p99_y = row_top + static_cast<int>(std::lround(0.01 * 24));
  EXPECT_EQ(grid_y + LatencyY(*map->panels[0].p50[0], 4, -88, 5, 24), p50_y);
  const std::string svg = RenderHeatmapSvg(*map, HeatmapLabels{});
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<path d=\"M", kMarginLeft, " ", p50_y, " H")))
      << svg;
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<path d=\"M", kMarginLeft, " ", p99_y, " H")));
  // The y axis names 20 ms where it lies (inside bucket -90's row).
  const int y20 = grid_y + LatencyY(20000, 4, -88, 5, 24);
  EXPECT_GT(y20, row_top);
  EXPECT_LT(y20, row_top + kMaxRowHeight);
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<text x=\"", kMarginLeft - 6, "\" y=\"", y20 + 4,
                        "\" text-anchor=\"end\" font-size=\"10\">20 ms<")));
}

TEST(HeatmapSvgTest, DeterministicAndEscaped) {
  HeatmapBinner bins(HistGroup::kDisk, 0);
  const std::string hostile = "</text><script>alert(1)</script>\xff\n";
  bins.Add("h\xfe<", hostile, "read", kT0, 20000);
  bins.Add("db7", "vda", "read", kT0 + kSec, 40000);
  HeatmapOptions options;
  options.by = HistGroup::kDisk;
  BaselineCollector baseline = OneInterval();
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, baseline, options);
  ASSERT_TRUE(map.ok());
  HeatmapLabels labels;
  labels.by = HistGroup::kDisk;
  labels.show_host = true;
  labels.hosts = {"db7", "h\xfe<"};
  labels.warnings = {"3 events lost <here>"};
  const std::string svg = RenderHeatmapSvg(*map, labels);
  EXPECT_EQ(svg, RenderHeatmapSvg(*map, labels));
  EXPECT_TRUE(absl::StartsWith(svg, "<?xml version=\"1.0\""));
  EXPECT_TRUE(absl::EndsWith(svg, "</svg>\n"));
  EXPECT_TRUE(IsValidUtf8(svg));
  EXPECT_FALSE(absl::StrContains(svg, "<script"));
  EXPECT_TRUE(absl::StrContains(
      svg,
      "disk &lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
      "\xef\xbf\xbd\\n"));
  EXPECT_TRUE(absl::StrContains(svg, "host h\xef\xbf\xbd&lt;"));
  EXPECT_TRUE(absl::StrContains(svg, "WARNING: 3 events lost &lt;here&gt;"));
  const std::string html = RenderHeatmapHtml(*map, labels);
  EXPECT_TRUE(absl::StartsWith(html, "<!DOCTYPE html>"));
  EXPECT_TRUE(absl::StrContains(html, "Content-Security-Policy"));
  EXPECT_FALSE(absl::StrContains(html, "<script"));
  EXPECT_TRUE(IsValidUtf8(html));
}

// The layout the browser test relies on: a cell is where the header says.
TEST(HeatmapSvgTest, CellsWhereTheLayoutSays) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  bins.Add("db7", "vda", "read", kT0 + 3 * kSec, 20000);  // column 0, -90
  bins.Add("db7", "vda", "read", kT0 + 9 * kSec, 1000);   // column 6, -159
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  ASSERT_EQ(map->columns.columns, 7);  // 3 .. 9
  ASSERT_EQ(map->row_schema, 4);
  ASSERT_EQ(map->hi_row, -88);
  ASSERT_EQ(map->lo_row, -161);
  const std::string svg = RenderHeatmapSvg(*map, HeatmapLabels{});
  using namespace heatmap_layout;
  const int cw = CellWidth(7);
  const int rh = RowHeight(74);
  EXPECT_EQ(cw, kMaxCellWidth);
  EXPECT_EQ(rh, 5);
  const int grid_y = kTop + kPanelLabelHeight;
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<rect x=\"", kMarginLeft, "\" y=\"", grid_y + 2 * rh,
                        "\" width=\"", cw, "\" height=\"", rh, "\"")))
      << svg;
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<rect x=\"", kMarginLeft + 6 * cw, "\" y=\"",
                        grid_y + (-88 - -159) * rh, "\" width=\"", cw, "\"")));
}

// A map of 1 ms to 1 s over a minute, at the default size: wider and
// taller than the 960 x 14-pixels-a-power-of-two it was.
TEST(HeatmapSvgTest, DefaultSizeIsLarge) {
  HeatmapBinner bins(HistGroup::kAll, 0);
  for (int s = 0; s < 60; ++s) {
    bins.Add("db7", "vda", "read", kT0 + s * kSec, 1000);
    bins.Add("db7", "vda", "read", kT0 + s * kSec, 1'000'000);
  }
  HeatmapOptions options;  // the defaults: at most kDefaultColumns
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  using namespace heatmap_layout;
  const int grid_w = CellWidth(map->columns.columns) * map->columns.columns;
  const int grid_h = RowHeight(map->rows()) * map->rows();
  EXPECT_GE(grid_w, 1100) << map->columns.columns << " columns";
  EXPECT_GE(grid_h, 300) << map->rows() << " rows";
  const std::string svg = RenderHeatmapSvg(*map, HeatmapLabels{});
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<rect x=\"", kMarginLeft, "\" y=\"",
                        kTop + kPanelLabelHeight, "\" width=\"", grid_w,
                        "\" height=\"", grid_h, "\" fill=\"#f2f2f2\"/>")));
}

TEST(HeatmapSvgTest, AxesHaveTitles) {
  HeatmapBinner bins(HistGroup::kDisk, 0);
  bins.Add("db7", "vda", "read", kT0, 20000);
  bins.Add("db7", "vdb", "read", kT0, 20000);
  HeatmapOptions options;
  options.by = HistGroup::kDisk;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  HeatmapLabels labels;
  labels.by = HistGroup::kDisk;
  const std::string svg = RenderHeatmapSvg(*map, labels);
  // Each panel's: two of each.
  auto count = [&svg](const std::string& s) {
    size_t n = 0;
    for (size_t at = svg.find(s); at != svg.npos; at = svg.find(s, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count(">time (UTC)</text>"), 2u);
  EXPECT_EQ(count("rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">"
                  "latency</text>"),
            2u);
}

// "slow" only when the runs had a threshold: the title of --min-us 0's
// stream is a latency heat map of all I/O.
TEST(HeatmapSvgTest, TitleSaysSlowOnlyWithAThreshold) {
  HeatmapLabels labels;
  labels.hosts = {"db7"};
  EXPECT_EQ(HeatmapTitle(labels), "Slow I/O latency heat map: db7");
  labels.every_io = true;
  EXPECT_EQ(HeatmapTitle(labels), "I/O latency heat map: db7");
  labels.calls = true;
  EXPECT_EQ(HeatmapTitle(labels), "Call latency heat map: db7");
  labels.every_io = false;
  EXPECT_EQ(HeatmapTitle(labels), "Slow call latency heat map: db7");
}

// 5000 hosts made a 315 KB title, and 5000 warnings as many lines: both
// are capped, the rest counted.
TEST(HeatmapSvgTest, TitleAndWarningsCapped) {
  HeatmapLabels labels;
  labels.show_host = true;
  for (int i = 0; i < 5000; ++i) {
    labels.hosts.push_back(absl::StrCat("host-", i, "-", std::string(50, 'x')));
    labels.warnings.push_back(
        absl::StrCat("3 events lost on host-", i, " ", std::string(500, 'y')));
  }
  const std::string title = HeatmapTitle(labels);
  EXPECT_LT(title.size(), 400u) << title;
  EXPECT_TRUE(absl::StartsWith(title, "Slow I/O latency heat map: host-0-xx"));
  EXPECT_TRUE(absl::EndsWith(title, " and 4995 more hosts")) << title;
  HeatmapBinner bins(HistGroup::kAll, 0);
  bins.Add("host-0", "vda", "read", kT0, 20000);
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, HeatmapOptions{});
  ASSERT_TRUE(map.ok());
  const std::string svg = RenderHeatmapSvg(*map, labels);
  size_t warnings = 0;
  for (size_t at = svg.find(">WARNING: "); at != svg.npos;
       at = svg.find(">WARNING: ", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, kMaxWarningLines + 1);
  EXPECT_TRUE(absl::StrContains(
      svg,
      ">WARNING: 4980 more warnings not shown (bioreport prints them "
      "all on stderr)<"));
  EXPECT_FALSE(absl::StrContains(svg, std::string(kMaxWarningChars, 'y')));
  EXPECT_LT(svg.size(), 20000u);
  // An empty map shows them capped too.
  const HeatmapBinner nothing(HistGroup::kAll, 0);
  map = BuildHeatmap(nothing, none, HeatmapOptions{});
  ASSERT_TRUE(map.ok());
  EXPECT_LT(RenderHeatmapSvg(*map, labels).size(), 20000u);
}

// Across a new year the time labels and the subtitle name the year.
TEST(HeatmapSvgTest, YearsWhenTheSpanCrossesOne) {
  constexpr int64_t kNewYear = 1798761600'000000000;  // 2027-01-01T00:00:00Z
  HeatmapBinner bins(HistGroup::kAll, 0);
  bins.Add("db7", "vda", "read", kNewYear - 2 * kHour, 20000);
  bins.Add("db7", "vda", "read", kNewYear + 2 * kHour - 1, 20000);
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, HeatmapOptions{});
  ASSERT_TRUE(map.ok());
  const std::string svg = RenderHeatmapSvg(*map, HeatmapLabels{});
  EXPECT_TRUE(absl::StrContains(svg, ">2026-12-31 23:00<")) << svg;
  EXPECT_TRUE(absl::StrContains(svg, ">2027-01-01 00:00<"));
  EXPECT_TRUE(
      absl::StrContains(svg, "2026-12-31 22:00 .. 2027-01-01 02:00 UTC"));
  // Within one year: month and day only.
  HeatmapBinner day(HistGroup::kAll, 0);
  day.Add("db7", "vda", "read", kT0 - 2 * kHour, 20000);
  day.Add("db7", "vda", "read", kT0 + 20 * kHour, 20000);
  map = BuildHeatmap(day, none, HeatmapOptions{});
  ASSERT_TRUE(map.ok());
  const std::string one_year = RenderHeatmapSvg(*map, HeatmapLabels{});
  EXPECT_TRUE(absl::StrContains(one_year, ">11-21 06:00<")) << one_year;
  EXPECT_FALSE(absl::StrContains(one_year, "2026-"));
}

}  // namespace
}  // namespace biosnoop::report
