// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared pieces of the synperf CLI: GPU selection, data and model locations.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/mlp/format.hpp>
#include <synperf/mlp/network.hpp>

#include <synperf/data/csv.hpp>
#include <synperf/error.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/gpu/spec_file.hpp>
#include <synperf/predictor/prediction.hpp>
#include <synperf/train/metrics.hpp>

#include "synperf/data_dir.hpp"

namespace synperf::cli {

/// Options that pick a GPU: a catalogue name or a spec file, then single-field overrides.
struct gpu_choice {
    std::string name;
    std::string spec_file;
    std::vector<std::string> overrides;

    void add_to(CLI::App& app, bool required = true) {
        auto* g = app.add_option("--gpu", name,
                                 "GPU id or alias (see `synperf gpus`); a comma-separated list, or `all`, runs the command on each");
        auto* s = app.add_option("--gpu-spec", spec_file, "GPU spec file (a hypothetical GPU)");
        g->excludes(s);
        if (required) app.callback([this] {
            if (name.empty() && spec_file.empty()) throw CLI::RequiredError("--gpu or --gpu-spec");
        });
        app.add_option("--set", overrides, "override one GPU field, e.g. --set dram_gbps=4000")->take_all();
    }
    /// Whether `s` is `all` (any case): the whole catalogue.
    [[nodiscard]] static bool is_all(std::string_view s) {
        return s.size() == 3 && std::tolower(static_cast<unsigned char>(s[0])) == 'a' &&
               std::tolower(static_cast<unsigned char>(s[1])) == 'l' && std::tolower(static_cast<unsigned char>(s[2])) == 'l';
    }
    /// Whether `--gpu` names several GPUs: a comma-separated list, or `all` (the whole catalogue).
    [[nodiscard]] bool is_list() const { return is_all(name) || name.find(',') != std::string::npos; }
    /// The GPUs of a list, in the order given (`all`, in any case and anywhere in the list: the catalogue, in its
    /// order), each once; each name is checked, so an unknown one fails before anything runs.
    [[nodiscard]] std::vector<std::string> listed_names() const {
        std::vector<std::string> names;
        const auto add = [&names](std::string id) {
            if (std::ranges::find(names, id) == names.end()) names.push_back(std::move(id));
        };
        for (std::string::size_type start = 0;;) {
            const std::string::size_type comma = name.find(',', start);
            const std::string element = name.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (element.empty()) throw invalid_argument("synperf: --gpu '" + name + "' has an empty GPU name");
            if (is_all(element))
                for (std::string_view n : gpu::known_gpu_names()) add(std::string(n));
            else
                add(gpu::find_gpu(element).name);
            if (comma == std::string::npos) return names;
            start = comma + 1;
        }
    }
    /// The catalogue id of the GPU `--gpu` names, whatever `--set` changes (its `name` included), or empty for a
    /// spec file: the GPU whose built-in node collectives run on.
    [[nodiscard]] std::string catalogue_id() const { return spec_file.empty() ? gpu::find_gpu(name).name : std::string(); }
    [[nodiscard]] gpu::runtime_gpu resolve() const {
        // Subcommands run their final callback before the check above, so the missing GPU is reported here too.
        if (name.empty() && spec_file.empty())
            throw invalid_argument("synperf: no GPU given: pass --gpu NAME (see `synperf gpus`) or --gpu-spec FILE");
        if (is_list()) throw invalid_argument("synperf: --gpu '" + name + "': this command takes one GPU");
        gpu::runtime_gpu g = spec_file.empty() ? gpu::find_gpu(name) : gpu::load_gpu_spec(spec_file);
        gpu::apply_overrides(g, overrides);
        if (!spec_file.empty() || !overrides.empty())
            for (const std::string& f : gpu::fields_outside_catalogue(g.numbers))
                fmt::print(stderr, "warning: {} GPU field {}: beyond every GPU the models learned from, so the prediction "
                                   "extrapolates (it need not even fall as a resource grows)\n", g.name, f);
        return g;
    }
};

/// The project's source directory (for models/ and the default data directory).
inline std::filesystem::path source_dir() { return std::filesystem::path(SYNPERF_SOURCE_DIR); }

/// The measured-data directory, or a clear error when there is none.
inline std::filesystem::path require_data_dir(const std::string& flag) {
    auto d = find_data_dir(flag, source_dir());
    if (d && !std::filesystem::is_directory(*d))
        throw invalid_argument("synperf: data directory '" + d->string() + "' (from " +
                               (flag.empty() ? std::string("SYNPERF_DATA") : std::string("--data")) +
                               ") is not a directory");
    if (!d)
        throw invalid_argument("synperf: no data directory: pass --data DIR or set SYNPERF_DATA (default: " +
                               (source_dir() / ".." / "shared" / "data").string() + ")");
    return *d;
}

/// Where a family's weights live: models/<family>.mlp (shipped) or models/protocol/<family>.mlp.
inline std::filesystem::path model_path(const std::string& family, bool protocol) {
    return protocol ? source_dir() / "models" / "protocol" / (family + ".mlp") : source_dir() / "models" / (family + ".mlp");
}

/// The model a `predict` command uses: `--weights` if given, else the embedded shipped model (null when this
/// build has none), else models/<family>.mlp.
inline std::shared_ptr<const mlp::network> predict_model(const std::string& weights, const mlp::network* embedded,
                                                         std::string_view family) {
    if (!weights.empty()) return std::make_shared<const mlp::network>(mlp::load_mlp(weights));
    if (embedded != nullptr) return std::shared_ptr<const mlp::network>(embedded, [](const mlp::network*) {});
    return std::make_shared<const mlp::network>(mlp::load_mlp(model_path(std::string(family), false).string()));
}

/// Refuses weights not made for family F: another family, feature list or framework levels. `weights` is the
/// command's `--weights` value (empty: the embedded model, named so in the message).
template <class F>
void check_weights_for(const mlp::network& net, const std::string& weights) {
    mlp::check_compatible(net, F::name, F::feature_names, weights.empty() ? std::string(F::name) + " model" : weights,
                          F::framework_levels);
}

/// `names` joined with ", ".
inline std::string comma_list(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

/// The GPUs a command predicted for with a model that had no measurement of them: said on stderr at once, or, during
/// a run over a `--gpu` list (`for_each_listed_gpu`), gathered and said once when the list is done.
class unmeasured_gpu_notes {
public:
    static unmeasured_gpu_notes& instance() {
        static unmeasured_gpu_notes notes;
        return notes;
    }
    /// Notes `gpu` when the trainer recorded `net`'s GPUs (`meta` `gpus=…`) and `gpu` is not among them.
    void add(const mlp::network& net, std::string_view gpu) {
        const auto trained = net.trained_gpus();
        if (!trained || std::ranges::find(*trained, gpu) != trained->end()) return;
        if (gathering_ && (pending_.empty() || (family_ == net.family && trained_ == *trained))) {
            family_ = net.family;
            trained_ = *trained;
            pending_.emplace_back(gpu);
            return;
        }
        say(net.family, *trained, {std::string(gpu)});
    }
    void gather() { gathering_ = true; }
    /// Says what was gathered and stops gathering.
    void flush() {
        if (!pending_.empty()) say(family_, trained_, pending_);
        pending_.clear();
        gathering_ = false;
    }

private:
    static void say(const std::string& family, const std::vector<std::string>& trained, const std::vector<std::string>& gpus) {
        fmt::print(stderr,
                   "note: no measurement of {} trained the {} model (its GPUs: {}): predicted from the spec alone; "
                   "'synperf eval {}' shows the accuracy on GPUs held out of training\n",
                   comma_list(gpus), family, comma_list(trained), family);
    }
    bool gathering_ = false;
    std::string family_;
    std::vector<std::string> trained_, pending_;
};

/// Says on stderr when no measurement of `gpu` trained `net` (see `unmeasured_gpu_notes`): the prediction then
/// rests on the GPU's spec alone, and `synperf eval` shows the accuracy to expect.
inline void note_unmeasured_gpu(const mlp::network& net, std::string_view gpu) { unmeasured_gpu_notes::instance().add(net, gpu); }

/// Prints a prediction's warnings on stderr, each naming its GPU (a --gpu list prints several).
inline void print_warnings(const std::vector<std::string>& warnings, std::string_view gpu) {
    for (const std::string& w : warnings) fmt::print(stderr, "warning: {}: {}\n", gpu, w);
}

/// The warnings of a `predict … --csv` run printed as CSV, whose rows have no room for them: one summary on stderr at
/// the end (how many rows, the first ten, and the first one's warnings). `--json` gives each row its own.
class csv_warning_summary {
public:
    /// Records row `i`'s (0-based, in file order) warnings.
    void add(std::size_t i, const std::vector<std::string>& warnings) {
        if (warnings.empty()) return;
        if (count_ == 0) first_ = warnings;
        if (count_ < listed_rows) rows_.push_back(i + 1);
        ++count_;
    }
    /// Prints the summary for a file of `total` rows predicted on `gpu`, if any row had warnings.
    void print(std::size_t total, std::string_view gpu) const {
        if (count_ == 0) return;
        std::string listed;
        for (std::size_t row : rows_) listed += (listed.empty() ? "" : ", ") + std::to_string(row);
        if (count_ > rows_.size()) listed += ", …";
        fmt::print(stderr, "warning: on {}, {} of {} rows have warnings ({} {}; --json gives each row's); row {}:\n", gpu, count_,
                   total, count_ == 1 ? "row" : "rows", listed, rows_.front());
        for (const std::string& w : first_) fmt::print(stderr, "  {}\n", w);
    }

private:
    static constexpr std::size_t listed_rows = 10;
    std::size_t count_ = 0;
    std::vector<std::size_t> rows_;  // the first `listed_rows` of them, 1-based
    std::vector<std::string> first_;
};

/// The optional column of a `predict … --csv FILE` that holds each row's measured latency in µs: the command
/// prints it beside the prediction (columns measured_us and error_pct, or JSON fields) and summarises the
/// errors on stderr, so a user checks the model against their own measurements with one command.
inline constexpr std::string_view measured_column = "measured_us";

/// Every row's measured µs, or none when the file has no `measured_us` column. A value that is not a time
/// between 1 ns and 10^6 s is a load_error at its file and line (`csv_table::time_us`).
inline std::vector<double> measured_times(const data::csv_table& t) {
    if (!t.has_column(measured_column)) return {};
    const std::size_t col = t.column(measured_column);
    std::vector<double> out;
    out.reserve(t.rows());
    for (std::size_t r = 0; r < t.rows(); ++r) out.push_back(t.time_us(r, col, 1.0));
    return out;
}

/// Sets the rows of a `predict … --csv` run against their measured times, when the file has them: the extra
/// CSV columns or JSON fields of each row, and the summary printed on stderr at the end (rows, MAPE, P90 and the
/// mean signed error, percent). Without measured times every member adds nothing.
class measured_report {
public:
    explicit measured_report(std::vector<double> measured_us) : measured_(std::move(measured_us)) {}

    /// The CSV header's extra columns.
    [[nodiscard]] std::string_view header_columns() const noexcept { return measured_.empty() ? "" : ",measured_us,error_pct"; }
    /// Records row `i`'s prediction; returns its extra CSV fields (no error for an op predicted to take no time, such as
    /// a collective on one GPU: it is not scored).
    [[nodiscard]] std::string csv_fields(std::size_t i, double predicted_us) {
        if (measured_.empty()) return {};
        record(i, predicted_us);
        if (!scored(i)) return fmt::format(",{:.4f},", measured_[i]);
        return fmt::format(",{:.4f},{:+.2f}", measured_[i], error_pct(i));
    }
    /// Records row `i`'s prediction and adds its measured fields to `row`.
    void add_json_fields(nlohmann::json& row, std::size_t i, double predicted_us) {
        if (measured_.empty()) return;
        record(i, predicted_us);
        row["measured_us"] = measured_[i];
        if (scored(i)) row["error_pct"] = error_pct(i);
    }
    /// Prints the summary of the scored rows recorded so far on stderr.
    void print_summary(std::string_view gpu) const {
        if (measured_.empty()) return;
        std::vector<double> predicted, measured, ratios;
        double signed_sum = 0;
        for (std::size_t i = 0; i < predicted_.size(); ++i) {
            if (!scored(i)) continue;
            predicted.push_back(predicted_[i]);
            measured.push_back(measured_[i]);
            ratios.push_back(measured_[i] / predicted_[i]);
            signed_sum += error_pct(i);
        }
        if (const std::size_t unscored = predicted_.size() - predicted.size(); unscored > 0)
            fmt::print(stderr, "measured on {}: {} rows predicted to take no time (one GPU, no communication) are not scored\n", gpu,
                       unscored);
        if (predicted.empty()) return;
        const train::error_summary s = train::summarize(predicted, measured);
        fmt::print(stderr, "measured on {}: {} rows, MAPE {:.1f} %, P90 {:.1f} %, mean signed error {:+.1f} %\n", gpu, s.n,
                   s.mape, s.p90, signed_sum / double(s.n));
        // A column in another unit (nanoseconds, milliseconds) reads as a model off by a power of ten: say so.
        std::nth_element(ratios.begin(), ratios.begin() + std::ptrdiff_t(ratios.size() / 2), ratios.end());
        if (const double median = ratios[ratios.size() / 2]; median > 100.0 || median < 0.01)
            fmt::print(stderr,
                       "warning: on {}, the median row measured {:.3g} times the prediction: is {} in microseconds (not "
                       "nanoseconds or milliseconds)?\n",
                       gpu, median, measured_column);
    }

private:
    void record(std::size_t i, double predicted_us) {
        if (i != predicted_.size()) synperf::detail::report_error("measured_report: rows must be recorded in order");
        predicted_.push_back(predicted_us);
    }
    /// Signed error of row `i`'s prediction, percent.
    [[nodiscard]] double error_pct(std::size_t i) const { return 100.0 * (predicted_[i] - measured_[i]) / measured_[i]; }
    /// Whether row `i` is scored: an op predicted to take no time has no relative error.
    [[nodiscard]] bool scored(std::size_t i) const { return predicted_[i] > 0.0; }

    std::vector<double> measured_;
    std::vector<double> predicted_;
};

/// The JSON document of a `predict` command, printed as it is made: one object for a single prediction, or, for a
/// `--csv` run, the array of every row's object, each printed when it is added. The text is what
/// `nlohmann::json::dump(2)` prints for the whole array, but only one row is held in memory. An array left open
/// by an error is closed, so one GPU's output stays a JSON document (inputs are all checked before the first row).
class json_document {
public:
    /// `enabled`: the command was given `--json` (else every member does nothing); `array`: a `--csv` run.
    json_document(bool enabled, bool array) : enabled_(enabled), array_(array) {}
    json_document(const json_document&) = delete;
    json_document& operator=(const json_document&) = delete;
    ~json_document() {
        try {
            finish();
        } catch (...) {  // closing the array while an error unwinds is best effort: the error is what gets reported
        }
    }

    void add(const nlohmann::json& row) {
        if (!enabled_) return;
        if (!array_) {
            fmt::print("{}\n", row.dump(2));
            return;
        }
        // Raw newlines in a dump are only between members (strings escape theirs): indent every line one level.
        std::string text = row.dump(2);
        std::string indented = "  ";
        indented.reserve(text.size() + text.size() / 8);
        for (const char c : text) {
            indented += c;
            if (c == '\n') indented += "  ";
        }
        fmt::print("{}{}", rows_ == 0 ? "[\n" : ",\n", indented);
        ++rows_;
    }
    /// Closes the array (`[]` when no row was added); a single object needs nothing.
    void finish() {
        if (!enabled_ || !array_ || finished_) return;
        finished_ = true;
        fmt::print("{}\n", rows_ == 0 ? "[]" : "\n]");
    }

private:
    bool enabled_;
    bool array_;
    bool finished_ = false;
    std::size_t rows_ = 0;
};

/// Runs a command once per GPU of a `--gpu` list, or once for a single GPU. A GPU the command cannot serve (no
/// FP8 tensor cores, a node smaller than the collective) says why and the others still run; with `--json` the
/// runs' documents form one array, such a GPU being {"gpu": name, "error": why}. A command that prints a header
/// (an `Options::print_header` member) prints it for the first GPU only. When no GPU of the list could run it, the
/// command fails (exit status 2) after the reasons.
template <class Options, class Run>
void for_each_listed_gpu(const Options& o, Run run) {
    if (!o.gpu.is_list()) return run(o);
    const std::vector<std::string> names = o.gpu.listed_names();
    unmeasured_gpu_notes::instance().gather();  // one note for the list, said after its runs
    if (o.json) fmt::print("[\n");
    bool csv_rows = false;  // CSV rows of every GPU form one table: no blank line between them, errors on stderr
    if constexpr (requires { o.csv; }) csv_rows = !o.csv.empty() && !o.json;
    bool header_printed = false;
    std::size_t ran = 0;
    std::vector<std::string> reasons;  // why each GPU could not run it
    for (std::size_t i = 0; i < names.size(); ++i) {
        Options one = o;
        one.gpu.name = names[i];
        if constexpr (requires { one.print_header; }) one.print_header = !header_printed;
        if (i > 0 && !csv_rows) fmt::print("{}", o.json ? ",\n" : "\n");  // a blank line between text blocks
        try {
            run(one);
            header_printed = true;  // commands check every input before they print anything
            ++ran;
        } catch (const synperf::error& e) {
            const std::string why = synperf::detail::message_of(e);
            if (std::find(reasons.begin(), reasons.end(), why) == reasons.end()) reasons.push_back(why);
            if (o.json)
                fmt::print("{}\n", nlohmann::json{{"gpu", names[i]}, {"error", why}}.dump(2));
            else
                fmt::print(csv_rows ? stderr : stdout, "{}: cannot run: {}\n", names[i], why);
        }
    }
    if (o.json) fmt::print("]\n");
    std::fflush(stdout);  // the reasons above come before the error
    unmeasured_gpu_notes::instance().flush();
    // One reason for every GPU is the input's, not the GPUs': say it.
    if (ran == 0)
        throw invalid_argument(reasons.size() == 1 ? "synperf: " + reasons.front()
                                                   : fmt::format("synperf: none of the {} listed GPUs can run this", names.size()));
}

/// The value type CLI11 names for an option ("INT", "UINT", "FLOAT", "TEXT"): its type name up to the first ':',
/// after which a check such as `CLI::Range` appends its description ("UINT:UINT in [1 - 400]").
inline std::string option_value_type(const CLI::Option& opt) {
    const std::string name = opt.get_type_name();
    return name.substr(0, name.find(':'));
}

/// Adds `check` to every option of `app` and its subcommands for which `applies(option)` holds.
template <class Applies>
void check_options(CLI::App& app, const Applies& applies, const CLI::Validator& check) {
    for (CLI::Option* opt : app.get_options())
        if (applies(*opt)) opt->check(check);
    for (CLI::App* sub : app.get_subcommands({})) check_options(*sub, applies, check);
}

/// CLI11 reads integers with strtoll(…, 0): an out-of-range value saturates and a leading 0 means octal. This
/// checks every integer option's text first: decimal digits only, within the option's 64-bit range.
inline void require_decimal_integers(CLI::App& app) {
    const auto decimal = [](bool is_unsigned) {
        return CLI::Validator(
            [is_unsigned](std::string& text) -> std::string {
                std::string_view digits = text;
                if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
                const bool negative = !digits.empty() && digits.front() == '-';
                if (negative && is_unsigned) return "expected a non-negative integer, got '" + text + "'";
                const char* first = digits.data();
                const char* last = digits.data() + digits.size();
                std::int64_t value = 0;
                const auto [end, ec] = std::from_chars(first, last, value);
                if (ec == std::errc::result_out_of_range) return "'" + text + "' is out of the 64-bit integer range";
                const std::size_t sign = negative ? 1 : 0;
                const bool leading_zero = digits.size() > sign + 1 && digits[sign] == '0';
                if (ec != std::errc{} || end != last || leading_zero)
                    return "expected a decimal integer, got '" + text + "'";
                return {};
            },
            "", "decimal integer");
    };
    check_options(app, [](const CLI::Option& o) { return option_value_type(o) == "INT"; }, decimal(false));
    check_options(app, [](const CLI::Option& o) { return option_value_type(o) == "UINT"; }, decimal(true));
}

/// Reads an option's text as a finite decimal number into `value` ("4000", "-1.5", "2e3"; as for integers, no
/// hexadecimal and no blanks): the error message, or "" when it is one.
inline std::string read_option_number(const std::string& text, double& value) {
    std::string_view digits = text;
    if (digits.starts_with('+') && !digits.starts_with("+-")) digits.remove_prefix(1);  // from_chars takes no '+'
    const char* last = digits.data() + digits.size();
    const auto [end, ec] = std::from_chars(digits.data(), last, value, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
        return "'" + text + "' is outside the double range (too large, or so small that it would read as 0)";
    if (ec == std::errc{} && end == last && !std::isfinite(value)) return "expected a finite number, got '" + text + "'";
    if (ec != std::errc{} || end != last) return "expected a number, got '" + text + "'";
    return {};
}

/// CLI11 reads "nan" and "inf" into a floating-point option, and a NaN passes every range check (each comparison
/// is false). This rejects any value of a floating-point option that is not a finite number.
inline void require_finite_numbers(CLI::App& app) {
    check_options(
        app, [](const CLI::Option& o) { return option_value_type(o) == "FLOAT"; },
        CLI::Validator(
            [](std::string& text) -> std::string {
                double value = 0;
                return read_option_number(text, value);
            },
            "", "finite number"));
}

/// A check that an option's number is above `least` (`strict`) or at least it: "must be > 0, got -1", where
/// CLI11's own PositiveNumber prints the whole double range.
inline CLI::Validator number_above(double least, bool strict) {
    return CLI::Validator(
        [least, strict](std::string& text) -> std::string {
            double value = 0;
            if (std::string error = read_option_number(text, value); !error.empty()) return error;
            if (strict ? value > least : value >= least) return {};
            return fmt::format("must be {} {}, got {}", strict ? ">" : ">=", least, text);
        },
        "", strict ? "positive" : "at least");
}
inline CLI::Validator positive_number() { return number_above(0.0, true); }
inline CLI::Validator non_negative_number() { return number_above(0.0, false); }

/// A check that an option's number lies in [lo, hi]: "must be in [1, 400], got 500" ("expected a number" for text),
/// where CLI11's Range calls text out of range and prints bounds with six decimals.
inline CLI::Validator number_in(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            double value = 0;
            if (std::string error = read_option_number(text, value); !error.empty()) return error;
            if (value >= lo && value <= hi) return {};
            return fmt::format("must be in [{}, {}], got {}", lo, hi, text);
        },
        fmt::format("in [{}, {}]", lo, hi), "in range");
}

/// Makes every option of `app` and its subcommands that takes a value reject an empty one (`--out ''`): an empty
/// path or name would otherwise fall back to the option's default, e.g. a training run writing over a shipped
/// weights file.
inline void reject_empty_values(CLI::App& app) {
    check_options(
        app, [](const CLI::Option& o) { return o.get_type_size_max() != 0; },  // not a flag
        CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "expected a value, got an empty string" : ""; },
                       "", "non-empty"));
}

/// A comma-separated list of decimal integers ("2648,3740,3012"). Every element must be one: an empty element
/// ("1,,3", a trailing comma) is an error, where CLI11's own delimiter would drop it and shift the list.
template <class Int>
std::vector<Int> parse_integer_list(std::string_view text, std::string_view option) {
    std::vector<Int> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        Int value{};
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size())
            throw invalid_argument(fmt::format("synperf: {}: expected comma-separated integers, got '{}' (element {}: '{}')", option,
                                               text, out.size() + 1, item));
        out.push_back(value);
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
    }
}

/// Adds `name` as a comma-separated integer list stored in `out` (parsed by parse_integer_list).
template <class Int>
CLI::Option* add_integer_list_option(CLI::App& cmd, const std::string& name, std::vector<Int>& out, const std::string& description) {
    return cmd.add_option_function<std::string>(
        name, [&out, name](const std::string& text) { out = parse_integer_list<Int>(text, name); }, description);
}

void add_gpus_command(CLI::App& app);
void add_ensemble_command(CLI::App& app);
void add_e2e_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);

}  // namespace synperf::cli
