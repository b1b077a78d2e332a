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
// The same, cut to at most `max_chars` characters (code points of the
// printable form, before the entities) with "\u2026" in place of the
// rest: a name from the input cannot make the picture's text as long as
// it likes.
std::string XmlEscapedShort(absl::string_view s, size_t max_chars);

// A latency in microseconds, short, 3 significant digits: "16 us",
// "0.954 us", "1.02 ms", "16.4 ms", "1.05 s" ("us" spelled with the micro
// sign).
std::string LatencyLabel(double us);

// A duration, as options spell it: "1ms", "15s", "2h", "7d", "250us".
std::string DurationLabel(int64_t ns);

// How much of the date a time label carries: none (the map's span is
// within a day), month and day (it crosses one), or the year too (it
// crosses a year, where "01-01" alone would read as the start's year).
enum class DateForm { kNone, kDay, kYear };

// The form a map from `start_ns` to `end_ns` (exclusive end: the last
// column's end, which a tick may name) needs.
DateForm DateFormOf(int64_t start_ns, int64_t end_ns);

// A column's time as the x axis shows it (UTC): "05:00:10" for a width of
// whole seconds, "05:00:10.250" (or 6 or 9 digits) below; prefixed with
// the date ("11-21 05:00:10") or the date and year ("2026-12-31
// 23:00:00") as `date` says, and without seconds for whole minutes then
// ("11-21 05:00").
std::string TimeLabel(int64_t ns, int64_t width_ns, DateForm date);

}  // namespace biosnoop::report
