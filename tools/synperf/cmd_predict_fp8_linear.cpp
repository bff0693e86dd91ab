// SPDX-License-Identifier: Apache-2.0
// `synperf predict fp8_linear`: FP8 linear layers (dynamic activation quantization + FP8 GEMM) as TensorRT-LLM
// or SGLang runs them (one from flags, or a CSV of m,n,k).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/family/fp8_linear.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/fp8_linear.hpp>)
#include <synperf/models/fp8_linear.hpp>
#define SYNPERF_CLI_EMBEDDED_FP8_LINEAR (&synperf::models::fp8_linear())
#else
#define SYNPERF_CLI_EMBEDDED_FP8_LINEAR nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_fp8_linear_options {
    gpu_choice gpu;
    std::int64_t m = 0, n = 0, k = 0;
    std::string framework = "trtllm";
    double reuse_distance = 0;
    std::string csv;
    std::string weights;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

nlohmann::json to_json(const gpu::runtime_gpu& g, const std::string& framework, const family::fp8_linear_problem& p,
                       const family::fp8_linear_plan& plan, const prediction& r, const std::vector<std::string>& warnings) {
    const family::gemm_fp8_config& c = plan.gemm;
    nlohmann::json out{{"gpu", g.name}, {"family", family::fp8_linear::name}, {"framework", framework},
                       {"m", p.m}, {"n", p.n}, {"k", p.k}, {"latency_us", r.latency_us}, {"efficiency", r.efficiency},
                       {"theoretical_us", r.theoretical_us}, {"kernel_floor_us", r.kernel_floor_us},
                       {"bottleneck", r.bottleneck}, {"cuda_core_gemm", plan.cuda_core_gemm}, {"kernels", kernels_json(r)},
                       {"warnings", warnings}};
    if (!plan.cuda_core_gemm)
        out["tile"] = {{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"cluster_m", c.cluster_m}, {"cluster_n", c.cluster_n},
                       {"swap_ab", c.swap_ab}, {"persistent", c.persistent}};
    return out;
}

void print_text(const gpu::runtime_gpu& g, const std::string& framework, const family::fp8_linear_problem& p,
                const family::fp8_linear_plan& plan, const prediction& r, const std::vector<std::string>& warnings) {
    const family::gemm_fp8_config& c = plan.gemm;
    fmt::print("fp8_linear m={} n={} k={} on {} ({}), framework {}\n", p.m, p.n, p.k, g.name, g.display_name, framework);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    if (r.kernel_floor_us > r.theoretical_us)
        fmt::print("  kernel floor {:.3f} us (the busiest SM's MMA work in sgl-kernel's own tile{})\n", r.kernel_floor_us,
                   r.latency_us <= r.kernel_floor_us ? "; the prediction" : "");
    if (plan.cuda_core_gemm)
        fmt::print("  gemm         CUDA-core FP8 GEMM (m <= 8 on sm_89): {} CTAs\n", r.kernels.front().tasks);
    else
        fmt::print("  gemm         tile {}x{}x{}, cluster {}x{}, {}{}\n", c.bm, c.bn, c.bk, c.cluster_m, c.cluster_n,
                   family::to_string(c.schedule), c.swap_ab ? ", swap-AB" : "");
    for (const auto& k : r.kernels)
        fmt::print("  launch       {}: {:.3f} us bound, {} tasks, {:.2f} waves, {} SMs busy\n", k.name, k.theoretical_us, k.tasks,
                   k.waves, k.busy_sms);
    print_warnings(warnings);
}

void run_predict_fp8_linear(const predict_fp8_linear_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    const family::fp8_linear_framework fw = family::fp8_linear::parse_framework(o.framework);
    std::vector<family::fp8_linear_problem> problems;
    std::vector<std::size_t> lines;
    const mnk_input input = mnk_shapes(o, "fp8_linear");
    for (const mnk_row& s : input.shapes) {
        problems.push_back({s.m, s.n, s.k, fw, o.reuse_distance});
        lines.push_back(s.line);
    }
    // The plans check the shapes and the GPU before the model is loaded, so either is reported as such (and are built
    // again below, row by row, so that a long file needs no memory per row).
    for (std::size_t i = 0; i < problems.size(); ++i)
        data::at_row(o.csv, lines[i], [&] { (void)family::fp8_linear::plan(problems[i], g.numbers); });
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_FP8_LINEAR, "fp8_linear");
    check_weights_for<family::fp8_linear>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::fp8_linear> pred(g.numbers, cost::mlp_cost(net));

    measured_report measured(input.measured_us);
    json_document doc(o.json, !o.csv.empty());
    csv_warning_summary csv_warnings;
    if (!o.csv.empty() && !o.json && o.print_header)
        fmt::print("gpu,framework,m,n,k,latency_us,efficiency,theoretical_us,kernel_floor_us,bottleneck,gemm{}\n",
                   measured.header_columns());
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::fp8_linear_problem& p = problems[i];
        const family::fp8_linear_plan plan = family::fp8_linear::plan(p, g.numbers);
        const prediction r = pred.predict(p, o.framework);
        const auto warnings = prediction_warnings<family::fp8_linear>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row = to_json(g, o.framework, p, plan, r, warnings);
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else if (!o.csv.empty()) {
            const std::string gemm = plan.cuda_core_gemm ? std::string("cuda_core")
                                                         : fmt::format("{}x{}x{}", plan.gemm.bm, plan.gemm.bn, plan.gemm.bk);
            fmt::print("{},{},{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{},{}{}\n", g.name, o.framework, p.m, p.n, p.k, r.latency_us,
                       r.efficiency, r.theoretical_us, r.kernel_floor_us, r.bottleneck, gemm, measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        } else {
            print_text(g, o.framework, p, plan, r, warnings);
        }
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

}  // namespace

void add_predict_fp8_linear_command(CLI::App& predict) {
    static predict_fp8_linear_options o;
    auto* cmd = predict.add_subcommand(
        "fp8_linear", "FP8 linear layer with dynamic activation scales: quantize X (bf16 -> e4m3), then Y[m,n] = Xq W[n,k]^T");
    o.gpu.add_to(*cmd);
    cmd->add_option("--m", o.m, "rows of X and Y (tokens)");
    cmd->add_option("--n", o.n, "output features (multiple of 16)");
    cmd->add_option("--k", o.k, "input features (multiple of 16)");
    cmd->add_option("--csv", o.csv, "CSV with columns m,n,k (optional measured_us: error per row and a summary): predict every row");
    cmd->add_option("--framework", o.framework, "trtllm (per-tensor scale, cuBLASLt) or sglang (per-token scales, CUTLASS)");
    cmd->add_option("--reuse-distance", o.reuse_distance,
                    "bytes touched between two runs on the same weights (default 0: serving, weights from DRAM)");
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([] { for_each_listed_gpu(o, run_predict_fp8_linear); });
}

}  // namespace synperf::cli
