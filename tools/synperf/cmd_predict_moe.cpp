// SPDX-License-Identifier: Apache-2.0
// `synperf predict moe`: fused-MoE blocks as SGLang's Triton fused_moe runs them on one rank (one from flags, or a CSV).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/error.hpp>
#include <synperf/family/moe.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/predictor/predictor.hpp>
#if __has_include(<synperf/models/moe.hpp>)
#include <synperf/models/moe.hpp>
#define SYNPERF_CLI_EMBEDDED_MOE (&synperf::models::moe())
#else
#define SYNPERF_CLI_EMBEDDED_MOE nullptr
#endif

#include "synperf/common.hpp"

namespace synperf::cli {
namespace {

struct predict_moe_options {
    gpu_choice gpu;
    std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0, tp = 1, ep = 1;
    std::string dtype = "bf16";
    std::optional<std::string> config;  ///< explicit Triton config; unset: the framework's rule
    bool default_rule = false;          ///< ignore SGLang's tuned-config files
    std::string remote = "dropped";
    std::string weights;
    std::string csv;
    bool json = false;
    bool print_header = true;  ///< CSV output: the header line (only the first GPU of a list prints it)
};

/// "BM,BN,BK,GROUP_M,warps,stages" -> a config.
family::moe_kernel_config parse_config(const std::string& text) {
    const std::vector<int> v = parse_integer_list<int>(text, "--config");
    if (v.size() != 6) throw invalid_argument("synperf: --config expects 6 integers BM,BN,BK,GROUP_M,warps,stages, got '" + text + "'");
    return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

family::moe_problem problem_of(const predict_moe_options& o, const gpu::runtime_gpu& g) {
    family::moe_problem p{o.tokens, o.hidden, o.inter, o.experts, o.topk, o.tp, o.ep,
                          o.dtype == "fp8" ? family::moe_dtype::fp8 : family::moe_dtype::bf16, std::nullopt};
    if (o.config) p.config = parse_config(*o.config);
    if (!o.default_rule && o.gpu.spec_file.empty()) p.tuned_configs_gpu = g.name;  // a spec file's GPU has no tuned files
    p.remote = o.remote == "clamped" ? family::moe_remote_slots::clamped_to_expert0 : family::moe_remote_slots::dropped;
    return p;
}

/// `--csv FILE`: one MoE block per row. Columns named like the size options (tokens, hidden, inter, experts, topk,
/// tp, ep) give that row's value; the others come from the flags, so a file of `tokens` alone sweeps one model.
void run_predict_moe_csv(const predict_moe_options& o, const gpu::runtime_gpu& g) {
    const data::csv_table t = data::csv_table::load(o.csv);
    using O = predict_moe_options;
    const std::vector<csv_size<O>> sizes{size_column("tokens", &O::tokens),   size_column("hidden", &O::hidden),
                                         size_column("inter", &O::inter),     size_column("experts", &O::experts),
                                         size_column("topk", &O::topk),       size_column("tp", &O::tp),
                                         size_column("ep", &O::ep)};
    require_size_columns(t, sizes, "predict moe", o);
    std::vector<family::moe_problem> problems;
    std::vector<family::moe_kernel_config> configs;  // each row's w13 config (its plan is rebuilt by the prediction)
    for (std::size_t r = 0; r < t.rows(); ++r) {
        problems.push_back(problem_of(row_options(o, sizes, t, r), g));
        // The plan checks the problem and the GPU before the model is loaded, so either is reported as such.
        configs.push_back(
            data::at_row(t.source(), t.line(r), [&] { return family::moe::plan(problems.back(), g.numbers).w13.config; }));
    }
    measured_report measured(measured_times(t));
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_MOE, "moe");
    check_weights_for<family::moe>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::moe> pred(g.numbers, cost::mlp_cost(net));
    json_document doc(o.json, true);
    if (!o.json && o.print_header)
        fmt::print("gpu,tokens,hidden,inter,experts,topk,tp,ep,dtype,latency_us,efficiency,theoretical_us,bottleneck,config{}\n",
                   measured.header_columns());
    csv_warning_summary csv_warnings;
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const family::moe_problem& p = problems[i];
        const family::moe_kernel_config& c = configs[i];
        const prediction r = pred.predict(p, "sglang");
        const auto warnings = prediction_warnings<family::moe>(*net, r, p, g);
        const std::string config = fmt::format("{}x{}x{}_g{}_w{}_s{}", c.bm, c.bn, c.bk, c.group_m, c.warps, c.stages);
        if (o.json) {
            nlohmann::json row{{"gpu", g.name}, {"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter}, {"experts", p.experts},
                               {"topk", p.topk}, {"tp", p.tp}, {"ep", p.ep}, {"dtype", std::string(family::to_string(p.dtype))},
                               {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
                               {"bottleneck", r.bottleneck}, {"config", config},
                               {"warnings", warnings}};
            measured.add_json_fields(row, i, r.latency_us);
            doc.add(row);
        } else {
            fmt::print("{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{},{}{}\n", g.name, p.tokens, p.hidden, p.inter, p.experts,
                       p.topk, p.tp, p.ep, family::to_string(p.dtype), r.latency_us, r.efficiency, r.theoretical_us, r.bottleneck,
                       config, measured.csv_fields(i, r.latency_us));
            csv_warnings.add(i, warnings);
        }
    }
    doc.finish();
    csv_warnings.print(problems.size(), g.name);
    measured.print_summary(g.name);
}

void run_predict_moe(const predict_moe_options& o) {
    const gpu::runtime_gpu g = o.gpu.resolve();
    if (!o.csv.empty()) return run_predict_moe_csv(o, g);
    const family::moe_problem p = problem_of(o, g);
    // The plan checks the problem and the GPU before the model is loaded, so either is reported as such.
    const family::moe_plan plan = family::moe::plan(p, g.numbers);
    auto net = predict_model(o.weights, SYNPERF_CLI_EMBEDDED_MOE, "moe");
    check_weights_for<family::moe>(*net, o.weights);
    note_unmeasured_gpu(*net, g.name);
    const runtime_predictor<family::moe> pred(g.numbers, cost::mlp_cost(net));
    const prediction r = pred.predict(p, "sglang");
    const auto warnings = prediction_warnings<family::moe>(*net, r, p, g);
    const family::moe_kernel_config& c = plan.w13.config;
    const std::string config_source = plan.explicit_config ? "explicit"
                                      : plan.tuned_file     ? "sglang_tuned"
                                                            : "sglang_default";
    const auto gemm_json = [](const family::moe_gemm_launch& l) {
        return nlohmann::json{{"n", l.n}, {"k", l.k}, {"em", l.em}, {"grid_m", l.grid_m}, {"grid_n", l.grid_n}, {"grid_ctas", l.grid},
                              {"active_ctas", l.active_ctas}, {"empty_ctas", l.empty_ctas}, {"threads", l.threads},
                              {"smem_bytes", l.smem_bytes}, {"useful_flop", l.useful_flop}, {"weight_bytes", l.weight_bytes}};
    };
    if (o.json) {
        const nlohmann::json out{
            {"gpu", g.name}, {"family", family::moe::name}, {"framework", "sglang"}, {"tokens", p.tokens}, {"hidden", p.hidden},
            {"inter", p.inter}, {"experts", p.experts}, {"topk", p.topk}, {"tp", p.tp}, {"ep", p.ep},
            {"dtype", std::string(family::to_string(p.dtype))}, {"block_scales", family::moe::block_quant(p)},
            {"latency_us", r.latency_us}, {"efficiency", r.efficiency}, {"theoretical_us", r.theoretical_us},
            {"bottleneck", r.bottleneck},
            {"config", {{"block_m", c.bm}, {"block_n", c.bn}, {"block_k", c.bk}, {"group_m", c.group_m}, {"num_warps", c.warps},
                        {"num_stages", c.stages}, {"source", config_source},
                        {"tuned_file_folder", plan.tuned_file ? std::string(plan.tuned_file->folder) : std::string()}}},
            {"routing", {{"tokens", plan.routing.tokens}, {"local_experts", plan.routing.local_experts},
                         {"remote_slots", std::string(family::to_string(p.remote))}, {"dropped_slots", plan.routing.dropped},
                         {"active_experts", plan.routing.active_experts()}, {"assignments", plan.routing.assignments()}}},
            {"padding", {{"num_tokens_post_padded", plan.alignment.post_padded}, {"sorted_ids_buffer", plan.alignment.buffer}}},
            {"w13", gemm_json(plan.w13)}, {"w2", gemm_json(plan.w2)}, {"kernels", kernels_json(r)}, {"warnings", warnings}};
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("moe tokens={} hidden={} inter={} experts={} topk={} tp={} ep={} {} on {} ({}), SGLang Triton fused_moe\n", p.tokens,
               p.hidden, p.inter, p.experts, p.topk, p.tp, p.ep, family::to_string(p.dtype), g.name, g.display_name);
    fmt::print("  latency      {:.3f} us\n", r.latency_us);
    fmt::print("  efficiency   {}\n", efficiency_text(r.efficiency));
    fmt::print("  theoretical  {:.3f} us (bottleneck: {})\n", r.theoretical_us, r.bottleneck);
    print_bound_terms(r);
    fmt::print("  config       {}x{}x{} GROUP_SIZE_M {} num_warps {} num_stages {} ({}{})\n", c.bm, c.bn, c.bk, c.group_m, c.warps,
               c.stages, config_source, plan.tuned_file ? fmt::format(", {}", plan.tuned_file->folder) : std::string());
    fmt::print("  routing      {} tokens on this rank, {} of {} local experts active, {} assignments (balanced)\n",
               plan.routing.tokens, plan.routing.active_experts(), plan.routing.local_experts, plan.routing.assignments());
    fmt::print("  padding      num_tokens_post_padded {}, sorted-id buffer (EM) {}\n", plan.alignment.post_padded, plan.alignment.buffer);
    for (const auto* l : {&plan.w13, &plan.w2})
        fmt::print("  {:<4}         N={} K={}: grid {}x{} = {} CTAs ({} empty)\n", l == &plan.w13 ? "w13" : "w2", l->n, l->k, l->grid_m,
                   l->grid_n, l->grid, l->empty_ctas);
    fmt::print("  kernels:\n");
    for (const auto& k : r.kernels)
        fmt::print("    {:<40} {:>9} CTAs {:>8.2f} waves  theoretical {:>9.3f} us ({})\n", k.name, k.tasks, k.waves, k.theoretical_us,
                   k.bottleneck);
    print_warnings(warnings);
}

}  // namespace

void add_predict_moe_command(CLI::App& predict) {
    static predict_moe_options o;
    auto* cmd = predict.add_subcommand("moe", "fused MoE block on one rank as SGLang's Triton fused_moe runs it (balanced routing)");
    o.gpu.add_to(*cmd);
    cmd->add_option("--tokens", o.tokens, "tokens entering the layer");
    cmd->add_option("--hidden", o.hidden, "hidden size H");
    cmd->add_option("--inter", o.inter, "full expert intermediate size I (the rank holds I / tp)");
    cmd->add_option("--experts", o.experts, "total experts E (the rank holds E / ep)");
    cmd->add_option("--topk", o.topk, "experts per token");
    cmd->add_option("--tp", o.tp, "MoE tensor-parallel size")->capture_default_str();
    cmd->add_option("--ep", o.ep, "expert-parallel size")->capture_default_str();
    cmd->add_option("--dtype", o.dtype, "bf16 or fp8 (W8A8; 128x128 block scales when H and I / tp are multiples of 128)")
        ->check(CLI::IsMember({"bf16", "fp8"}))
        ->capture_default_str();
    cmd->add_option("--config", o.config,
                    "explicit Triton config BM,BN,BK,GROUP_M,warps,stages (default: SGLang's tuned file for this GPU and shape if it "
                    "ships one, else its default rule)");
    cmd->add_flag("--default-config", o.default_rule, "ignore SGLang's tuned-config files: its default rule only")
        ->excludes("--config");
    cmd->add_option("--ep-remote", o.remote,
                    "ep > 1: slots routed to other ranks are dropped (SGLang serving) or clamped to local expert 0 (the "
                    "current aiconfigurator collector)")
        ->check(CLI::IsMember({"dropped", "clamped"}))
        ->capture_default_str();
    cmd->add_option("--csv", o.csv,
                    "CSV whose columns (any of tokens, hidden, inter, experts, topk, tp, ep) give each row's sizes; the flags give the rest; an optional measured_us column adds each row's error and a summary");
    cmd->add_option("--weights", o.weights, "weights file (default: the embedded shipped model)");
    cmd->add_flag("--json", o.json, "print JSON");
    cmd->final_callback([cmd] {
        require_sizes(*cmd, {"--tokens", "--hidden", "--inter", "--experts", "--topk"});
        for_each_listed_gpu(o, run_predict_moe);
    });
}

}  // namespace synperf::cli
