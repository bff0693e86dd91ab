// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file SiLU-and-mul (act_and_mul): `out[t, i] = silu(x[t, i]) * x[t, d + i]` over a [tokens, 2d] input,
/// the gated MLP's activation.
///
/// One CTA per token, hardware dispatch (docs/kernels.md#activations):
/// - `vllm_scalar` (vLLM csrc/activation_kernels.cu act_and_mul_kernel; sarathi-serve silu_and_mul_kernel,
///   which Vidur profiled): block = min(d, 1024), one element per access (__ldg), silu = x / (1 + expf(-x)).
/// - `flashinfer` (include/flashinfer/activation.cuh, launched by sgl-kernel): vec = 16 / e elements per
///   128-bit access, block = min(d / vec, 1024).
/// Per element: exp = 1 FMUL + 1 MUFU.EX2, 1 add, a divide = MUFU.RCP + 2 FFMA, 1 multiply by the gate:
/// 5 FMA-pipe ops and 2 XU ops. Bytes per token: 2d read, d written.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
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

/// Which act_and_mul kernel runs.
enum class silu_mul_impl { vllm_scalar, flashinfer };

[[nodiscard]] constexpr std::string_view to_string(silu_mul_impl i) noexcept {
    return i == silu_mul_impl::vllm_scalar ? "vllm_scalar" : "flashinfer";
}

/// One SiLU-and-mul over a [tokens, 2 d] input (d = intermediate size per tensor-parallel rank).
struct silu_mul_problem {
    std::int64_t tokens = 0;
    std::int64_t d = 0;
    int element_bytes = 2;  ///< 2 (fp16 / bf16) or 4 (fp32)
    silu_mul_impl impl = silu_mul_impl::vllm_scalar;

    friend bool operator==(const silu_mul_problem&, const silu_mul_problem&) = default;
    friend std::size_t hash_value(const silu_mul_problem& p) noexcept {
        return synperf::detail::hash_fields(p.tokens, p.d, p.element_bytes, p.impl);
    }
};

namespace silu_mul_detail {

inline constexpr double fma_per_element = 5.0;
inline constexpr double xu_per_element = 2.0;

/// The launch of one SiLU-and-mul.
inline memory_bound::launch_shape shape(const silu_mul_problem& p) {
    memory_bound::launch_shape s;
    const int e = p.element_bytes;
    int vec = 1;
    if (p.impl == silu_mul_impl::flashinfer) {
        vec = 16 / e;
        s.threads = int(std::clamp<std::int64_t>(p.d / vec, 1, 1024));
    } else {
        s.threads = int(std::min<std::int64_t>(p.d, 1024));
    }
    s.ctas = p.tokens;
    s.vector_bytes = vec * e;
    const double rounds = double(memory_bound::ceil_div(p.d, std::int64_t(s.threads) * vec));
    s.accesses_per_thread = 3.0 * rounds;  // load x, load the gate, store
    s.memory_rounds = 2.0 * rounds;        // per iteration: the two loads' round trip (they overlap), then the store's
    s.cta.l2_bytes = 3.0 * double(p.d) * e;
    s.cta.fma_ops = fma_per_element * double(p.d);
    s.cta.xu_ops = xu_per_element * double(p.d);
    s.regs = 32;
    s.rounds_then_stream = true;
    s.name = "act_and_mul_silu_" + std::string(to_string(p.impl)) + "_vec" + std::to_string(vec);
    return s;
}

}  // namespace silu_mul_detail

/// The SiLU-and-mul family policy.
struct silu_mul {
    using problem_type = silu_mul_problem;
    using plan_type = memory_bound::plan;
    static constexpr std::string_view name = "silu_mul";

    /// Collector semantics: the only data are Vidur's (sarathi-serve kernels, torch profiler device time).
    static constexpr std::array<std::string_view, 1> framework_levels{"vllm"};
    static std::size_t framework_level(std::string_view framework) {
        if (framework == "vllm" || framework == "vidur" || framework == "sarathi") return 0;
        synperf::detail::report_error("silu_mul: unknown framework '" + std::string(framework) + "'; known: vllm, vidur, sarathi");
    }

    static constexpr auto feature_names = memory_bound::join_names(memory_bound::row_feature_names,
                                                                   std::array<std::string_view, 1>{"footprint_over_l2"});
    static constexpr std::size_t feature_count = feature_names.size();

    /// One CTA per token: always the hardware block scheduler.
    static constexpr work::dispatch_kind main_dispatch(const gpu::gpu_numbers&) noexcept {
        return work::dispatch_kind::hardware;
    }

    /// Bytes the op's tensors take in device memory: the gate-up input (2 d per token) and the output.
    [[nodiscard]] static double device_bytes(const silu_mul_problem& p) noexcept {
        return 3.0 * double(p.tokens) * double(p.d) * p.element_bytes;
    }

    /// Rejects empty, overflowing and unsupported shapes.
    static void validate(const silu_mul_problem& p) {
        synperf::detail::require_enum(p.impl, silu_mul_impl::flashinfer, "silu_mul: unknown impl");
        if (p.tokens <= 0) synperf::detail::report_error("silu_mul: tokens must be > 0, got " + std::to_string(p.tokens));
        if (p.tokens > 0x7fffffff)
            synperf::detail::report_error("silu_mul: tokens must be <= 2^31 - 1 (one CTA per token), got " + std::to_string(p.tokens));
        if (p.d <= 0) synperf::detail::report_error("silu_mul: d must be > 0, got " + std::to_string(p.d));
        if (p.d > (std::int64_t{1} << 24)) synperf::detail::report_error("silu_mul: d must be <= 2^24, got " + std::to_string(p.d));
        if (2.0 * double(p.tokens) * double(p.d) > 0x1p40)
            synperf::detail::report_error("silu_mul: the input of tokens x 2d = " + synperf::detail::approx(2.0 * double(p.tokens) * double(p.d)) +
                                          " elements exceeds 2^40 (no GPU holds it)");
        if (p.element_bytes != 2 && p.element_bytes != 4)
            synperf::detail::report_error("silu_mul: element_bytes must be 2 (fp16/bf16) or 4 (fp32), got " +
                                          std::to_string(p.element_bytes));
        if (p.impl == silu_mul_impl::flashinfer && p.d % (16 / p.element_bytes) != 0)
            synperf::detail::report_error("silu_mul: FlashInfer's kernel needs d divisible by " +
                                          std::to_string(16 / p.element_bytes) + " (128-bit accesses), got " + std::to_string(p.d));
    }

    /// One launch: grid = tokens.
    static memory_bound::plan plan(const silu_mul_problem& p, const gpu::gpu_numbers& g) {
        validate(p);
        const double elements = double(p.tokens) * double(p.d);
        memory_bound::compulsory_work c;
        c.fma_ops = silu_mul_detail::fma_per_element * elements;
        c.xu_ops = silu_mul_detail::xu_per_element * elements;
        c.footprint_bytes = 3.0 * elements * p.element_bytes;
        memory_bound::plan out;
        out.shapes.push_back(silu_mul_detail::shape(p));
        out.kernels.push_back(memory_bound::make_launch(out.shapes[0], c, g));
        out.footprint_bytes = c.footprint_bytes;
        return out;
    }

    /// Model inputs: the common memory-bound features (the shape enters only through the work it makes).
    static std::array<double, feature_count> features(const silu_mul_problem&, const memory_bound::plan& pl,
                                                      std::span<const features::kernel_features> kf,
                                                      const gpu::gpu_numbers& g) {
        return memory_bound::join(memory_bound::row_features(pl, kf, g), std::array<double, 1>{pl.footprint_bytes / g.l2_bytes});
    }
};

static_assert(KernelFamily<silu_mul>);

}  // namespace synperf::family
