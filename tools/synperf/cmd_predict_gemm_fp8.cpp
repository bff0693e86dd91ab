// SPDX-License-Identifier: Apache-2.0
// `synperf predict gemm_fp8`: one FP8 GEMM as vLLM's CUTLASS scaled_mm runs it.
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
    std::string weights;
    bool json = false;
};

void run_predict_gemm_fp8(const predict_gemm_fp8_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    const family::gemm_fp8_problem p{o.m, o.n, o.k};
    // The plan checks the shape and the GPU before the model is loaded, so either is reported as such.
    const family::gemm_fp8_config c = family::gemm_fp8::plan(p, g.numbers).config;
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_GEMM_FP8, "gemm_fp8");
    mlp::check_compatible(*net, family::gemm_fp8::name, family::gemm_fp8::feature_names,
                          o.weights.empty() ? "gemm_fp8 model" : o.weights);
    const runtime_predictor<family::gemm_fp8> pred(g.numbers, cost::mlp_cost(net));
    const prediction r = pred.predict(p, "vllm");
    const auto warnings = outside_training_range(*net, r.features, r.efficiency);
    const auto& k = r.kernels.front();
    if (o.json) {
        const nlohmann::json out{
            {"gpu", g.name}, {"family", family::gemm_fp8::name}, {"framework", "vllm"}, {"m", p.m}, {"n", p.n}, {"k", p.k},
            {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
            {"bottleneck", r.bottleneck}, {"kernel", k.name},
            {"tile", {{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"stages", c.stages}}},
            {"cluster", {{"m", c.cluster_m}, {"n", c.cluster_n}}},
            {"schedule", std::string(family::to_string(c.schedule))}, {"swap_ab", c.swap_ab}, {"persistent", c.persistent},
            {"work_units", c.work_units}, {"grid_ctas", c.grid_ctas}, {"waves", k.waves}, {"warnings", warnings}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("gemm_fp8 m={} n={} k={} on {} ({}), vLLM CUTLASS scaled_mm\n", p.m, p.n, p.k, g.name, g.display_name);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {:.3f}\n", r.efficiency);
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    fmt::print("  kernel       {}: tile {}x{}x{}, cluster {}x{}, {}{}, {} stages\n", k.name, c.bm, c.bn, c.bk, c.cluster_m,
               c.cluster_n, family::to_string(c.schedule), c.swap_ab ? ", swap-AB (runs as N x M)" : "", c.stages);
    fmt::print("  launch       {} work units on {} CTAs{}, {:.2f} waves, {} SMs busy, imbalance {:.2f}\n", c.work_units,
               c.grid_ctas, c.persistent ? " (persistent)" : "", k.waves, k.busy_sms, k.imbalance);
    for (const auto& w : warnings) fmt::print(stderr, "warning: outside the training range: {}\n", w);
}

}  // namespace

void add_predict_gemm_fp8_command(CLI::App& predict) {
    static predict_gemm_fp8_options o;
    auto* cmd = predict.add_subcommand("gemm_fp8", "FP8 GEMM as vLLM's CUTLASS scaled_mm runs it: Y[m,n] = X[m,k] W[n,k]^T, e4m3 in, bf16 out");
    o.gpu.add_to(*cmd);
    cmd->add_option("--m", o.m, "rows of X and Y (tokens)")->required();
    cmd->add_option("--n", o.n, "output features (multiple of 16)")->required();
    cmd->add_option("--k", o.k, "input features (multiple of 16)")->required();
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([] { for_each_listed_gpu(o, run_predict_gemm_fp8); });
}

}  // namespace synperf::cli
