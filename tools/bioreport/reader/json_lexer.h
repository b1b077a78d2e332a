#pragma once

// A strict JSON (RFC 8259) lexer over one line, for the flat objects of a
// biosnoop JSON Lines stream.  Fast on what biosnoop writes (keys and values
// without escapes are returned as views into the line, no allocation) and
// complete for anything valid: every escape including \uXXXX surrogate
// pairs, nested values skipped.  Strings must be valid UTF-8; lone
// surrogates, raw control characters, leading zeros and the like are
// errors.  Errors say what was expected and at which column (1-based).

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace biosnoop::report {

class JsonLexer {
 public:
  explicit JsonLexer(absl::string_view text) : text_(text) {}

  // Skips JSON whitespace (space, tab, CR, LF).
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  // Skips whitespace; consumes `c` if it is next.
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // Skips whitespace; true when only whitespace was left.
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  // Skips whitespace; consumes a `null` literal if it is next.
  bool ConsumeNull();

  // A string value.  `*out` views the line when the string has no escapes,
  // else `*scratch`, which receives the decoded text.
  absl::Status String(std::string* scratch, absl::string_view* out);
  // A string value, decoded into `*out` (replacing its content).
  absl::Status StringInto(std::string* out);

  // An integer literal (no fraction, no exponent) in [0, max].
  absl::Status Uint(uint64_t max, uint64_t* out);
  // An integer literal in [min, max].
  absl::Status Int(int64_t min, int64_t max, int64_t* out);
  // Any number.
  absl::Status Double(double* out);
  absl::Status Bool(bool* out);
  // Any value, nested ones included (depth limited).
  absl::Status SkipValue();

  // "at column N: <what>" as an InvalidArgumentError.
  absl::Status Error(absl::string_view what) const;
  size_t position() const { return pos_; }

 private:
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }
  absl::Status DecodeEscapes(std::string* out);
  absl::Status ScanNumber(size_t* start, bool* integral);
  absl::Status SkipValueAtDepth(int depth);

  absl::string_view text_;
  size_t pos_ = 0;
};

// Lowercase or uppercase hex digits to bytes; false when malformed.
bool DecodeHex(absl::string_view hex, std::string* out);

}  // namespace biosnoop::report
