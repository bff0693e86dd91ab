// SPDX-License-Identifier: Apache-2.0
// `synperf eval gemm`: leave-GPU-out accuracy of the protocol weights, with roofline and linear baselines.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/mlp/evaluate.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/train/linear_baseline.hpp>
#include <synperf/train/metrics.hpp>

#include "synperf/common.hpp"
#include "synperf/gemm_table.hpp"

namespace synperf::cli {
namespace {

struct eval_cli_options {
    std::string data;
    std::string weights;
    std::string dump;
    bool json = false;
};

/// Datasheet roofline: max of dense bf16 compute time and A + B + C bytes at DRAM bandwidth.
double roofline_us(const family::gemm_problem& p, const gpu::gpu_numbers& g) {
    const double flop = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const double bytes = 2.0 * (double(p.m) * double(p.k) + double(p.n) * double(p.k) + double(p.m) * double(p.n));
    return std::max(flop / (g.tensor_tflops(gpu::tensor_dtype::bf16) * 1e6), bytes / (g.dram_gbps * 1e3));
}

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

void run_eval_gemm(const eval_cli_options& o) {
    const std::string weights = o.weights.empty() ? model_path("gemm", true).string() : o.weights;
    const mlp::network net = mlp::load_mlp(weights);
    mlp::check_compatible(net, family::gemm::name, family::gemm::feature_names, weights);
    const auto dir = require_data_dir(o.data);
    const data::protocol proto = data::gemm_protocol();
    const auto rows = data::read_gemm_rows(dir);
    const auto samples = analyze_gemm_rows(rows, proto);

    // Linear baseline: least squares of log latency on the model's inputs, fitted on the same training rows.
    std::vector<const gemm_sample*> fit_rows;
    for (const auto& s : samples)
        if (s.label == data::split::seen && s.part == data::seen_part::train) fit_rows.push_back(&s);
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({fit_rows.size(), gemm_input_width});
    xt::xtensor<double, 1> y = xt::xtensor<double, 1>::from_shape({fit_rows.size()});
    for (std::size_t r = 0; r < fit_rows.size(); ++r) {
        model_input(*fit_rows[r], &x(r, 0));
        y(r) = std::log(fit_rows[r]->row->latency_us);
    }
    const train::linear_model linear = train::fit_linear(x, y);

    struct group {
        data::split label;
        std::vector<double> measured, ours, roofline, linear;
        std::size_t above_one = 0;
    };
    std::map<std::pair<std::string, std::string>, group> groups;
    std::map<std::string, gpu::gpu_numbers> numbers;
    std::vector<double> in(gemm_input_width);
    std::FILE* dump = o.dump.empty() ? nullptr : std::fopen(o.dump.c_str(), "w");
    if (!o.dump.empty() && dump == nullptr) throw invalid_argument("synperf: cannot write --dump file " + o.dump);
    if (dump != nullptr) {
        fmt::print(dump, "gpu,framework,split,m,n,k,measured_us,predicted_us,theoretical_us");
        for (auto f : family::gemm::feature_names) fmt::print(dump, ",{}", f);
        fmt::print(dump, "\n");
    }
    for (const auto& s : samples) {
        if (s.label == data::split::seen && s.part != data::seen_part::test) continue;
        auto& gr = groups[{s.row->gpu, s.row->framework}];
        gr.label = s.label;
        auto it = numbers.find(s.row->gpu);
        if (it == numbers.end()) it = numbers.emplace(s.row->gpu, gpu::find_gpu(s.row->gpu).numbers).first;
        const std::array<std::size_t, 1> level{s.level};
        const double eff = mlp::evaluate(net, std::span<const double>(s.features), std::span<const std::size_t>(level));
        model_input(s, in.data());
        gr.measured.push_back(s.row->latency_us);
        gr.ours.push_back(s.theoretical_us / eff);
        gr.roofline.push_back(roofline_us(s.row->problem, it->second));
        gr.linear.push_back(std::exp(linear.predict_log(std::span<const double>(in))));
        if (s.efficiency() > 1.0) ++gr.above_one;
        if (dump != nullptr) {
            fmt::print(dump, "{},{},{},{},{},{},{},{},{}", s.row->gpu, s.row->framework, data::to_string(s.label), s.row->problem.m,
                       s.row->problem.n, s.row->problem.k, s.row->latency_us, gr.ours.back(), s.theoretical_us);
            for (double f : s.features) fmt::print(dump, ",{:.6g}", f);
            fmt::print(dump, "\n");
        }
    }
    if (dump != nullptr) std::fclose(dump);

    struct line {
        std::string gpu, framework;
        data::split label;
        train::error_summary ours, roof, lin;
        double above_one;
    };
    std::vector<line> lines;
    for (const auto& [key, gr] : groups)
        lines.push_back({key.first, key.second, gr.label, train::summarize(gr.ours, gr.measured),
                         train::summarize(gr.roofline, gr.measured), train::summarize(gr.linear, gr.measured),
                         100.0 * double(gr.above_one) / double(gr.measured.size())});
    std::sort(lines.begin(), lines.end(), [](const line& a, const line& b) {
        return std::tuple(split_rank(a.label), a.gpu, a.framework) < std::tuple(split_rank(b.label), b.gpu, b.framework);
    });

    if (o.json) {
        nlohmann::json out;
        out["family"] = "gemm";
        out["weights"] = weights;
        out["rows"] = nlohmann::json::array();
        for (const auto& l : lines)
            out["rows"].push_back({{"gpu", l.gpu}, {"framework", l.framework}, {"split", std::string(data::to_string(l.label))},
                                   {"n", l.ours.n}, {"mape", l.ours.mape}, {"p90", l.ours.p90},
                                   {"roofline_mape", l.roof.mape}, {"linear_mape", l.lin.mape},
                                   {"efficiency_above_1_pct", l.above_one}});
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("synperf eval gemm — protocol weights {}; MAPE and P90 of latency, percent\n", weights);
    fmt::print("| GPU | framework | split | rows | synperf MAPE | synperf P90 | roofline MAPE | linear MAPE | eff>1 % |\n");
    fmt::print("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    double seen_sum = 0, seen_p90 = 0;
    int seen_n = 0;
    for (const auto& l : lines) {
        fmt::print("| {} | {} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} |\n", l.gpu, l.framework,
                   data::to_string(l.label), l.ours.n, l.ours.mape, l.ours.p90, l.roof.mape, l.lin.mape, l.above_one);
        if (l.label == data::split::seen) {
            seen_sum += l.ours.mape;
            seen_p90 += l.ours.p90;
            ++seen_n;
        }
    }
    if (seen_n > 0) fmt::print("\nseen mean over (GPU, framework): MAPE {:.1f} %, P90 {:.1f} %\n", seen_sum / seen_n, seen_p90 / seen_n);
}

}  // namespace

void add_eval_command(CLI::App& app) {
    auto* eval = app.add_subcommand("eval", "leave-GPU-out accuracy of a family's protocol weights");
    eval->require_subcommand(1);
    static eval_cli_options o;
    auto* gemm = eval->add_subcommand("gemm", "bf16 cuBLAS GEMM");
    gemm->add_option("--data", o.data, "measured-data directory (default: $SYNPERF_DATA or ../shared/data)");
    gemm->add_option("--weights", o.weights, "weights file (default: models/protocol/gemm.mlp)");
    gemm->add_flag("--json", o.json, "print JSON");
    gemm->add_option("--dump", o.dump, "also write every evaluated row (features, theoretical, predicted) to a CSV file");
    gemm->final_callback([] { run_eval_gemm(o); });
}

}  // namespace synperf::cli
