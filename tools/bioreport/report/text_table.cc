// Table layout and Printable.  Widths count code points, not bytes, so that
// UTF-8 names keep their columns aligned.

#include "text_table.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace biosnoop::report {
namespace {

// Display width of UTF-8 text: one column per code point (what terminals
// do for the names seen here; wide CJK characters are rare in disk and
// process names).
size_t Width(absl::string_view s) {
  size_t w = 0;
  for (char c : s) w += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return w;
}

}  // namespace

Table::Table(std::vector<std::string> header, std::string align)
    : align_(std::move(align)) {
  rows_.push_back(std::move(header));
}

void Table::Add(std::vector<std::string> row) {
  rows_.push_back(std::move(row));
}

std::string Table::Render() const {
  std::vector<size_t> width(rows_[0].size(), 0);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], Width(row[c]));
    }
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - Width(row[c]), ' ');
      line += align_[c] == 'l' ? row[c] + pad : pad + row[c];
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

std::string Printable(absl::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace biosnoop::report
