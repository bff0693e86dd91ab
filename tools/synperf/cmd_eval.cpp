// SPDX-License-Identifier: Apache-2.0
// `synperf eval <family>`: leave-GPU-out accuracy of the protocol weights, with roofline and linear baselines.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/mlp/format.hpp>
#include <synperf/predictor/calibration.hpp>
#include <synperf/train/evaluation.hpp>
#include <synperf/train/metrics.hpp>
#include <synperf/train/protocol_folds.hpp>
#include <synperf/train/sample.hpp>
#include <synperf/train/source.hpp>

#include "synperf/common.hpp"
#include "synperf/family_commands.hpp"

namespace synperf::cli {
namespace {

struct eval_cli_options {
    std::string data;
    std::string weights;
    std::string dump;
    bool json = false;
    bool by_size = false;
    std::size_t calibrate = 0;  ///< rows of each held-out (GPU, framework) given to a few-shot calibration; 0: none
    std::int64_t calibrate_draw = 0;  ///< which pseudo-random draw of those rows
};

/// Held-out GPUs after the seen ones, in the protocol's order of difficulty.
int split_rank(data::split s) {
    switch (s) {
        case data::split::seen: return 0;
        case data::split::sibling: return 1;
        case data::split::unseen_sku: return 2;
        case data::split::unseen_arch: return 3;
        case data::split::loo: return 4;
    }
    return 5;
}

/// A group's rows in one bucket of measured latency, [2^k, 2^(k+1)) µs.
struct size_bucket {
    int log2_low = 0;
    std::size_t n = 0;
    double mape = 0;               ///< percent
    double bias = 0;               ///< mean signed error, percent (> 0: predicted too slow)
    double median_efficiency = 0;  ///< bound / measured
};

/// Splits a group's rows by measured latency (powers of two), so that an error can be traced to a size range.
std::vector<size_bucket> by_size(const train::evaluated_rows& gr) {
    std::map<int, std::vector<std::size_t>> rows;
    for (std::size_t i = 0; i < gr.measured.size(); ++i)
        rows[int(std::floor(std::log2(std::max(gr.measured[i], 1e-3))))].push_back(i);
    std::vector<size_bucket> out;
    for (const auto& [k, idx] : rows) {
        size_bucket b;
        b.log2_low = k;
        b.n = idx.size();
        std::vector<double> eff;
        for (std::size_t i : idx) {
            const double e = (gr.predicted[i] - gr.measured[i]) / gr.measured[i];
            b.mape += std::abs(e);
            b.bias += e;
            eff.push_back(gr.theoretical[i] / gr.measured[i]);
        }
        b.mape *= 100.0 / double(b.n);
        b.bias *= 100.0 / double(b.n);
        std::nth_element(eff.begin(), eff.begin() + std::ptrdiff_t(eff.size() / 2), eff.end());
        b.median_efficiency = eff[eff.size() / 2];
        out.push_back(b);
    }
    return out;
}

/// "[4, 8) µs" for log2_low = 2.
std::string bucket_range(int log2_low) {
    const auto bound = [](int e) { return e >= 0 ? fmt::format("{}", std::int64_t{1} << e) : fmt::format("{:g}", std::ldexp(1.0, e)); };
    return "[" + bound(log2_low) + ", " + bound(log2_low + 1) + ")";
}

/// A held-out group's few-shot calibration: its first rows in shape-hash order measured, the rest scored.
struct calibrated_result {
    std::size_t fitted = 0, scored = 0;  ///< rows given to the fit; rows scored (the rest)
    double mape_before = 0;              ///< the model alone on the scored rows, percent
    double mape = 0;                     ///< calibrated, on the scored rows, percent
    calibration_form form = calibration_form::none;
};

/// Fits `fitted` rows of a group, the first in the order of their shape hashes mixed with `draw` (a fixed
/// pseudo-random draw), and scores the others; empty when the group has fewer than twice as many rows.
std::optional<calibrated_result> calibrate_group(const train::evaluated_rows& gr, std::size_t fitted, std::int64_t draw) {
    const std::size_t n = gr.measured.size();
    if (fitted < 2 || n < 2 * fitted) return std::nullopt;
    std::vector<std::pair<std::uint64_t, std::size_t>> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = {data::shape_hash({static_cast<std::int64_t>(gr.row_hash[i]), draw}), i};
    std::sort(order.begin(), order.end());
    std::vector<double> fit_pred, fit_meas, ours, calibrated, measured;
    for (std::size_t j = 0; j < fitted; ++j) {
        fit_pred.push_back(gr.predicted[order[j].second]);
        fit_meas.push_back(gr.measured[order[j].second]);
    }
    const calibration_fit fit = fit_latency_calibration(fit_pred, fit_meas);
    for (std::size_t j = fitted; j < n; ++j) {
        const std::size_t i = order[j].second;
        ours.push_back(gr.predicted[i]);
        calibrated.push_back(fit.calibration.apply(gr.predicted[i]));
        measured.push_back(gr.measured[i]);
    }
    return calibrated_result{fitted, n - fitted, train::summarize(ours, measured).mape, train::summarize(calibrated, measured).mape,
                             fit.calibration.form};
}

/// One (GPU, framework) row of a family's evaluation.
struct line {
    std::string gpu, framework, kernels;
    data::split label;
    train::error_summary ours, roof, lin;
    double above_one;
    bool flagged;
    std::vector<size_bucket> sizes;
    std::optional<calibrated_result> calibrated;  ///< held-out rows with `--calibrate`
};

/// A family's evaluation: its rows in the protocol's order, the weights' description and the loader's notes.
struct family_eval {
    std::vector<line> lines;
    std::string weights;
    std::vector<std::string> notes;
};

/// Evaluates a family's protocol weights and both baselines on every row its protocol evaluates (for `eval <family>`
/// and `eval summary`).
family_eval evaluate_family(const train::family_source& fam, const eval_cli_options& o) {
    const std::string base = o.weights.empty() ? model_path(fam.name, true).string() : o.weights;
    const std::vector<train::protocol_fold> folds = train::protocol_folds(fam);
    // The kernels each fold's weights price; a missing or bad file fails before the data is read.
    std::vector<work::kernel_kind_set> priced;
    for (const auto& fold : folds) {
        try {
            const mlp::network net = mlp::load_mlp(train::fold_path(base, fold));
            priced.push_back(net.trained_kernels ? work::kernel_kind_set(*net.trained_kernels) : work::kernel_kind_set{});
        } catch (const load_error& e) {
            if (fold.held_out_gpu.empty()) throw;
            throw invalid_argument(std::string(e.what()) + " (the fold without " + fold.held_out_gpu + ": leave-one-GPU-out weights are " +
                                   train::fold_path(base, {".loo-<gpu>", ""}) + ", one per held-out GPU)");
        }
    }
    const auto dir = require_data_dir(o.data);
    // Opened before the data load, so a bad path fails at once.
    std::FILE* dump = o.dump.empty() ? nullptr : std::fopen(o.dump.c_str(), "w");
    if (!o.dump.empty() && dump == nullptr)
        throw invalid_argument("synperf: cannot write --dump file " + o.dump + ": " + std::strerror(errno));
    const data::protocol proto = fam.protocol();
    family_eval out;
    // The rows are analyzed once per set of priced kernels among the folds (once, unless folds' weights differ).
    std::vector<std::pair<const work::kernel_kind_set*, std::vector<train::sample>>> analyses;
    for (const work::kernel_kind_set& set : priced) {
        if (std::any_of(analyses.begin(), analyses.end(), [&set](const auto& a) { return *a.first == set; })) continue;
        std::vector<std::string> notes;
        analyses.emplace_back(&set, fam.load(dir, proto, set, notes));
        if (analyses.size() == 1) out.notes = std::move(notes);
    }
    // A GPU the protocol names whose measurements are missing, or a header without rows, would leave the table without
    // its row and say nothing: say it.
    std::vector<std::string> protocol_gpus = proto.train;
    for (const auto& held : proto.held_out) protocol_gpus.push_back(held.first);
    std::string without_rows;
    for (const std::string& gpu : protocol_gpus)
        if (!analyses.empty() &&
            std::none_of(analyses.front().second.begin(), analyses.front().second.end(), [&gpu](const train::sample& s) { return s.gpu == gpu; }))
            without_rows += (without_rows.empty() ? "" : ", ") + gpu;
    if (!without_rows.empty())
        out.notes.push_back("no measured row of " + without_rows + " (their files are missing or hold no data rows): the table has no row for them");

    train::evaluation groups;
    if (dump != nullptr) {
        fmt::print(dump, "gpu,framework,kernel,split,measured_us,predicted_us,theoretical_us,kernel_floor_us,priced_apart_us");
        for (const auto& f : fam.feature_names) fmt::print(dump, ",{}", f);
        fmt::print(dump, "\n");
    }
    for (std::size_t i = 0; i < folds.size(); ++i) {
        const auto analysis = std::find_if(analyses.begin(), analyses.end(), [&](const auto& a) { return *a.first == priced[i]; });
        const std::string weights = train::fold_path(base, folds[i]);
        train::evaluate_fold(fam, folds[i], mlp::load_mlp(weights), weights, analysis->second, groups,
                             [dump](const train::sample& s, data::split label, double predicted_us) {
                                 if (dump == nullptr) return;
                                 fmt::print(dump, "{},{},{},{},{},{},{},{},{}", s.gpu, s.framework, s.kernel, data::to_string(label),
                                            s.latency_us, predicted_us, s.theoretical_us, s.kernel_floor_us, s.priced_apart_us);
                                 for (double f : s.features) fmt::print(dump, ",{:.6g}", f);
                                 fmt::print(dump, "\n");
                             });
    }
    if (dump != nullptr) std::fclose(dump);
    out.weights = folds.size() == 1 ? base : train::fold_path(base, train::protocol_fold{".loo-<gpu>", ""});

    for (const auto& [key, gr] : groups) {
        std::string kernels;
        for (const auto& k : gr.kernels) kernels += (kernels.empty() ? "" : "+") + k;
        if (gr.priced_apart > 0) {
            std::string kinds;
            for (const auto& k : gr.priced_apart_kinds) kinds += (kinds.empty() ? "" : ", ") + k;
            out.notes.push_back(fmt::format("{} / {}: {} of {} rows price kernels apart, at their own floor ({}: no training "
                                            "op of the weights ran one)",
                                            key.first, key.second, gr.priced_apart, gr.measured.size(), kinds));
        }
        out.lines.push_back({key.first, key.second, kernels, gr.label, train::summarize(gr.predicted, gr.measured),
                             train::summarize(gr.roofline, gr.measured), train::summarize(gr.linear, gr.measured),
                             100.0 * double(gr.above_one) / double(gr.measured.size()), gr.flagged > 0,
                             o.by_size ? by_size(gr) : std::vector<size_bucket>{},
                             o.calibrate > 0 && gr.label != data::split::seen ? calibrate_group(gr, o.calibrate, o.calibrate_draw) : std::nullopt});
    }
    std::sort(out.lines.begin(), out.lines.end(), [](const line& a, const line& b) {
        return std::tuple(split_rank(a.label), a.gpu, a.framework) < std::tuple(split_rank(b.label), b.gpu, b.framework);
    });
    return out;
}

void run_eval(const train::family_source& fam, const eval_cli_options& o) {
    const family_eval ev = evaluate_family(fam, o);
    const std::vector<line>& lines = ev.lines;
    const std::string& weights = ev.weights;
    const std::vector<std::string>& notes = ev.notes;

    if (o.json) {
        nlohmann::json out;
        out["family"] = fam.name;
        out["weights"] = weights;
        out["rows"] = nlohmann::json::array();
        for (const auto& l : lines) {
            nlohmann::json row{{"gpu", l.gpu}, {"framework", l.framework}, {"split", std::string(data::to_string(l.label))},
                               {"n", l.ours.n}, {"mape", l.ours.mape}, {"p90", l.ours.p90},
                               {"roofline_mape", l.roof.mape}, {"linear_mape", l.lin.mape},
                               {"efficiency_above_1_pct", l.above_one}, {"kernel", l.kernels}};
            if (fam.flag) row["flagged"] = l.flagged;
            if (o.by_size) {
                row["by_size"] = nlohmann::json::array();
                for (const auto& b : l.sizes)
                    row["by_size"].push_back({{"measured_us_from", std::ldexp(1.0, b.log2_low)},
                                              {"measured_us_to", std::ldexp(1.0, b.log2_low + 1)}, {"n", b.n},
                                              {"mape", b.mape}, {"bias", b.bias},
                                              {"median_efficiency", b.median_efficiency}});
            }
            if (l.calibrated)
                row["calibrated"] = {{"fitted_rows", l.calibrated->fitted}, {"scored_rows", l.calibrated->scored},
                                     {"mape_before", l.calibrated->mape_before}, {"mape", l.calibrated->mape},
                                     {"form", std::string(to_string(l.calibrated->form))}};
            out["rows"].push_back(std::move(row));
        }
        out["notes"] = notes;
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("synperf eval {} — protocol weights {}; MAPE and P90 of latency, percent\n", fam.name, weights);
    fmt::print("| GPU | framework | kernel | split | rows | synperf MAPE | synperf P90 | roofline MAPE | linear MAPE | eff>1 % |\n");
    fmt::print("|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    double seen_sum = 0, seen_p90 = 0;
    int seen_n = 0;
    for (const auto& l : lines) {
        fmt::print("| {} | {} | {}{} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} |\n", l.gpu, l.framework, l.kernels,
                   l.flagged ? " †" : "", data::to_string(l.label), l.ours.n, l.ours.mape, l.ours.p90, l.roof.mape,
                   l.lin.mape, l.above_one);
        if (l.label == data::split::seen) {
            seen_sum += l.ours.mape;
            seen_p90 += l.ours.p90;
            ++seen_n;
        }
    }
    if (seen_n > 0) fmt::print("\nseen mean over (GPU, framework): MAPE {:.1f} %, P90 {:.1f} %\n", seen_sum / seen_n, seen_p90 / seen_n);
    if (fam.flag && !fam.flag_meaning.empty()) fmt::print("† {}\n", fam.flag_meaning);
    for (const auto& n : notes) fmt::print("note: {}\n", n);
    if (o.calibrate > 0) {
        fmt::print("\nFew-shot calibration (--calibrate {}, draw {}): that many rows of each held-out (GPU, framework), drawn by "
                   "shape hash, fit a correction of the predictions (predictor/calibration.hpp); MAPE on the other rows, percent\n",
                   o.calibrate, o.calibrate_draw);
        fmt::print("| GPU | framework | split | rows scored | synperf MAPE | calibrated MAPE | form |\n");
        fmt::print("|---|---|---|---:|---:|---:|---|\n");
        for (const auto& l : lines) {
            if (l.label == data::split::seen) continue;
            if (!l.calibrated) {
                fmt::print("| {} | {} | {} | — | — | — | fewer than {} rows |\n", l.gpu, l.framework, data::to_string(l.label),
                           2 * o.calibrate);
                continue;
            }
            const calibrated_result& c = *l.calibrated;
            fmt::print("| {} | {} | {} | {} | {:.1f} | {:.1f} | {} |\n", l.gpu, l.framework, data::to_string(l.label), c.scored,
                       c.mape_before, c.mape, to_string(c.form));
        }
    }
    if (!o.by_size) return;
    fmt::print("\nBy measured latency: rows, MAPE, mean signed error (> 0: predicted too slow), median efficiency (bound / measured)\n");
    fmt::print("| GPU | framework | split | measured µs | rows | synperf MAPE | bias | median efficiency |\n");
    fmt::print("|---|---|---|---|---:|---:|---:|---:|\n");
    for (const auto& l : lines)
        for (const auto& b : l.sizes)
            fmt::print("| {} | {} | {} | {} | {} | {:.1f} | {:+.1f} | {:.3f} |\n", l.gpu, l.framework, data::to_string(l.label),
                       bucket_range(b.log2_low), b.n, b.mape, b.bias, b.median_efficiency);
}

/// `synperf eval summary`: one line per family — the seen mean and, per held-out split, the worst (GPU, framework)
/// row, and how many held-out rows beat the two baselines — from the same evaluation as `synperf eval <family>`.
void run_eval_summary(const std::vector<train::family_source>& sources, const eval_cli_options& o) {
    constexpr std::array<data::split, 4> held_out{data::split::sibling, data::split::unseen_sku, data::split::unseen_arch,
                                                  data::split::loo};
    nlohmann::json families = nlohmann::json::array();
    std::vector<std::string> rows;
    for (const train::family_source& fam : sources) {
        const family_eval ev = evaluate_family(fam, o);
        double seen_sum = 0, seen_p90 = 0;
        int seen_n = 0, held = 0, beat_roof = 0, beat_lin = 0;
        std::array<const line*, held_out.size()> worst{};
        for (const line& l : ev.lines) {
            if (l.label == data::split::seen) {
                seen_sum += l.ours.mape;
                seen_p90 += l.ours.p90;
                ++seen_n;
                continue;
            }
            ++held;
            if (l.ours.mape < l.roof.mape) ++beat_roof;
            if (l.ours.mape < l.lin.mape) ++beat_lin;
            for (std::size_t i = 0; i < held_out.size(); ++i)
                if (l.label == held_out[i] && (worst[i] == nullptr || l.ours.mape > worst[i]->ours.mape)) worst[i] = &l;
        }
        nlohmann::json f{{"family", fam.name}, {"held_out_rows", held}, {"better_than_roofline", beat_roof},
                         {"better_than_linear", beat_lin}};
        std::string row = "| " + fam.name + " | ";
        if (seen_n > 0) {
            f["seen_mape"] = seen_sum / seen_n;
            f["seen_p90"] = seen_p90 / seen_n;
            row += fmt::format("{:.1f} ({:.1f})", seen_sum / seen_n, seen_p90 / seen_n);
        } else {
            row += "—";
        }
        nlohmann::json worst_json = nlohmann::json::object();
        for (std::size_t i = 0; i < held_out.size(); ++i) {
            if (worst[i] == nullptr) {
                row += " | —";
                continue;
            }
            const line& l = *worst[i];
            worst_json[std::string(data::to_string(held_out[i]))] = {{"gpu", l.gpu}, {"framework", l.framework}, {"mape", l.ours.mape}};
            row += fmt::format(" | {:.1f} {}/{}", l.ours.mape, l.gpu, l.framework);
        }
        f["worst_held_out"] = worst_json;
        row += fmt::format(" | {}/{} | {}/{} |", beat_roof, held, beat_lin, held);
        families.push_back(std::move(f));
        rows.push_back(std::move(row));
    }
    if (o.json) {
        fmt::print("{}\n", nlohmann::json{{"families", families}}.dump(2));
        return;
    }
    fmt::print("synperf eval summary — protocol weights of every family; MAPE of latency, percent; per held-out split the "
               "(GPU, framework) row with the largest error\n");
    fmt::print("| family | seen mean (P90) | worst sibling | worst unseen-sku | worst unseen-arch | worst loo | held-out rows "
               "better than roofline | better than linear |\n");
    fmt::print("|---|---|---|---|---|---|---:|---:|\n");
    for (const auto& r : rows) fmt::print("{}\n", r);
}

}  // namespace

void add_eval_command(CLI::App& app, std::vector<train::family_source> families) {
    auto* eval = app.add_subcommand("eval", "leave-GPU-out accuracy of a family's protocol weights");
    eval->require_subcommand(1);
    static eval_cli_options o;
    for (const train::family_source& fam : families) {
        auto* sub = eval->add_subcommand(fam.name, fam.summary);
        sub->add_option("--data", o.data, "measured-data directory (default: $SYNPERF_DATA or ../shared/data)");
        sub->add_option("--weights", o.weights,
                        "weights file (default: models/protocol/" + fam.name +
                            ".mlp); a leave-one-GPU-out family reads STEM.loo-<gpu>.mlp beside it for each held-out GPU");
        sub->add_flag("--json", o.json, "print JSON");
        sub->add_flag("--by-size", o.by_size,
                      "also break each row down by measured latency (powers of two): MAPE, signed error, efficiency");
        sub->add_option("--calibrate", o.calibrate,
                        "also fit a correction on N rows of each held-out (GPU, framework) and report the MAPE on the rest "
                        "(what N measurements of a GPU buy; synperf calibrate)")
            ->check(CLI::Range(2, 100000));
        sub->add_option("--calibrate-draw", o.calibrate_draw,
                        "which pseudo-random draw of the --calibrate rows (default 0): how much the result depends on the rows")
            ->check(CLI::Range(0, 1000000))
            ->needs("--calibrate");
        sub->add_option("--dump", o.dump, "also write every evaluated row (features, theoretical, predicted) to a CSV file");
        sub->final_callback([f = fam] { run_eval(f, o); });
    }
    auto* summary = eval->add_subcommand("summary", "every family at once: seen mean, worst held-out row per split, baselines beaten");
    summary->add_option("--data", o.data, "measured-data directory (default: $SYNPERF_DATA or ../shared/data)");
    summary->add_flag("--json", o.json, "print JSON");
    summary->final_callback([all = std::move(families)] { run_eval_summary(all, o); });
}

}  // namespace synperf::cli
