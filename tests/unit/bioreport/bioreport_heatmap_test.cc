// The heat map's parts: columns chosen from the span, streaming binning
// (also across granule changes), the colour scale, the p50/p99 lines, and
// escaping of every name that reaches the SVG or HTML.

#include <cstdint>
#include <random>
#include <string>
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
    for (uint64_t v : p.cells) n += v;
  }
  return n;
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
  EXPECT_EQ(panels[0].at(5, 14), 2u);
  EXPECT_EQ(panels[0].at(59, 0), 1u);
  EXPECT_EQ(panels[0].at(30, 20), 1u);
  EXPECT_EQ(Total(panels), 4u);
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
    EXPECT_EQ(panels[0].at(col, 13) + panels[1].at(col, 13), expected[col])
        << "column " << col;
  }
  EXPECT_EQ(Total(panels), times.size());
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
  EXPECT_EQ(LatencyLabel(1024), "1.02 ms");
  EXPECT_EQ(LatencyLabel(16384), "16.4 ms");
  EXPECT_EQ(LatencyLabel(1 << 20), "1.05 s");
  EXPECT_EQ(LatencyLabel(uint64_t{1} << 40), "1099512 s");
  EXPECT_EQ(DurationLabel(500 * kMs), "500ms");
  EXPECT_EQ(DurationLabel(15 * kSec), "15s");
  EXPECT_EQ(DurationLabel(2 * kHour), "2h");
  EXPECT_EQ(DurationLabel(7 * kDay), "7d");
  EXPECT_EQ(DurationLabel(250 * kUs), "250us");
  EXPECT_EQ(TimeLabel(kT0 + 10 * kSec, kSec, false), "05:00:10");
  EXPECT_EQ(TimeLabel(kT0 + 250 * kMs, 50 * kMs, false), "05:00:00.250");
  EXPECT_EQ(TimeLabel(kT0 + 250 * kUs, 50 * kUs, false), "05:00:00.000250");
  EXPECT_EQ(TimeLabel(kT0 + kHour, kMin, true), "11-21 06:00");
  EXPECT_EQ(TimeLabel(kT0 + kHour, kSec, true), "11-21 06:00:00");
}

// A baseline collector holding one interval [kT0 + 2 s, kT0 + 5 s) of
// vda/read whose latencies are 90 at 1 us (bucket 0) and 10 at 2^15 us.
BaselineCollector OneInterval(int p50_bucket_count = 90) {
  BaselineCollector baseline{Filter{}};
  v1::Summary s;
  s.mutable_timestamp()->set_seconds((kT0 + 5 * kSec) / kSec);
  s.set_interval_s(3);
  s.set_min_us(10000);
  v1::SummaryGroup* g = s.add_groups();
  g->set_disk("vda");
  g->set_op("read");
  g->set_count(100);
  for (int b = 0; b <= 15; ++b) {
    g->add_latency_us_log2(b == 0 ? p50_bucket_count : b == 15 ? 10 : 0);
  }
  baseline.Add(s);
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
  ASSERT_EQ(map->columns.columns, 10);
  ASSERT_EQ(map->panels.size(), 1u);
  const HeatmapPanelData& p = map->panels[0];
  EXPECT_EQ(p.p50, (std::vector<int>{-1, -1, 0, 0, 0, -1, -1, -1, -1, -1}));
  EXPECT_EQ(p.p99, (std::vector<int>{-1, -1, 15, 15, 15, -1, -1, -1, -1, -1}));
  EXPECT_EQ(map->lo_bucket, 0);   // the p50 line's
  EXPECT_EQ(map->hi_bucket, 15);  // the p99 line's
  EXPECT_EQ(map->max_count, 1u);
  EXPECT_EQ(map->events, 2u);
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
  ASSERT_EQ(map->panels.size(), 1u);
  EXPECT_EQ(map->panels[0].p50, std::vector<int>{14});
  EXPECT_EQ(map->panels[0].p99, std::vector<int>{14});  // rank 99 of 100
  EXPECT_EQ(map->max_count, 99u);
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
  bins.Add("db7", "vda", "read", kT0 + 3 * kSec, 20000);  // column 3, b 14
  bins.Add("db7", "vda", "read", kT0 + 9 * kSec, 1000);   // column 9, b 9
  HeatmapOptions options;
  options.fixed_width_ns = kSec;
  const BaselineCollector none{Filter{}};
  absl::StatusOr<Heatmap> map = BuildHeatmap(bins, none, options);
  ASSERT_TRUE(map.ok());
  ASSERT_EQ(map->columns.columns, 7);  // 3 .. 9
  const std::string svg = RenderHeatmapSvg(*map, HeatmapLabels{});
  using namespace heatmap_layout;
  const int cw = CellWidth(7);
  EXPECT_EQ(cw, kMaxCellWidth);
  const int grid_y = kTop + kPanelLabelHeight;
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<rect x=\"", kMarginLeft, "\" y=\"", grid_y,
                        "\" width=\"", cw, "\" height=\"", kRowHeight, "\"")))
      << svg;
  EXPECT_TRUE(absl::StrContains(
      svg, absl::StrCat("<rect x=\"", kMarginLeft + 6 * cw, "\" y=\"",
                        grid_y + 5 * kRowHeight, "\" width=\"", cw, "\"")));
}

}  // namespace
}  // namespace biosnoop::report
