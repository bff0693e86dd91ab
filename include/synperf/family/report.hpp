// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `family::report`: what a predict command prints of one prediction, as named values (a JSON object, the
/// cells of a CSV row) and as text lines, written by the family without a formatting library; the command-line
/// front end renders them (`family::predict_command`).
#include <algorithm>
#include <array>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "synperf/predictor/prediction.hpp"

namespace synperf::family {

struct report_field;
struct report_value;

/// Named values in the order they were set: a JSON object, or the cells of a CSV row (the names its header).
class report {
public:
    report() = default;
    report(std::initializer_list<report_field> fields);
    // Defined below, where report_field is complete (a vector of an incomplete type may be declared, not copied).
    report(const report&);
    report(report&&) noexcept;
    report& operator=(const report&);
    report& operator=(report&&) noexcept;
    ~report();

    /// Sets `key`: in place when the report has it, else at the end.
    report& set(std::string_view key, report_value value);
    /// Sets every field of `other`, in its order.
    report& merge(const report& other);
    /// Removes `key`, if the report has it.
    void erase(std::string_view key);
    [[nodiscard]] const std::vector<report_field>& fields() const noexcept { return fields_; }

private:
    std::vector<report_field> fields_;
};

/// One value of a report: an integer, a number, a flag, a text, named values or a list.
struct report_value {
    std::variant<std::int64_t, double, bool, std::string, report, std::vector<report_value>> data;
    /// Decimals of a number in a CSV cell or text; negative: the shortest text that reads back as the same number.
    int decimals = -1;

    report_value(bool b) : data(b) {}  // NOLINT: implicit, as the values of a braced report are
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    report_value(I i) : data(static_cast<std::int64_t>(i)) {}  // NOLINT
    report_value(double d) : data(d) {}                         // NOLINT
    report_value(std::string s) : data(std::move(s)) {}         // NOLINT
    report_value(std::string_view s) : data(std::string(s)) {}  // NOLINT
    report_value(const char* s) : data(std::string(s)) {}       // NOLINT
    report_value(report r) : data(std::move(r)) {}              // NOLINT
    report_value(std::vector<report_value> list) : data(std::move(list)) {}  // NOLINT
};

struct report_field {
    std::string key;
    report_value value;
};

inline report::report(std::initializer_list<report_field> fields) : fields_(fields) {}
inline report::report(const report&) = default;
inline report::report(report&&) noexcept = default;
inline report& report::operator=(const report&) = default;
inline report& report::operator=(report&&) noexcept = default;
inline report::~report() = default;

inline report& report::set(std::string_view key, report_value value) {
    const auto at = std::find_if(fields_.begin(), fields_.end(), [key](const report_field& f) { return f.key == key; });
    if (at != fields_.end())
        at->value = std::move(value);
    else
        fields_.push_back({std::string(key), std::move(value)});
    return *this;
}

inline report& report::merge(const report& other) {
    for (const report_field& f : other.fields()) set(f.key, f.value);
    return *this;
}

inline void report::erase(std::string_view key) {
    std::erase_if(fields_, [key](const report_field& f) { return f.key == key; });
}

/// A number that a CSV cell prints with `places` decimals (a JSON field, in full).
[[nodiscard]] inline report_value decimal(double x, int places) {
    report_value v(x);
    v.decimals = places;
    return v;
}

/// Texts as a report list (a prediction's warnings).
[[nodiscard]] inline std::vector<report_value> list_of(const std::vector<std::string>& texts) {
    return {texts.begin(), texts.end()};
}

namespace text {

/// `x` with `places` decimals ("4.342"), as printf's %.*f prints it.
[[nodiscard]] inline std::string fixed(double x, int places) {
    std::array<char, 400> buf{};  // the longest double with a few decimals fits
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed, places).ptr;
    return {buf.data(), end};
}

/// `x` with `digits` significant digits, trailing zeros dropped ("0.0312", "1.2e+05"), as printf's %.*g prints it.
[[nodiscard]] inline std::string general(double x, int digits) {
    std::array<char, 64> buf{};
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::general, digits).ptr;
    return {buf.data(), end};
}

/// Texts and integers joined into one text. A double has no single right precision: pass it through `fixed` or
/// `general`.
template <class... Parts>
[[nodiscard]] std::string cat(const Parts&... parts) {
    std::string out;
    const auto add = [&out](const auto& part) {
        using P = std::decay_t<decltype(part)>;
        if constexpr (std::is_same_v<P, char>)
            out += part;
        else if constexpr (std::integral<P> && !std::is_same_v<P, bool>)
            out += std::to_string(part);
        else if constexpr (std::is_convertible_v<const P&, std::string_view>)
            out += std::string_view(part);
        else
            static_assert(std::is_same_v<P, char>, "text::cat takes texts and integers; format a double with fixed() or general()");
    };
    (add(parts), ...);
    return out;
}

/// `s` padded with spaces on the right to `width` characters (a left-aligned column).
[[nodiscard]] inline std::string left_aligned(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

/// `s` padded with spaces on the left to `width` characters (a right-aligned column).
[[nodiscard]] inline std::string right_aligned(std::string s, std::size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
}

/// An efficiency: three decimals, or three significant digits below 0.01 (where three decimals would print a tiny
/// efficiency as 0.000).
[[nodiscard]] inline std::string efficiency(double e) { return e >= 0.0095 ? fixed(e, 3) : general(e, 3); }

/// The main kernel's bound terms that are not zero, largest first, and its busiest SM's compute:
/// "  bound terms  tensor 4.341 | l2 4.042 us; busiest SM 4.470 us".
[[nodiscard]] inline std::string bound_terms_line(const prediction& r) {
    const kernel_report& k = r.kernels.front();
    const bound_terms& b = k.bound;
    std::array<std::pair<double, std::string_view>, 7> terms{{{b.tensor_us, "tensor"},
                                                              {b.fma_us, "fma"},
                                                              {b.xu_us, "xu"},
                                                              {b.dram_us, "dram"},
                                                              {b.l2_us, "l2"},
                                                              {b.latency_us, "latency"},
                                                              {b.launch_us, "launch"}}};
    std::stable_sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string listed;
    for (const auto& [us, name] : terms)
        if (us > 0) listed += cat(listed.empty() ? "" : " | ", name, " ", fixed(us, 3));
    return cat("  bound terms  ", listed.empty() ? "none" : listed, " us; busiest SM ", fixed(k.busiest_sm_us, 3), " us",
               r.kernels.size() > 1 ? cat(" (", k.name, ", the first of ", r.kernels.size(), " kernels)") : std::string());
}

/// A time in µs with three decimals, or three significant digits below 0.1 µs (a tiny op's bound is not 0.000).
[[nodiscard]] inline std::string microseconds(double us) { return us == 0.0 || us >= 0.1 ? fixed(us, 3) : general(us, 3); }

/// The lines a prediction's text starts with under its title: latency, efficiency, the theoretical time with the
/// pipe that bounds it, and the bound's terms.
[[nodiscard]] inline std::vector<std::string> prediction_lines(const prediction& r) {
    return {cat("  latency      ", microseconds(r.latency_us), " us"), cat("  efficiency   ", efficiency(r.efficiency)),
            cat("  theoretical  ", microseconds(r.theoretical_us), " us (bottleneck: ", r.bottleneck, ")"), bound_terms_line(r)};
}

}  // namespace text

/// A kernel's cost terms in µs: `bound_us`, the terms of its bound (`kernel_report::bound`), and `busiest_sm_us`.
/// A family of one kernel reports them beside its prediction; `kernel_fields` holds them for each kernel.
[[nodiscard]] inline report cost_terms(const kernel_report& k) {
    const bound_terms& b = k.bound;
    return {{"bound_us", report{{"tensor", b.tensor_us},
                                {"fma", b.fma_us},
                                {"xu", b.xu_us},
                                {"dram", b.dram_us},
                                {"l2", b.l2_us},
                                {"latency", b.latency_us},
                                {"launch", b.launch_us}}},
            {"busiest_sm_us", k.busiest_sm_us}};
}

/// One kernel of a prediction, with the same fields in every family: what it launched, how it was scheduled and
/// what bounds it.
[[nodiscard]] inline report kernel_fields(const kernel_report& k) {
    report out{{"name", k.name},
               {"tasks", k.tasks},
               {"waves", k.waves},
               {"ctas_per_sm", k.ctas_per_sm},
               {"busy_sms", k.busy_sms},
               {"theoretical_us", k.theoretical_us},
               {"bottleneck", k.bottleneck},
               {"imbalance", k.imbalance},
               {"kind", k.kind},
               {"priced_apart", k.priced_apart}};
    return out.merge(cost_terms(k));
}

/// Every kernel of a prediction, in launch order.
[[nodiscard]] inline std::vector<report_value> kernel_list(const prediction& r) {
    std::vector<report_value> out;
    for (const kernel_report& k : r.kernels) out.emplace_back(kernel_fields(k));
    return out;
}

/// A prediction's CSV cells: latency_us, efficiency and theoretical_us with four decimals.
[[nodiscard]] inline report prediction_cells(const prediction& r) {
    return {{"latency_us", decimal(r.latency_us, 4)}, {"efficiency", decimal(r.efficiency, 4)},
            {"theoretical_us", decimal(r.theoretical_us, 4)}};
}

}  // namespace synperf::family
