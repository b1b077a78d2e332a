// `bioreport heatmap --html` in a real browser: Debian's headless Chromium
// renders the page and takes a screenshot; the cells of an injected
// latency band (20 ms for 10 s) must be coloured in their fine row, every
// other cell of the grid the background, the p50 and p99 lines of the
// summary records where their estimates lie, and the page must log
// nothing to the console (no error, no blocked load: its
// Content-Security-Policy forbids any).
//
// Coordinates come from the layout of heatmap_svg.h.  Chromium
// runs as root in CI: --no-sandbox.  Every wait is on the process itself,
// bounded by timeout(1).  Without Chromium the tests skip, but not under
// CI=true (tools/install-deps installs it).

#include <fcntl.h>
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "child_process.h"
#include "event.h"
#include "gtest/gtest.h"
#include "heatmap_svg.h"
#include "histogram.h"
#include "jsonl_sink.h"
#include "output_file.h"
#include "stream_info.h"

namespace biosnoop::report {
namespace {

constexpr int64_t kT0 = 1795237200'000000000;  // 2026-11-21T05:00:00Z
constexpr int64_t kSecNs = 1'000'000'000;
constexpr int kColumns = 30;  // --bucket 1s over 30 s

// The summaries' latencies, in fine buckets k (schema 4: (2^((k-1)/16),
// 2^(k/16)] s): 600 of 1000 completions a second in k = -212 (98.3-102.6
// us, so p50 lies there) and 400 in k = -187 (290-303 us, p99).
constexpr int kP50Bucket = -212, kP99Bucket = -187;

// The rows: the lines' and the cells' buckets, 100 us (k = -212) to 1 s
// (k = 0), and two more each side, are 217 fine buckets, over the 200 rows
// a map draws: merged in pairs, 8 a power of two (schema 3, k' =
// ceil(k/2)): rows -107 to 1, 109 of RowHeight(109) pixels.  At schema 3
// the anchors (1 ms: fine -159; 1 s: 0) are rows -79 and 0, a 20 ms band
// (fine -90) row -45, a 40 ms one (fine -74) row -37.
constexpr int kSchema = 3, kLoRow = -107, kHiRow = 1;
constexpr int kLowAnchorRow = -79, kHighAnchorRow = 0;

struct Event {
  int64_t ns;
  uint64_t latency_us;
};

// The test's stream: an anchor at 1 ms in column 0 and one at 1 s in
// column 29 (with the lines, they fix the axes: see kLoRow), and the band:
// 5 events a second at `band_us` in columns 10 to 19.
std::vector<Event> BandEvents(uint64_t band_us) {
  std::vector<Event> events = {{kT0 + kSecNs / 2, 1000}};
  for (int s = 10; s < 20; ++s) {
    for (int k = 0; k < 5; ++k) {
      events.push_back({kT0 + s * kSecNs + k * 150'000'000 + 1, band_us});
    }
  }
  events.push_back({kT0 + 29 * kSecNs + kSecNs / 2, 1'000'000});
  return events;
}

// Written by biosnoop's own sink: a header, the events, a summary record
// each second (1000 completions, kP50Bucket and kP99Bucket), a final
// stats record (nothing lost).
void WriteStream(const std::string& path, const std::vector<Event>& events) {
  absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  JsonlSink sink(std::move(*file), "db7");
  StreamInfo info;
  info.host = "db7";
  info.boot_id = "3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b";
  info.start_realtime_ns = kT0;
  info.biosnoop_version = "0.1.0";
  info.kernel_release = "6.18.0";
  info.min_us = 500;
  ASSERT_TRUE(sink.WriteHeader(info).ok());
  EnrichedEvent e;
  uint64_t seq = 0;
  int64_t next_summary = kT0 + kSecNs;
  auto summaries_until = [&](int64_t ns) {
    for (; next_summary <= ns && next_summary <= kT0 + kColumns * kSecNs;
         next_summary += kSecNs) {
      SummaryRecord r;
      r.realtime_ns = next_summary;
      r.interval_s = 1;
      r.min_us = 500;
      biosnoop::HistGroup g;  // not report::HistGroup, the grouping
      g.disk = "vda";
      g.op = "read";
      g.data.count = 1000;
      g.data.latency[6] = 600;  // 64-127 us
      g.data.latency[8] = 400;  // 256-511 us
      g.data.fine[kP50Bucket - kFineFirst] = 600;
      g.data.fine[kP99Bucket - kFineFirst] = 400;
      r.groups.push_back(g);
      ASSERT_TRUE(sink.WriteSummary(r).ok());
    }
  };
  for (const Event& ev : events) {
    summaries_until(ev.ns);
    e.event = biosnoop::Event{};
    e.event.op = Op::kRead;
    e.event.device_ns = ev.latency_us * 1000;
    e.event.bytes = 4096;
    e.event.major = 254;
    e.event.minor = 0;
    e.event.pid = 4242;
    e.event.tid = 4242;
    std::strncpy(e.event.comm.data(), "postgres", e.event.comm.size() - 1);
    e.disk = "vda";
    e.realtime_ns = ev.ns;
    e.seq = ++seq;
    ASSERT_TRUE(sink.Write(e).ok());
  }
  summaries_until(INT64_MAX);
  ASSERT_TRUE(sink.Flush().ok());
  StatsSnapshot stats;
  stats.realtime_ns = events.back().ns + 1;
  stats.emitted = seq;
  stats.written = seq;
  stats.completions = seq;
  stats.final = true;
  ASSERT_TRUE(sink.WriteStats(stats).ok());
  ASSERT_TRUE(sink.Flush().ok());
}

// Runs argv with stdout and stderr to `log`; returns the exit status (-1
// when it did not start or was killed).
int RunProcess(const std::vector<std::string>& args, const std::string& log) {
  const int fd =
      open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const biosnoop::testing::ChildResult r = biosnoop::testing::RunProgram(
      args, biosnoop::testing::ChildSetup().Dup(1, fd).Dup(2, fd));
  close(fd);
  return r.end == biosnoop::testing::ChildResult::End::kExited ? r.code : -1;
}

std::string ReadAll(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
      out.append(buf, n);
    }
    std::fclose(f);
  }
  return out;
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  const uint8_t* At(int x, int y) const { return &rgba[(y * width + x) * 4]; }
};

bool ReadPng(const std::string& path, Image* img) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) return false;
  png.format = PNG_FORMAT_RGBA;
  img->width = static_cast<int>(png.width);
  img->height = static_cast<int>(png.height);
  img->rgba.resize(PNG_IMAGE_SIZE(png));
  return png_image_finish_read(&png, nullptr, img->rgba.data(), 0, nullptr) !=
         0;
}

class TempDir {
 public:
  TempDir() {
    std::string t = "/tmp/heatmap-browser-XXXXXX";
    if (mkdtemp(t.data()) != nullptr) path_ = t;
  }
  ~TempDir() {
    if (!path_.empty()) RunProcess({"rm", "-rf", path_}, "/dev/null");
  }
  std::string Path(const std::string& name) const {
    return absl::StrCat(path_, "/", name);
  }

 private:
  std::string path_;
};

struct Rendered {
  Image shot;
  std::vector<std::string> console;  // the page's console messages
};

// The stream with `band_us` through bioreport, then Chromium.
void Render(const TempDir& dir, const std::vector<Event>& events,
            Rendered* out) {
  WriteStream(dir.Path("stream.jsonl"), events);
  ASSERT_EQ(RunProcess({BIOREPORT_BIN, "heatmap", "--html", "--bucket", "1s",
                        "-o", dir.Path("page.html"), dir.Path("stream.jsonl")},
                       dir.Path("bioreport.log")),
            0)
      << ReadAll(dir.Path("bioreport.log"));
  ASSERT_EQ(
      RunProcess({"timeout", "--kill-after=10", "120", "chromium", "--headless",
                  "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--hide-scrollbars", "--force-device-scale-factor=1",
                  absl::StrCat("--user-data-dir=", dir.Path("profile")),
                  "--enable-logging=stderr", "--v=0",
                  absl::StrCat("--screenshot=", dir.Path("shot.png")),
                  "--window-size=1200,700",
                  absl::StrCat("file://", dir.Path("page.html"))},
                 dir.Path("chromium.log")),
      0)
      << ReadAll(dir.Path("chromium.log"));
  ASSERT_TRUE(ReadPng(dir.Path("shot.png"), &out->shot));
  // Chromium logs what the page's console receives as
  // "[...:INFO:CONSOLE:N] "message", source: file:///... (N)".
  for (absl::string_view line :
       absl::StrSplit(ReadAll(dir.Path("chromium.log")), '\n')) {
    if (line.find(":CONSOLE") != line.npos) out->console.emplace_back(line);
  }
}

bool Near(const uint8_t* px, uint32_t rgb) {
  const int want[3] = {static_cast<int>(rgb >> 16),
                       static_cast<int>((rgb >> 8) & 0xff),
                       static_cast<int>(rgb & 0xff)};
  for (int i = 0; i < 3; ++i) {
    if (std::abs(px[i] - want[i]) > 3) return false;
  }
  return true;
}

constexpr uint32_t kBackgroundRgb = 0xf2f2f2;
constexpr uint32_t kFewRgb = 0xffe68c;   // count 1: the ramp's first colour
constexpr uint32_t kMostRgb = 0x4a063c;  // the fullest cells: its last
constexpr uint32_t kP50Rgb = 0x1565c0;
constexpr uint32_t kP99Rgb = 0x111111;

// Every cell of the grid from two rows under the low anchor up (the lines
// run far below, at 0.1 and 0.3 ms) against what the stream put there,
// with the band expected in row `band_row`: one line per cell that is not
// as expected.
std::vector<std::string> CheckCells(const Image& img, int band_row) {
  using namespace heatmap_layout;
  const int cw = CellWidth(kColumns);
  const int rh = RowHeight(kHiRow - kLoRow + 1);
  const int grid_y = kTop + kPanelLabelHeight;
  std::vector<std::string> wrong;
  for (int c = 0; c < kColumns; ++c) {
    for (int r = kLowAnchorRow - 2; r <= kHiRow; ++r) {
      // The cell's centre.
      const int x = kMarginLeft + c * cw + cw / 2;
      const int y = grid_y + (kHiRow - r) * rh + rh / 2;
      if (x >= img.width || y >= img.height) {
        wrong.push_back(absl::StrCat("cell ", c, ",", r, " off the shot"));
        continue;
      }
      uint32_t want = kBackgroundRgb;
      if (c >= 10 && c < 20 && r == band_row) want = kMostRgb;
      if ((c == 0 && r == kLowAnchorRow) || (c == 29 && r == kHighAnchorRow)) {
        want = kFewRgb;
      }
      const uint8_t* px = img.At(x, y);
      if (!Near(px, want)) {
        wrong.push_back(absl::StrFormat(
            "column %d row %d at (%d,%d): #%02x%02x%02x, expected #%06x", c, r,
            x, y, px[0], px[1], px[2], want));
      }
    }
  }
  return wrong;
}

// The value of rank `rank` of 1000 completions, `below` of them under fine
// bucket k, `in` in it: placed inside it log-linearly by rank (the
// estimate bioreport documents), in microseconds.
double Estimate(int k, int below, int in, int rank) {
  const double lo = std::exp2((k - 1) / 16.0), hi = std::exp2(k / 16.0);
  return 1e6 * lo * std::pow(hi / lo, static_cast<double>(rank - below) / in);
}

// A line of `rgb` where LatencyY puts `us`, in every column: some pixel of
// the column within one pixel of that y has the line's colour (the p99
// line is dashed).  One line per column where it is not.
std::vector<std::string> CheckLine(const Image& img, double us, uint32_t rgb) {
  using namespace heatmap_layout;
  const int cw = CellWidth(kColumns);
  const int rows = kHiRow - kLoRow + 1;
  const int y = kTop + kPanelLabelHeight +
                LatencyY(us, kSchema, kHiRow, rows, RowHeight(rows));
  std::vector<std::string> wrong;
  for (int c = 0; c < kColumns; ++c) {
    bool seen = false;
    for (int x = kMarginLeft + c * cw; x < kMarginLeft + (c + 1) * cw; ++x) {
      for (int dy = -1; dy <= 1; ++dy) {
        if (x < img.width && y + dy < img.height &&
            Near(img.At(x, y + dy), rgb)) {
          seen = true;
        }
      }
    }
    if (!seen) {
      wrong.push_back(absl::StrFormat("column %d: no #%06x at y %d (%.1f us)",
                                      c, rgb, y, us));
    }
  }
  return wrong;
}

bool HaveChromium() {
  return RunProcess({"sh", "-c", "command -v chromium"}, "/dev/null") == 0;
}

#define REQUIRE_CHROMIUM()                                                   \
  do {                                                                       \
    if (!HaveChromium()) {                                                   \
      const char* ci = std::getenv("CI");                                    \
      if (ci != nullptr && std::string(ci) == "true") {                      \
        FAIL() << "chromium not found and CI=true: not skipping "            \
                  "(tools/install-deps installs it)";                        \
      }                                                                      \
      GTEST_SKIP() << "chromium not found (tools/install-deps installs it)"; \
    }                                                                        \
  } while (0)

TEST(HeatmapBrowserTest, BandCellsColouredOthersBackgroundNoConsoleErrors) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  Rendered r;
  ASSERT_NO_FATAL_FAILURE(Render(dir, BandEvents(20000), &r));
  std::vector<std::string> wrong = CheckCells(r.shot, -45);  // 20 ms
  // p50: rank 500, the 500th of the 600 in kP50Bucket; p99: rank 990, the
  // 390th of the 400 in kP99Bucket.
  for (const std::string& w :
       CheckLine(r.shot, Estimate(kP50Bucket, 0, 600, 500), kP50Rgb)) {
    wrong.push_back("p50 " + w);
  }
  for (const std::string& w :
       CheckLine(r.shot, Estimate(kP99Bucket, 600, 400, 990), kP99Rgb)) {
    wrong.push_back("p99 " + w);
  }
  if (!wrong.empty()) {
    RunProcess({"cp", dir.Path("shot.png"), dir.Path("page.html"), "/tmp"},
               "/dev/null");
  }
  EXPECT_TRUE(wrong.empty())
      << wrong.size() << " cells wrong, first: " << wrong.front()
      << " (screenshot and page: /tmp/shot.png, "
         "/tmp/page.html)";
  EXPECT_TRUE(r.console.empty()) << r.console.front();
}

// The check sees a wrong map: a band drawn at 40 ms is not the 20 ms band
// (its ten cells, and the ten it left empty, are reported).
TEST(HeatmapBrowserTest, WrongBandIsCaught) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  Rendered r;
  ASSERT_NO_FATAL_FAILURE(Render(dir, BandEvents(40000), &r));
  EXPECT_EQ(CheckCells(r.shot, -37).size(), 0u);   // where it is
  EXPECT_EQ(CheckCells(r.shot, -45).size(), 20u);  // where it is not
  // And a line where it is not is not seen: the p50 line's check at the
  // p99 line's value.
  EXPECT_EQ(
      CheckLine(r.shot, Estimate(kP99Bucket, 600, 400, 990), kP50Rgb).size(),
      static_cast<size_t>(kColumns));
}

// The console check sees errors: a page whose script fails logs it.
TEST(HeatmapBrowserTest, ConsoleErrorsAreSeen) {
  REQUIRE_CHROMIUM();
  TempDir dir;
  FILE* f = std::fopen(dir.Path("bad.html").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>x</title>"
      "<script>undefinedFunction();</script></head><body></body></html>\n",
      f);
  std::fclose(f);
  ASSERT_EQ(
      RunProcess({"timeout", "--kill-after=10", "120", "chromium", "--headless",
                  "--no-sandbox", "--disable-gpu", "--no-first-run",
                  absl::StrCat("--user-data-dir=", dir.Path("profile")),
                  "--enable-logging=stderr", "--v=0", "--dump-dom",
                  absl::StrCat("file://", dir.Path("bad.html"))},
                 dir.Path("chromium.log")),
      0);
  EXPECT_NE(ReadAll(dir.Path("chromium.log")).find(":CONSOLE"),
            std::string::npos)
      << ReadAll(dir.Path("chromium.log"));
}

}  // namespace
}  // namespace biosnoop::report
