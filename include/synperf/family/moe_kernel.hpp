// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file One Triton fused_moe_kernel launch with an explicit config: the gate/up GEMM (w13) or the down GEMM
/// (w2) of a MoE layer alone, as a config search times it (PipeWeave's fused-MoE design-space runs).
///
/// The launch is the one `family::moe` builds inside a whole block (moe.hpp): balanced routing, the sorted-id
/// buffer of moe_align_block_size padded per expert to BLOCK_SIZE_M, grid ceil(EM / BM) * ceil(N / BN) with the
/// empty CTAs, GROUP_SIZE_M ordering. Here the config is always given, and the kernel is measured alone, so the
/// block's other kernels (routing, alignment, activation, reduction) are not part of the time.
/// - w13: N = 2 * inter (gate and up), K = hidden, A rows gathered as sorted_token_id // topk;
/// - w2: N = hidden, K = inter, A = the [tokens * topk, inter] activation.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family {

/// Which of the layer's two grouped GEMMs the launch computes.
enum class moe_weight { w13, w2 };

[[nodiscard]] constexpr std::string_view to_string(moe_weight w) noexcept { return w == moe_weight::w13 ? "w13" : "w2"; }

/// One fused_moe_kernel launch (bf16 / fp16 weights and activations, one rank, no expert parallelism).
struct moe_kernel_problem {
    std::int64_t tokens = 0;   ///< M: tokens entering the layer
    std::int64_t hidden = 0;   ///< H
    std::int64_t inter = 0;    ///< N of the tuned-config files: the rank's expert intermediate size (w13 computes 2 N)
    std::int64_t experts = 0;  ///< E
    std::int64_t topk = 0;
    moe_weight weight = moe_weight::w13;
    moe_kernel_config config;  ///< BLOCK_SIZE_M/N/K, GROUP_SIZE_M, num_warps, num_stages

    friend bool operator==(const moe_kernel_problem&, const moe_kernel_problem&) = default;
    friend std::size_t hash_value(const moe_kernel_problem& p) noexcept {
        return synperf::detail::hash_fields(p.tokens, p.hidden, p.inter, p.experts, p.topk, p.weight, p.config.bm, p.config.bn,
                                            p.config.bk, p.config.group_m, p.config.warps, p.config.stages);
    }
};

/// The decomposition of one launch.
struct moe_kernel_plan {
    moe_routing routing;
    moe_alignment alignment;
    moe_gemm_launch gemm;
    std::vector<work::kernel_launch> kernels;  ///< the one GEMM launch
};

/// The single fused_moe_kernel family policy.
struct moe_kernel {
    using problem_type = moe_kernel_problem;
    using plan_type = moe_kernel_plan;
    static constexpr std::string_view name = "moe_kernel";

    /// One level: the kernel timed alone (PipeWeave's design-space runs; SGLang and vLLM launch the same kernel).
    static constexpr std::array<std::string_view, 1> framework_levels{"triton"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "triton" || framework == "pipeweave" || framework == "sglang" || framework == "vllm") return 0;
        synperf::detail::report_error("moe_kernel: unknown framework '" + std::string(framework) + "'; known: triton (also: pipeweave, sglang, vllm)");
    }

    static constexpr std::array<std::string_view, 20> feature_names{
        "theoretical_us", "tensor_all_cycle", "tensor_sm_max_cycle", "smem_sm_max_cycle", "dram_cycle", "dram_all_cycle",
        "l2_cycle", "waves", "slots_per_sm", "empty_cta_fraction", "padding_ratio", "active_experts", "rows_per_expert",
        "block_m", "block_n", "block_k", "group_m", "warps", "stages", "weights_over_l2"};
    static constexpr std::size_t feature_count = feature_names.size();

    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept { return work::dispatch_kind::hardware; }

    /// The block-level problem with the same sizes (its checks and its config rules apply to one launch too).
    [[nodiscard]] static moe_problem block_of(const moe_kernel_problem& p) noexcept {
        return moe_problem{p.tokens, p.hidden, p.inter, p.experts, p.topk, 1, 1, moe_dtype::bf16, p.config, moe_remote_slots::dropped};
    }

    /// Bytes the launch's tensors take in device memory: the block's (`moe::device_bytes`).
    [[nodiscard]] static double device_bytes(const moe_kernel_problem& p) noexcept { return moe::device_bytes(block_of(p)); }

    static void validate(const moe_kernel_problem& p) {
        synperf::detail::require_enum(p.weight, moe_weight::w2, "moe_kernel: unknown weight", "w13, w2");
        moe::validate(block_of(p), name);
    }

    static moe_kernel_plan plan(const moe_kernel_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        moe_kernel_plan out;
        out.routing = balanced_routing(p.tokens, p.experts, p.topk, 1, moe_remote_slots::dropped);
        out.alignment = align_block_size(out.routing, p.topk, p.config.bm);
        moe_gemm_launch& l = out.gemm;
        l.config = p.config;
        const bool w13 = p.weight == moe_weight::w13;
        l.n = w13 ? 2 * p.inter : p.hidden;
        l.k = w13 ? p.hidden : p.inter;
        l.a_rows = w13 ? p.tokens : p.tokens * p.topk;
        // Timed alone and repeatedly, the active experts' weights stay in L2 when they fit in it; when they do not, the
        // kernel streams them in the same order every call, which leaves none of them in L2 for the next one.
        const double weights = double(out.routing.active_experts()) * double(l.n) * double(l.k) * moe_detail::element_bytes(moe_dtype::bf16);
        const double cold = weights > g.l2_bytes ? 1.0 : 0.0;
        work::kernel_launch k = moe_detail::gemm_launch(l, out.routing, out.alignment, p.topk, w13, moe_dtype::bf16, false, g, cold,
                                                         std::string("fused_moe_") + std::string(to_string(p.weight)));
        moe_detail::require_launchable(l, g, name);
        if (cold > 0) moe_detail::bound_weights_by_dram(k, l);
        // A launch takes at least one back-to-back launch time: the smallest configs' work is nanoseconds.
        k.launch_floor_us = work::back_to_back_launch_us(g);
        out.kernels.push_back(std::move(k));
        return out;
    }

    static std::array<double, feature_count> features(const moe_kernel_problem&, const moe_kernel_plan& plan,
                                                      std::span<const features::kernel_features> kf, const gpu::gpu_numbers& g) {
        const features::kernel_features& f = kf[0];
        const moe_gemm_launch& l = plan.gemm;
        const moe_kernel_config& c = l.config;
        const double assignments = double(plan.routing.assignments());
        const double active = double(plan.routing.active_experts());
        return {features::cycles_to_us(f.theoretical_cycles, g),
                f.all.tensor,
                f.sm_max.tensor,
                f.sm_max.smem,
                f.compulsory_dram_cycles,
                f.all.dram,
                f.all.l2,
                f.waves,
                double(f.slots_per_sm),
                l.grid > 0 ? double(l.empty_ctas) / double(l.grid) : 0.0,
                assignments > 0 ? double(plan.alignment.post_padded) / assignments : 1.0,
                active,
                active > 0 ? assignments / active : 0.0,
                double(c.bm),
                double(c.bn),
                double(c.bk),
                double(c.group_m),
                double(c.warps),
                double(c.stages),
                l.weight_bytes / g.l2_bytes};
    }
};

static_assert(KernelFamily<moe_kernel>);

}  // namespace synperf::family
