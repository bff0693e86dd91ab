// SPDX-License-Identifier: Apache-2.0
// `synperf calibrate`: a correction of a model's predictions fitted on a few measurements of the same GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/data/csv.hpp>
#include <synperf/predictor/calibration.hpp>

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct calibrate_options {
    std::string fit;
    std::string apply;
    bool json = false;
};

/// Each row's GPU: the `gpu` column of a `predict … --csv` output, or one unnamed GPU without it.
std::vector<std::string> gpus_of(const data::csv_table& t) {
    std::vector<std::string> out(t.rows());
    if (!t.has_column("gpu")) return out;
    const std::size_t col = t.column("gpu");
    for (std::size_t r = 0; r < t.rows(); ++r) out[r] = std::string(t.field(r, col));
    return out;
}

/// The columns a `predict` command wrote, without the measured ones: which command (family) made the file.
std::string prediction_columns(const data::csv_table& t) {
    std::string out;
    for (auto h : t.header())
        if (h != measured_column && h != "error_pct") (out.empty() ? out : out.append(",")).append(h);
    return out;
}

/// The fits of a `--fit` file, one per GPU, and the columns of the command that wrote it.
struct gpu_fits {
    std::map<std::string, calibration_fit> fits;
    std::string columns;
};

/// One fit per GPU of the file: its `latency_us` (the prediction) against its `measured_us`.
gpu_fits fit_per_gpu(const std::string& path) {
    const data::csv_table t = data::csv_table::load(path);
    const std::size_t predicted = t.column("latency_us");
    if (!t.has_column(measured_column))
        throw load_error(path, 1, 0, "expected a column 'measured_us' (run synperf predict … --csv on a file of measured rows)");
    const std::size_t measured = t.column(measured_column);
    struct gpu_rows {
        std::vector<double> predicted, measured;
        std::size_t first_line = 0;
    };
    std::map<std::string, gpu_rows> rows;
    const std::vector<std::string> gpus = gpus_of(t);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        gpu_rows& g = rows[gpus[r]];
        if (g.predicted.empty()) g.first_line = t.line(r);
        g.predicted.push_back(t.time_us(r, predicted, 1.0));
        g.measured.push_back(t.time_us(r, measured, 1.0));
    }
    if (rows.empty()) throw load_error(path, 1, 0, "expected at least one data row after the header, got none");
    gpu_fits out{{}, prediction_columns(t)};
    for (const auto& [gpu, g] : rows) {
        if (g.predicted.size() < 2)
            throw load_error(path, g.first_line, 0,
                             fmt::format("{} has 1 measured row; a calibration needs at least 2 per GPU",
                                         gpu.empty() ? std::string("the file") : "GPU " + gpu));
        out.fits.emplace(gpu, fit_latency_calibration(g.predicted, g.measured));
        // A measured column in nanoseconds or milliseconds fits a scale of a power of ten, which no model is off by: say so.
        std::vector<double> ratios;
        for (std::size_t i = 0; i < g.predicted.size(); ++i) ratios.push_back(g.measured[i] / g.predicted[i]);
        std::nth_element(ratios.begin(), ratios.begin() + std::ptrdiff_t(ratios.size() / 2), ratios.end());
        if (const double median = ratios[ratios.size() / 2]; median > 100.0 || median < 0.01)
            fmt::print(stderr,
                       "warning: {}: the median row measured {:.3g} times the prediction: is {} in microseconds (not "
                       "nanoseconds or milliseconds)? The fit would scale every prediction by that much\n",
                       gpu.empty() ? path : "GPU " + gpu, median, measured_column);
    }
    return out;
}

nlohmann::json to_json(const std::string& gpu, const calibration_fit& f) {
    const latency_calibration& c = f.calibration;
    return {{"gpu", gpu.empty() ? nlohmann::json() : nlohmann::json(gpu)},
            {"rows", f.rows},
            {"mape_before", f.mape_before},
            {"loo_mape_after", f.loo_mape_after},
            {"form", std::string(to_string(c.form))},
            {"log_scale", c.log_scale},
            {"slope", c.slope},
            {"log_centre_us", c.log_centre},
            {"log_range_us", {c.log_low, c.log_high}}};
}

void print_fits(std::FILE* out, const std::map<std::string, calibration_fit>& fits) {
    fmt::print(out, "| GPU | measured rows | model MAPE % | calibrated MAPE % (leave-one-out) | form | correction |\n");
    fmt::print(out, "|---|---:|---:|---:|---|---|\n");
    for (const auto& [gpu, f] : fits) {
        const latency_calibration& c = f.calibration;
        std::string correction = "none";
        if (c.form == calibration_form::scale) correction = fmt::format("x {:.3f}", std::exp(c.log_scale));
        if (c.form == calibration_form::trend)
            correction = fmt::format("x {:.3f} (p / {:.3g} us)^{:+.3f}, p clamped to {:.3g}..{:.3g} us", std::exp(c.log_scale),
                                     std::exp(c.log_centre), c.slope, std::exp(c.log_low), std::exp(c.log_high));
        fmt::print(out, "| {} | {} | {:.1f} | {:.1f} | {} | {} |\n", gpu.empty() ? "-" : gpu, f.rows, f.mape_before, f.loo_mape_after,
                   to_string(c.form), correction);
    }
}

/// Writes `path` (a `predict … --csv` output) with a `calibrated_us` column: each row's latency_us corrected by its
/// GPU's fit; the fits' table goes to stderr once every row has one.
void apply_fits(const std::string& path, const gpu_fits& fitted) {
    const data::csv_table t = data::csv_table::load(path);
    // A correction belongs to one predict command: another family's errors follow another trend.
    if (prediction_columns(t) != fitted.columns)
        throw load_error(path, 1, 0,
                         fmt::format("expected the columns of the --fit file's predict command ({}), got {}: fit and apply "
                                     "outputs of the same synperf predict command",
                                     fitted.columns, prediction_columns(t)));
    if (t.rows() == 0) throw load_error(path, 1, 0, "expected at least one data row after the header, got none");
    const std::map<std::string, calibration_fit>& fits = fitted.fits;
    const std::size_t predicted = t.column("latency_us");
    std::vector<double> corrected;
    const std::vector<std::string> gpus = gpus_of(t);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        const std::string& gpu = gpus[r];
        const auto f = fits.find(gpu);
        if (f == fits.end()) {
            std::string known;
            for (const auto& [g, _] : fits) known += (known.empty() ? "" : ", ") + (g.empty() ? std::string("(no gpu column)") : g);
            throw load_error(path, t.line(r), 0, fmt::format("no calibration for GPU '{}'; the --fit file calibrates: {}", gpu, known));
        }
        // A zero latency is an op with nothing to run (an all-reduce over one GPU): it stays zero.
        corrected.push_back(t.number(r, predicted) == 0.0 ? 0.0 : f->second.calibration.apply(t.time_us(r, predicted, 1.0)));
    }
    print_fits(stderr, fits);
    std::string header;
    for (auto h : t.header()) (header.empty() ? header : header.append(",")).append(h);
    fmt::print("{},calibrated_us\n", header);
    for (std::size_t r = 0; r < t.rows(); ++r) {
        std::string row;
        for (std::size_t c = 0; c < t.header().size(); ++c) (c == 0 ? row : row.append(",")).append(t.field(r, c));
        fmt::print("{},{:.4f}\n", row, corrected[r]);
    }
}

void run_calibrate(const calibrate_options& o) {
    if (!o.apply.empty() && o.json)
        throw invalid_argument("synperf: calibrate: --json prints the fits alone; with --apply the output is the CSV");
    const gpu_fits fitted = fit_per_gpu(o.fit);
    const std::map<std::string, calibration_fit>& fits = fitted.fits;
    if (!o.apply.empty()) {
        apply_fits(o.apply, fitted);
        return;
    }
    if (o.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& [gpu, f] : fits) out.push_back(to_json(gpu, f));
        fmt::print("{}\n", nlohmann::json{{"fits", out}}.dump(2));
        return;
    }
    print_fits(stdout, fits);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
    static calibrate_options o;
    auto* cmd = app.add_subcommand(
        "calibrate",
        "correct a model's predictions with a few measurements of the same GPU: fit on the output of `synperf predict "
        "<family> --csv` for rows with measured_us, apply to another such output");
    cmd->add_option("--fit", o.fit,
                    "CSV written by `synperf predict <family> … --csv MEASURED.csv` (columns latency_us, measured_us, and gpu "
                    "for a list of GPUs: one fit per GPU)")
        ->required();
    cmd->add_option("--apply", o.apply,
                    "CSV written by `synperf predict <family> … --csv SHAPES.csv`: printed again with a calibrated_us column "
                    "(the fit's table goes to stderr)");
    cmd->add_flag("--json", o.json, "print the fits as JSON (without --apply)");
    cmd->final_callback([] { run_calibrate(o); });
}

}  // namespace synperf::cli
