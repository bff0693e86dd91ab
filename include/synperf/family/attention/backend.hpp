// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The framework backend policy: which attention implementation a framework runs on a GPU, and the
/// whole op's plan (attention kernel, combine, pre-processing).
///
/// Preferences, first supporting implementation wins (the data's kernel_source and the frameworks' own
/// selection):
/// - trtllm: TensorRT-LLM's own kernels on every architecture.
/// - sglang (0.5.10, as aiconfigurator's SGLang collector ran it): cc 8.x and 9.x: fa3 (sgl-kernel's
///   FlashAttention-3 code base: sm90 path on Hopper, Sm80 path on A100 / L40S); cc 10.x: trtllm_mha
///   (TensorRT-LLM's trtllm-gen kernels through FlashInfer = kernel_impl::trtllm); cc 12.x: triton.
///   Fallbacks: flashinfer, then triton.
/// - vllm (V1, vllm/platforms/cuda.py _get_backend_priorities): cc 10.x: FLASHINFER first; elsewhere
///   FLASH_ATTN first, which is vllm-flash-attn's FA3 on sm_90 and its FA2 on the others (FA3 needs
///   sm_90), then FLASHINFER, then TRITON_ATTN.
/// `p.kernel` other than `automatic` forces one implementation (an error if it does not support the
/// problem on that GPU; the message lists the ones that do).
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "synperf/error.hpp"
#include "synperf/family/attention/fa2.hpp"
#include "synperf/family/attention/fa3.hpp"
#include "synperf/family/attention/flashinfer.hpp"
#include "synperf/family/attention/kernel_plan.hpp"
#include "synperf/family/attention/preprocess.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/attention/triton.hpp"
#include "synperf/family/attention/trtllm.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family::attention {

/// A compile-time list of attention kernel implementations.
template <AttentionKernel... K>
struct kernel_list {};

/// The built-in implementations.
using builtin_kernels = kernel_list<fa3, fa2, flashinfer, trtllm, triton>;

namespace backend_detail {

template <AttentionKernel... K>
[[nodiscard]] bool supports(kernel_list<K...>, kernel_impl k, const attention_problem& p, const gpu::gpu_numbers& g) {
    bool result = false;
    (void)((K::impl == k ? (result = K::supports(p, g), true) : false) || ...);
    return result;
}

template <AttentionKernel... K>
[[nodiscard]] attention_plan plan(kernel_list<K...>, kernel_impl k, const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_plan out;
    const bool found = ((K::impl == k ? (out = K::plan(p, g), true) : false) || ...);
    if (!found) synperf::detail::report_error("attention: no built-in model of kernel " + std::string(to_string(k)));
    return out;
}

template <AttentionKernel... K>
[[nodiscard]] std::vector<kernel_impl> all(kernel_list<K...>) {
    return {K::impl...};
}

inline std::string describe(const attention_problem& p, const gpu::gpu_numbers& g) {
    return std::string(to_string(p.stage)) + " with head_dim " + std::to_string(p.head_dim) +
           (p.dv() != p.head_dim ? "/" + std::to_string(p.dv()) : std::string()) + ", " + std::to_string(p.heads) + "/" +
           std::to_string(p.kv_heads) + " heads, " + std::string(to_string(p.kv_type)) + " KV" +
           (p.fp8_compute ? ", FP8 math" : "") + " on sm_" + std::to_string(g.sm_version());
}

inline std::string join(const std::vector<kernel_impl>& ks) {
    std::string s;
    for (kernel_impl k : ks) s += (s.empty() ? "" : ", ") + std::string(to_string(k));
    return s.empty() ? "none" : s;
}

}  // namespace backend_detail

/// The implementations framework `f` tries on GPU `g` for phase `ph`, most preferred first.
[[nodiscard]] inline std::vector<kernel_impl> backend_preference(framework f, const gpu::gpu_numbers& g, phase ph) {
    (void)ph;  // the frameworks pick the same backend for prefill and decode
    using k = kernel_impl;
    switch (f) {
        case framework::trtllm: return {k::trtllm};
        case framework::sglang:
            if (g.cc_major == 8 || g.cc_major == 9) return {k::fa3, k::flashinfer, k::triton};
            if (g.cc_major == 10) return {k::trtllm, k::flashinfer, k::triton};
            if (g.cc_major == 12) return {k::triton, k::flashinfer};
            return {k::flashinfer, k::triton};
        case framework::vllm:
            if (g.cc_major == 10) return {k::flashinfer, k::fa2, k::triton};
            if (g.cc_major == 9) return {k::fa3, k::flashinfer, k::triton};
            return {k::fa2, k::flashinfer, k::triton};
    }
    return {};
}

/// The built-in implementations that run `p` on `g`.
[[nodiscard]] inline std::vector<kernel_impl> supporting_kernels(const attention_problem& p, const gpu::gpu_numbers& g) {
    std::vector<kernel_impl> out;
    for (kernel_impl k : backend_detail::all(builtin_kernels{}))
        if (backend_detail::supports(builtin_kernels{}, k, p, g)) out.push_back(k);
    return out;
}

/// The implementation that runs `p` on `g`: `p.kernel` when forced, else the first of the framework's
/// preferences that supports the problem. Throws `invalid_argument` naming the implementations that would.
[[nodiscard]] inline kernel_impl choose_kernel(const attention_problem& p, const gpu::gpu_numbers& g) {
    if (p.kernel != kernel_impl::automatic) {
        if (!backend_detail::supports(builtin_kernels{}, p.kernel, p, g))
            synperf::detail::report_error("attention: kernel " + std::string(to_string(p.kernel)) + " does not support " +
                                          backend_detail::describe(p, g) +
                                          "; implementations that do: " + backend_detail::join(supporting_kernels(p, g)));
        return p.kernel;
    }
    for (kernel_impl k : backend_preference(p.backend, g, p.stage))
        if (backend_detail::supports(builtin_kernels{}, k, p, g)) return k;
    synperf::detail::report_error("attention: framework " + std::string(to_string(p.backend)) + " has no kernel for " +
                                  backend_detail::describe(p, g) +
                                  "; implementations that support it: " + backend_detail::join(supporting_kernels(p, g)));
}

/// Whether framework `p.backend` runs FP8 attention math with implementation `k`. With an FP8 KV cache:
/// - SGLang (0.5.10 backends) casts the query to FP8 and runs FP8 attention math in trtllm_mha
///   (trtllm_mha_backend.py forward_extend / forward_decode) and in FA3 for head dims up to 256
///   (flashattention_backend.py); its Triton kernels multiply in the query's type, so FP8 only when q
///   arrives in FP8.
/// - vLLM's FlashAttention backend quantizes the query (scaled_fp8_quant) and runs FA3's FP8 kernel.
/// Otherwise, and for TensorRT-LLM, the problem's own `fp8_compute` holds.
[[nodiscard]] inline bool framework_fp8_math(const attention_problem& p, kernel_impl k, const gpu::gpu_numbers& g) {
    if (p.fp8_compute || p.backend == framework::trtllm || p.kv_type != kv_dtype::fp8) return p.fp8_compute;
    const bool fp8 = p.backend == framework::sglang
                         ? k == kernel_impl::trtllm || (k == kernel_impl::fa3 && p.head_dim <= 256) ||
                               (k == kernel_impl::triton && p.fp8_inputs)
                         : k == kernel_impl::fa3;
    if (!fp8) return false;
    attention_problem probe = p;  // copied only for FP8-cache problems
    probe.fp8_compute = true;
    return backend_detail::supports(builtin_kernels{}, k, probe, g);
}

/// The problem `p` as its framework runs it on `g` (implementation chosen, precision resolved).
[[nodiscard]] inline attention_problem effective_problem(const attention_problem& p, const gpu::gpu_numbers& g) {
    attention_problem out = p;
    out.fp8_compute = framework_fp8_math(p, choose_kernel(p, g), g);
    return out;
}

/// The whole op on `g`: validates, picks the implementation and the framework's precision, plans its
/// kernels, then appends the pre-processing launches when `p.preprocess` (kernels = attention, combine,
/// pre-processing). Every kernel is timed inside the op, so each carries the back-to-back launch floor.
[[nodiscard]] inline attention_plan plan_attention(const attention_problem& p, const gpu::gpu_numbers& g) {
    validate(p);
    const kernel_impl k = choose_kernel(p, g);
    const auto plan_as = [&](const attention_problem& run) {
        attention_plan out = backend_detail::plan(builtin_kernels{}, k, run, g);
        out.implementation = k;
        out.fp8_math = run.fp8_compute;
        out.attention_kernels = out.kernels.size();
        for (work::kernel_launch& pre : preprocess_kernels(run, g, k)) out.kernels.push_back(std::move(pre));
        for (work::kernel_launch& launch : out.kernels) launch.launch_floor_us = work::back_to_back_launch_us(g);
        return out;
    };
    // The problem is copied (its request list with it) only when the framework changes its precision.
    const bool fp8 = framework_fp8_math(p, k, g);
    if (fp8 == p.fp8_compute) return plan_as(p);
    attention_problem run = p;
    run.fp8_compute = fp8;
    return plan_as(run);
}

}  // namespace synperf::family::attention
