// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict moe`: the fused-MoE block family's predict command (`family::predict_command`). The Triton
/// config is SGLang's tuned one for the GPU and shape, its default rule, or one given with --config.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<moe> {
    static constexpr std::string_view summary = "fused MoE block on one rank as SGLang's Triton fused_moe runs it (balanced routing)";

    struct inputs {
        std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0, tp = 1, ep = 1;
        std::string dtype = "bf16";
        std::vector<int> config;    ///< an explicit Triton config; empty: the framework's rule
        bool default_rule = false;  ///< ignore SGLang's tuned-config files
        std::string remote = "dropped";
    };
    static constexpr auto options = std::tuple{
        option("--tokens", &inputs::tokens, "tokens entering the layer").column("tokens").needed(),
        option("--hidden", &inputs::hidden, "hidden size H").column("hidden").needed(),
        option("--inter", &inputs::inter, "full expert intermediate size I (the rank holds I / tp)").column("inter").needed(),
        option("--experts", &inputs::experts, "total experts E (the rank holds E / ep)").column("experts").needed(),
        option("--topk", &inputs::topk, "experts per token").column("topk").needed(),
        option("--tp", &inputs::tp, "MoE tensor-parallel size").column("tp").show_default(),
        option("--ep", &inputs::ep, "expert-parallel size").column("ep").show_default(),
        option("--dtype", &inputs::dtype, "bf16 or fp8 (W8A8; 128x128 block scales when H and I / tp are multiples of 128)")
            .one_of("bf16 fp8")
            .show_default(),
        option("--config", &inputs::config,
               "explicit Triton config BM,BN,BK,GROUP_M,warps,stages (default: SGLang's tuned file for this GPU and shape if it "
               "ships one, else its default rule)"),
        option("--default-config", &inputs::default_rule, "ignore SGLang's tuned-config files: its default rule only").excludes("--config"),
        option("--ep-remote", &inputs::remote,
               "ep > 1: slots routed to other ranks are dropped (SGLang serving) or clamped to local expert 0 (the current "
               "aiconfigurator collector)")
            .one_of("dropped clamped")
            .show_default()};

    static moe_problem problem(const inputs& in, const target_gpu& target) {
        moe_problem p{in.tokens, in.hidden, in.inter, in.experts, in.topk, in.tp, in.ep,
                      in.dtype == "fp8" ? moe_dtype::fp8 : moe_dtype::bf16, std::nullopt};
        if (!in.config.empty()) {
            const std::vector<int>& v = in.config;
            if (v.size() != 6) {
                std::string given;
                for (int x : v) given.append(given.empty() ? "" : ",").append(std::to_string(x));
                synperf::detail::report_error("--config expects 6 integers BM,BN,BK,GROUP_M,warps,stages, got '" + given + "'");
            }
            p.config = moe_kernel_config{v[0], v[1], v[2], v[3], v[4], v[5]};
        }
        // A GPU from a spec file has no tuned files.
        if (!in.default_rule && !target.catalogue_id.empty()) p.tuned_configs_gpu = target.gpu.name;
        p.remote = in.remote == "clamped" ? moe_remote_slots::clamped_to_expert0 : moe_remote_slots::dropped;
        return p;
    }
    /// The measurements are SGLang's.
    static std::string framework(const inputs&, const moe_problem&) { return "sglang"; }

    static std::string config_name(const moe_kernel_config& c) {
        return text::cat(c.bm, "x", c.bn, "x", c.bk, "_g", c.group_m, "_w", c.warps, "_s", c.stages);
    }
    static std::string_view config_source(const moe_plan& plan) {
        return plan.explicit_config ? "explicit" : plan.tuned_file != nullptr ? "sglang_tuned" : "sglang_default";
    }
    static report launch_fields(const moe_gemm_launch& l) {
        return {{"n", l.n},
                {"k", l.k},
                {"em", l.em},
                {"grid_m", l.grid_m},
                {"grid_n", l.grid_n},
                {"grid_ctas", l.grid},
                {"active_ctas", l.active_ctas},
                {"empty_ctas", l.empty_ctas},
                {"threads", l.threads},
                {"smem_bytes", l.smem_bytes},
                {"useful_flop", l.useful_flop},
                {"weight_bytes", l.weight_bytes}};
    }

    using predicted = family::predicted<inputs, moe_problem, moe_plan>;
    static void json(report& out, const predicted& o) {
        const moe_problem& p = o.problem;
        const moe_plan& plan = o.plan;
        const moe_kernel_config& c = plan.w13.config;
        out.merge({{"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter}, {"experts", p.experts}, {"topk", p.topk},
                   {"tp", p.tp}, {"ep", p.ep}, {"dtype", to_string(p.dtype)}, {"block_scales", moe::block_quant(p)},
                   {"config", report{{"block_m", c.bm},
                                     {"block_n", c.bn},
                                     {"block_k", c.bk},
                                     {"group_m", c.group_m},
                                     {"num_warps", c.warps},
                                     {"num_stages", c.stages},
                                     {"source", config_source(plan)},
                                     {"tuned_file_folder", plan.tuned_file != nullptr ? plan.tuned_file->folder : std::string_view()}}},
                   {"routing", report{{"tokens", plan.routing.tokens},
                                      {"local_experts", plan.routing.local_experts},
                                      {"remote_slots", to_string(p.remote)},
                                      {"dropped_slots", plan.routing.dropped},
                                      {"active_experts", plan.routing.active_experts()},
                                      {"assignments", plan.routing.assignments()}}},
                   {"padding", report{{"num_tokens_post_padded", plan.alignment.post_padded}, {"sorted_ids_buffer", plan.alignment.buffer}}},
                   {"w13", launch_fields(plan.w13)}, {"w2", launch_fields(plan.w2)}, {"kernels", kernel_list(o.result)}});
    }
    static report csv_row(const predicted& o) {
        const moe_problem& p = o.problem;
        report row{{"gpu", o.gpu.name}, {"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter}, {"experts", p.experts},
                   {"topk", p.topk},    {"tp", p.tp},         {"ep", p.ep},         {"dtype", to_string(p.dtype)}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"bottleneck", o.result.bottleneck}, {"config", config_name(o.plan.w13.config)}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const moe_problem& p = o.problem;
        const moe_plan& plan = o.plan;
        const moe_kernel_config& c = plan.w13.config;
        std::vector<std::string> out{text::cat("moe tokens=", p.tokens, " hidden=", p.hidden, " inter=", p.inter, " experts=", p.experts,
                                               " topk=", p.topk, " tp=", p.tp, " ep=", p.ep, " ", to_string(p.dtype), " on ", o.gpu.name, " (",
                                               o.gpu.display_name, "), SGLang Triton fused_moe")};
        for (std::string& line : text::prediction_lines(o.result)) out.push_back(std::move(line));
        out.push_back(text::cat("  config       ", c.bm, "x", c.bn, "x", c.bk, " GROUP_SIZE_M ", c.group_m, " num_warps ", c.warps,
                                " num_stages ", c.stages, " (", config_source(plan),
                                plan.tuned_file != nullptr ? text::cat(", ", plan.tuned_file->folder) : std::string(), ")"));
        out.push_back(text::cat("  routing      ", plan.routing.tokens, " tokens on this rank, ", plan.routing.active_experts(), " of ",
                                plan.routing.local_experts, " local experts active, ", plan.routing.assignments(),
                                " assignments (balanced)"));
        out.push_back(text::cat("  padding      num_tokens_post_padded ", plan.alignment.post_padded, ", sorted-id buffer (EM) ",
                                plan.alignment.buffer));
        for (const moe_gemm_launch* l : {&plan.w13, &plan.w2})
            out.push_back(text::cat("  ", l == &plan.w13 ? "w13 " : "w2  ", "         N=", l->n, " K=", l->k, ": grid ", l->grid_m, "x",
                                    l->grid_n, " = ", l->grid, " CTAs (", l->empty_ctas, " empty)"));
        out.emplace_back("  kernels:");
        for (const kernel_report& k : o.result.kernels)
            out.push_back(text::cat("    ", text::left_aligned(k.name, 40), " ", text::right_aligned(std::to_string(k.tasks), 9), " CTAs ",
                                    text::right_aligned(text::fixed(k.waves, 2), 8), " waves  theoretical ",
                                    text::right_aligned(text::fixed(k.theoretical_us, 3), 9), " us (", k.bottleneck, ")"));
        return out;
    }
};

}  // namespace synperf::family
