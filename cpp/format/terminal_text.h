#pragma once

// Text that comes from the kernel or a file system (process names, file
// paths, disk names) written for a terminal: any byte may be in it, and a
// terminal acts on some of them (ESC starts a sequence that can move the
// cursor, retitle the window or rewrite the screen).  The rule, as GNU ls
// uses on a terminal: what is printable goes through, everything else is
// one '?' per character (or per byte, for bytes that are not UTF-8):
//   - printable ASCII (0x20..0x7e) as is;
//   - with kUtf8, a well-formed UTF-8 character the C library gives a
//     width of 1 or 2 (letters, CJK), as is; control characters (C0, DEL,
//     C1), zero-width and formatting ones (bidirectional overrides, U+200B)
//     and combining marks, unassigned code points: '?';
//   - with kAscii (a terminal whose locale is not UTF-8), every non-ASCII
//     character: '?' (its bytes could be C1 controls to such a terminal);
//   - each byte that is not part of a well-formed sequence: '?'.
// So the result holds no byte below 0x20 nor 0x7f, and its width in
// columns is known: at most one column per input byte.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace biosnoop {

enum class TerminalCharset { kAscii, kUtf8 };

// Appends `bytes` to *out by the rule above; returns the columns it takes.
size_t AppendTerminalText(absl::string_view bytes, TerminalCharset charset,
                          std::string* out);

// As AppendTerminalText, in at most `max_columns` columns: when the text is
// wider, "..." and then as much of its end as fits (a path's end names its
// file); "..." alone when max_columns is below 4.  Returns the columns.
size_t AppendTerminalTextTail(absl::string_view bytes, TerminalCharset charset,
                              size_t max_columns, std::string* out);

}  // namespace biosnoop
