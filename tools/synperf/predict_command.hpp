// SPDX-License-Identifier: Apache-2.0
#pragma once
// `synperf predict <command>`: one subcommand per predict command of a family list (`family::predict_command`), built
// from what the command states: its options and CSV columns become CLI11 options and column readers, its reports
// JSON, CSV and text. One shape from the flags, or every row of a CSV file. A header, so that a program can build the
// command over a family list of its own (cmd_predict.cpp instantiates it for the built-in families).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/cost/shipped.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/family/builtin.hpp>
#include <synperf/family/command.hpp>
#include <synperf/family/report.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/models.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/common.hpp"
#include "synperf/family_commands.hpp"

namespace synperf::cli {
namespace predict_detail {

// --- what a command states, and the defaults of what it may leave out --------------------------------------------

/// Whether an option's value is a size a CSV column may set.
template <class Option>
inline constexpr bool is_size =
    std::is_same_v<typename Option::value_type, std::int64_t> || std::is_same_v<typename Option::value_type, int>;

/// The predict command of family F with the defaults of everything it may leave out.
template <class F>
struct command_of {
    using spec = family::predict_command<F>;
    using inputs = typename spec::inputs;
    using problem_type = typename F::problem_type;
    using plan_type = typename F::plan_type;
    using predicted = family::predicted<inputs, problem_type, plan_type>;

    static constexpr std::string_view name = [] {
        if constexpr (requires { spec::name; }) return std::string_view(spec::name);
        else return std::string_view(F::name);
    }();
    static constexpr family::csv_rows csv = [] {
        if constexpr (requires { spec::csv; }) return spec::csv;
        else return family::csv_rows::any_column;
    }();

    /// The families the command predicts: its own, or those it names (one problem and plan type).
    static auto families_list() {
        if constexpr (requires { typename spec::families; }) return typename spec::families{};
        else return family::list<F>{};
    }
    using families = decltype(families_list());
    static std::size_t family_of(const problem_type& p) {
        if constexpr (requires { spec::family_of(p); }) return spec::family_of(p);
        else return 0;
    }

    static std::size_t variant(const inputs& in) {
        if constexpr (requires { spec::variant(in); }) return spec::variant(in);
        else return 0;
    }
    static std::string variant_name(const inputs& in) {
        if constexpr (requires { spec::variant_name(in); }) return spec::variant_name(in);
        else return std::string(name);
    }

    static std::optional<prediction> without_model(const problem_type& p) {
        if constexpr (requires { spec::without_model(p); }) return spec::without_model(p);
        else return std::nullopt;
    }

    static_assert(std::apply([](const auto&... option) { return ((option.column_name.empty() || is_size<std::decay_t<decltype(option)>>) && ...); },
                             spec::options),
                  "a CSV column sets an integer size");

    /// Calls `fn(option)` for each of the command's options, in order.
    template <class Fn>
    static void for_each_option(Fn&& fn) {
        std::apply([&fn](const auto&... option) { (fn(option), ...); }, spec::options);
    }
};

template <class T>
inline constexpr bool is_list = false;
template <class T>
inline constexpr bool is_list<std::vector<T>> = true;

/// A command's options and inputs, as one `synperf predict` run holds them.
template <class F>
struct predict_options {
    gpu_choice gpu;
    typename command_of<F>::inputs inputs;
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

/// The shipped network of family F, or null when this build has none.
template <class F>
const mlp::network* shipped_weights() {
    if constexpr (models::has_shipped_weights<F>) return &models::shipped_network<F>();
    else return nullptr;
}

// --- options --------------------------------------------------------------------------------------------------

/// Adds `option` to `cmd`, stored in `in`.
template <class Inputs, class Option>
void add_option(CLI::App& cmd, Inputs& in, const Option& option) {
    using T = typename Option::value_type;
    auto& value = in.*option.member;
    const std::string flags(option.flags), help(option.help);
    CLI::Option* opt = nullptr;
    if constexpr (std::is_same_v<T, bool>)
        opt = cmd.add_flag(flags, value, help);
    else if constexpr (is_list<T>)
        opt = add_integer_list_option(cmd, flags, value, help);
    else
        opt = cmd.add_option(flags, value, help);
    if (option.default_shown) opt->capture_default_str();
    if (!option.choices.empty()) {
        std::vector<std::string> choices;
        for (std::string_view rest = option.choices; !rest.empty();) {
            const std::size_t space = rest.find(' ');
            choices.emplace_back(rest.substr(0, space));
            rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
        }
        opt->check(CLI::IsMember(choices));
    }
    switch (option.check) {
        case family::value_check::none: break;
        case family::value_check::positive: opt->check(positive_number()); break;
        case family::value_check::non_negative: opt->check(non_negative_number()); break;
        case family::value_check::in_range: opt->check(number_in(option.low, option.high)); break;
    }
    if (option.flag_required) opt->required();
    if (!option.excluded.empty()) opt->excludes(std::string(option.excluded));
}

/// "a", "a and b", "a, b and c".
inline std::string listed(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out.append(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ").append(names[i]);
    return out;
}

/// The `--csv` option's help: which columns the file may have.
template <class F>
std::string csv_help() {
    using C = command_of<F>;
    std::vector<std::string> columns;
    C::for_each_option([&columns](const auto& option) {
        if (option.column_name.empty()) return;
        std::string column(option.column_name);
        if (!option.column_alias.empty()) column += " (or " + std::string(option.column_alias) + ")";
        columns.push_back(column);
    });
    if (C::csv == family::csv_rows::every_column) {
        std::string joined;
        for (const std::string& c : columns) joined.append(joined.empty() ? "" : ",").append(c);
        return "CSV with columns " + joined + " (optional measured_us: error per row and a summary): predict every row";
    }
    return "CSV whose columns (any of " + comma_list(columns) +
           ") give each row's sizes; the flags give the rest; an optional measured_us column adds each row's error and a summary";
}

/// The checks of the flags alone, made once before any GPU: a `--csv` file and the sizes it replaces, sizes the
/// variant needs, options of another variant, and the command's own (`check`).
template <class F>
void check_flags(const CLI::App& cmd, const predict_options<F>& o) {
    using C = command_of<F>;
    const bool csv = !o.csv.empty();
    const family::variant_mask variant = family::variant_bit(C::variant(o.inputs));
    const auto given = [&cmd](std::string_view flag) { return cmd.get_option(std::string(flag))->count() > 0; };
    if constexpr (C::csv == family::csv_rows::every_column) {
        std::vector<std::string> sizes, missing;
        C::for_each_option([&](const auto& option) {
            if (option.column_name.empty() || (option.applies_to & variant) == 0) return;
            sizes.emplace_back(option.flag());
            if (!given(option.flag())) missing.emplace_back(option.flag());
        });
        const bool some_given = missing.size() < sizes.size();
        if (csv && some_given)
            throw invalid_argument(fmt::format("synperf: predict {}: give {}, or --csv FILE, not both", C::name, listed(sizes)));
        if (!csv && !missing.empty())
            throw invalid_argument(fmt::format("synperf: predict {}: give {}, or --csv FILE{}", C::name, listed(sizes),
                                               some_given ? fmt::format(" ({} is missing)", missing.front()) : ""));
    }
    // A size left out is named as the flag to give, not as a zero the family rejects.
    C::for_each_option([&](const auto& option) {
        if (!csv && (option.needed_in & variant) != 0 && !given(option.flag()))
            throw CLI::RequiredError(std::string(option.flag()) + " (or a --csv column)");
    });
    // An option of another variant (`--heads` for a residual add) is a mistake, not something to ignore.
    C::for_each_option([&](const auto& option) {
        if ((option.applies_to & variant) == 0 && given(option.flag()))
            throw invalid_argument(fmt::format("synperf: {}: {} does not apply to {}", C::name, option.flag(), C::variant_name(o.inputs)));
    });
    if constexpr (requires { C::spec::check(o.inputs, csv); }) C::spec::check(o.inputs, csv);
}

// --- CSV columns ------------------------------------------------------------------------------------------------

/// A size a `--csv` column sets row by row.
template <class Inputs>
struct size_column {
    std::string_view name;
    std::string_view alias;  ///< another accepted name, or empty
    bool zero_is_value = false;
    bool needed = false;     ///< the variant needs it: from the option or from the column
    std::string_view flag;   ///< the option that gives it for every row
    std::function<void(Inputs&, std::int64_t)> set;
    std::function<std::int64_t(const Inputs&)> get;

    /// The file's column for this size, if it has one.
    [[nodiscard]] std::optional<std::size_t> column_in(const data::csv_table& t) const {
        if (t.has_column(name)) return t.column(name);
        if (!alias.empty() && t.has_column(alias)) return t.column(alias);
        return std::nullopt;
    }
    [[nodiscard]] std::int64_t read(const data::csv_table& t, std::size_t row, std::size_t col) const {
        return zero_is_value ? t.non_negative_integer(row, col) : t.positive_integer(row, col);
    }
};

/// The column options of the command that apply to `variant`, in order.
template <class F>
std::vector<size_column<typename command_of<F>::inputs>> size_columns(std::size_t variant) {
    using Inputs = typename command_of<F>::inputs;
    std::vector<size_column<Inputs>> out;
    command_of<F>::for_each_option([&](const auto& option) {
        using Option = std::decay_t<decltype(option)>;
        if constexpr (is_size<Option>) {
            if (option.column_name.empty() || (option.applies_to & family::variant_bit(variant)) == 0) return;
            const auto member = option.member;
            const std::string_view name = option.column_name;
            out.push_back({name, option.column_alias, option.zero_is_value, (option.needed_in & family::variant_bit(variant)) != 0,
                           option.flag(), [member, name](Inputs& in, std::int64_t v) {
                               if constexpr (std::is_same_v<typename Option::value_type, int>) {
                                   if (v > std::numeric_limits<int>::max())
                                       throw invalid_argument("column '" + std::string(name) + "': expected at most 2^31 - 1, got " +
                                                              std::to_string(v));
                               }
                               in.*member = static_cast<typename Option::value_type>(v);
                           },
                           [member](const Inputs& in) { return std::int64_t{in.*member}; }});
        }
    });
    return out;
}

/// Checks a `--csv` file's columns: each names a size (by its name or alias, not both) or is `measured_us`, and the
/// file has data rows. With `csv_rows::every_column` every size has its column; else a size with a column must not
/// be given by its option as well (`given` holds a value other than the default): the column would silently win.
template <class F>
void check_columns(const data::csv_table& t, const std::vector<size_column<typename command_of<F>::inputs>>& sizes,
                   const typename command_of<F>::inputs& given) {
    using C = command_of<F>;
    const typename C::inputs defaults{};
    std::vector<std::string_view> known;
    for (const auto& c : sizes) {
        known.push_back(c.name);
        if (!c.alias.empty()) known.push_back(c.alias);
        if (!c.alias.empty() && t.has_column(c.name) && t.has_column(c.alias))
            throw load_error(t.source(), 1, 0, fmt::format("columns '{}' and '{}' name the same size: give one", c.name, c.alias));
        if (C::csv == family::csv_rows::any_column && c.column_in(t) && c.get(given) != c.get(defaults))
            throw load_error(t.source(), 1, 0,
                             fmt::format("column '{}' sets the size that an option also gives ({}): give it by the option for every "
                                         "row or by the column per row, not both",
                                         c.name, c.get(given)));
    }
    known.push_back(measured_column);
    t.require_known_columns(known, fmt::format("predict {}", C::name));
    // A size the op needs that neither a column nor its option gives is named, not read as a zero the family rejects.
    for (const auto& c : sizes)
        if (c.needed && !c.column_in(t) && c.get(given) == c.get(defaults))
            throw load_error(t.source(), 1, 0, fmt::format("no column '{}' and no {}: give the size by one of them", c.name, c.flag));
    if (C::csv == family::csv_rows::every_column)
        for (const auto& c : sizes)
            if (!c.column_in(t)) (void)t.column(c.name);  // the table's own error for a missing column
}

/// The problems one run predicts, each with its inputs and the line it came from (0: the flags), and the measured
/// times of a `--csv` file's `measured_us` column (else none).
template <class F>
struct problem_rows {
    std::vector<typename command_of<F>::inputs> inputs;
    std::vector<typename F::problem_type> problems;
    std::vector<std::size_t> lines;
    std::vector<double> measured_us;
};

/// The flags' problem, or one per row of the `--csv` file (each size with a column read from it, the rest from the
/// flags); `on_gpu` is what `problem` takes beside the inputs.
template <class F, class OnGpu>
problem_rows<F> read_problems(const predict_options<F>& o, const OnGpu& on_gpu) {
    using C = command_of<F>;
    problem_rows<F> out;
    if (o.csv.empty()) {
        out.inputs.push_back(o.inputs);
        out.problems.push_back(C::spec::problem(o.inputs, on_gpu));
        out.lines.push_back(0);
        return out;
    }
    const data::csv_table t = data::csv_table::load(o.csv);
    const auto sizes = size_columns<F>(C::variant(o.inputs));
    check_columns<F>(t, sizes, o.inputs);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        typename C::inputs row = o.inputs;
        for (const auto& c : sizes)
            if (const auto col = c.column_in(t)) data::at_row(t.source(), t.line(r), [&] { c.set(row, c.read(t, r, *col)); });
        out.problems.push_back(data::at_row(t.source(), t.line(r), [&] { return C::spec::problem(row, on_gpu); }));
        out.inputs.push_back(std::move(row));
        out.lines.push_back(t.line(r));
    }
    out.measured_us = measured_times(t);
    return out;
}

// --- output ---------------------------------------------------------------------------------------------------

inline nlohmann::json to_json(const family::report& r);

inline nlohmann::json to_json(const family::report_value& v) {
    return std::visit(
        [](const auto& x) -> nlohmann::json {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, family::report>) {
                return to_json(x);
            } else if constexpr (std::is_same_v<X, std::vector<family::report_value>>) {
                nlohmann::json list = nlohmann::json::array();
                for (const family::report_value& e : x) list.push_back(to_json(e));
                return list;
            } else {
                return x;
            }
        },
        v.data);
}

inline nlohmann::json to_json(const family::report& r) {
    nlohmann::json out = nlohmann::json::object();
    for (const family::report_field& f : r.fields()) out[f.key] = to_json(f.value);
    return out;
}

/// A value as a CSV cell: a number with its decimals, or as read back exactly.
inline std::string csv_cell(const family::report_value& v) {
    return std::visit(
        [&v](const auto& x) -> std::string {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, std::string>) return x;
            else if constexpr (std::is_same_v<X, double>) return v.decimals >= 0 ? fmt::format("{:.{}f}", x, v.decimals) : fmt::format("{}", x);
            else if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, bool>) return fmt::format("{}", x);
            else synperf::detail::report_error("predict: a CSV cell holds a number or a text, not a group of values");
        },
        v.data);
}

/// A `--csv` row's cells: the command's, else gpu, framework, the sizes of its columns and the prediction.
template <class F>
family::report csv_row(const typename command_of<F>::predicted& o) {
    using C = command_of<F>;
    if constexpr (requires { C::spec::csv_row(o); }) {
        return C::spec::csv_row(o);
    } else {
        family::report row{{"gpu", o.gpu.name}, {"framework", o.framework}};
        for (const auto& c : size_columns<F>(C::variant(o.inputs))) row.set(c.name, c.get(o.inputs));
        row.merge(family::prediction_cells(o.result));
        return row.set("bottleneck", o.result.bottleneck);
    }
}

/// A prediction's JSON: the fields every family has, then the command's (`json`; for a `--csv` row `json_row`, else
/// its CSV cells).
template <class G, class F>
family::report json_of(const typename command_of<F>::predicted& o, const std::vector<std::string>& warnings, bool csv_row_json) {
    using C = command_of<F>;
    const prediction& r = o.result;
    family::report out{{"gpu", o.gpu.name},
                       {"family", G::name},
                       {"framework", o.framework},
                       {"latency_us", r.latency_us},
                       {"efficiency", r.efficiency},
                       {"theoretical_us", r.theoretical_us},
                       {"bottleneck", r.bottleneck},
                       {"warnings", family::list_of(warnings)}};
    if (csv_row_json) {
        if constexpr (requires { C::spec::json_row(out, o); }) C::spec::json_row(out, o);
        else out.merge(csv_row<F>(o));
    } else if constexpr (requires { C::spec::json(out, o); }) {
        C::spec::json(out, o);
    } else {
        for (const auto& c : size_columns<F>(C::variant(o.inputs))) out.set(c.name, c.get(o.inputs));
        out.set("kernels", family::kernel_list(r));
    }
    return out;
}

/// A prediction's text: the command's, else a title, the prediction and its kernels.
template <class F>
std::vector<std::string> text_of(const typename command_of<F>::predicted& o) {
    using C = command_of<F>;
    if constexpr (requires { C::spec::text(o); }) {
        return C::spec::text(o);
    } else {
        std::vector<std::string> out{fmt::format("{} on {} ({}), framework {}", C::name, o.gpu.name, o.gpu.display_name, o.framework)};
        for (std::string& line : family::text::prediction_lines(o.result)) out.push_back(std::move(line));
        for (const kernel_report& k : o.result.kernels)
            out.push_back(fmt::format("  kernel       {}: {} tasks, {:.2f} waves, {} CTA/SM, {} SMs busy, imbalance {:.2f}", k.name, k.tasks,
                                      k.waves, k.ctas_per_sm, k.busy_sms, k.imbalance));
        return out;
    }
}

// --- running --------------------------------------------------------------------------------------------------

/// Predicts every problem with family G (of the command of F) and prints them.
template <class G, class F>
void predict_rows(const predict_options<F>& o, const gpu::runtime_gpu& g, const problem_rows<F>& rows) {
    using C = command_of<F>;
    static_assert(std::is_same_v<typename G::problem_type, typename F::problem_type> &&
                      std::is_same_v<typename G::plan_type, typename F::plan_type>,
                  "the families of one predict command share their problem and plan types");
    const std::size_t n = rows.problems.size();
    // Every problem, its framework and the GPU are checked before the model is loaded, so either is reported as such.
    std::vector<std::string> frameworks;
    bool needs_model = false;
    for (std::size_t i = 0; i < n; ++i) {
        frameworks.push_back(C::spec::framework(rows.inputs[i], rows.problems[i]));
        data::at_row(o.csv, rows.lines[i], [&] {
            (void)G::framework_level(frameworks.back());
            if (C::without_model(rows.problems[i])) return;
            needs_model = true;
            (void)G::plan(rows.problems[i], g.numbers);
        });
    }
    const auto net = predict_model(o.weights, shipped_weights<G>(), G::name);
    check_weights_for<G>(*net, o.weights);
    if (needs_model) note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<G> predictor(g.numbers, cost::mlp_cost(net));

    measured_report measured(rows.measured_us);
    json_document doc(o.json, !o.csv.empty());
    csv_warning_summary csv_warnings;
    for (std::size_t i = 0; i < n; ++i) {
        const typename F::problem_type& p = rows.problems[i];
        const std::optional<prediction> trivial = C::without_model(p);
        // Plans are built again here, row by row, so that a long file needs no memory per row.
        const prediction r = trivial ? *trivial : predictor.predict(p, frameworks[i]);
        const typename F::plan_type plan = trivial ? typename F::plan_type{} : G::plan(p, g.numbers);
        const std::vector<std::string>& warnings = r.warnings;
        const typename C::predicted out{rows.inputs[i], p, plan, r, g, frameworks[i]};
        if (o.json) {
            nlohmann::json row = to_json(json_of<G, F>(out, warnings, !o.csv.empty()));
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else if (!o.csv.empty()) {
            const family::report cells = csv_row<F>(out);
            std::string line;
            if (i == 0 && o.print_header) {
                for (const family::report_field& f : cells.fields()) line.append(line.empty() ? "" : ",").append(f.key);
                fmt::print("{}{}\n", line, measured.header_columns());
                line.clear();
            }
            for (const family::report_field& f : cells.fields()) line.append(line.empty() ? "" : ",").append(csv_cell(f.value));
            fmt::print("{}{}\n", line, measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        } else {
            for (const std::string& line : text_of<F>(out)) fmt::print("{}\n", line);
            print_warnings(warnings, g.name);
            if constexpr (requires { C::spec::notes(out); })
                for (const std::string& note : C::spec::notes(out)) fmt::print(stderr, "{}\n", note);
        }
    }
    doc.finish();
    csv_warnings.print(n, g.name);
    measured.print_summary(g.name);
}

/// One run of the command of F on one GPU.
template <class F>
void run(const predict_options<F>& o) {
    using C = command_of<F>;
    const gpu::runtime_gpu g = o.gpu.resolve();
    const family::target_gpu target{g, o.gpu.catalogue_id()};
    const problem_rows<F> rows = [&] {
        if constexpr (requires { C::spec::on_gpu(o.inputs, target); }) return read_problems(o, C::spec::on_gpu(o.inputs, target));
        else return read_problems(o, target);
    }();
    // The flags choose the family (attention's phase): every row has the first one's.
    const std::size_t chosen = C::family_of(rows.problems.front());
    for (std::size_t i = 0; i < rows.problems.size(); ++i)
        if (C::family_of(rows.problems[i]) != chosen)
            throw load_error(o.csv, rows.lines[i], 0, fmt::format("every row of one file is predicted by one family, {}",
                                                                  C::families::names[chosen]));
    C::families::visit(chosen, [&](auto type) { predict_rows<typename decltype(type)::type>(o, g, rows); });
}

/// Adds `synperf predict <name>` for the command of F.
template <class F>
void add_command(CLI::App& predict) {
    using C = command_of<F>;
    static predict_options<F> o;
    CLI::App* cmd = predict.add_subcommand(std::string(C::name), std::string(C::spec::summary));
    o.gpu.add_to(*cmd);
    C::for_each_option([cmd](const auto& option) { add_option(*cmd, o.inputs, option); });
    cmd->add_option("--csv", o.csv, csv_help<F>());
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([cmd] {
        check_flags(*cmd, o);
        for_each_listed_gpu(o, run<F>);
    });
}

}  // namespace predict_detail

template <class Families>
void add_predict_command(CLI::App& app) {
    CLI::App* predict = app.add_subcommand("predict", "predict a kernel's latency");
    predict->require_subcommand(1);
    Families::for_each([predict](auto type) {
        using F = typename decltype(type)::type;
        if constexpr (family::HasPredictCommand<F>) predict_detail::add_command<F>(*predict);
    });
}

}  // namespace synperf::cli
