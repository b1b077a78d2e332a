// Text for a terminal (terminal_text.h): whatever the bytes, nothing a
// terminal acts on gets through, and the width in columns is known.

#include "terminal_text.h"

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "json_escape.h"

namespace biosnoop {
namespace {

std::string Text(absl::string_view bytes, TerminalCharset charset,
                 size_t* columns = nullptr) {
  std::string out;
  const size_t c = AppendTerminalText(bytes, charset, &out);
  if (columns != nullptr) *columns = c;
  return out;
}

// No C0 control, DEL or C1 control (as the UTF-8 of U+0080..U+009F) in
// `s`: nothing that starts or is part of an escape sequence.
::testing::AssertionResult NoControls(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      return ::testing::AssertionFailure()
             << "byte " << int{c} << " at " << i << " of \"" << s << "\"";
    }
    if (c == 0xc2 && i + 1 < s.size()) {
      const unsigned char next = static_cast<unsigned char>(s[i + 1]);
      if (next >= 0x80 && next <= 0x9f) {
        return ::testing::AssertionFailure() << "C1 control at " << i;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(TerminalTextTest, PrintableAsciiGoesThrough) {
  std::string all;
  for (char c = 0x20; c < 0x7f; ++c) all.push_back(c);
  for (TerminalCharset cs : {TerminalCharset::kAscii, TerminalCharset::kUtf8}) {
    size_t columns = 0;
    EXPECT_EQ(Text(all, cs, &columns), all);
    EXPECT_EQ(columns, all.size());
  }
}

// Each byte alone: a printable one as itself, any other one '?'.
TEST(TerminalTextTest, EveryByteAloneIsItselfOrAQuestionMark) {
  for (int b = 0; b < 256; ++b) {
    const std::string in(1, static_cast<char>(b));
    for (TerminalCharset cs :
         {TerminalCharset::kAscii, TerminalCharset::kUtf8}) {
      size_t columns = 0;
      const std::string out = Text(in, cs, &columns);
      EXPECT_EQ(out, b >= 0x20 && b < 0x7f ? in : "?") << b;
      EXPECT_EQ(columns, 1u) << b;
    }
  }
}

// The process name the integration tests use: quotes, a backslash, a
// newline, a C0 control, DEL, bytes that are not UTF-8.
TEST(TerminalTextTest, AHostileProcessName) {
  const std::string comm = "\"q\\\n\x01\x7f\xff\xfe\xc3x";
  size_t columns = 0;
  EXPECT_EQ(Text(comm, TerminalCharset::kUtf8, &columns), "\"q\\??????x");
  EXPECT_EQ(columns, 10u);
  // An escape sequence shows as text, its ESC as '?'.
  EXPECT_EQ(Text("\x1b]0;owned\x07\x1b[2J", TerminalCharset::kUtf8),
            "?]0;owned??[2J");
}

TEST(TerminalTextTest, Utf8OnlyForAUtf8Terminal) {
  const std::string name = "caf\xc3\xa9-\xe2\x9c\x93";  // café-✓
  size_t columns = 0;
  EXPECT_EQ(Text(name, TerminalCharset::kUtf8, &columns), name);
  EXPECT_EQ(columns, 6u);
  // Each character one '?' (never its bytes: they could be C1 controls to
  // a terminal that is not UTF-8).
  EXPECT_EQ(Text(name, TerminalCharset::kAscii, &columns), "caf?-?");
  EXPECT_EQ(columns, 6u);
  // Wide characters take two columns.
  EXPECT_EQ(Text("\xe4\xb8\xad\xe6\x96\x87", TerminalCharset::kUtf8, &columns),
            "\xe4\xb8\xad\xe6\x96\x87");
  EXPECT_EQ(columns, 4u);
}

// Characters that are valid UTF-8 but act on the display, or take no
// column: one '?' each.
TEST(TerminalTextTest, ControlAndInvisibleCharactersAreQuestionMarks) {
  const struct {
    const char* bytes;
    const char* what;
  } cases[] = {
      {"\xc2\x9b", "U+009B, CSI as a C1 control"},
      {"\xc2\x85", "U+0085, next line"},
      {"\xe2\x80\xae", "U+202E, right-to-left override"},
      {"\xe2\x81\xa6", "U+2066, left-to-right isolate"},
      {"\xe2\x80\x8b", "U+200B, zero width space"},
      {"\xe2\x80\xa8", "U+2028, line separator"},
      {"\xef\xbb\xbf", "U+FEFF, byte order mark"},
      {"\xcc\x81", "U+0301, a combining accent"},
      {"\xcd\xb8", "U+0378, unassigned"},
  };
  for (const auto& c : cases) {
    size_t columns = 0;
    EXPECT_EQ(
        Text(absl::StrCat("a", c.bytes, "b"), TerminalCharset::kUtf8, &columns),
        "a?b")
        << c.what;
    EXPECT_EQ(columns, 3u) << c.what;
  }
}

// Bytes that are not UTF-8: one '?' per byte, as the JSON's U+FFFD.
TEST(TerminalTextTest, MalformedUtf8IsOneQuestionMarkPerByte) {
  EXPECT_EQ(Text("\xc0\x80", TerminalCharset::kUtf8), "??");       // overlong
  EXPECT_EQ(Text("\xed\xa0\x80", TerminalCharset::kUtf8), "???");  // surrogate
  EXPECT_EQ(Text("\xe2\x82", TerminalCharset::kUtf8), "??");       // cut short
  EXPECT_EQ(Text("\xf4\x90\x80\x80", TerminalCharset::kUtf8), "????");
  EXPECT_EQ(Text("\x80x", TerminalCharset::kUtf8), "?x");
}

// 20,000 random byte strings: never a control byte out; with kUtf8 always
// valid UTF-8, with kAscii always printable ASCII; never more columns than
// bytes in.
TEST(TerminalTextTest, RandomBytesNeverReachTheTerminalRaw) {
  std::mt19937 rng(41);
  std::uniform_int_distribution<int> len(0, 24);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 20000; ++i) {
    std::string in(static_cast<size_t>(len(rng)), '\0');
    for (char& c : in) c = static_cast<char>(byte(rng));
    size_t columns = 0;
    const std::string utf8 = Text(in, TerminalCharset::kUtf8, &columns);
    ASSERT_TRUE(NoControls(utf8));
    ASSERT_TRUE(IsValidUtf8(utf8));
    ASSERT_LE(columns, in.size());
    const std::string ascii = Text(in, TerminalCharset::kAscii, &columns);
    ASSERT_TRUE(NoControls(ascii));
    ASSERT_EQ(columns, ascii.size());
    for (char c : ascii) ASSERT_LT(static_cast<unsigned char>(c), 0x80);
  }
}

TEST(TerminalTextTest, TailKeepsTheEndWithinTheColumns) {
  const std::string path = "/var/lib/postgresql/15/main/base/16384/2608";
  std::string out;
  EXPECT_EQ(AppendTerminalTextTail(path, TerminalCharset::kUtf8, 100, &out),
            path.size());
  EXPECT_EQ(out, path);
  out.clear();
  EXPECT_EQ(AppendTerminalTextTail(path, TerminalCharset::kUtf8, 20, &out),
            20u);
  EXPECT_EQ(out, "...n/base/16384/2608");
  // A wide character is never cut in half: one column less instead.
  out.clear();
  const std::string wide = "x\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad";  // x中中中
  EXPECT_EQ(AppendTerminalTextTail(wide, TerminalCharset::kUtf8, 6, &out), 5u);
  EXPECT_EQ(out, "...\xe4\xb8\xad");
  // Too narrow for anything but the dots.
  out.clear();
  EXPECT_EQ(AppendTerminalTextTail(path, TerminalCharset::kUtf8, 2, &out), 3u);
  EXPECT_EQ(out, "...");
  // What it keeps is terminal text too.
  out.clear();
  AppendTerminalTextTail("/tmp/\x1b[2Jx/\x1b[31mfile", TerminalCharset::kUtf8,
                         12, &out);
  EXPECT_EQ(out, "...?[31mfile");
}

}  // namespace
}  // namespace biosnoop
