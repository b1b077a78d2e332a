// Text made safe for a terminal (terminal_text.h).

#include "terminal_text.h"

#include <locale.h>
#include <wchar.h>

#include <cstdint>
#include <vector>

namespace biosnoop {
namespace {

// The code point of the well-formed UTF-8 sequence at the start of `s` (its
// first byte >= 0x80) and its length; length 0 when there is none (a stray
// continuation byte, an overlong form, a surrogate, past U+10FFFF, cut
// short).
struct Decoded {
  uint32_t cp = 0;
  size_t length = 0;
};

Decoded DecodeUtf8(absl::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = byte(0);
  // The lead byte gives the length, its own bits of the code point and
  // the least code point that length may carry (shorter is overlong).
  size_t n = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
    min = 0x10000;
  } else {
    return {};
  }
  if (s.size() < n) return {};
  for (size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return {};
    cp = (cp << 6) | (byte(i) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {};
  return {cp, n};
}

// The columns the C library's UTF-8 tables give `cp` (wcwidth under
// C.UTF-8, which glibc builds in): 1 or 2 when printable, 0 for
// zero-width and combining characters, -1 for controls and unassigned
// code points; -1 for all when that locale cannot be had.  The process's
// own locale is left alone (uselocale changes this thread's, for the call).
int Utf8Width(uint32_t cp) {
  static const locale_t utf8 =
      newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  if (utf8 == static_cast<locale_t>(nullptr)) return -1;
  const locale_t before = uselocale(utf8);
  const int width = wcwidth(static_cast<wchar_t>(cp));
  uselocale(before);
  return width;
}

// One character as the terminal gets it: `length` bytes of the input
// (copied when `keep`, else one '?') taking `columns`.
struct Piece {
  size_t length;
  bool keep;
  size_t columns;
};

// The next piece of `s` (not empty).
Piece NextPiece(absl::string_view s, TerminalCharset charset) {
  const unsigned char c = static_cast<unsigned char>(s[0]);
  if (c < 0x80) return {1, c >= 0x20 && c < 0x7f, 1};
  const Decoded d = DecodeUtf8(s);
  if (d.length == 0) return {1, false, 1};  // not UTF-8: this byte alone
  if (charset == TerminalCharset::kUtf8) {
    const int width = Utf8Width(d.cp);
    if (width >= 1) return {d.length, true, static_cast<size_t>(width)};
  }
  return {d.length, false, 1};
}

void AppendPiece(absl::string_view s, const Piece& p, std::string* out) {
  if (p.keep) {
    out->append(s.data(), p.length);
  } else {
    out->push_back('?');
  }
}

}  // namespace

size_t AppendTerminalText(absl::string_view bytes, TerminalCharset charset,
                          std::string* out) {
  size_t columns = 0;
  while (!bytes.empty()) {
    const Piece p = NextPiece(bytes, charset);
    AppendPiece(bytes, p, out);
    columns += p.columns;
    bytes.remove_prefix(p.length);
  }
  return columns;
}

size_t AppendTerminalTextTail(absl::string_view bytes, TerminalCharset charset,
                              size_t max_columns, std::string* out) {
  std::vector<Piece> pieces;
  size_t columns = 0;
  for (absl::string_view rest = bytes; !rest.empty();) {
    pieces.push_back(NextPiece(rest, charset));
    columns += pieces.back().columns;
    rest.remove_prefix(pieces.back().length);
  }
  if (columns <= max_columns) return AppendTerminalText(bytes, charset, out);
  out->append("...");
  if (max_columns < 4) return 3;
  // Drop pieces from the front until the rest fits beside the "...".
  size_t first = 0;
  size_t offset = 0;
  while (columns > max_columns - 3) {
    columns -= pieces[first].columns;
    offset += pieces[first].length;
    ++first;
  }
  absl::string_view rest = bytes.substr(offset);
  for (size_t i = first; i < pieces.size(); ++i) {
    AppendPiece(rest, pieces[i], out);
    rest.remove_prefix(pieces[i].length);
  }
  return columns + 3;
}

}  // namespace biosnoop
