#pragma once

// Text in the heat map's SVG and HTML: names from the input made safe for
// XML and HTML, and the labels of the axes.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace biosnoop::report {

// Appends `s` as XML character data or attribute value (also right for
// HTML text and quoted attributes), whatever its bytes:
//  - control characters and '\' are first escaped C-style as the text
//    reports print them (Printable: "a\nb" shows as a\nb), so that a name
//    reads the same in every form and none is a character XML forbids;
//  - each byte that is not part of well-formed UTF-8 becomes U+FFFD, as
//    are U+FFFE and U+FFFF (not XML characters);
//  - & < > " ' become &amp; &lt; &gt; &quot; &#39;.
void AppendXmlEscaped(absl::string_view s, std::string* out);
std::string XmlEscaped(absl::string_view s);

// A latency in microseconds, short, 3 significant digits: "16 us",
// "1.02 ms", "16.4 ms", "1.05 s" ("us" spelled with the micro sign).
std::string LatencyLabel(uint64_t us);

// A duration, as options spell it: "1ms", "15s", "2h", "7d", "250us".
std::string DurationLabel(int64_t ns);

// A column's time as the x axis shows it (UTC): "05:00:10" for a width of
// whole seconds, "05:00:10.250" (or 6 or 9 digits) below; prefixed with
// the date when `with_date`, and without seconds for whole minutes then
// ("11-21 05:00").
std::string TimeLabel(int64_t ns, int64_t width_ns, bool with_date);

}  // namespace biosnoop::report
