// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `family::predict_command<F>`: a family's `predict` command as data (its inputs as flags and CSV columns,
/// how they make a problem, what a prediction reports), from which a front end such as the synperf CLI builds the
/// command without code of its own per family.
///
/// A specialisation, next to the family's header, states:
///
///     static constexpr std::string_view summary;  // one line for --help
///     struct inputs { ... };                      // what the flags set, with their defaults
///     static constexpr auto options = std::tuple{option("--m", &inputs::m, "rows of X").column("m"), ...};
///     static problem_type problem(const inputs&, const target_gpu&);
///     static std::string framework(const inputs&, const problem_type&);  // the framework the model is asked for
///
/// and may add what the family needs beyond that (each has a default):
///
///     static constexpr std::string_view name;                   // the command, if not F::name
///     using families = list<F, G>;                              // families that share the command and problem
///     static std::size_t family_of(const problem_type&);        // ... and which of them predicts a problem
///     static constexpr csv_rows csv = csv_rows::every_column;   // how a --csv file and the flags share the inputs
///     static std::size_t variant(const inputs&);                // the variant the flags chose (`option::only_for`)
///     static std::string variant_name(const inputs&);           // ... as the flags name it, for messages
///     static void check(const inputs&, bool csv);               // flag combinations, checked before any GPU
///     static Node on_gpu(const inputs&, const target_gpu&);     // built once per GPU; then problem(inputs, Node)
///     static std::optional<prediction> without_model(const problem_type&);  // a problem the model is not asked
///     static void json(report&, const predicted&);              // a prediction's JSON beyond every family's fields
///     static void json_row(report&, const predicted&);          // a --csv row's JSON (default: its CSV cells)
///     static report csv_row(const predicted&);                  // a --csv row's cells
///     static std::vector<std::string> text(const predicted&);   // the text of one prediction
///     static std::vector<std::string> notes(const predicted&);  // lines for stderr after the text
///
/// Every prediction's JSON has `gpu`, `family`, `framework`, `latency_us`, `efficiency`, `theoretical_us`,
/// `bottleneck` and `warnings`; `json` adds to them (and may replace or erase any). Without `csv_row`, a row is
/// gpu, framework, the column inputs and the prediction's cells; without `text`, the text is a title, the
/// prediction's lines (`text::prediction_lines`) and one line per kernel.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "synperf/family/list.hpp"
#include "synperf/family/report.hpp"
#include "synperf/gpu/runtime_gpu.hpp"
#include "synperf/predictor/prediction.hpp"

namespace synperf::family {

/// The predict command of family F; specialise it next to the family (see the file comment). Undefined: F has no
/// command of its own (another family's command may predict it, as attention's does for both phases).
template <class F>
struct predict_command;

/// Whether family F has a predict command of its own.
template <class F>
concept HasPredictCommand = requires {
    { predict_command<F>::summary } -> std::convertible_to<std::string_view>;
    typename predict_command<F>::inputs;
};

/// The variants of a command an option belongs to, a bit each (`predict_command::variant`); all by default.
using variant_mask = std::uint32_t;
inline constexpr variant_mask every_variant = ~variant_mask{0};
[[nodiscard]] constexpr variant_mask variant_bit(std::size_t variant) noexcept { return variant_mask{1} << variant; }

/// A check of an option's number, made when the command line is read.
enum class value_check { none, positive, non_negative, in_range };

/// How a `--csv` file's columns and the flags share a command's column options.
enum class csv_rows {
    any_column,    ///< the file has any of them, the flags give the rest; one given both ways is an error
    every_column,  ///< the file has every one of them and the flags none: each row is a whole problem
};

/// One option of a predict command: the flag that sets `member` of the command's inputs and, for a size, the CSV
/// column that sets it row by row. Built by `option(...)` and the modifiers below, in a `static constexpr` tuple.
template <class Inputs, class T>
struct command_option {
    using value_type = T;

    std::string_view flags;  ///< the option's names, the one messages use first ("--d,--intermediate")
    T Inputs::*member;
    std::string_view help;
    std::string_view column_name{};    ///< the CSV column that sets it per row; empty: not a column
    std::string_view column_alias{};   ///< another name the file may give that column
    bool zero_is_value = false;        ///< as a column, 0 is a value (a window of 0: none), not a missing size
    std::string_view choices{};        ///< the values it takes, separated by spaces; empty: any the family accepts
    value_check check = value_check::none;
    double low = 0, high = 0;          ///< the range of `value_check::in_range`
    bool default_shown = false;        ///< --help shows its default
    bool flag_required = false;        ///< the flag must be given, whatever the CSV file holds
    variant_mask needed_in = 0;        ///< variants that need it, from the flag or a CSV column
    variant_mask applies_to = every_variant;  ///< variants it describes; given for another, it is refused
    std::string_view excluded{};       ///< a flag it cannot be given with

    /// The name messages use: the first of `flags`.
    [[nodiscard]] constexpr std::string_view flag() const noexcept { return flags.substr(0, flags.find(',')); }

    /// A size a CSV column `name` (or `alias`) sets per row.
    [[nodiscard]] constexpr command_option column(std::string_view name, std::string_view alias = {}) const noexcept {
        command_option o = *this;
        o.column_name = name;
        o.column_alias = alias;
        return o;
    }
    /// As a column, 0 is a value.
    [[nodiscard]] constexpr command_option zero_allowed() const noexcept { return with(&command_option::zero_is_value, true); }
    /// Takes one of `values` (separated by spaces).
    [[nodiscard]] constexpr command_option one_of(std::string_view values) const noexcept { return with(&command_option::choices, values); }
    [[nodiscard]] constexpr command_option positive() const noexcept { return with(&command_option::check, value_check::positive); }
    [[nodiscard]] constexpr command_option non_negative() const noexcept {
        return with(&command_option::check, value_check::non_negative);
    }
    /// Takes a number in [lo, hi].
    [[nodiscard]] constexpr command_option within(double lo, double hi) const noexcept {
        command_option o = with(&command_option::check, value_check::in_range);
        o.low = lo;
        o.high = hi;
        return o;
    }
    [[nodiscard]] constexpr command_option show_default() const noexcept { return with(&command_option::default_shown, true); }
    [[nodiscard]] constexpr command_option required() const noexcept { return with(&command_option::flag_required, true); }
    /// The variants in `variants` need it: without a `--csv` file, the flag is required.
    [[nodiscard]] constexpr command_option needed(variant_mask variants = every_variant) const noexcept {
        return with(&command_option::needed_in, variants);
    }
    /// It describes the variants in `variants` only.
    [[nodiscard]] constexpr command_option only_for(variant_mask variants) const noexcept {
        return with(&command_option::applies_to, variants);
    }
    /// It cannot be given with `flag`.
    [[nodiscard]] constexpr command_option excludes(std::string_view flag) const noexcept { return with(&command_option::excluded, flag); }

private:
    template <class V>
    [[nodiscard]] constexpr command_option with(V command_option::*field, V value) const noexcept {
        command_option o = *this;
        o.*field = value;
        return o;
    }
};

/// An option of a predict command: `flags` set `member` of its inputs; `help` for --help.
template <class Inputs, class T>
[[nodiscard]] constexpr command_option<Inputs, T> option(std::string_view flags, T Inputs::*member, std::string_view help) noexcept {
    return {flags, member, help};
}

/// The GPU a command predicts on, as the command line chose it.
struct target_gpu {
    const gpu::runtime_gpu& gpu;
    /// The catalogue GPU it was taken from, whatever `--set` changed (its name included); empty for a spec file.
    std::string catalogue_id;
};

/// One prediction as a command prints it: the inputs (a CSV row's included), the problem, its plan and the result.
template <class Inputs, class Problem, class Plan>
struct predicted {
    const Inputs& inputs;
    const Problem& problem;
    const Plan& plan;  ///< `F::plan(problem, gpu)`; a default plan where `without_model` answered
    const prediction& result;
    const gpu::runtime_gpu& gpu;
    std::string_view framework;  ///< `framework(inputs, problem)`
};

}  // namespace synperf::family
