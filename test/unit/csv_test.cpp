// SPDX-License-Identifier: Apache-2.0
// The strict CSV reader every data loader and `--csv` option uses: fields, line numbers and its errors.
#include <doctest/doctest.h>

#include <string>

#include "synperf/data/csv.hpp"

using namespace std::string_literals;
using synperf::load_error;
using synperf::data::csv_table;

TEST_CASE("csv: fields, line numbers, a byte-order mark, CRLF and blank lines") {
    const csv_table t("\xEF\xBB\xBFm,n,k\r\n1,2,3\r\n\r\n4,5,6.5\r\n", "t.csv");
    REQUIRE(t.rows() == 2);
    CHECK(t.header().front() == "m");  // the mark is not part of the first name
    CHECK(t.column("k") == 2);
    CHECK(t.field(1, 2) == "6.5");
    CHECK(t.line(0) == 2);
    CHECK(t.line(1) == 4);  // the blank line still counts
    CHECK(t.positive_integer(0, 0) == 1);
    CHECK(t.number(1, 2) == 6.5);
}

TEST_CASE("csv: malformed tables name the file, the line and the cause") {
    CHECK_THROWS_WITH_AS(csv_table("m,n\n1\n", "a.csv"), doctest::Contains("a.csv:2: expected 2 fields, got 1"), load_error);
    CHECK_THROWS_WITH_AS(csv_table("m,m\n1,2\n", "b.csv"), doctest::Contains("column 'm' appears twice"), load_error);
    CHECK_THROWS_WITH_AS(csv_table("", "c.csv"), doctest::Contains("c.csv:1: expected a header line"), load_error);
    const csv_table t("m,us\n-1,nan\n", "d.csv");
    CHECK_THROWS_WITH_AS((void)t.positive_integer(0, 0), doctest::Contains("d.csv:2: column 'm': expected a positive integer"), load_error);
    CHECK_THROWS_WITH_AS((void)t.number(0, 1), doctest::Contains("d.csv:2: column 'us': expected a finite number"), load_error);
    CHECK_THROWS_WITH_AS((void)t.column("k"), doctest::Contains("expected a column 'k', got columns m,us"), load_error);
    // Integers are read whole, then range-checked: a value past 32 bits is never narrowed into a small one.
    const csv_table big("heads,tokens\n4294967424,9007199254740993\n2147483647,9007199254740992\n", "e.csv");
    CHECK_THROWS_WITH_AS((void)big.positive_int(0, 0), doctest::Contains("e.csv:2: column 'heads': expected a positive integer of at most 2^31 - 1, got '4294967424'"),
                         load_error);
    CHECK(big.positive_int(1, 0) == 2147483647);
    CHECK_THROWS_WITH_AS((void)big.positive_integer(0, 1), doctest::Contains("e.csv:2: column 'tokens': expected a positive integer of at most 2^53"),
                         load_error);
    CHECK(big.positive_integer(1, 1) == (std::int64_t{1} << 53));
}

TEST_CASE("csv: a binary, compressed or UTF-16 file is named as one, at the first control byte") {
    // gzip's magic number starts with 0x1f; an ELF executable with 0x7f.
    CHECK_THROWS_WITH_AS(csv_table("\x1f\x8b\x08"s, "shapes.csv.gz"),
                         doctest::Contains("shapes.csv.gz:1:1: expected a text CSV table, got the control byte 0x1f"), load_error);
    CHECK_THROWS_WITH_AS(csv_table("m,n\n1,\x7f"
                                   "ELF\n"s,
                                   "x.csv"),
                         doctest::Contains("x.csv:2:3: expected a text CSV table, got the control byte 0x7f"), load_error);
    CHECK_THROWS_WITH_AS(csv_table("m,n\n1,2\0\n"s, "nul.csv"),
                         doctest::Contains("nul.csv:2:4: expected a text CSV table, got the control byte 0x00"), load_error);
    CHECK_THROWS_WITH_AS(csv_table("\xFF\xFEm\0,\0n\0"s, "u16.csv"), doctest::Contains("u16.csv:1:1: expected a text CSV table in UTF-8, got UTF-16"),
                         load_error);
    // Lines ended by a carriage return alone would read as one line with a puzzling field count.
    CHECK_THROWS_WITH_AS(csv_table("m,n\r1,2\r"s, "mac.csv"),
                         doctest::Contains("mac.csv:1:4: a line ends in a carriage return alone (an old Mac text file?)"), load_error);
    CHECK(csv_table("m,n\r\n1,2\r\n", "crlf.csv").rows() == 1);
    // Tabs are text.
    CHECK(csv_table("m\tx,n\n1,2\n", "tab.csv").rows() == 1);
}
