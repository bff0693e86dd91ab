// SPDX-License-Identifier: Apache-2.0
// `synperf predict gemm`: one shape from flags, or every row of a CSV file.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/family/gemm.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/gemm.hpp>)
#include <synperf/models/gemm.hpp>
#define SYNPERF_CLI_EMBEDDED_GEMM (&synperf::models::gemm())
#else
#define SYNPERF_CLI_EMBEDDED_GEMM nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_gemm_options {
    gpu_choice gpu;
    std::int64_t m = 0, n = 0, k = 0;
    std::string dtype = "bf16";
    std::string framework = "trtllm";
    double reuse_distance = 0;
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< the CSV header (once for a list of GPUs)
};

family::gemm_dtype parse_dtype(const std::string& s) {
    if (s == "bf16" || s == "bfloat16") return family::gemm_dtype::bf16;
    if (s == "fp16" || s == "float16") return family::gemm_dtype::fp16;
    throw invalid_argument("synperf: gemm: unknown --dtype '" + s + "'; known: bf16, fp16");
}

nlohmann::json to_json(const gpu::runtime_gpu& g, const family::gemm_problem& p, const std::string& fw,
                       const prediction& r, const family::gemm_config& c, const std::vector<std::string>& warnings) {
    return {{"gpu", g.name}, {"family", "gemm"}, {"framework", fw}, {"m", p.m}, {"n", p.n}, {"k", p.k},
            {"reuse_distance_bytes", p.reuse_distance_bytes}, {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
            {"bottleneck", r.bottleneck},
            {"tile", {{"m", c.bm}, {"n", c.bn}, {"k", c.bk}, {"stages", c.stages}, {"split_k", c.split_k},
                      {"persistent", c.persistent}}},
            {"waves", r.kernels.front().waves}, {"kernels", kernels_json(r)}, {"warnings", warnings}};
}

void print_text(const gpu::runtime_gpu& g, const family::gemm_problem& p, const std::string& fw, const prediction& r,
                const family::gemm_config& c, const std::vector<std::string>& warnings) {
    fmt::print("gemm m={} n={} k={} on {} ({}), framework {}\n", p.m, p.n, p.k, g.name, g.display_name, fw);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    fmt::print("  tile         {}x{}x{}, {} stages, split-K {}, {}\n", c.bm, c.bn, c.bk, c.stages, c.split_k,
               c.persistent ? "persistent" : "one CTA per tile");
    for (const auto& k : r.kernels)
        fmt::print("  kernel       {}: {} tasks, {:.2f} waves, {} CTA/SM, {} SMs busy, imbalance {:.2f}\n", k.name, k.tasks,
                   k.waves, k.ctas_per_sm, k.busy_sms, k.imbalance);
    print_warnings(warnings);
}

void run_predict_gemm(const predict_gemm_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();

    std::vector<family::gemm_problem> problems;
    std::vector<std::size_t> lines;
    const mnk_input input = mnk_shapes(o, "gemm");
    for (const mnk_row& s : input.shapes) {
        problems.push_back({s.m, s.n, s.k, parse_dtype(o.dtype), o.reuse_distance});
        lines.push_back(s.line);
    }
    for (std::size_t i = 0; i < problems.size(); ++i) data::at_row(o.csv, lines[i], [&] { family::gemm::validate(problems[i]); });
    // Inputs are checked before the model is loaded, so a bad shape is reported as such.
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_GEMM, "gemm");
    check_weights_for<family::gemm>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::gemm> pred(g.numbers, cost::mlp_cost(net));

    measured_report measured(input.measured_us);
    json_document doc(o.json, !o.csv.empty());
    csv_warning_summary csv_warnings;
    if (!o.csv.empty() && !o.json && o.print_header)
        fmt::print("gpu,m,n,k,latency_us,efficiency,theoretical_us,bottleneck,tile,split_k,waves{}\n", measured.header_columns());
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::gemm_problem& p = problems[i];
        const prediction r = pred.predict(p, o.framework);
        const family::gemm_config c = family::gemm::plan(p, g.numbers).config;
        const auto warnings = prediction_warnings<family::gemm>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row = to_json(g, p, o.framework, r, c, warnings);
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else if (!o.csv.empty()) {
            fmt::print("{},{},{},{},{:.4f},{:.4f},{:.4f},{},{}x{}x{},{},{:.3f}{}\n", g.name, p.m, p.n, p.k, r.latency_us, r.efficiency,
                       r.theoretical_us, r.bottleneck, c.bm, c.bn, c.bk, c.split_k, r.kernels.front().waves,
                       measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        } else {
            print_text(g, p, o.framework, r, c, warnings);
        }
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

}  // namespace

void add_predict_gemm_fp8_command(CLI::App& predict);       // cmd_predict_gemm_fp8.cpp
void add_predict_fp8_linear_command(CLI::App& predict);     // cmd_predict_fp8_linear.cpp
void add_predict_memory_bound_commands(CLI::App& predict);  // cmd_predict_memory_bound.cpp: rmsnorm, silu_mul, elementwise
void add_predict_moe_command(CLI::App& predict);            // cmd_predict_moe.cpp
void add_predict_moe_kernel_command(CLI::App& predict);     // cmd_predict_moe_kernel.cpp

void add_predict_command(CLI::App& app) {
    auto* predict = app.add_subcommand("predict", "predict a kernel's latency");
    predict->require_subcommand(1);
    add_predict_attention_command(*predict);
    add_predict_allreduce_command(*predict);
    add_predict_gemm_fp8_command(*predict);
    add_predict_fp8_linear_command(*predict);
    add_predict_memory_bound_commands(*predict);
    add_predict_moe_command(*predict);
    add_predict_moe_kernel_command(*predict);
    static predict_gemm_options o;
    auto* gemm = predict->add_subcommand("gemm", "bf16/fp16 GEMM as cuBLAS runs it: Y[m,n] = X[m,k] W[n,k]^T");
    o.gpu.add_to(*gemm);
    gemm->add_option("--m", o.m, "rows of X and Y (tokens)");
    gemm->add_option("--n", o.n, "output features");
    gemm->add_option("--k", o.k, "input features");
    gemm->add_option("--dtype", o.dtype, "bf16 or fp16")->capture_default_str();
    gemm->add_option("--framework", o.framework, "trtllm, sglang or vllm (the collector the model mimics)")
        ->check(CLI::IsMember({"trtllm", "sglang", "vllm"}))
        ->capture_default_str();
    gemm->add_option("--reuse-distance", o.reuse_distance,
                     "bytes touched between two runs on the same weights (default 0: serving, weights from DRAM; a "
                     "benchmark cycling c copies of W: c*n*k*2)");
    gemm->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    gemm->add_option("--csv", o.csv, "CSV with columns m,n,k (optional measured_us: error per row and a summary): predict every row");
    gemm->add_flag("--json", o.json, "print JSON");
    gemm->final_callback([] { for_each_listed_gpu(o, run_predict_gemm); });
}

}  // namespace synperf::cli
