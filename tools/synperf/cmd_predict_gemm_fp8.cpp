// SPDX-License-Identifier: Apache-2.0
// `synperf predict gemm_fp8`: FP8 GEMMs as vLLM's CUTLASS scaled_mm runs them (one from flags, or a CSV of m,n,k).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/family/gemm_fp8.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/gemm_fp8.hpp>)
#include <synperf/models/gemm_fp8.hpp>
#define SYNPERF_CLI_EMBEDDED_GEMM_FP8 (&synperf::models::gemm_fp8())
#else
#define SYNPERF_CLI_EMBEDDED_GEMM_FP8 nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_gemm_fp8_options {
    gpu_choice gpu;
    std::int64_t m = 0, n = 0, k = 0;
    std::string csv;
    std::string weights;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

nlohmann::json to_json(const gpu::runtime_gpu& g, const family::gemm_fp8_problem& p, const prediction& r,
                       const family::gemm_fp8_config& c, const std::vector<std::string>& warnings) {
    const auto& k = r.kernels.front();
    nlohmann::json out{{"gpu", g.name}, {"family", family::gemm_fp8::name}, {"framework", "vllm"}, {"m", p.m}, {"n", p.n}, {"k", p.k},
                       {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                       {"bottleneck", r.bottleneck}, {"kernel", k.name},
                       {"tile", {{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"stages", c.stages}}},
                       {"cluster", {{"m", c.cluster_m}, {"n", c.cluster_n}}},
                       {"schedule", std::string(family::to_string(c.schedule))}, {"swap_ab", c.swap_ab}, {"persistent", c.persistent},
                       {"work_units", c.work_units}, {"grid_ctas", c.grid_ctas}, {"waves", k.waves}, {"warnings", warnings}};
    out.update(cost_json(k));
    return out;
}

void print_text(const gpu::runtime_gpu& g, const family::gemm_fp8_problem& p, const prediction& r,
                const family::gemm_fp8_config& c, const std::vector<std::string>& warnings) {
    const auto& k = r.kernels.front();
    fmt::print("gemm_fp8 m={} n={} k={} on {} ({}), vLLM CUTLASS scaled_mm\n", p.m, p.n, p.k, g.name, g.display_name);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    fmt::print("  kernel       {}: tile {}x{}x{}, cluster {}x{}, {}{}, {} stages\n", k.name, c.bm, c.bn, c.bk, c.cluster_m,
               c.cluster_n, family::to_string(c.schedule), c.swap_ab ? ", swap-AB (runs as N x M)" : "", c.stages);
    fmt::print("  launch       {} work units on {} CTAs{}, {:.2f} waves, {} SMs busy, imbalance {:.2f}\n", c.work_units,
               c.grid_ctas, c.persistent ? " (persistent)" : "", k.waves, k.busy_sms, k.imbalance);
    print_warnings(warnings);
}

void run_predict_gemm_fp8(const predict_gemm_fp8_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    std::vector<family::gemm_fp8_problem> problems;
    std::vector<std::size_t> lines;
    const mnk_input input = mnk_shapes(o, "gemm_fp8");
    for (const mnk_row& s : input.shapes) {
        problems.push_back({s.m, s.n, s.k});
        lines.push_back(s.line);
    }
    // The plans check the shapes and the GPU before the model is loaded, so either is reported as such.
    std::vector<family::gemm_fp8_config> configs;
    for (std::size_t i = 0; i < problems.size(); ++i)
        configs.push_back(data::at_row(o.csv, lines[i], [&] { return family::gemm_fp8::plan(problems[i], g.numbers).config; }));
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_GEMM_FP8, "gemm_fp8");
    check_weights_for<family::gemm_fp8>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::gemm_fp8> pred(g.numbers, cost::mlp_cost(net));

    measured_report measured(input.measured_us);
    json_document doc(o.json, !o.csv.empty());
    csv_warning_summary csv_warnings;
    if (!o.csv.empty() && !o.json && o.print_header)
        fmt::print("gpu,m,n,k,latency_us,efficiency,theoretical_us,bottleneck,tile,schedule,waves{}\n", measured.header_columns());
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::gemm_fp8_problem& p = problems[i];
        const family::gemm_fp8_config& c = configs[i];
        const prediction r = pred.predict(p, "vllm");
        const auto warnings = prediction_warnings<family::gemm_fp8>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row = to_json(g, p, r, c, warnings);
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else if (!o.csv.empty()) {
            fmt::print("{},{},{},{},{:.4f},{:.4f},{:.4f},{},{}x{}x{},{},{:.3f}{}\n", g.name, p.m, p.n, p.k, r.latency_us,
                       r.efficiency, r.theoretical_us, r.bottleneck, c.bm, c.bn, c.bk, family::to_string(c.schedule),
                       r.kernels.front().waves, measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        } else {
            print_text(g, p, r, c, warnings);
        }
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

}  // namespace

void add_predict_gemm_fp8_command(CLI::App& predict) {
    static predict_gemm_fp8_options o;
    auto* cmd = predict.add_subcommand("gemm_fp8", "FP8 GEMM as vLLM's CUTLASS scaled_mm runs it: Y[m,n] = X[m,k] W[n,k]^T, e4m3 in, bf16 out");
    o.gpu.add_to(*cmd);
    cmd->add_option("--m", o.m, "rows of X and Y (tokens)");
    cmd->add_option("--n", o.n, "output features (multiple of 16)");
    cmd->add_option("--k", o.k, "input features (multiple of 16)");
    cmd->add_option("--csv", o.csv, "CSV with columns m,n,k (optional measured_us: error per row and a summary): predict every row");
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([] { for_each_listed_gpu(o, run_predict_gemm_fp8); });
}

}  // namespace synperf::cli
