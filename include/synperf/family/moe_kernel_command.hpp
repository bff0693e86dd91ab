// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file `synperf predict moe_kernel`: the single fused_moe_kernel family's predict command (`family::predict_command`).
/// The config is given: by flags, or per CSV row (a config search, every row its own config).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/command.hpp"
#include "synperf/family/moe_command.hpp"  // the grouped GEMM launch's fields, as the moe command reports them
#include "synperf/family/moe_kernel.hpp"
#include "synperf/family/report.hpp"

namespace synperf::family {

template <>
struct predict_command<moe_kernel> {
    static constexpr std::string_view summary =
        "one Triton fused_moe_kernel launch (w13 or w2) with an explicit config, timed alone (balanced routing)";

    struct inputs {
        std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0;
        std::string weight = "w13";
        int block_m = 0, block_n = 0, block_k = 0, group_m = 1, warps = 4, stages = 3;
    };
    static constexpr auto options = std::tuple{
        option("--tokens", &inputs::tokens, "tokens M entering the layer").column("tokens").needed(),
        option("--hidden", &inputs::hidden, "hidden size H").column("hidden").needed(),
        option("--inter", &inputs::inter, "the rank's expert intermediate size N (w13 computes 2 N columns)").column("inter").needed(),
        option("--experts", &inputs::experts, "experts E").column("experts").needed(),
        option("--topk", &inputs::topk, "experts per token").column("topk").needed(),
        option("--weight", &inputs::weight, "w13 (gate/up, K = H) or w2 (down, K = N)").one_of("w13 w2").show_default(),
        option("--block-m", &inputs::block_m, "BLOCK_SIZE_M").column("block_m").positive(),
        option("--block-n", &inputs::block_n, "BLOCK_SIZE_N").column("block_n").positive(),
        option("--block-k", &inputs::block_k, "BLOCK_SIZE_K").column("block_k").positive(),
        option("--group-m", &inputs::group_m, "GROUP_SIZE_M").column("group_m").show_default(),
        option("--warps", &inputs::warps, "num_warps").column("num_warps").show_default(),
        option("--stages", &inputs::stages, "num_stages").column("num_stages").show_default()};

    static moe_kernel_problem problem(const inputs& in, const target_gpu&) {
        if (in.block_m <= 0 || in.block_n <= 0 || in.block_k <= 0)
            synperf::detail::report_error("predict moe_kernel needs the config: --block-m, --block-n and --block-k (and optionally "
                                          "--group-m, --warps, --stages)");
        return {in.tokens, in.hidden, in.inter, in.experts, in.topk, in.weight == "w2" ? moe_weight::w2 : moe_weight::w13,
                moe_kernel_config{in.block_m, in.block_n, in.block_k, in.group_m, in.warps, in.stages}};
    }
    /// The measurements time Triton's kernel alone.
    static std::string framework(const inputs&, const moe_kernel_problem&) { return "triton"; }

    static std::string config_name(const moe_kernel_config& c) {
        return text::cat(c.bm, "x", c.bn, "x", c.bk, "_g", c.group_m, "_w", c.warps, "_s", c.stages);
    }

    using predicted = family::predicted<inputs, moe_kernel_problem, moe_kernel_plan>;
    static void json(report& out, const predicted& o) {
        const moe_kernel_problem& p = o.problem;
        const moe_kernel_plan& plan = o.plan;
        const moe_gemm_launch& l = plan.gemm;
        out.merge({{"weight", to_string(p.weight)}, {"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter},
                   {"experts", p.experts}, {"topk", p.topk},
                   {"config", report{{"block_m", p.config.bm},
                                     {"block_n", p.config.bn},
                                     {"block_k", p.config.bk},
                                     {"group_m", p.config.group_m},
                                     {"num_warps", p.config.warps},
                                     {"num_stages", p.config.stages}}},
                   {"gemm", predict_command<moe>::launch_fields(l)},
                   {"padding", report{{"num_tokens_post_padded", plan.alignment.post_padded}, {"sorted_ids_buffer", plan.alignment.buffer}}},
                   {"active_experts", plan.routing.active_experts()}});
        out.merge(cost_terms(o.result.kernels.front()));
    }
    /// A --csv row's JSON is the whole prediction's.
    static void json_row(report& out, const predicted& o) { json(out, o); }
    static report csv_row(const predicted& o) {
        const moe_kernel_problem& p = o.problem;
        report row{{"gpu", o.gpu.name}, {"weight", to_string(p.weight)}, {"tokens", p.tokens}, {"hidden", p.hidden}, {"inter", p.inter},
                   {"experts", p.experts}, {"topk", p.topk}, {"config", config_name(p.config)}};
        row.merge(prediction_cells(o.result));
        return row.merge({{"bottleneck", o.result.bottleneck}, {"grid_ctas", o.plan.gemm.grid}, {"empty_ctas", o.plan.gemm.empty_ctas}});
    }
    static std::vector<std::string> text(const predicted& o) {
        const moe_kernel_problem& p = o.problem;
        const moe_kernel_plan& plan = o.plan;
        const moe_gemm_launch& l = plan.gemm;
        const prediction& r = o.result;
        std::vector<std::string> out{text::cat("moe_kernel ", to_string(p.weight), " tokens=", p.tokens, " hidden=", p.hidden, " inter=",
                                               p.inter, " experts=", p.experts, " topk=", p.topk, " on ", o.gpu.name, " (",
                                               o.gpu.display_name, "), Triton fused_moe_kernel")};
        for (std::string& line : text::prediction_lines(r)) out.push_back(std::move(line));
        out.push_back(text::cat("  config       ", p.config.bm, "x", p.config.bn, "x", p.config.bk, " GROUP_SIZE_M ", p.config.group_m,
                                " num_warps ", p.config.warps, " num_stages ", p.config.stages, " (", l.smem_bytes,
                                " B shared memory per CTA)"));
        out.push_back(text::cat("  routing      ", plan.routing.active_experts(), " of ", p.experts, " experts active, ",
                                plan.routing.assignments(), " assignments (balanced); num_tokens_post_padded ", plan.alignment.post_padded));
        out.push_back(text::cat("  grid         N=", l.n, " K=", l.k, ": ", l.grid_m, "x", l.grid_n, " = ", l.grid, " CTAs (", l.empty_ctas,
                                " empty), ", text::fixed(r.kernels.empty() ? 0.0 : r.kernels[0].waves, 2), " waves"));
        return out;
    }
};

}  // namespace synperf::family
