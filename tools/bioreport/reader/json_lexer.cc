// The JSON lexer.  Strings are views into the line until an escape forces
// a copy (biosnoop's lines rarely have one), UTF-8 is checked with
// biosnoop's own rule (json_format.h), and numbers against RFC 8259's
// grammar before they are converted.

#include "json_lexer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "json_format.h"

namespace biosnoop::report {
namespace {

constexpr int kMaxDepth = 64;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

}  // namespace

bool DecodeHex(absl::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

absl::Status JsonLexer::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat("at column ", pos_ + 1, ": ", what));
}

bool JsonLexer::ConsumeNull() {
  SkipSpace();
  if (text_.substr(pos_, 4) == "null") {
    pos_ += 4;
    return true;
  }
  return false;
}

absl::Status JsonLexer::String(std::string* scratch, absl::string_view* out) {
  if (!Consume('"')) return Error("expected a string");
  const size_t start = pos_;
  bool ascii = true;
  // The common case: no escapes.  Eight bytes at a time, skip plain ASCII
  // (no '"', '\\', control or non-ASCII byte: the classic SWAR tests), then
  // look at the bytes that need it one by one.
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
  while (pos_ + 8 <= text_.size()) {
    uint64_t w;
    std::memcpy(&w, text_.data() + pos_, 8);
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t backslash = w ^ (kOnes * '\\');
    const uint64_t special = ((quote - kOnes) & ~quote) |
                             ((backslash - kOnes) & ~backslash) |
                             (w - kOnes * 0x20) | w;
    if ((special & kHighs) != 0) break;
    pos_ += 8;
  }
  while (pos_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      *out = text_.substr(start, pos_ - start);
      ++pos_;
      if (!ascii && !IsValidUtf8(*out)) {
        return Error("string is not valid UTF-8");
      }
      return absl::OkStatus();
    }
    if (c == '\\') {
      scratch->assign(text_.data() + start, pos_ - start);
      if (!ascii && !IsValidUtf8(*scratch)) {
        return Error("string is not valid UTF-8");
      }
      if (absl::Status s = DecodeEscapes(scratch); !s.ok()) return s;
      *out = *scratch;
      return absl::OkStatus();
    }
    if (c < 0x20) return Error("control character in a string (not escaped)");
    if (c >= 0x80) ascii = false;
    ++pos_;
  }
  return Error("unterminated string");
}

absl::Status JsonLexer::StringInto(std::string* out) {
  absl::string_view view;
  if (absl::Status s = String(out, &view); !s.ok()) return s;
  if (view.data() != out->data()) out->assign(view.data(), view.size());
  return absl::OkStatus();
}

// From the first backslash on: decodes into `out` (which holds the text
// before it) up to and including the closing quote.
absl::Status JsonLexer::DecodeEscapes(std::string* out) {
  size_t run = pos_;  // start of the current unescaped run
  while (pos_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"' || c == '\\') {
      const absl::string_view piece = text_.substr(run, pos_ - run);
      if (!IsValidUtf8(piece)) return Error("string is not valid UTF-8");
      out->append(piece.data(), piece.size());
    }
    if (c == '"') {
      ++pos_;
      return absl::OkStatus();
    }
    if (c < 0x20) return Error("control character in a string (not escaped)");
    if (c != '\\') {
      ++pos_;
      continue;
    }
    if (pos_ + 1 >= text_.size()) return Error("unterminated string");
    const char e = text_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '/':
        out->push_back('/');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        auto hex4 = [this](size_t at, uint32_t* v) {
          if (at + 4 > text_.size()) return false;
          *v = 0;
          for (size_t i = at; i < at + 4; ++i) {
            const int h = HexValue(text_[i]);
            if (h < 0) return false;
            *v = *v << 4 | static_cast<uint32_t>(h);
          }
          return true;
        };
        uint32_t cp;
        if (!hex4(pos_, &cp)) return Error("\\u needs 4 hex digits");
        pos_ += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff) {
          return Error("lone low surrogate in \\u escape");
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
          uint32_t low;
          if (text_.substr(pos_, 2) != "\\u" || !hex4(pos_ + 2, &low) ||
              low < 0xdc00 || low > 0xdfff) {
            return Error("high surrogate not followed by a low surrogate");
          }
          pos_ += 6;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        pos_ -= 1;
        return Error("invalid escape in a string");
    }
    run = pos_;
  }
  return Error("unterminated string");
}

// Validates the JSON number grammar from the current position:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
absl::Status JsonLexer::ScanNumber(size_t* start, bool* integral) {
  SkipSpace();
  *start = pos_;
  *integral = true;
  auto digit = [this] {
    return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9';
  };
  if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
  if (!digit()) return Error("expected a number");
  if (text_[pos_] == '0') {
    ++pos_;
    if (digit()) return Error("leading zero in a number");
  } else {
    while (digit()) ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    *integral = false;
    ++pos_;
    if (!digit()) return Error("expected a digit after '.'");
    while (digit()) ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    *integral = false;
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
      ++pos_;
    }
    if (!digit()) return Error("expected a digit in the exponent");
    while (digit()) ++pos_;
  }
  return absl::OkStatus();
}

absl::Status JsonLexer::Uint(uint64_t max, uint64_t* out) {
  SkipSpace();
  // Fast path: up to 18 digits without a leading zero, not followed by a
  // fraction or exponent (cannot overflow; the general path below handles
  // everything else and reports errors).
  if (pos_ < text_.size() && text_[pos_] >= '1' && text_[pos_] <= '9') {
    uint64_t v = 0;
    size_t i = pos_;
    while (i < text_.size() && i - pos_ < 18 && text_[i] >= '0' &&
           text_[i] <= '9') {
      v = v * 10 + static_cast<uint64_t>(text_[i] - '0');
      ++i;
    }
    const bool ends = i == text_.size() ||
                      (text_[i] != '.' && text_[i] != 'e' && text_[i] != 'E' &&
                       (text_[i] < '0' || text_[i] > '9'));
    if (ends && v <= max) {
      pos_ = i;
      *out = v;
      return absl::OkStatus();
    }
  }
  size_t start;
  bool integral;
  if (absl::Status s = ScanNumber(&start, &integral); !s.ok()) return s;
  if (!integral) {
    pos_ = start;
    return Error("expected an integer");
  }
  if (text_[start] == '-') {
    pos_ = start;
    return Error("expected a non-negative integer");
  }
  uint64_t v = 0;
  for (size_t i = start; i < pos_; ++i) {
    const uint64_t d = static_cast<uint64_t>(text_[i] - '0');
    if (d > max || v > (max - d) / 10) {
      pos_ = start;
      return Error(absl::StrCat("integer larger than ", max));
    }
    v = v * 10 + d;
  }
  *out = v;
  return absl::OkStatus();
}

absl::Status JsonLexer::Int(int64_t min, int64_t max, int64_t* out) {
  SkipSpace();
  const bool negative = pos_ < text_.size() && text_[pos_] == '-';
  if (!negative) {
    uint64_t v;
    if (absl::Status s = Uint(static_cast<uint64_t>(max), &v); !s.ok()) {
      return s;
    }
    *out = static_cast<int64_t>(v);
    return absl::OkStatus();
  }
  const size_t start = pos_;
  ++pos_;
  // The digits must follow at once: Uint() skips whitespace, and "- 5" is
  // not a JSON number.
  if (pos_ == text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
    pos_ = start;
    return Error("expected a digit after '-'");
  }
  uint64_t magnitude;
  const uint64_t limit = static_cast<uint64_t>(-(min + 1)) + 1;
  if (absl::Status s = Uint(limit, &magnitude); !s.ok()) {
    pos_ = start;
    return s.message().find("larger") != absl::string_view::npos
               ? Error(absl::StrCat("integer smaller than ", min))
               : s;
  }
  *out = magnitude == 0 ? 0 : -static_cast<int64_t>(magnitude - 1) - 1;
  return absl::OkStatus();
}

absl::Status JsonLexer::Double(double* out) {
  size_t start;
  bool integral;
  if (absl::Status s = ScanNumber(&start, &integral); !s.ok()) return s;
  const std::from_chars_result r =
      std::from_chars(text_.data() + start, text_.data() + pos_, *out);
  if (r.ec == std::errc::result_out_of_range || !std::isfinite(*out)) {
    pos_ = start;
    return Error("number out of range");
  }
  if (r.ec != std::errc() || r.ptr != text_.data() + pos_) {
    pos_ = start;
    return Error("expected a number");
  }
  return absl::OkStatus();
}

absl::Status JsonLexer::Bool(bool* out) {
  SkipSpace();
  if (text_.substr(pos_, 4) == "true") {
    pos_ += 4;
    *out = true;
  } else if (text_.substr(pos_, 5) == "false") {
    pos_ += 5;
    *out = false;
  } else {
    return Error("expected true or false");
  }
  return absl::OkStatus();
}

absl::Status JsonLexer::SkipValue() { return SkipValueAtDepth(0); }

absl::Status JsonLexer::SkipValueAtDepth(int depth) {
  if (depth > kMaxDepth) return Error("nested too deeply");
  SkipSpace();
  if (pos_ >= text_.size()) return Error("expected a value");
  std::string scratch;
  absl::string_view unused;
  switch (text_[pos_]) {
    case '"':
      return String(&scratch, &unused);
    case '{': {
      ++pos_;
      if (Consume('}')) return absl::OkStatus();
      do {
        if (absl::Status s = String(&scratch, &unused); !s.ok()) return s;
        if (!Consume(':')) return Error("expected ':'");
        if (absl::Status s = SkipValueAtDepth(depth + 1); !s.ok()) return s;
      } while (Consume(','));
      return Consume('}') ? absl::OkStatus() : Error("expected ',' or '}'");
    }
    case '[': {
      ++pos_;
      if (Consume(']')) return absl::OkStatus();
      do {
        if (absl::Status s = SkipValueAtDepth(depth + 1); !s.ok()) return s;
      } while (Consume(','));
      return Consume(']') ? absl::OkStatus() : Error("expected ',' or ']'");
    }
    case 't':
    case 'f': {
      bool b;
      return Bool(&b);
    }
    case 'n':
      return ConsumeNull() ? absl::OkStatus() : Error("expected a value");
    default: {
      size_t start;
      bool integral;
      return ScanNumber(&start, &integral);
    }
  }
}

}  // namespace biosnoop::report
