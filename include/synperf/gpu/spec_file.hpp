// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file GPU spec files: hypothetical or modified GPUs described at run time.
///
/// Format (docs/gpus.md): one `key = value` per line; `#` starts a comment at the start of a line
/// or after whitespace; blank lines are ignored. Keys: `name` (required), `display_name`
/// (defaults to `name`), `base` (a catalogue id or alias whose numbers are the starting point),
/// and every `gpu_numbers` member by name. Without `base` every number is required; with it,
/// any subset overrides the base GPU's numbers. Numbers are parsed with std::from_chars, so the
/// format does not depend on the locale.
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "synperf/detail/regular_file.hpp"
#include "synperf/detail/text_file.hpp"
#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/gpu/runtime_gpu.hpp"

namespace synperf::gpu {

namespace detail {

/// One `gpu_numbers` member a spec file may set: exactly one of the two pointers is non-null.
struct number_field {
    std::string_view key;
    int gpu_numbers::*int_member;
    double gpu_numbers::*double_member;
};

/// Every `gpu_numbers` member, in declaration order (a unit test checks the count).
inline constexpr std::array<number_field, 25> number_fields{{
    {"cc_major", &gpu_numbers::cc_major, nullptr},
    {"cc_minor", &gpu_numbers::cc_minor, nullptr},
    {"sm_count", &gpu_numbers::sm_count, nullptr},
    {"tensor_clock_mhz", nullptr, &gpu_numbers::tensor_clock_mhz},
    {"boost_clock_mhz", nullptr, &gpu_numbers::boost_clock_mhz},
    {"tensor_bf16_flop_per_clk", nullptr, &gpu_numbers::tensor_bf16_flop_per_clk},
    {"tensor_fp8_flop_per_clk", nullptr, &gpu_numbers::tensor_fp8_flop_per_clk},
    {"tensor_fp4_flop_per_clk", nullptr, &gpu_numbers::tensor_fp4_flop_per_clk},
    {"fma_fp32_per_clk", nullptr, &gpu_numbers::fma_fp32_per_clk},
    {"xu_per_clk", nullptr, &gpu_numbers::xu_per_clk},
    {"dram_gbps", nullptr, &gpu_numbers::dram_gbps},
    {"l2_bytes", nullptr, &gpu_numbers::l2_bytes},
    {"l2_gbps", nullptr, &gpu_numbers::l2_gbps},
    {"smem_bytes_per_clk", nullptr, &gpu_numbers::smem_bytes_per_clk},
    {"smem_per_sm_bytes", &gpu_numbers::smem_per_sm_bytes, nullptr},
    {"smem_per_cta_bytes", &gpu_numbers::smem_per_cta_bytes, nullptr},
    {"regs_per_sm", &gpu_numbers::regs_per_sm, nullptr},
    {"max_regs_per_thread", &gpu_numbers::max_regs_per_thread, nullptr},
    {"max_warps_per_sm", &gpu_numbers::max_warps_per_sm, nullptr},
    {"max_threads_per_sm", &gpu_numbers::max_threads_per_sm, nullptr},
    {"max_ctas_per_sm", &gpu_numbers::max_ctas_per_sm, nullptr},
    {"max_threads_per_cta", &gpu_numbers::max_threads_per_cta, nullptr},
    {"nvlink_gbps", nullptr, &gpu_numbers::nvlink_gbps},
    {"pcie_gbps", nullptr, &gpu_numbers::pcie_gbps},
    {"memory_bytes", nullptr, &gpu_numbers::memory_bytes},
}};

/// Index into `number_fields`, or -1.
constexpr int number_field_index(std::string_view key) noexcept {
    for (std::size_t i = 0; i < number_fields.size(); ++i)
        if (number_fields[i].key == key) return static_cast<int>(i);
    return -1;
}

/// "name, display_name, base, cc_major, ..." (or without `base` for overrides).
inline std::string valid_spec_keys(bool with_base) {
    std::string s = with_base ? "name, display_name, base" : "name, display_name";
    for (const auto& f : number_fields) {
        s += ", ";
        s += f.key;
    }
    return s;
}

constexpr bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

constexpr std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

/// The line without its comment: `#` at the start or after whitespace.
constexpr std::string_view strip_comment(std::string_view line) noexcept {
    for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) return line.substr(0, i);
    return line;
}

inline std::string quoted(std::string_view s) { return str_cat({"'", s, "'"}); }

/// Whether two GPUs have the same value in every field.
inline bool same_numbers(const gpu_numbers& a, const gpu_numbers& b) noexcept {
    for (const auto& f : number_fields)
        if (f.int_member != nullptr ? a.*f.int_member != b.*f.int_member : a.*f.double_member != b.*f.double_member) return false;
    return true;
}

/// Why `name` cannot name a GPU whose numbers start from catalogue entry `start` (nullopt: none), if it cannot: a
/// catalogue GPU's id or alias names that GPU only, or a prediction would be reported under the wrong GPU (and as
/// one the model was trained on).
inline std::optional<std::string> catalogue_name_clash(std::string_view name, std::optional<std::size_t> start) {
    const auto named = find_gpu_index(name);
    if (!named || named == start) return std::nullopt;
    return str_cat({quoted(name), " is the catalogue's ", catalogue[*named].name,
                    "; a GPU described by other numbers needs a name of its own"});
}

/// Parses a non-negative finite number of type T; returns an error ("expected ..., got ...") or nothing.
template <class T>
std::optional<std::string> parse_spec_number(std::string_view text, T& out) {
    constexpr const char* what = std::is_integral_v<T> ? "a non-negative integer" : "a non-negative number";
    if (text.empty()) return str_cat({"expected ", what, ", got nothing"});
    std::string_view body = text;
    if (body.front() == '-') body.remove_prefix(1);
    std::string lower;
    for (std::size_t i = 0; i < body.size() && i < 3; ++i) lower += fold_name_char(body[i]);
    if (lower == "nan") return str_cat({"expected a finite number, got ", quoted(text), " (NaN)"});
    if (lower == "inf") return str_cat({"expected a finite number, got ", quoted(text), " (Inf)"});
    T v{};
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::invalid_argument) return str_cat({"expected ", what, ", got ", quoted(text), " (not a number)"});
    if (ec == std::errc::result_out_of_range) {
        if constexpr (std::is_integral_v<T>)
            return str_cat({"expected ", what, " of at most ", std::to_string(std::numeric_limits<T>::max()), ", got ", quoted(text)});
        else
            return str_cat({"expected ", what, " within the double range, got ", quoted(text)});
    }
    if (ptr != last)
        return str_cat({"expected ", what, ", got ", quoted(text), " (trailing characters ",
                        quoted(std::string_view(ptr, static_cast<std::size_t>(last - ptr))), ")"});
    if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(v)) return str_cat({"expected a finite number, got ", quoted(text)});
    }
    if (v < 0 || text.front() == '-') return str_cat({"expected ", what, ", got ", quoted(text), " (negative)"});
    out = v;
    return std::nullopt;
}

/// Checks a GPU id: letters, digits, '_', '-', '.'.
inline std::optional<std::string> check_gpu_id(std::string_view name) {
    bool ok = !name.empty();
    for (char c : name)
        ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.');
    if (ok) return std::nullopt;
    return str_cat({"expected an id of letters, digits, '_', '-' or '.', got ", quoted(name)});
}

/// A display name is one line of printable text: a control character (a newline, a tab) would break the
/// tables and CSV headers that print it.
inline std::optional<std::string> check_display_name(std::string_view name) {
    for (const char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return str_cat({"expected printable text, got a control character (code ", std::to_string(int(static_cast<unsigned char>(c))),
                            ")"});
    return std::nullopt;
}

/// The field a `validate` message names ("synperf: gpu_numbers: <field> ..."), if any.
inline int field_in_validate_message(std::string_view what) {
    constexpr std::string_view tag = "gpu_numbers: ";
    const auto at = what.find(tag);
    if (at == std::string_view::npos) return -1;
    std::string_view rest = what.substr(at + tag.size());
    return number_field_index(rest.substr(0, rest.find(' ')));
}

inline std::string_view without_prefix(std::string_view what) {
    constexpr std::string_view prefix = "synperf: ";
    if (what.substr(0, prefix.size()) == prefix) what.remove_prefix(prefix.size());
    return what;
}

/// Sets one number field from text; returns an error or nothing.
inline std::optional<std::string> set_number_field(gpu_numbers& n, const number_field& f, std::string_view text) {
    if (f.int_member != nullptr) return parse_spec_number(text, n.*f.int_member);
    return parse_spec_number(text, n.*f.double_member);
}

}  // namespace detail

/// Parses a GPU spec file's text; `source_name` (usually the path) prefixes every error.
/// Throws `load_error` with the line for unknown, duplicate or missing keys, malformed or
/// negative numbers, NaN/Inf, an unknown `base`, and numbers `validate` rejects.
[[nodiscard]] inline runtime_gpu parse_gpu_spec(std::string_view text, std::string_view source_name) {
    using detail::number_fields;
    const std::string src(source_name);
    constexpr std::size_t n_fields = number_fields.size();
    std::array<std::size_t, n_fields> field_line{};  // 0: not set
    gpu_numbers values{};
    std::string name, display_name, base;
    std::size_t name_line = 0, display_line = 0, base_line = 0;

    synperf::detail::require_text(text, src, "a text GPU spec file");
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte-order mark, as some editors write
    std::size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        const auto eol = text.find('\n');
        const std::string_view raw = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        const std::string_view line = detail::trim(detail::strip_comment(raw));
        if (line.empty()) continue;

        const auto eq = line.find('=');
        if (eq == std::string_view::npos)
            throw load_error(src, line_no, 0, detail::str_cat({"expected 'key = value', got ", detail::quoted(line)}));
        const std::string_view key = detail::trim(line.substr(0, eq));
        const std::string_view value = detail::trim(line.substr(eq + 1));
        if (key.empty()) throw load_error(src, line_no, 0, detail::str_cat({"expected a key before '=', got ", detail::quoted(line)}));

        std::size_t* seen = nullptr;
        const int field = detail::number_field_index(key);
        if (field >= 0) seen = &field_line[static_cast<std::size_t>(field)];
        else if (key == "name") seen = &name_line;
        else if (key == "display_name") seen = &display_line;
        else if (key == "base") seen = &base_line;
        else
            throw load_error(src, line_no, 0,
                             detail::str_cat({"unknown key ", detail::quoted(key), "; valid keys: ", detail::valid_spec_keys(true)}));
        if (*seen != 0)
            throw load_error(src, line_no, 0,
                             detail::str_cat({"duplicate key ", detail::quoted(key), " (first set on line ", std::to_string(*seen), ")"}));
        *seen = line_no;
        if (value.empty()) throw load_error(src, line_no, 0, detail::str_cat({key, ": expected a value, got nothing"}));

        if (field >= 0) {
            if (auto err = detail::set_number_field(values, number_fields[static_cast<std::size_t>(field)], value))
                throw load_error(src, line_no, 0, detail::str_cat({key, ": ", *err}));
        } else if (key == "name") {
            if (auto err = detail::check_gpu_id(value)) throw load_error(src, line_no, 0, detail::str_cat({"name: ", *err}));
            name = value;
        } else if (key == "display_name") {
            if (auto err = detail::check_display_name(value)) throw load_error(src, line_no, 0, detail::str_cat({"display_name: ", *err}));
            display_name = value;
        } else {
            base = value;
        }
    }

    if (name_line == 0) throw load_error(src, 0, 0, "missing required key 'name'");
    gpu_numbers n{};
    std::optional<std::size_t> start;  // the catalogue GPU the numbers start from
    if (base_line != 0) {
        start = detail::find_gpu_index(base);
        if (!start)
            throw load_error(src, base_line, 0,
                             detail::str_cat({"base: unknown GPU ", detail::quoted(base), "; known: ",
                                              detail::known_gpu_list()}));
        n = *detail::catalogue[*start].numbers;
    } else {
        std::string missing;
        std::size_t count = 0;
        for (std::size_t i = 0; i < n_fields; ++i) {
            if (field_line[i] != 0) continue;
            if (count++ != 0) missing += ", ";
            missing += detail::quoted(number_fields[i].key);
        }
        if (count != 0)
            throw load_error(src, 0, 0,
                             detail::str_cat({count == 1 ? "missing required key " : "missing required keys ", missing,
                                              " (without 'base' every number is required)"}));
    }
    for (std::size_t i = 0; i < n_fields; ++i) {
        if (field_line[i] == 0) continue;
        const auto& f = number_fields[i];
        if (f.int_member != nullptr) n.*f.int_member = values.*f.int_member;
        else n.*f.double_member = values.*f.double_member;
    }
    try {
        validate(n);
    } catch (const invalid_argument& e) {
        const int bad = detail::field_in_validate_message(e.what());
        const std::size_t at = bad >= 0 ? field_line[static_cast<std::size_t>(bad)] : 0;
        throw load_error(src, at, 0, std::string(detail::without_prefix(e.what())));
    }
    // Without `base`, a catalogue GPU's own numbers may carry its name (what `to_spec_text` writes for it).
    if (const auto named = detail::find_gpu_index(name); !start && named && detail::same_numbers(n, *detail::catalogue[*named].numbers))
        start = named;
    if (auto clash = detail::catalogue_name_clash(name, start)) throw load_error(src, name_line, 0, detail::str_cat({"name: ", *clash}));
    return runtime_gpu{name, display_line != 0 ? display_name : name, n};
}

/// Reads and parses a GPU spec file; I/O errors name the path and the system's reason.
[[nodiscard]] inline runtime_gpu load_gpu_spec(const std::string& path) {
    synperf::detail::require_regular_file(path, "GPU spec file");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) throw load_error(path, 0, 0, std::string("cannot open GPU spec file: ") + std::strerror(errno));
    std::string text;
    char buf[4096];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    const int err = errno;
    std::fclose(f);
    if (failed) throw load_error(path, 0, 0, std::string("cannot read GPU spec file: ") + std::strerror(err));
    return parse_gpu_spec(text, path);
}

namespace detail {

/// Sets the field one `key=value` assignment names in `g`, checking the value alone (not yet against the other fields).
inline void assign_field(runtime_gpu& g, std::string_view assignment) {
    const std::string what = str_cat({"--set ", assignment});
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos) synperf::detail::report_error(str_cat({what, ": expected key=value, got ", quoted(assignment)}));
    const std::string_view key = trim(assignment.substr(0, eq));
    const std::string_view value = trim(assignment.substr(eq + 1));
    if (const int field = number_field_index(key); field >= 0) {
        if (auto err = set_number_field(g.numbers, number_fields[static_cast<std::size_t>(field)], value))
            synperf::detail::report_error(str_cat({what, ": ", *err}));
    } else if (key == "name") {
        if (auto err = check_gpu_id(value)) synperf::detail::report_error(str_cat({what, ": ", *err}));
        if (auto clash = catalogue_name_clash(value, find_gpu_index(g.name))) synperf::detail::report_error(str_cat({what, ": ", *clash}));
        g.name = value;
    } else if (key == "display_name") {
        if (value.empty()) synperf::detail::report_error(str_cat({what, ": expected a value, got nothing"}));
        if (auto err = check_display_name(value)) synperf::detail::report_error(str_cat({what, ": ", *err}));
        g.display_name = value;
    } else {
        synperf::detail::report_error(str_cat({what, ": unknown key ", quoted(key), "; valid keys: ", valid_spec_keys(false)}));
    }
}

}  // namespace detail

/// Applies `key=value` assignments (the CLI's `--set dram_gbps=4000`), then validates the result once, so that
/// fields that constrain each other (the two clocks) can change together in any order. Keys: `name`,
/// `display_name` and every number. Throws `invalid_argument` naming the assignment for an unknown key or a bad
/// value, and the assignments for a result that fails `validate`; `g` is unchanged then.
inline void apply_overrides(runtime_gpu& g, std::span<const std::string> assignments) {
    runtime_gpu copy = g;
    std::string all;
    const auto key = [](std::string_view s) { return detail::trim(s.substr(0, s.find('='))); };
    for (std::size_t i = 0; i < assignments.size(); ++i) {
        const std::string& a = assignments[i];
        // One value per field, as in a spec file: a second one is a mistake, not an update.
        for (std::size_t j = 0; j < i; ++j)
            if (key(assignments[j]) == key(a))
                synperf::detail::report_error(detail::str_cat({"--set ", key(a), " is given twice (", detail::quoted(assignments[j]),
                                                               ", ", detail::quoted(a), ")"}));
        detail::assign_field(copy, a);
        all += detail::str_cat({all.empty() ? "--set " : ", ", a});
    }
    try {
        validate(copy.numbers);
    } catch (const invalid_argument& e) {
        synperf::detail::report_error(detail::str_cat({all, ": ", detail::without_prefix(e.what())}));
    }
    g = std::move(copy);
}

/// Applies one `key=value` assignment and re-validates (`apply_overrides` with one assignment).
inline void apply_override(runtime_gpu& g, std::string_view assignment) {
    const std::string one(assignment);
    apply_overrides(g, std::span<const std::string>(&one, 1));
}

/// The fields of `n` that lie outside the span of the catalogue's GPUs, each as "sm_count = 1024 (catalogue: 46 to 188)".
///
/// The efficiency models learned from the catalogue's GPUs; a number beyond all of them moves the features into
/// ground no training row covered, where a prediction is an extrapolation (and need not even fall as a resource
/// grows). The compute capability and the memory capacity are left out: they choose kernels and check fits, but
/// enter no feature.
[[nodiscard]] inline std::vector<std::string> fields_outside_catalogue(const gpu_numbers& n) {
    std::vector<std::string> out;
    for (const auto& f : detail::number_fields) {
        if (f.key == "cc_major" || f.key == "cc_minor" || f.key == "memory_bytes") continue;
        const auto value = [&f](const gpu_numbers& g) { return f.int_member != nullptr ? double(g.*f.int_member) : g.*f.double_member; };
        double lo = value(*detail::catalogue.front().numbers), hi = lo;
        for (const auto& e : detail::catalogue) {
            lo = std::min(lo, value(*e.numbers));
            hi = std::max(hi, value(*e.numbers));
        }
        const double v = value(n);
        if (v < lo || v > hi) {
            char buf[128];
            std::snprintf(buf, sizeof buf, " = %.6g (catalogue: %.6g to %.6g)", v, lo, hi);
            out.push_back(std::string(f.key) + buf);
        }
    }
    return out;
}

/// A complete spec file for `g` (no `base`) that parses back to identical numbers.
/// Throws `invalid_argument` if the name or display name cannot be written on one line.
[[nodiscard]] inline std::string to_spec_text(const runtime_gpu& g) {
    if (auto err = detail::check_gpu_id(g.name)) synperf::detail::report_error(detail::str_cat({"to_spec_text: name: ", *err}));
    const std::string_view display = g.display_name;
    const bool display_ok = !display.empty() && detail::trim(display) == display &&
                            detail::strip_comment(display) == display && display.find('\n') == std::string_view::npos;
    if (!display_ok)
        synperf::detail::report_error(
            detail::str_cat({"to_spec_text: display_name cannot be written on one line, got ", detail::quoted(display)}));
    std::string out = detail::str_cat({"# synperf GPU spec\nname = ", g.name, "\ndisplay_name = ", g.display_name, "\n"});
    for (const auto& f : detail::number_fields) {
        char buf[64];
        // Shortest round-trip form: parsing it back gives the identical double.
        const auto r = f.int_member != nullptr ? std::to_chars(buf, buf + sizeof buf, g.numbers.*f.int_member)
                                               : std::to_chars(buf, buf + sizeof buf, g.numbers.*f.double_member);
        out += detail::str_cat({f.key, " = ", std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), "\n"});
    }
    return out;
}

}  // namespace synperf::gpu
