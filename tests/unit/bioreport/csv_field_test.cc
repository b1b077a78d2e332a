// CSV cells of bioreport's --csv forms: one line per row, quoted where a
// comma or quote would split or end the cell, and never a formula when a
// spreadsheet opens the file.

#include "gtest/gtest.h"
#include "report.h"

namespace biosnoop::report {
namespace {

TEST(CsvFieldTest, PlainNamesStayAsTheyAre) {
  EXPECT_EQ(CsvField("vda"), "vda");
  EXPECT_EQ(CsvField("db-7"), "db-7");
  EXPECT_EQ(CsvField(""), "");
}

TEST(CsvFieldTest, CommasAndQuotesAreQuoted) {
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
}

// A host or disk name that starts like a formula: =, +, -, @ (tab and CR
// are escaped as text before this, so never reach the first character).
TEST(CsvFieldTest, WhatASpreadsheetWouldRunIsText) {
  EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(CsvField("+1"), "\"'+1\"");
  EXPECT_EQ(CsvField("-2+3"), "\"'-2+3\"");
  EXPECT_EQ(CsvField("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(CsvField("\tx"), "\\tx");
}

}  // namespace
}  // namespace biosnoop::report
