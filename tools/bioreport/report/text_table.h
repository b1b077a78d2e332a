#pragma once

// Pieces of the text reports: fixed-layout tables (columns separated by two
// spaces, names left-aligned, numbers right-aligned) and names made safe to
// print in them.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace biosnoop::report {

class Table {
 public:
  // `align`: 'l' or 'r' per column.
  Table(std::vector<std::string> header, std::string align);
  void Add(std::vector<std::string> row);
  // The header and the rows, each column as wide as its widest cell
  // (counted in code points), trailing spaces removed.
  std::string Render() const;

 private:
  std::string align_;
  std::vector<std::vector<std::string>> rows_;
};

// A name as it can be printed in a table: control characters and a
// backslash escaped C-style, so that a hostile comm cannot break the layout.
std::string Printable(absl::string_view s);

}  // namespace biosnoop::report
