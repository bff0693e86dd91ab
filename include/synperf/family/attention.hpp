// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Attention as two kernel families, prefill and decode: the framework's backend picks the kernel
/// (backend.hpp), the kernel models decompose it, and the features describe the work without naming the
/// kernel, so a model trained on some implementations transfers to one it never saw (FlashInfer).
#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "synperf/error.hpp"
#include "synperf/family/attention/backend.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family {

namespace attention_detail {

/// What prefill and decode share: problem, plan, framework levels, dispatch, features.
template <attention::phase Phase>
struct attention_family_base {
    using problem_type = attention::attention_problem;
    using plan_type = attention::attention_plan;
    /// Its training latencies are CUDA-graph replays (aiconfigurator's collectors), so predictions include the in-graph launch gap.
    static constexpr bool timed_in_cuda_graph = true;

    /// Collector semantics: TensorRT-LLM's collector, and the PyTorch-based collectors of SGLang and vLLM
    /// (both call the FA3 / FlashInfer / Triton libraries the same way) as one level.
    static constexpr std::array<std::string_view, 2> framework_levels{"trtllm", "sglang"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "trtllm") return 0;
        if (framework == "sglang" || framework == "vllm") return 1;
        synperf::detail::report_error("attention: unknown framework '" + std::string(framework) + "'; known: trtllm, sglang, vllm");
    }

    /// Scale-free inputs: every cycle count enters as a ratio to the op's lower bound (the bound itself once,
    /// in µs), so a GPU whose pipes are all faster or slower looks like the training GPUs with the same
    /// balance; absolute cycle counts and a CTAs-per-SM count named the training GPUs instead (A100's two
    /// fmha_v2 CTAs per SM, a value no training GPU ran on most rows, made its prefill 2-4x too slow).
    static constexpr std::array<std::string_view, 34> feature_names{
        "theoretical_us", "tensor_all_ratio", "tensor_sm_max_ratio", "fma_all_ratio", "fma_sm_max_ratio",
        "xu_all_ratio", "xu_sm_max_ratio", "l2_all_ratio", "l2_sm_max_ratio", "smem_sm_max_ratio",
        "dram_sm_max_ratio", "dram_ratio", "l2_resident_ratio", "preprocess_ratio", "preprocess_sm_max_ratio",
        "combine_ratio", "launch_ratio", "waves", "tasks_per_sm", "busy_sm_fraction", "imbalance", "splits", "kernels",
        "q_tokens", "kv_tokens", "batch", "heads", "group_size", "head_dim", "causal", "window_fraction", "kv_fp8", "fp8_compute",
        "kv_footprint_over_l2"};
    static constexpr std::size_t feature_count = feature_names.size();

    /// Main-kernel dispatch of SGLang's default kernel on `g` for this phase: FA3's sm90 path is persistent
    /// (varlen dynamic scheduler); on sm_100/103 the trtllm-gen context kernel runs TileScheduler::Persistent
    /// while its generation kernel is a static grid; Triton and FA3's Sm80 path (without splits) are
    /// one CTA per tile.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers& g) noexcept {
        if (g.cc_major == 9) return work::dispatch_kind::persistent_longest_first;
        if (g.cc_major == 10 && Phase == attention::phase::prefill) return work::dispatch_kind::persistent_static;
        return work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: Q, the requests' K and V in the cache, and O.
    [[nodiscard]] static double device_bytes(const problem_type& p) noexcept {
        const double q = double(p.q_tokens()) * p.heads;
        return q * (p.head_dim + p.dv()) * 2.0 + double(p.kv_tokens()) * p.kv_heads * (p.head_dim + p.dv()) * p.kv_bytes_per_element();
    }

    /// Checks the problem and that it is of this family's phase.
    static void validate(const problem_type& p) {
        if (p.stage != Phase)
            synperf::detail::report_error("attention_" + std::string(attention::to_string(Phase)) + ": expected a " +
                                          std::string(attention::to_string(Phase)) + " problem, got " +
                                          std::string(attention::to_string(p.stage)));
        attention::validate(p);
    }

    /// The op's kernels on `g` (attention, combine, pre-processing).
    static plan_type plan(const problem_type& p, const gpu::gpu_numbers& g) {
        validate(p);
        return attention::plan_attention(p, g);
    }

    /// CTAs of `k` that do work: a CTA that exits at once (past a short request's end on a fixed-width grid)
    /// holds no pipe and no memory, so it does not count as per-SM work.
    static std::int64_t working_tasks(const work::kernel_launch& k) noexcept {
        std::int64_t n = 0;
        for (const work::task_class& c : k.tasks)
            if (c.work.has_work()) n += c.count;
        return n;
    }

    /// Model inputs from the plan and the analyzed kernels (in plan order).
    static std::array<double, feature_count> features(const problem_type& p, const plan_type& plan,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        const std::size_t n_attn = std::min(plan.attention_kernels, kf.size());
        work::pipe_cycles all, busiest;
        double dram = 0, resident = 0, attn_cycles = 0, pre_cycles = 0, pre_busiest = 0, combine = 0, launch = 0;
        for (std::size_t i = 0; i < kf.size(); ++i) {
            const features::kernel_features& k = kf[i];
            launch += k.launch_floor_cycles;
            if (i < n_attn) {
                all.tensor += k.all.tensor;
                all.fma += k.all.fma;
                all.xu += k.all.xu;
                all.l2 += k.all.l2;
                busiest.tensor += k.sm_max.tensor;
                busiest.fma += k.sm_max.fma;
                busiest.xu += k.sm_max.xu;
                busiest.l2 += k.sm_max.l2;
                busiest.smem += k.sm_max.smem;
                busiest.dram += k.sm_max.dram;
                dram += k.compulsory_dram_cycles;
                resident += k.resident_l2_cycles;
                attn_cycles += k.theoretical_cycles;
                if (i > 0) combine += k.sm_max.max();
            } else {
                pre_cycles += k.theoretical_cycles;
                pre_busiest += k.sm_max.max();
            }
        }
        const features::kernel_features* main = kf.empty() ? nullptr : &kf[0];
        const double mean_sm = main != nullptr ? main->all.max() : 0.0;
        const double imbalance = main != nullptr && mean_sm > 0 ? std::max(1.0, main->sm_max.max() / mean_sm) : 1.0;
        const bool causal = p.causal && p.stage == attention::phase::prefill;
        const double bound = std::max(attn_cycles + pre_cycles, std::numeric_limits<double>::min());
        const auto ratio = [bound](double cycles) { return cycles / bound; };
        return {features::cycles_to_us(attn_cycles + pre_cycles, g),
                ratio(all.tensor),
                ratio(busiest.tensor),
                ratio(all.fma),
                ratio(busiest.fma),
                ratio(all.xu),
                ratio(busiest.xu),
                ratio(all.l2),
                ratio(busiest.l2),
                ratio(busiest.smem),
                ratio(busiest.dram),
                ratio(dram),
                ratio(resident),
                ratio(pre_cycles),
                ratio(pre_busiest),
                ratio(combine),
                ratio(launch),
                main != nullptr ? main->waves : 0.0,
                plan.kernels.empty() ? 0.0 : double(working_tasks(plan.kernels[0])) / g.sm_count,
                main != nullptr ? double(main->busy_sms) / g.sm_count : 0.0,
                imbalance,
                double(std::max(plan.splits, 1)),
                double(plan.kernels.size()),
                double(p.q_tokens()),
                double(p.kv_tokens()),
                double(p.batch()),
                double(p.heads),
                double(p.group_size()),
                double(p.head_dim),
                causal ? 1.0 : 0.0,
                // The window as the share of pairs it keeps, not its size: no window and a window longer than the
                // prompt are the same computation, and a size of 0 (none) sat next to a one-token window.
                p.window_fraction(),
                p.kv_type == attention::kv_dtype::fp8 ? 1.0 : 0.0,
                plan.fp8_math ? 1.0 : 0.0,
                plan.kv_footprint_bytes / g.l2_bytes};
    }
};

}  // namespace attention_detail

/// Prefill (context) attention: many query tokens per request over its prompt (and cached prefix).
struct attention_prefill : attention_detail::attention_family_base<attention::phase::prefill> {
    static constexpr std::string_view name = "attention_prefill";
};

/// Decode (generation) attention: one query token per request over its KV cache.
struct attention_decode : attention_detail::attention_family_base<attention::phase::decode> {
    static constexpr std::string_view name = "attention_decode";
};

static_assert(KernelFamily<attention_prefill>);
static_assert(KernelFamily<attention_decode>);

}  // namespace synperf::family
