// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file RMSNorm, plain (`out = x * rsqrt(mean(x^2) + eps) * w`) and fused with the residual add
/// (`r = x + r; x = norm(r) * w`), as vLLM, its forks and FlashInfer / SGLang launch it.
///
/// One CTA per token row, hardware dispatch (docs/kernels.md#rmsnorm):
/// - `vllm_scalar` (vLLM before vectorization; sarathi-serve, which Vidur profiled: csrc/layernorm_kernels.cu
///   rms_norm_kernel): block = min(hidden, 1024), one element per access, a first pass summing x^2, a
///   block reduction, one rsqrtf, a second pass re-reading x (from L1) and w.
/// - `vllm_vectorized` (current vLLM): 16-byte accesses (8 fp16 / bf16) when hidden % 8 == 0; block =
///   min(hidden, 1024) for rms_norm, min(hidden, tokens < 256 ? 1024 : 256) for fused_add_rms_norm.
/// - `flashinfer` (include/flashinfer/norm.cuh, also sgl-kernel): vec = gcd(16 / e, hidden), threads =
///   min(1024, hidden / vec) rounded up to warps; smem = warps x 4 B, fused: (ceil(warps / 4) x 4 + hidden) x 4 B.
/// Per row: FP32 FMA ~ hidden (x^2) + 2 hidden (x * rms, * w), + hidden for the fused add; XU: 1 rsqrt.
/// Bytes: plain reads x and w, writes out; fused reads x, r, w and writes r and x.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <string_view>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"
#include "synperf/family/concept.hpp"
#include "synperf/family/memory_bound.hpp"
#include "synperf/features/analysis.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family {

/// Which RMSNorm kernel runs.
enum class rmsnorm_impl { vllm_scalar, vllm_vectorized, flashinfer };

[[nodiscard]] constexpr std::string_view to_string(rmsnorm_impl i) noexcept {
    switch (i) {
        case rmsnorm_impl::vllm_scalar: return "vllm_scalar";
        case rmsnorm_impl::vllm_vectorized: return "vllm_vectorized";
        case rmsnorm_impl::flashinfer: return "flashinfer";
    }
    return "?";
}

/// One RMSNorm over a [tokens, hidden] activation.
struct rmsnorm_problem {
    std::int64_t tokens = 0;
    std::int64_t hidden = 0;
    bool fused_add = false;   ///< fused residual add + norm (reads and writes the residual too)
    int element_bytes = 2;    ///< 2 (fp16 / bf16) or 4 (fp32)
    rmsnorm_impl impl = rmsnorm_impl::vllm_scalar;

    friend bool operator==(const rmsnorm_problem&, const rmsnorm_problem&) = default;
    friend std::size_t hash_value(const rmsnorm_problem& p) noexcept {
        return synperf::detail::hash_fields(p.tokens, p.hidden, p.fused_add, p.element_bytes, p.impl);
    }
};

namespace rmsnorm_detail {

/// The launch of one RMSNorm (threads, vector width, accesses and bytes per CTA).
inline memory_bound::launch_shape shape(const rmsnorm_problem& p) {
    const std::int64_t h = p.hidden;
    const int e = p.element_bytes;
    memory_bound::launch_shape s;
    s.ctas = p.tokens;
    int vec = 1;  // elements per access
    switch (p.impl) {
        case rmsnorm_impl::vllm_scalar:
            s.threads = int(std::min<std::int64_t>(h, 1024));
            break;
        case rmsnorm_impl::vllm_vectorized: {
            const int width = 16 / e;
            vec = h % width == 0 ? width : 1;
            const std::int64_t cap = p.fused_add ? (p.tokens < 256 ? 1024 : 256) : 1024;
            s.threads = int(std::min<std::int64_t>(h, cap));
            break;
        }
        case rmsnorm_impl::flashinfer: {
            vec = int(std::gcd<std::int64_t>(16 / e, h));
            const std::int64_t threads = std::min<std::int64_t>(1024, h / vec);
            const std::int64_t warps = memory_bound::ceil_div(threads, 32);
            s.threads = int(warps * 32);
            s.smem = int(p.fused_add ? (memory_bound::ceil_div(warps, 4) * 4 + h) * 4 : warps * 4);
            break;
        }
    }
    s.vector_bytes = vec * e;
    const double rounds = double(memory_bound::ceil_div(h, std::int64_t(s.threads) * vec));
    const double row = double(h) * e;
    // Plain: pass 1 loads x; pass 2 loads x (L1) and w, stores out. Fused: pass 1 loads x, r and stores
    // r; pass 2 loads r (L2; FlashInfer: shared memory) and w, stores x.
    s.accesses_per_thread = rounds * (p.fused_add ? 6.0 : 4.0);
    // Rounds per iteration: each group of loads that goes to DRAM, and each store. Pass 2's loads of x (or r) and
    // w hit L1 / L2 (this CTA just touched the row; w is shared by every CTA), so they add none.
    // Plain: load x; store out. Fused: load x and r; store r; store x.
    s.memory_rounds = (p.fused_add ? 3.0 : 2.0) * rounds;
    s.cta.l2_bytes = p.fused_add ? (p.impl == rmsnorm_impl::flashinfer ? 5.0 : 6.0) * row : 3.0 * row;
    s.cta.smem_bytes = p.fused_add && p.impl == rmsnorm_impl::flashinfer ? 2.0 * double(h) * 4.0 : 0.0;
    s.cta.fma_ops = (p.fused_add ? 4.0 : 3.0) * double(h) + s.threads;  // + the block reduction's adds
    s.cta.xu_ops = 1;
    s.regs = 32;
    s.rounds_then_stream = true;
    s.name = std::string(p.fused_add ? "fused_add_rms_norm_" : "rms_norm_") + std::string(to_string(p.impl)) + "_vec" +
             std::to_string(vec);
    return s;
}

}  // namespace rmsnorm_detail

/// The RMSNorm family policy (plain and fused add + norm).
struct rmsnorm {
    using problem_type = rmsnorm_problem;
    using plan_type = memory_bound::plan;
    static constexpr std::string_view name = "rmsnorm";

    /// Collector semantics: the only data are Vidur's (sarathi-serve kernels, torch profiler device time).
    static constexpr std::array<std::string_view, 1> framework_levels{"vllm"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "vllm" || framework == "vidur" || framework == "sarathi") return 0;
        synperf::detail::report_error("rmsnorm: unknown framework '" + std::string(framework) + "'; known: vllm, vidur, sarathi");
    }

    static constexpr auto feature_names = memory_bound::join_names(
        memory_bound::row_feature_names, std::array<std::string_view, 1>{"fused_add"});
    static constexpr std::size_t feature_count = feature_names.size();

    /// One CTA per token: always the hardware block scheduler.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept {
        return work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: two token-by-hidden tensors (input and output; with the fused
    /// add, input and residual, both updated in place) and the weight.
    [[nodiscard]] static double device_bytes(const rmsnorm_problem& p) noexcept {
        return (double(p.tokens) * double(p.hidden) * 2.0 + double(p.hidden)) * p.element_bytes;
    }

    /// Rejects empty, overflowing and unsupported shapes.
    static void validate(const rmsnorm_problem& p) {
        // An enum cast from an integer can hold any value; the launch rules index by it.
        synperf::detail::require_enum(p.impl, rmsnorm_impl::flashinfer, "rmsnorm: unknown impl");
        if (p.tokens <= 0) synperf::detail::report_error("rmsnorm: tokens must be > 0, got " + std::to_string(p.tokens));
        if (p.tokens > 0x7fffffff)
            synperf::detail::report_error("rmsnorm: tokens must be <= 2^31 - 1 (one CTA per token), got " + std::to_string(p.tokens));
        if (p.hidden <= 0) synperf::detail::report_error("rmsnorm: hidden must be > 0, got " + std::to_string(p.hidden));
        if (p.hidden > (std::int64_t{1} << 20))
            synperf::detail::report_error("rmsnorm: hidden must be <= 2^20, got " + std::to_string(p.hidden));
        if (double(p.tokens) * double(p.hidden) > 0x1p40)
            synperf::detail::report_error("rmsnorm: tokens x hidden = " + synperf::detail::approx(double(p.tokens) * double(p.hidden)) +
                                          " elements exceeds 2^40 (no GPU holds it)");
        if (p.element_bytes != 2 && p.element_bytes != 4)
            synperf::detail::report_error("rmsnorm: element_bytes must be 2 (fp16/bf16) or 4 (fp32), got " +
                                          std::to_string(p.element_bytes));
        if (p.impl == rmsnorm_impl::flashinfer && p.fused_add && (p.hidden + 64) * 4 > 227 * 1024)
            synperf::detail::report_error("rmsnorm: FlashInfer's fused add + norm keeps the row in shared memory; hidden must be <= 58048, got " +
                                          std::to_string(p.hidden));
    }

    /// One launch: grid = tokens.
    static memory_bound::plan plan(const rmsnorm_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        const double t = double(p.tokens), h = double(p.hidden), e = p.element_bytes;
        memory_bound::compulsory_work c;
        c.fma_ops = t * h * (p.fused_add ? 4.0 : 3.0);
        c.xu_ops = t;
        c.footprint_bytes = t * h * e * (p.fused_add ? 4.0 : 2.0) + h * e;
        memory_bound::plan out;
        out.shapes.push_back(rmsnorm_detail::shape(p));
        out.kernels.push_back(memory_bound::make_launch(out.shapes[0], c, g));
        out.footprint_bytes = c.footprint_bytes;
        return out;
    }

    /// Model inputs: the common memory-bound features, then the variant. Token count and hidden size enter
    /// only through the work they make, so the model sees no absolute size it could tie to one GPU.
    static std::array<double, feature_count> features(const rmsnorm_problem& p, const memory_bound::plan& pl,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        return memory_bound::join(memory_bound::row_features(pl, kf, g),
                                  std::array<double, 1>{p.fused_add ? 1.0 : 0.0});
    }
};

static_assert(KernelFamily<rmsnorm>);

}  // namespace synperf::family
