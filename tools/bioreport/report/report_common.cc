// The small pieces every report form shares: how a host, a CSV field, a
// byte count and a JSON fixed-point number are written, and the log2
// histogram as biolatency prints it.

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "report.h"
#include "text_table.h"

namespace biosnoop::report {
namespace {

constexpr int kBarWidth = 40;

}  // namespace

std::string HostName(const std::string& host) {
  return host.empty() ? "-" : Printable(host);
}

std::string CsvField(const std::string& name) {
  std::string s = Printable(name);
  // A cell a spreadsheet would take for a formula (=HYPERLINK(...), +, -,
  // @, and tab or CR, which Printable has escaped already) gets a leading
  // quote, which shows it as text, and is quoted itself.
  const bool formula = !s.empty() && absl::string_view("=+-@").find(s[0]) !=
                                         absl::string_view::npos;
  if (formula) s.insert(0, "'");
  if (!formula && s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string HumanBytes(Sum bytes) {
  if (bytes < 1024) return absl::StrCat(Decimal(bytes), " B");
  static const char* const kUnits[] = {"KiB", "MiB", "GiB",
                                       "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  return absl::StrFormat("%.1f %s", v, kUnits[u]);
}

std::string JsonFixed(double v, int decimals) {
  if (!std::isfinite(v)) return "null";
  return absl::StrFormat("%.*f", decimals, v);
}

std::string RenderLog2Hist(const Log2Hist& hist, const char* unit_label) {
  int lo = -1, hi = -1;
  uint64_t max = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (hist[b] == 0) continue;
    if (lo < 0) lo = b;
    hi = b;
    max = std::max(max, hist[b]);
  }
  if (hi < 0) return "(no events)\n";
  // biolatency's layout: "%10d -> %-10d : %-8d |%-40s|", wider when the
  // bucket bounds need it.
  const int w = std::max<int>(10, absl::StrCat(BucketHigh(hi)).size());
  std::string out = absl::StrFormat("%*s%-*s : count     distribution\n", 5, "",
                                    2 * w + 4 - 5, unit_label);
  for (int b = lo; b <= hi; ++b) {
    // One star at least for a non-empty bucket, so that no event is
    // invisible.
    int stars = static_cast<int>(hist[b] * kBarWidth / max);
    if (hist[b] > 0 && stars == 0) stars = 1;
    absl::StrAppendFormat(&out, "%*d -> %-*d : %-8d |%-*s|\n", w, BucketLow(b),
                          w, BucketHigh(b), hist[b], kBarWidth,
                          std::string(stars, '*'));
  }
  return out;
}

}  // namespace biosnoop::report
