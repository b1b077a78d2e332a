// Escaping and labels.  Names from the input could hold anything (a disk
// or host name is only a string in the stream); nothing in them may end
// an element, open a tag or make the document ill-formed.

#include "svg_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "json_format.h"
#include "text_table.h"
#include "time_format.h"

namespace biosnoop::report {

namespace {

// The printable form of `s` as valid UTF-8: C-style escapes for controls
// and '\\', U+FFFD for bytes that are not UTF-8.
std::string PrintableUtf8(absl::string_view s) {
  std::string valid;
  AppendSanitizedUtf8(Printable(s), &valid);
  return valid;
}

// Appends valid UTF-8 as XML text: entities, U+FFFE and U+FFFF replaced.
void AppendEscapedUtf8(const std::string& valid, std::string* out) {
  for (size_t i = 0; i < valid.size(); ++i) {
    const char c = valid[i];
    switch (c) {
      case '&':
        *out += "&amp;";
        break;
      case '<':
        *out += "&lt;";
        break;
      case '>':
        *out += "&gt;";
        break;
      case '"':
        *out += "&quot;";
        break;
      case '\'':
        *out += "&#39;";
        break;
      default:
        // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are well-formed UTF-8
        // but not XML characters.
        if (c == '\xef' && i + 2 < valid.size() && valid[i + 1] == '\xbf' &&
            (valid[i + 2] == '\xbe' || valid[i + 2] == '\xbf')) {
          *out += "\xef\xbf\xbd";
          i += 2;
        } else {
          *out += c;
        }
    }
  }
}

}  // namespace

void AppendXmlEscaped(absl::string_view s, std::string* out) {
  AppendEscapedUtf8(PrintableUtf8(s), out);
}

std::string XmlEscaped(absl::string_view s) {
  std::string out;
  AppendXmlEscaped(s, &out);
  return out;
}

std::string XmlEscapedShort(absl::string_view s, size_t max_chars) {
  std::string valid = PrintableUtf8(s);
  size_t chars = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    // A character starts at every byte that is not a continuation byte.
    if ((static_cast<unsigned char>(valid[i]) & 0xc0) == 0x80) continue;
    if (chars == max_chars) {
      valid.resize(i);
      valid += "\xe2\x80\xa6";  // U+2026
      break;
    }
    ++chars;
  }
  std::string out;
  AppendEscapedUtf8(valid, &out);
  return out;
}

std::string LatencyLabel(double us) {
  const char* const kMicro = "\xc2\xb5s";
  if (us < 1000) return absl::StrFormat("%.3g %s", us, kMicro);
  if (us < 1e6) return absl::StrFormat("%.3g ms", us / 1e3);
  if (us < 1e9) return absl::StrFormat("%.3g s", us / 1e6);
  return absl::StrFormat("%.0f s", us / 1e6);
}

std::string DurationLabel(int64_t ns) {
  constexpr int64_t kUsNs = 1000, kMsNs = 1000 * kUsNs, kSecNs = 1000 * kMsNs;
  constexpr int64_t kMinNs = 60 * kSecNs, kHourNs = 60 * kMinNs,
                    kDayNs = 24 * kHourNs;
  if (ns % kDayNs == 0) return absl::StrCat(ns / kDayNs, "d");
  if (ns % kHourNs == 0) return absl::StrCat(ns / kHourNs, "h");
  if (ns % kMinNs == 0) return absl::StrCat(ns / kMinNs, "m");
  if (ns % kSecNs == 0) return absl::StrCat(ns / kSecNs, "s");
  if (ns % kMsNs == 0) return absl::StrCat(ns / kMsNs, "ms");
  if (ns % kUsNs == 0) return absl::StrCat(ns / kUsNs, "us");
  return absl::StrCat(ns, "ns");
}

DateForm DateFormOf(int64_t start_ns, int64_t end_ns) {
  // "2026-11-21T...": the year is the first 4 characters, the day the
  // first 10 (int64 ns run from 1677 to 2262: always 4 digits).
  const std::string a = FormatRfc3339(start_ns);
  const std::string b = FormatRfc3339(end_ns);
  if (a.compare(0, 4, b, 0, 4) != 0) return DateForm::kYear;
  if (a.compare(0, 10, b, 0, 10) != 0) return DateForm::kDay;
  return DateForm::kNone;
}

std::string TimeLabel(int64_t ns, int64_t width_ns, DateForm date) {
  // "2026-11-21T05:00:10.250000000Z" (always 9 digits): cut to what the
  // column width needs.
  const std::string t = FormatRfc3339(ns);
  std::string out = date == DateForm::kYear ? absl::StrCat(t.substr(0, 10), " ")
                    : date == DateForm::kDay ? absl::StrCat(t.substr(5, 5), " ")
                                             : "";
  if (date != DateForm::kNone && width_ns % 60'000'000'000 == 0) {
    return out + t.substr(11, 5);
  }
  out += t.substr(11, 8);  // "05:00:10"
  if (width_ns % 1'000'000'000 == 0) return out;
  const int digits = width_ns % 1'000'000 == 0 ? 3
                     : width_ns % 1000 == 0    ? 6
                                               : 9;
  return out + t.substr(19, 1 + digits);  // ".250"
}

}  // namespace biosnoop::report
