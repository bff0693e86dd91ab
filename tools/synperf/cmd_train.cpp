// SPDX-License-Identifier: Apache-2.0
// `synperf train gemm`: fit the efficiency MLP on measured rows and export its weights.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/mlp/format.hpp>
#include <synperf/train/mlp_trainer.hpp>

#include "synperf/common.hpp"
#include "synperf/gemm_table.hpp"

namespace synperf::cli {
namespace {

struct train_cli_options {
    std::string data;
    std::string out;
    bool protocol = false;
    std::size_t epochs = 400;
    std::uint64_t seed = 42;
    std::size_t max_rows = 160000;  // keeps a full training within minutes on 2 cores; 0 = all rows
    std::size_t batch = 1024;
};

/// Rows a weight set trains on: protocol = the train GPUs' train/validation shapes; shipped = every GPU,
/// the seen-test shapes included, validation by the same shape hash.
bool trains_on(const gemm_sample& s, bool protocol) {
    if (protocol) return s.label == data::split::seen && s.part != data::seen_part::test;
    return true;
}

train::dataset make_dataset(const std::vector<const gemm_sample*>& rows) {
    train::dataset d;
    d.x = xt::xtensor<float, 2>::from_shape({rows.size(), gemm_input_width});
    d.efficiency = xt::xtensor<float, 1>::from_shape({rows.size()});
    std::vector<double> buf(gemm_input_width);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        model_input(*rows[r], buf.data());
        for (std::size_t c = 0; c < gemm_input_width; ++c) d.x(r, c) = static_cast<float>(buf[c]);
        // The theoretical time is a lower bound; rows above 1 (measurement noise at the floor) are clamped.
        d.efficiency(r) = static_cast<float>(std::clamp(rows[r]->efficiency(), 1e-5, 1.0));
    }
    return d;
}

/// Deterministic subsample: keeps every row whose hash falls under the rate.
std::vector<const gemm_sample*> thin(std::vector<const gemm_sample*> rows, std::size_t max_rows, std::uint64_t seed) {
    if (max_rows == 0 || rows.size() <= max_rows) return rows;
    std::vector<std::pair<std::uint64_t, const gemm_sample*>> keyed;
    keyed.reserve(rows.size());
    for (const auto* r : rows)
        keyed.emplace_back(data::shape_hash({r->row->problem.m, r->row->problem.n, r->row->problem.k,
                                             static_cast<std::int64_t>(r->row->latency_us * 1e3), static_cast<std::int64_t>(seed)}),
                           r);
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    keyed.resize(max_rows);
    std::vector<const gemm_sample*> out;
    for (const auto& [h, r] : keyed) out.push_back(r);
    return out;
}

void run_train_gemm(const train_cli_options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto dir = require_data_dir(o.data);
    const data::protocol proto = data::gemm_protocol();
    const auto rows = data::read_gemm_rows(dir);
    const auto samples = analyze_gemm_rows(rows, proto);
    std::vector<const gemm_sample*> train_rows, val_rows;
    for (const auto& s : samples) {
        if (!trains_on(s, o.protocol)) continue;
        (s.part == data::seen_part::validation ? val_rows : train_rows).push_back(&s);
    }
    train_rows = thin(std::move(train_rows), o.max_rows, o.seed);
    val_rows = thin(std::move(val_rows), o.max_rows == 0 ? 0 : std::max<std::size_t>(o.max_rows / 7, 1), o.seed);
    fmt::print(stderr, "synperf train gemm ({} weights): {} rows read from {}, {} train, {} validation\n",
               o.protocol ? "protocol" : "shipped", rows.size(), dir.string(), train_rows.size(), val_rows.size());
    if (train_rows.empty() || val_rows.empty()) throw invalid_argument("synperf: train gemm: no training or validation rows");

    train::train_options opt;
    opt.max_epochs = o.epochs;
    opt.seed = o.seed;
    opt.batch = o.batch;
    train::train_report report;
    mlp::network net = train::train_mlp(make_dataset(train_rows), make_dataset(val_rows), opt, &report, &std::cerr);
    net.family = std::string(family::gemm::name);
    net.feature_names.assign(family::gemm::feature_names.begin(), family::gemm::feature_names.end());
    net.categoricals = {mlp::categorical_input{"framework", {family::gemm::framework_levels.begin(), family::gemm::framework_levels.end()}}};
    net.feature_min.assign(family::gemm::feature_count, 1e300);
    net.feature_max.assign(family::gemm::feature_count, -1e300);
    for (const auto* s : train_rows)
        for (std::size_t i = 0; i < family::gemm::feature_count; ++i) {
            net.feature_min[i] = std::min(net.feature_min[i], s->features[i]);
            net.feature_max[i] = std::max(net.feature_max[i], s->features[i]);
        }
    std::string gpus;
    for (const auto& s : samples)
        if (trains_on(s, o.protocol) && gpus.find(s.row->gpu) == std::string::npos) gpus += (gpus.empty() ? "" : ",") + s.row->gpu;
    net.meta = (o.protocol ? "protocol" : "shipped") + std::string(" gpus=") + gpus + " " + net.meta +
               " data=aiconfigurator(Apache-2.0) bf16 gemm_perf";
    const std::string out = o.out.empty() ? model_path("gemm", o.protocol).string() : o.out;
    mlp::save_mlp(net, out);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(stderr, "wrote {} ({} epochs, best {} with validation loss {:.4f}) in {:.1f} s\n", out, report.epochs_run,
               report.best_epoch, report.best_val_loss, secs);
}

}  // namespace

void add_train_command(CLI::App& app) {
    auto* train = app.add_subcommand("train", "train a family's efficiency model on measured data");
    train->require_subcommand(1);
    static train_cli_options o;
    auto* gemm = train->add_subcommand("gemm", "bf16 cuBLAS GEMM (aiconfigurator*/<gpu>/gemm_perf.csv)");
    gemm->add_option("--data", o.data, "measured-data directory (default: $SYNPERF_DATA or ../shared/data)");
    gemm->add_option("--out", o.out, "weights file to write (default: models/gemm.mlp, or models/protocol/gemm.mlp)");
    gemm->add_flag("--protocol", o.protocol, "train on the protocol's train GPUs only (the weights `synperf eval` uses)");
    gemm->add_option("--epochs", o.epochs, "maximum epochs")->capture_default_str()->check(CLI::Range(1, 400));
    gemm->add_option("--seed", o.seed, "random seed")->capture_default_str();
    gemm->add_option("--max-rows", o.max_rows, "deterministic subsample of the training rows (0 = all)")->capture_default_str();
    gemm->add_option("--batch", o.batch, "minibatch size")->capture_default_str();
    gemm->final_callback([] { run_train_gemm(o); });
}

}  // namespace synperf::cli
