// SPDX-License-Identifier: Apache-2.0
// `synperf predict moe_kernel`: one Triton fused_moe_kernel launch (w13 or w2) with an explicit config, from flags
// or one per CSV row (a config search: every row its own config).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/error.hpp>
#include <synperf/family/moe_kernel.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/moe_kernel.hpp>)
#include <synperf/models/moe_kernel.hpp>
#define SYNPERF_CLI_EMBEDDED_MOE_KERNEL (&synperf::models::moe_kernel())
#else
#define SYNPERF_CLI_EMBEDDED_MOE_KERNEL nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_moe_kernel_options {
    gpu_choice gpu;
    std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0;
    std::string weight = "w13";
    int block_m = 0, block_n = 0, block_k = 0, group_m = 1, warps = 4, stages = 3;
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

family::moe_kernel_problem problem_of(const predict_moe_kernel_options& o) {
    if (o.block_m <= 0 || o.block_n <= 0 || o.block_k <= 0)
        throw invalid_argument("synperf: predict moe_kernel needs the config: --block-m, --block-n and --block-k (and optionally "
                               "--group-m, --warps, --stages)");
    return {o.tokens, o.hidden, o.inter, o.experts, o.topk, o.weight == "w2" ? family::moe_weight::w2 : family::moe_weight::w13,
            family::moe_kernel_config{o.block_m, o.block_n, o.block_k, o.group_m, o.warps, o.stages}};
}

std::vector<csv_size<predict_moe_kernel_options>> size_columns() {
    using O = predict_moe_kernel_options;
    return {size_column("tokens", &O::tokens), size_column("hidden", &O::hidden), size_column("inter", &O::inter),
            size_column("experts", &O::experts), size_column("topk", &O::topk), size_column("block_m", &O::block_m),
            size_column("block_n", &O::block_n), size_column("block_k", &O::block_k), size_column("group_m", &O::group_m),
            size_column("num_warps", &O::warps), size_column("num_stages", &O::stages)};
}

std::string config_name(const family::moe_kernel_config& c) {
    return fmt::format("{}x{}x{}_g{}_w{}_s{}", c.bm, c.bn, c.bk, c.group_m, c.warps, c.stages);
}

void run_predict_moe_kernel(const predict_moe_kernel_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    // Every problem and its plan are checked before the model is loaded, so a bad row is reported as such.
    std::vector<family::moe_kernel_problem> problems;
    std::vector<double> measured_us;
    std::string source;
    if (o.csv.empty()) {
        problems.push_back(problem_of(o));
        (void)family::moe_kernel::plan(problems.back(), g.numbers);
    } else {
        const data::csv_table t = data::csv_table::load(o.csv);
        const auto sizes = size_columns();
        require_size_columns(t, sizes, "predict moe_kernel", o);
        for (std::size_t r = 0; r < t.rows(); ++r) {
            const predict_moe_kernel_options row = row_options(o, sizes, t, r);
            problems.push_back(data::at_row(t.source(), t.line(r), [&] { return problem_of(row); }));
            data::at_row(t.source(), t.line(r), [&] { (void)family::moe_kernel::plan(problems.back(), g.numbers); });
        }
        measured_us = measured_times(t);
    }
    measured_report measured(measured_us);
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_MOE_KERNEL, "moe_kernel");
    check_weights_for<family::moe_kernel>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::moe_kernel> pred(g.numbers, cost::mlp_cost(net));
    json_document doc(o.json, !o.csv.empty());
    csv_warning_summary csv_warnings;
    if (!o.csv.empty() && !o.json && o.print_header)
        fmt::print("gpu,weight,tokens,hidden,inter,experts,topk,config,latency_us,efficiency,theoretical_us,bottleneck,grid_ctas,"
                   "empty_ctas{}\n",
                   measured.header_columns());
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::moe_kernel_problem& p = problems[i];
        const family::moe_kernel_plan plan = family::moe_kernel::plan(p, g.numbers);  // rebuilt: no memory per row
        const family::moe_gemm_launch& l = plan.gemm;
        const prediction r = pred.predict(p, "triton");
        const auto warnings = prediction_warnings<family::moe_kernel>(*net, r, p, g);
        if (o.json) {
            nlohmann::json row{{"gpu", g.name}, {"family", family::moe_kernel::name}, {"weight", std::string(family::to_string(p.weight))},
                               {"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter}, {"experts", p.experts}, {"topk", p.topk},
                               {"config", {{"block_m", p.config.bm}, {"block_n", p.config.bn}, {"block_k", p.config.bk},
                                           {"group_m", p.config.group_m}, {"num_warps", p.config.warps}, {"num_stages", p.config.stages}}},
                               {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                               {"bottleneck", r.bottleneck},
                               {"gemm", {{"n", l.n}, {"k", l.k}, {"em", l.em}, {"grid_m", l.grid_m}, {"grid_n", l.grid_n},
                                         {"grid_ctas", l.grid}, {"active_ctas", l.active_ctas}, {"empty_ctas", l.empty_ctas},
                                         {"threads", l.threads}, {"smem_bytes", l.smem_bytes}, {"useful_flop", l.useful_flop},
                                         {"weight_bytes", l.weight_bytes}}},
                               {"padding",
                                {{"num_tokens_post_padded", plan.alignment.post_padded}, {"sorted_ids_buffer", plan.alignment.buffer}}},
                               {"active_experts", plan.routing.active_experts()},
                               {"warnings", warnings}};
            row.update(cost_json(r.kernels.front()));
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else if (!o.csv.empty()) {
            fmt::print("{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{},{},{}{}\n", g.name, family::to_string(p.weight), p.tokens, p.hidden,
                       p.inter, p.experts, p.topk, config_name(p.config), r.latency_us, r.efficiency, r.theoretical_us, r.bottleneck,
                       l.grid, l.empty_ctas, measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        } else {
            fmt::print("moe_kernel {} tokens={} hidden={} inter={} experts={} topk={} on {} ({}), Triton fused_moe_kernel\n",
                       family::to_string(p.weight), p.tokens, p.hidden, p.inter, p.experts, p.topk, g.name, g.display_name);
            fmt::print("  latency      {:.3f} us\n", r.latency_us);
            fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
            fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
            print_bound_terms(r);
            fmt::print("  config       {}x{}x{} GROUP_SIZE_M {} num_warps {} num_stages {} ({} B shared memory per CTA)\n", p.config.bm,
                       p.config.bn, p.config.bk, p.config.group_m, p.config.warps, p.config.stages, l.smem_bytes);
            fmt::print("  routing      {} of {} experts active, {} assignments (balanced); num_tokens_post_padded {}\n",
                       plan.routing.active_experts(), p.experts, plan.routing.assignments(), plan.alignment.post_padded);
            fmt::print("  grid         N={} K={}: {}x{} = {} CTAs ({} empty), {:.2f} waves\n", l.n, l.k, l.grid_m, l.grid_n, l.grid,
                       l.empty_ctas, r.kernels.empty() ? 0.0 : r.kernels[0].waves);
            print_warnings(warnings);
        }
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

}  // namespace

void add_predict_moe_kernel_command(CLI::App& predict) {
    static predict_moe_kernel_options o;
    auto* cmd = predict.add_subcommand(
        "moe_kernel", "one Triton fused_moe_kernel launch (w13 or w2) with an explicit config, timed alone (balanced routing)");
    o.gpu.add_to(*cmd);
    cmd->add_option("--tokens", o.tokens, "tokens M entering the layer");
    cmd->add_option("--hidden", o.hidden, "hidden size H");
    cmd->add_option("--inter", o.inter, "the rank's expert intermediate size N (w13 computes 2 N columns)");
    cmd->add_option("--experts", o.experts, "experts E");
    cmd->add_option("--topk", o.topk, "experts per token");
    cmd->add_option("--weight", o.weight, "w13 (gate/up, K = H) or w2 (down, K = N)")
        ->check(CLI::IsMember({"w13", "w2"}))
        ->capture_default_str();
    cmd->add_option("--block-m", o.block_m, "BLOCK_SIZE_M")->check(positive_number());
    cmd->add_option("--block-n", o.block_n, "BLOCK_SIZE_N")->check(positive_number());
    cmd->add_option("--block-k", o.block_k, "BLOCK_SIZE_K")->check(positive_number());
    cmd->add_option("--group-m", o.group_m, "GROUP_SIZE_M")->capture_default_str();
    cmd->add_option("--warps", o.warps, "num_warps")->capture_default_str();
    cmd->add_option("--stages", o.stages, "num_stages")->capture_default_str();
    cmd->add_option("--csv", o.csv,
                    "CSV whose columns (any of tokens, hidden, inter, experts, topk, block_m, block_n, block_k, group_m, num_warps, "
                    "num_stages) give each row's values; the flags give the rest; an optional measured_us column adds each row's "
                    "error and a summary");
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([cmd] {
        require_sizes(*cmd, {"--tokens", "--hidden", "--inter", "--experts", "--topk"});
        for_each_listed_gpu(o, run_predict_moe_kernel);
    });
}

}  // namespace synperf::cli
