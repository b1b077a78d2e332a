#pragma once

// JSON string escaping and the UTF-8 rules every output follows: strings
// are always valid UTF-8, the bytes that were not are replaced (and, for a
// comm, kept in hex beside it).

#include <string>

#include "absl/strings/string_view.h"

namespace biosnoop {

// True when `bytes` is well-formed UTF-8 (RFC 3629 / Unicode table 3-7):
// no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF,
// no truncated sequences.
bool IsValidUtf8(absl::string_view bytes);

// Appends `bytes` as a quoted JSON string that is always valid UTF-8:
//   - each well-formed UTF-8 sequence is copied unchanged;
//   - each byte that is not part of a well-formed sequence becomes U+FFFD
//     (one U+FFFD per byte; e.g. "\xe2\x82" gives two);
//   - '"' -> \"   '\' -> \\   and \n \r \t \b \f as their short escapes;
//   - any other byte below 0x20, and 0x7F, -> \u00XX (lowercase hex).
// Nothing else is escaped ('/' and non-ASCII characters pass through).
void AppendJsonString(absl::string_view bytes, std::string* out);

// Appends `bytes` as lowercase hex digits, two per byte, unquoted.
void AppendLowerHex(absl::string_view bytes, std::string* out);

// Appends `bytes` unquoted and unescaped, each byte that is not part of a
// well-formed UTF-8 sequence replaced by U+FFFD, as AppendJsonString does:
// the text a JSON reader gets back from AppendJsonString's output.  Returns
// true when some byte was replaced.
bool AppendSanitizedUtf8(absl::string_view bytes, std::string* out);

}  // namespace biosnoop
