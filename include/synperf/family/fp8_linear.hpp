// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A W8A8 FP8 linear layer as a serving framework runs it without a static input scale: quantize the
/// bf16 activation to e4m3 with a scale computed from the data, then the FP8 GEMM, bf16 out. This is the op
/// aiconfigurator's collectors time as an `fp8` GEMM (`collector/{trtllm,sglang}/collect_gemm.py`).
///
/// - `trtllm` (TensorRT-LLM `FP8QDQLinearMethod.apply`, dynamic branch): `quantize_e4m3_per_tensor` = an amax
///   reduction over the whole activation, then `scaleMatrix` (the per-tensor quantize kernel of the
///   `elementwise` family); then `cublas_scaled_mm`, or on sm_89 for m <= 8 `cuda_scaled_mm`, TensorRT-LLM's
///   CUDA-core GEMM (`cudaCoreGemm`: grid (1, n / 2), 128 threads, each CTA two output columns for all m rows).
/// - `sglang` (sgl-kernel): `sgl_per_token_quant_fp8` (one warp per token, eight tokens per 256-thread CTA:
///   the row's amax, then its quantized row and scale) then `fp8_scaled_mm` (CUTLASS, per-token x per-channel
///   scales).
///
/// The GEMM is decomposed as `family::gemm_fp8` decomposes a CUTLASS scaled_mm, with each framework's dispatch
/// entry (`fp8_linear_detail::gemm_choice`). Approximations, stated because no public source fixes them:
/// cuBLASLt's FP8 kernel choice is closed (vLLM's dispatch stands in for it, on sm_120 its one-CTA-per-tile
/// sm_89 entries), sgl-kernel's sm_90 and sm_89 entries are taken to be vLLM's, and the amax reduction's grid
/// (1024-thread CTAs, at most two per SM, a grid-stride loop of 16-byte loads) is assumed.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family {

/// Which framework's FP8 linear layer (its quantization kernels and GEMM).
enum class fp8_linear_framework { trtllm, sglang };

[[nodiscard]] constexpr std::string_view to_string(fp8_linear_framework f) noexcept {
    return f == fp8_linear_framework::trtllm ? "trtllm" : "sglang";
}

/// One FP8 linear layer: Y[m,n] = quant(X[m,k]) * W[n,k]^T, X and Y bf16, W e4m3 with its scale.
struct fp8_linear_problem {
    std::int64_t m = 0;  ///< tokens
    std::int64_t n = 0;  ///< output features
    std::int64_t k = 0;  ///< input features
    fp8_linear_framework framework = fp8_linear_framework::trtllm;
    /// Bytes touched between two runs on the same weights (as `gemm_problem::reuse_distance_bytes`); 0 = serving,
    /// the weights come from DRAM.
    double reuse_distance_bytes = 0;

    friend bool operator==(const fp8_linear_problem&, const fp8_linear_problem&) = default;
    friend std::size_t hash_value(const fp8_linear_problem& p) noexcept {
        return synperf::detail::hash_fields(p.m, p.n, p.k, p.framework, p.reuse_distance_bytes);
    }
};

/// The op's kernels: the GEMM first, then the quantization kernels in launch order.
struct fp8_linear_plan {
    std::vector<work::kernel_launch> kernels;
    gemm_fp8_config gemm;         ///< the CUTLASS-dispatch GEMM (unused when `cuda_core_gemm`)
    bool cuda_core_gemm = false;  ///< TensorRT-LLM's CUDA-core FP8 GEMM (sm_89, m <= 8)
    std::size_t quant_kernels = 0;
    double footprint_bytes = 0;   ///< X (bf16) + W (e4m3) + Y (bf16), each once
    double weight_bytes = 0;
};

namespace fp8_linear_detail {

using memory_bound::ceil_div;

inline constexpr std::int64_t cuda_core_max_m = 8;  // FP8QDQLinearMethod: enable_cuda_core and m <= 8
inline constexpr int cuda_core_tile_n = 2;          // cudaCoreGemmLauncher<..., 1, 2, 128>
inline constexpr int cuda_core_threads = 128;
inline constexpr int tokens_per_cta = 8;            // per_token_quant_fp8_kernel: one warp per token
inline constexpr int amax_threads = 1024;

/// TensorRT-LLM's CUDA-core FP8 GEMM: n / 2 CTAs, each streams two weight rows and reads the m x k e4m3
/// activation (L2-resident after the first CTAs), FP32 FMAs after converting each e4m3 operand.
inline work::kernel_launch cuda_core_gemm(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    work::kernel_launch k;
    k.name = "cudaCoreGemm_fp8_m" + std::to_string(p.m);
    k.launch = {cuda_core_threads, 64, 0};
    k.dispatch = work::dispatch_kind::hardware;
    const std::int64_t ctas = ceil_div(p.n, cuda_core_tile_n);
    work::task_work cta;
    const double kk = double(p.k), mm = double(p.m);
    cta.fma_ops = mm * cuda_core_tile_n * kk + (mm + cuda_core_tile_n) * kk;  // FMAs + e4m3 -> f32 conversions
    cta.l2_bytes = cuda_core_tile_n * kk + mm * kk + mm * cuda_core_tile_n * 2.0;
    cta.dram_bytes = cuda_core_tile_n * kk;  // the weights stream once
    k.tasks.push_back({cta, ctas});
    work::task_work floor;
    floor.fma_ops = mm * double(p.n) * kk;
    floor.dram_bytes = std::max(0.0, double(p.n) * kk + mm * kk + 2.0 * mm * double(p.n) - g.l2_bytes);
    k.compulsory = floor;
    return k;
}

/// sgl-kernel `fp8_scaled_mm` on sm_100/103 (`sm100_fp8_dispatch_bias`, csrc/gemm/fp8_gemm_kernel.cu): M bucket
/// mp2 = max(16, next_pow2(m)) -> tile and cluster, KernelScheduleAuto, no swap-AB.
constexpr gemm_fp8_detail::kernel_choice sglang_sm100_choice(std::int64_t m) noexcept {
    using enum fp8_schedule;
    const std::int64_t mp2 = std::max<std::int64_t>(16, gemm_fp8_detail::next_pow2(m));
    if (mp2 <= 16) return {64, 64, 128, 1, 4, sm100_auto, false};
    if (mp2 <= 64) return {64, 64, 128, 1, 1, sm100_auto, false};
    if (mp2 <= 256) return {128, 128, 128, 2, 1, sm100_auto, false};
    return {256, 128, 64, 2, 2, sm100_auto, false};
}

/// sgl-kernel `fp8_scaled_mm` on sm_120 (`sm120_fp8_dispatch_bias`): one kernel, 128x128x128, cluster 1x1.
constexpr gemm_fp8_detail::kernel_choice sglang_sm120_choice() noexcept {
    return {128, 128, 128, 1, 1, fp8_schedule::sm120_auto, false};
}

/// Whether the GEMM is sgl-kernel's own dispatch entry (SGLang on sm_100/103 and sm_120), read from its source,
/// rather than a stand-in for a closed (cuBLASLt) or inherited choice: its busiest SM's MMA work is then the real
/// kernel's, a floor on the op's time (`work::kernel_launch::exact_dispatch`).
inline bool sglang_own_dispatch(const fp8_linear_problem& p, const gpu::gpu_numbers& g) noexcept {
    return p.framework == fp8_linear_framework::sglang && (g.cc_major == 10 || g.cc_major == 11 || g.cc_major == 12);
}

/// The GEMM's dispatch entry.
/// - TensorRT-LLM: cuBLAS runs one CTA per tile on sm_120, which has no wgmma or tcgen05 (the bf16 GEMM family's
///   rule, docs/kernels.md#cublas-gemm), so its GEMM there takes the one-CTA-per-tile M buckets of the sm_89
///   dispatch; elsewhere vLLM's dispatch stands in for cuBLASLt's closed choice.
/// - SGLang: sgl-kernel's own entries on sm_100/103 and sm_120; on sm_89 and sm_90 vLLM's, from which sgl-kernel's
///   descend. (Read from a recent sgl-kernel; the 0.5.10 release in the data may differ.)
inline gemm_fp8_detail::kernel_choice gemm_choice(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    if (p.framework == fp8_linear_framework::trtllm && g.cc_major == 12) return gemm_fp8_detail::sm89_choice(p.m, p.n);
    if (sglang_own_dispatch(p, g)) return g.cc_major == 12 ? sglang_sm120_choice() : sglang_sm100_choice(p.m);
    return gemm_fp8_detail::choose({p.m, p.n, p.k}, g);
}

/// The reuse distance as the model reads it, as for the bf16 GEMM: its ratio to L2 clamped to [1/8, 2], serving
/// (0) read as 2 (nothing left to hit).
inline double reuse_over_l2(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    const double ratio = p.reuse_distance_bytes > 0 ? p.reuse_distance_bytes / g.l2_bytes : gemm_detail::reuse_ratio_limit;
    return std::clamp(ratio, gemm_detail::reuse_ratio_floor, gemm_detail::reuse_ratio_limit);
}

/// A memory-bound quantization launch from its CTA shape and compulsory work.
inline work::kernel_launch quant_launch(const std::string& name, std::int64_t ctas, int threads, double cta_l2_bytes,
                                        double cta_fma, double footprint, double fma, const gpu::gpu_numbers& g) {
    memory_bound::launch_shape s;
    s.name = name;
    s.ctas = std::max<std::int64_t>(ctas, 1);
    s.threads = threads;
    s.vector_bytes = 16;
    s.cta.l2_bytes = cta_l2_bytes;
    s.cta.fma_ops = cta_fma;
    memory_bound::compulsory_work c;
    c.footprint_bytes = footprint;
    c.fma_ops = fma;
    return memory_bound::make_launch(s, c, g);
}

/// TensorRT-LLM's per-tensor amax: every element read once (2 bytes), one max per element, one atomic per CTA.
inline work::kernel_launch amax_per_tensor(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    const double elements = double(p.m) * double(p.k);
    const std::int64_t ctas = std::min<std::int64_t>(ceil_div(std::int64_t(elements), amax_threads * 8), 2 * g.sm_count);
    return quant_launch("computeFP8QuantizeScale_per_tensor", ctas, amax_threads, elements * 2.0 / double(ctas),
                        elements / double(ctas), elements * 2.0 + 4.0, elements, g);
}

/// sgl-kernel's per-token quantization: each warp reads its token's row for the amax, re-reads it (L1) to
/// write the e4m3 row, and writes one FP32 scale.
inline work::kernel_launch per_token_quant(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
    const std::int64_t ctas = ceil_div(p.m, tokens_per_cta);
    const double rows = double(std::min<std::int64_t>(p.m, tokens_per_cta));
    const double row = double(p.k);
    const double elements = double(p.m) * row;
    return quant_launch("per_token_quant_fp8", ctas, 32 * tokens_per_cta, rows * (row * 3.0 + 4.0), rows * row * 2.0,
                        elements * 3.0 + double(p.m) * 4.0, elements * 2.0, g);
}

}  // namespace fp8_linear_detail

/// The FP8 linear-layer family policy (dynamic activation quantization + FP8 GEMM).
struct fp8_linear {
    using problem_type = fp8_linear_problem;
    using plan_type = fp8_linear_plan;
    static constexpr std::string_view name = "fp8_linear";
    /// Its training latencies are CUDA-graph replays (aiconfigurator's collectors), so predictions include the in-graph launch gap.
    static constexpr bool timed_in_cuda_graph = true;

    /// The framework decides the kernels (`fp8_linear_problem::framework`); the level also carries its
    /// collector's timing (both replay a CUDA graph of several copies of the op).
    static constexpr std::array<std::string_view, 2> framework_levels{"trtllm", "sglang"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "trtllm") return 0;
        if (framework == "sglang") return 1;
        synperf::detail::report_error("fp8_linear: unknown framework '" + std::string(framework) + "'; known: trtllm, sglang");
    }
    /// Parses a framework name into the problem's enum (same names as the levels).
    static fp8_linear_framework parse_framework(std::string_view framework) {
        return framework_level(framework) == 0 ? fp8_linear_framework::trtllm : fp8_linear_framework::sglang;
    }

    /// As the bf16 GEMM's: each pipe's and memory level's cycles as a ratio to the op's lower bound (no
    /// absolute cycle counts, no tile sizes), the quantization kernels' and the launch floors' shares of the
    /// bound, the GEMM's wave quantization, and the L2 reuse of the timing loop.
    static constexpr std::array<std::string_view, 18> feature_names{
        "theoretical_us", "tensor_all_ratio", "tensor_sm_max_ratio", "smem_sm_max_ratio", "fma_sm_max_ratio",
        "l2_all_ratio", "l2_sm_max_ratio", "dram_ratio", "cold_weight_ratio", "quant_ratio", "launch_ratio",
        "waves", "wave_efficiency", "footprint_over_l2", "reuse_over_l2", "m", "n", "k"};
    static constexpr std::size_t feature_count = feature_names.size();

    /// The GEMM's usual dispatch, as `gemm_fp8`'s: persistent on sm_90/100/103/120, one CTA per tile on sm_89. The
    /// plan reports hardware dispatch wherever its kernel runs one CTA per tile (sm_90 at M <= 64, TensorRT-LLM on
    /// sm_120, the CUDA-core GEMM).
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers& g) noexcept { return gemm_fp8::main_dispatch(g); }

    /// Bytes the op's tensors take in device memory: the bf16 input and its FP8 copy, FP8 W, the bf16 output.
    [[nodiscard]] static double device_bytes(const fp8_linear_problem& p) noexcept {
        return 3.0 * double(p.m) * double(p.k) + double(p.n) * double(p.k) + 2.0 * double(p.m) * double(p.n);
    }

    /// The GEMM's checks (positive, aligned, bounded shapes) and a finite, non-negative reuse distance.
    static void validate(const fp8_linear_problem& p) {
        synperf::detail::require_enum(p.framework, fp8_linear_framework::sglang, "fp8_linear: unknown framework");
        gemm_fp8::validate({p.m, p.n, p.k}, name);
        if (!(std::isfinite(p.reuse_distance_bytes) && p.reuse_distance_bytes >= 0))
            synperf::detail::report_error("fp8_linear: reuse_distance_bytes must be finite and >= 0, got " +
                                          synperf::detail::value_text(p.reuse_distance_bytes));
    }

    /// Decomposes the op on one GPU: GEMM first, then the framework's quantization kernels.
    static fp8_linear_plan plan(const fp8_linear_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        if (!(g.tensor_fp8_flop_per_clk > 0))
            synperf::detail::report_error("fp8_linear: this GPU (sm_" + std::to_string(g.sm_version()) +
                                          ") has no FP8 tensor cores (tensor_fp8_flop_per_clk = 0)");
        fp8_linear_plan out;
        const double x = double(p.m) * double(p.k), w = double(p.n) * double(p.k), y = double(p.m) * double(p.n);
        out.weight_bytes = w;
        out.footprint_bytes = 2.0 * x + w + 2.0 * y;
        out.cuda_core_gemm = p.framework == fp8_linear_framework::trtllm && g.cc_major == 8 && g.cc_minor == 9 &&
                             p.m <= fp8_linear_detail::cuda_core_max_m;
        if (out.cuda_core_gemm) {
            out.kernels.push_back(fp8_linear_detail::cuda_core_gemm(p, g));
        } else {
            gemm_fp8_plan gp = gemm_fp8::plan_with({p.m, p.n, p.k}, g, fp8_linear_detail::gemm_choice(p, g));
            out.gemm = gp.config;
            out.kernels.push_back(std::move(gp.kernels.front()));
            out.kernels.back().exact_dispatch = fp8_linear_detail::sglang_own_dispatch(p, g);
        }
        if (p.framework == fp8_linear_framework::trtllm) {
            out.kernels.push_back(fp8_linear_detail::amax_per_tensor(p, g));
            elementwise_problem q;
            q.kind = elementwise_kind::fp8_quantize;
            q.rows = p.m;
            q.cols = p.k;
            out.kernels.push_back(std::move(elementwise::plan(q, g).kernels.front()));  // k % 16 == 0 (validate)
            out.quant_kernels = 2;
        } else {
            out.kernels.push_back(fp8_linear_detail::per_token_quant(p, g));
            out.quant_kernels = 1;
        }
        for (work::kernel_launch& k : out.kernels) k.launch_floor_us = work::back_to_back_launch_us(g);
        return out;
    }

    /// Model inputs: sums over the op's kernels, each divided by the op's bound (the sum of its kernels' bounds).
    static std::array<double, feature_count> features(const fp8_linear_problem& p, const fp8_linear_plan& plan,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        double bound = 0, tensor_all = 0, tensor_max = 0, smem_max = 0, fma_max = 0, l2_all = 0, l2_max = 0, dram = 0, quant = 0,
               launch = 0;
        for (std::size_t i = 0; i < kf.size(); ++i) {
            const features::kernel_features& f = kf[i];
            bound += f.theoretical_cycles;
            tensor_all += f.all.tensor;
            tensor_max += f.sm_max.tensor;
            smem_max += f.sm_max.smem;
            fma_max += f.sm_max.fma;
            l2_all += f.all.l2;
            l2_max += f.sm_max.l2;
            dram += f.compulsory_dram_cycles;
            launch += f.launch_floor_cycles;
            if (i > 0) quant += f.theoretical_cycles;
        }
        const double b = std::max(bound, std::numeric_limits<double>::min());
        const features::kernel_features& main = kf.front();
        const double slots = plan.cuda_core_gemm || !plan.gemm.persistent ? double(main.slots_per_sm) * g.sm_count
                                                                          : double(plan.gemm.grid_ctas);
        const double waves = std::max(1.0, std::ceil(main.tasks / std::max(slots, 1.0)));
        const double cold_weight = plan.weight_bytes / g.dram_bytes_per_clk();
        return {features::cycles_to_us(bound, g),
                tensor_all / b,
                tensor_max / b,
                smem_max / b,
                fma_max / b,
                l2_all / b,
                l2_max / b,
                dram / b,
                cold_weight / b,
                quant / b,
                launch / b,
                waves,
                main.tasks / (waves * std::max(slots, 1.0)),
                plan.footprint_bytes / g.l2_bytes,
                fp8_linear_detail::reuse_over_l2(p, g),
                double(p.m),
                double(p.n),
                double(p.k)};
    }
};

static_assert(KernelFamily<fp8_linear>);

}  // namespace synperf::family
