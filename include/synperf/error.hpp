// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Exceptions thrown for bad input at run time.
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace synperf {

/// Base of every error synperf throws for bad input.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bad sizes, unknown names, values out of range.
class invalid_argument : public error {
public:
    using error::error;
};

/// A malformed file (weights, GPU spec, CSV): carries the source, line and column.
class load_error : public error {
public:
    load_error(std::string source, std::size_t line, std::size_t column, const std::string& what)
        : error(format(source, line, column, what)), path_(std::move(source)), line_(line), column_(column) {}
    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] std::size_t line() const noexcept { return line_; }
    [[nodiscard]] std::size_t column() const noexcept { return column_; }

private:
    static std::string format(const std::string& source, std::size_t line, std::size_t column,
                              const std::string& what) {
        // Built with append: g++ 12 reports a false -Wrestrict on chained operator+ here at -O2.
        std::string s;
        s.reserve(source.size() + what.size() + 32);
        s.append("synperf: ").append(source);
        if (line != 0) s.append(":").append(std::to_string(line));
        if (column != 0) s.append(":").append(std::to_string(column));
        s.append(": ").append(what);
        return s;
    }
    std::string path_;
    std::size_t line_;
    std::size_t column_;
};

namespace detail {
/// An error's message without the "synperf: " every message starts with (for one that is quoted inside another).
[[nodiscard]] inline std::string message_of(const error& e) {
    std::string what = e.what();
    if (what.starts_with("synperf: ")) what.erase(0, 9);
    return what;
}

/// Every run-time throw goes through here; deliberately not constexpr, so a failed check
/// inside a constant expression becomes a compile error that points at the message.
[[noreturn]] inline void report_error(const std::string& what) { throw invalid_argument("synperf: " + what); }

/// A large count for a message, in three significant digits ("4.61e+18"): std::to_string of a double prints
/// every integer digit and six decimals.
[[nodiscard]] inline std::string approx(double count) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", count);
    return buf;
}

/// Whether `value` is none of its enum's enumerators 0 .. `last`, as an integer cast to the enum can be: read on,
/// it would pass for some default size or level.
template <class E>
[[nodiscard]] constexpr bool outside_enum(E value, E last) noexcept {
    using unsigned_type = std::make_unsigned_t<std::underlying_type_t<E>>;  // a negative value wraps past `last`
    return static_cast<unsigned_type>(value) > static_cast<unsigned_type>(last);
}

/// Throws `invalid_argument` "`what` <value>[; known: `known`]" when `value` is none of its enum's enumerators
/// 0 .. `last`: every family's `validate` starts with these checks, before an enum indexes a table. `what` is text,
/// or a callable that returns it, for a message that has to be built (only when the check fails).
template <class E, class What>
void require_enum(E value, E last, const What& what, std::string_view known = {}) {
    if (!outside_enum(value, last)) return;
    std::string message;
    if constexpr (std::is_invocable_v<const What&>)
        message = what();
    else
        message = std::string_view(what);
    message.append(" ").append(std::to_string(static_cast<long long>(static_cast<std::underlying_type_t<E>>(value))));
    if (!known.empty()) message.append("; known: ").append(known);
    report_error(message);
}

/// A number for a message, in six significant digits ("-1", "1e+30", "0.25"): std::to_string of a double prints
/// every integer digit and six decimals ("1000000000000000019884624838656.000000").
[[nodiscard]] inline std::string value_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}
}  // namespace detail

}  // namespace synperf
