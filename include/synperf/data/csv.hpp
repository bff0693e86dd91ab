// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A small strict CSV reader (no quoting: the measurement tables have none) with file:line errors.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <string_view>
#include <system_error>
#include <vector>

#include "synperf/detail/regular_file.hpp"
#include "synperf/detail/text_file.hpp"
#include "synperf/error.hpp"

namespace synperf::data {

/// A CSV table held as text with views per field; rows remember their line numbers.
class csv_table {
public:
    /// Parses `text`; `source` names it in errors. Every row must have as many fields as the header.
    csv_table(std::string text, std::string source) : text_(std::move(text)), source_(std::move(source)) { parse(); }

    /// Reads and parses a file; I/O errors name the path and the system's reason.
    static csv_table load(const std::string& path) {
        synperf::detail::require_regular_file(path, "CSV table");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw load_error(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
        std::ostringstream ss;
        ss << in.rdbuf();
        return csv_table(ss.str(), path);
    }

    [[nodiscard]] const std::string& source() const noexcept { return source_; }
    [[nodiscard]] std::size_t rows() const noexcept { return lines_.size(); }
    [[nodiscard]] const std::vector<std::string_view>& header() const noexcept { return header_; }

    /// Index of a required column; a missing one is a load_error naming the columns found.
    [[nodiscard]] std::size_t column(std::string_view name) const {
        for (std::size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return i;
        std::string found;
        for (auto h : header_) {
            if (!found.empty()) found += ',';
            found += h;
        }
        std::string what = "expected a column '";
        what += name;
        what += "', got columns ";
        what += found;
        throw load_error(source_, 1, 0, what);
    }
    /// Refuses columns outside `known` (a misspelt size would otherwise be ignored and a flag's value used) and a
    /// table without data rows; `what` names the reader in the message.
    void require_known_columns(std::span<const std::string_view> known, std::string_view what) const {
        std::string list;
        for (auto k : known) (list.empty() ? list : list.append(", ")).append(k);
        for (auto h : header_)
            if (std::find(known.begin(), known.end(), h) == known.end())
                throw load_error(source_, 1, 0, "unknown column '" + std::string(h) + "' for " + std::string(what) + "; known: " + list);
        if (lines_.empty()) throw load_error(source_, 1, 0, "expected at least one data row after the header, got none");
    }
    [[nodiscard]] bool has_column(std::string_view name) const noexcept {
        for (auto h : header_)
            if (h == name) return true;
        return false;
    }
    /// Field `col` of data row `row` (0-based).
    [[nodiscard]] std::string_view field(std::size_t row, std::size_t col) const noexcept {
        return fields_[row * header_.size() + col];
    }
    /// 1-based line number of data row `row`.
    [[nodiscard]] std::size_t line(std::size_t row) const noexcept { return lines_[row]; }

    /// Field as a finite number; anything else is a load_error with file:line and the column.
    [[nodiscard]] double number(std::size_t row, std::size_t col) const {
        const std::string_view f = field(row, col);
        double v = 0;
        const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        if (ec != std::errc() || ptr != f.data() + f.size() || !std::isfinite(v))
            throw load_error(source_, line(row), 0,
                             "column '" + std::string(header_[col]) + "': expected a finite number, got '" + std::string(f) + "'");
        return v;
    }
    /// Field as a measured time in µs (`us_per_unit`: 1 for a µs column, 1000 for ms): a finite number between
    /// 1 ns and 10^6 s, which holds any kernel or collective measurement; anything else (0, a negative value, a
    /// denormal, 1e308) is a load_error with file:line and the column.
    [[nodiscard]] double time_us(std::size_t row, std::size_t col, double us_per_unit) const {
        const double us = number(row, col) * us_per_unit;
        if (!(us >= 1e-3 && us <= 1e12))
            throw load_error(source_, line(row), 0,
                             "column '" + std::string(header_[col]) + "': expected a time between 1 ns and 10^6 s" +
                                 (us_per_unit == 1.0 ? " (in µs)" : us_per_unit == 1e3 ? " (in ms)" : "") + ", got '" +
                                 std::string(field(row, col)) + "'");
        return us;
    }
    /// Runs `check` (a family's problem validation, say) for data row `row`; see `at_row`.
    template <class Check>
    decltype(auto) check_row(std::size_t row, Check&& check) const;
    /// Field as a positive integer, at most 2^53 (a count no measurement reaches; sums and products of a few such
    /// fields stay within 64 bits).
    [[nodiscard]] std::int64_t positive_integer(std::size_t row, std::size_t col) const {
        return integer_in(row, col, 1, max_count, "a positive integer", "2^53");
    }
    /// Field as an integer in 0..2^53.
    [[nodiscard]] std::int64_t non_negative_integer(std::size_t row, std::size_t col) const {
        return integer_in(row, col, 0, max_count, "an integer >= 0", "2^53");
    }
    /// Field as a positive integer that fits an `int` (heads, head sizes, GPU counts).
    [[nodiscard]] int positive_int(std::size_t row, std::size_t col) const {
        return static_cast<int>(integer_in(row, col, 1, std::numeric_limits<int>::max(), "a positive integer", "2^31 - 1"));
    }

private:
    static constexpr std::int64_t max_count = std::int64_t{1} << 53;

    /// Whether a header name reads as a number: a file whose first line is data has such names.
    [[nodiscard]] static bool looks_numeric(std::string_view name) noexcept {
        double v = 0;
        const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
        return !name.empty() && ec == std::errc() && ptr == name.data() + name.size();
    }

    [[nodiscard]] std::int64_t integer_in(std::size_t row, std::size_t col, std::int64_t least, std::int64_t most,
                                          const char* expected, const char* most_text) const {
        const std::string_view f = field(row, col);
        std::int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        const bool whole = ptr == f.data() + f.size();
        if ((ec == std::errc::result_out_of_range && whole) || (ec == std::errc() && whole && v > most))
            throw load_error(source_, line(row), 0,
                             "column '" + std::string(header_[col]) + "': expected " + expected + " of at most " + most_text +
                                 ", got '" + std::string(f) + "'");
        if (ec != std::errc() || !whole || v < least)
            throw load_error(source_, line(row), 0,
                             "column '" + std::string(header_[col]) + "': expected " + expected + ", got '" + std::string(f) + "'");
        return v;
    }

    void parse() {
        detail::require_text(text_, source_, "a text CSV table");
        std::string_view all(text_);
        std::size_t pos = all.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a UTF-8 byte-order mark, as spreadsheets write
        std::size_t line_no = 0;
        bool have_header = false;
        while (pos < all.size()) {
            std::size_t end = all.find('\n', pos);
            if (end == std::string_view::npos) end = all.size();
            std::string_view line = all.substr(pos, end - pos);
            pos = end + 1;
            ++line_no;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.empty()) continue;
            std::size_t count = 0, start = 0;
            std::vector<std::string_view>& out = have_header ? fields_ : header_;
            for (;;) {
                const std::size_t comma = line.find(',', start);
                out.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
                ++count;
                if (comma == std::string_view::npos) break;
                start = comma + 1;
            }
            if (!have_header) {
                have_header = true;
                // A repeated name would make column() answer with the first one and ignore the other.
                for (std::size_t i = 0; i < header_.size(); ++i)
                    for (std::size_t j = 0; j < i; ++j)
                        if (header_[i] == header_[j])
                            throw load_error(source_, line_no, 0, "column '" + std::string(header_[i]) + "' appears twice (columns " +
                                                                      std::to_string(j + 1) + " and " + std::to_string(i + 1) + ")" +
                                                                      (looks_numeric(header_[i]) ? "; is the header line missing?" : ""));
                continue;
            }
            if (count != header_.size())
                throw load_error(source_, line_no, 0,
                                 "expected " + std::to_string(header_.size()) + " fields, got " + std::to_string(count) +
                                     (header_.size() == 1 && count > 1 ? " (the first line must name the columns; is it a comment?)" : ""));
            lines_.push_back(line_no);
        }
        if (!have_header) throw load_error(source_, 1, 0, "expected a header line, got an empty file");
    }

    std::string text_;
    std::string source_;
    std::vector<std::string_view> header_;
    std::vector<std::string_view> fields_;
    std::vector<std::size_t> lines_;
};

/// Runs `check` for the row at `line` of `source` and returns its result: an error it throws (a family rejecting the
/// row's problem, say) becomes a load_error at that file and line, so a bad row in a large table can be found. One
/// that already names its file and line passes unchanged, and so does every error for `line` 0 (no row: the problem
/// came from elsewhere, e.g. command-line flags).
template <class Check>
decltype(auto) at_row(const std::string& source, std::size_t line, Check&& check) {
    if (line == 0) return check();
    try {
        return check();
    } catch (const load_error&) {
        throw;
    } catch (const error& e) {
        throw load_error(source, line, 0, synperf::detail::message_of(e));
    }
}

template <class Check>
decltype(auto) csv_table::check_row(std::size_t row, Check&& check) const {
    return at_row(source_, line(row), std::forward<Check>(check));
}

}  // namespace synperf::data
