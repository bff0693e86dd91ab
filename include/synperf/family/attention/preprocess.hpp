// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The attention op's pre-processing kernels, as separate launches: TensorRT-LLM's fused QKV
/// pre-processing (RoPE + paged KV-cache write) and the frameworks' KV-cache stores.
///
/// - TensorRT-LLM (applyBiasRopeUpdateKVCache / QKV pre-processing, prefill and decode): reads the packed
///   QKV rows of the new tokens, rotates q and k (GPT-NeoX style, rotary_dim = min(128, d)), writes the
///   rotated Q for the attention kernel and K, V into the paged cache (64 tokens per page; FP8 caches are
///   scaled and converted on the way). Grid: one CTA per (block of tokens, head), 128 threads moving 16 B
///   each, i.e. 1024 / d tokens per CTA (approximation of the V2 kernel's launch). Per rotated pair:
///   cos and sin (2 MUFU) plus the inverse frequency power (ex2 + lg2, 2 MUFU), 2 FMA per element; the
///   MUFU work is task work only (a cos/sin table can replace it).
/// - SGLang (MHATokenToKVPool.set_kv_buffer -> the JIT store_cache kernel): writes the new tokens' K and V
///   rows into the cache, one warp per token row pair (4 tokens per 128-thread CTA). An FP8 cache first
///   casts K and V with two torch elementwise kernels; with the trtllm_mha backend the cast and store
///   are one Triton kernel (fused_fp8_set_kv_buffer). Where the backend runs FP8 math (backend.hpp,
///   framework_fp8_math) a torch cast of q to FP8 comes before the attention kernel, except in
///   trtllm_mha's decode, whose XQA path keeps a bf16 query (forward_decode casts q only when not
///   is_xqa_impl; B200's FP8-cache decode ops, timed without the collector's casts, take the time of the
///   bf16-cache ones at the smallest sizes, 10.4 us, where a third launch would add over a microsecond).
///   Inputs already in FP8 (`fp8_inputs`) skip the casts. RoPE runs in the model, outside the op.
/// - vLLM (reshape_and_cache_flash): one CTA per token, min(kv_heads x d, 512) threads, FP8 cast fused;
///   with FP8 math its FlashAttention backend then quantizes q (scaled_fp8_quant, modelled as a cast).
/// Each is memory-bound elementwise work: bytes read and written, FMA and XU ops; the compulsory work is
/// all of it, with the bytes beyond L2 capacity charged to DRAM. Each has a kind, by what it does in the op whatever
/// the library (`work::kernel_launch::kind`): `kv_cache_store` (SGLang's store, fused with the cast or not, and vLLM's),
/// `rope_kv_cache_store` (TensorRT-LLM's) and `fp8_cast` (torch's casts and vLLM's scaled_fp8_quant).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "synperf/family/attention/op_work.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"
#include "synperf/work/task.hpp"

namespace synperf::family::attention {

namespace preprocess_detail {

using op_detail::ceil_div;

inline constexpr int max_rotary_dim = 128;  // the data's RoPE: rotary_dim 128

/// Gives a launch its compulsory work: everything it does (less the XU ops when a table could replace
/// them), its bytes split at L2 capacity.
inline void set_compulsory(work::kernel_launch& k, const gpu::gpu_numbers& g, bool xu_compulsory = true) {
    work::task_work total;
    for (const auto& c : k.tasks) total += c.work.scaled(double(c.count));
    if (!xu_compulsory) total.xu_ops = 0;
    const double bytes = total.l2_bytes;
    total.dram_bytes = std::max(0.0, bytes - g.l2_bytes);
    total.l2_bytes = bytes - total.dram_bytes;
    total.smem_bytes = 0;
    k.compulsory = total;
    op_detail::spread_dram(k, total.dram_bytes);
}

inline work::kernel_launch trtllm_qkv_preprocessing(const attention_problem& p, const gpu::gpu_numbers& g) {
    const int d = p.head_dim, dv = p.dv();
    const int rot = std::min(d, max_rotary_dim);
    const double qe = q_element_bytes(p), kve = p.kv_bytes_per_element();
    const std::int64_t tokens_per_cta = std::max(1, 1024 / d);
    const bool fp8_cache = p.kv_type == kv_dtype::fp8;
    work::kernel_launch k;
    k.name = std::string(p.stage == phase::prefill ? "applyBiasRopeUpdateKVCacheV2" : "applyBiasRopeUpdateKVCacheV2_gen") +
             "_h" + std::to_string(d) + "_rot" + std::to_string(rot) + "_tokensPerBlock" + std::to_string(p.page_size);
    k.kind = "rope_kv_cache_store";
    k.launch = {128, 64, 0};
    k.dispatch = work::dispatch_kind::hardware;
    std::int64_t full = 0, partial_tokens = 0, partial = 0;
    for (const auto& r : p.requests) {
        full += (r.q_len / tokens_per_cta) * r.count;
        const std::int64_t rest = r.q_len % tokens_per_cta;
        if (rest > 0) {
            partial_tokens = rest;  // one representative tail length (uniform batches have one)
            partial += r.count;
        }
    }
    const auto q_cta = [&](double t) {
        work::task_work w;
        w.l2_bytes = t * d * (2.0 + qe);  // read bf16 q, write rotated Q
        w.fma_ops = t * 2.0 * rot + (p.fp8_compute ? t * d : 0.0);
        w.xu_ops = t * 2.0 * rot;
        return w;
    };
    const auto kv_cta = [&](double t) {
        work::task_work w;
        w.l2_bytes = t * (double(d + dv) * 2.0 + double(d + dv) * kve);  // read bf16 k, v; write the cache
        w.fma_ops = t * 2.0 * rot + (fp8_cache ? t * double(d + dv) : 0.0);
        w.xu_ops = t * 2.0 * rot;
        return w;
    };
    if (full > 0) {
        k.tasks.push_back({q_cta(double(tokens_per_cta)), full * p.heads});
        k.tasks.push_back({kv_cta(double(tokens_per_cta)), full * p.kv_heads});
    }
    if (partial > 0) {
        k.tasks.push_back({q_cta(double(partial_tokens)), partial * p.heads});
        k.tasks.push_back({kv_cta(double(partial_tokens)), partial * p.kv_heads});
    }
    // The PyTorch flow can hand the kernel a precomputed cos/sin table instead: the rotation's MUFU work is
    // then not needed, so it stays out of the bound.
    set_compulsory(k, g, false);
    return k;
}

/// A torch elementwise cast of `elements` bf16 values to FP8 (vectorized: 4 x 4 elements per thread).
inline work::kernel_launch torch_fp8_cast(const std::string& name, double elements, const gpu::gpu_numbers& g) {
    work::kernel_launch k;
    k.name = name;
    k.kind = "fp8_cast";
    k.launch = {128, 32, 0};
    k.dispatch = work::dispatch_kind::hardware;
    constexpr double per_cta = 128.0 * 16.0;
    const std::int64_t ctas = std::max<std::int64_t>(1, std::int64_t(elements / per_cta + 0.999999));
    work::task_work w;
    const double e = elements / double(ctas);
    w.l2_bytes = e * 3.0;
    w.fma_ops = e;
    k.tasks.push_back({w, ctas});
    set_compulsory(k, g);
    return k;
}

inline std::vector<work::kernel_launch> sglang_kv_store(const attention_problem& p, const gpu::gpu_numbers& g, kernel_impl chosen) {
    std::vector<work::kernel_launch> out;
    const int d = p.head_dim, dv = p.dv();
    const double tokens = double(p.q_tokens());
    const double kve = p.kv_bytes_per_element();
    const double k_elems = tokens * p.kv_heads * d, v_elems = tokens * p.kv_heads * dv;
    const bool fp8_cache = p.kv_type == kv_dtype::fp8;
    const bool fused_fp8 = fp8_cache && chosen == kernel_impl::trtllm;
    const bool cast_kv = fp8_cache && !p.fp8_inputs;
    if (cast_kv && !fused_fp8) {
        out.push_back(torch_fp8_cast("torch_cast_k_to_fp8", k_elems, g));
        out.push_back(torch_fp8_cast("torch_cast_v_to_fp8", v_elems, g));
    }
    // FP8 math on a bf16 query: the backend casts q (q.to(float8_e4m3fn)) before the attention kernel;
    // trtllm_mha's decode (XQA) takes the bf16 query as it is.
    const bool xqa_decode = chosen == kernel_impl::trtllm && p.stage == phase::decode;
    if (p.fp8_compute && !p.fp8_inputs && !xqa_decode)
        out.push_back(torch_fp8_cast("torch_cast_q_to_fp8", tokens * p.heads * d, g));
    work::kernel_launch k;
    k.name = fused_fp8 ? "fused_fp8_set_kv_buffer" : "store_cache";
    k.kind = "kv_cache_store";
    k.launch = {128, 32, 0};
    k.dispatch = work::dispatch_kind::hardware;
    const std::int64_t ctas = std::max<std::int64_t>(1, ceil_div(p.q_tokens(), 4));
    work::task_work w;
    const double read_bytes = cast_kv && fused_fp8 ? 2.0 : kve;  // the fused kernel casts bf16 rows; otherwise rows arrive in the cache type
    w.l2_bytes = (k_elems + v_elems) * (read_bytes + kve) / double(ctas);
    w.fma_ops = cast_kv && fused_fp8 ? (k_elems + v_elems) / double(ctas) : 0.0;
    k.tasks.push_back({w, ctas});
    set_compulsory(k, g);
    out.push_back(std::move(k));
    return out;
}

inline work::kernel_launch vllm_reshape_and_cache(const attention_problem& p, const gpu::gpu_numbers& g) {
    const int d = p.head_dim, dv = p.dv();
    const double kve = p.kv_bytes_per_element();
    work::kernel_launch k;
    k.name = "reshape_and_cache_flash_kernel";
    k.kind = "kv_cache_store";
    k.launch = {std::min(512, std::max(32, p.kv_heads * d)), 32, 0};
    k.dispatch = work::dispatch_kind::hardware;
    work::task_work w;
    w.l2_bytes = double(p.kv_heads) * double(d + dv) * (2.0 + kve);
    w.fma_ops = p.kv_type == kv_dtype::fp8 ? double(p.kv_heads) * double(d + dv) : 0.0;
    k.tasks.push_back({w, p.q_tokens()});
    set_compulsory(k, g);
    return k;
}

}  // namespace preprocess_detail

/// The op's pre-processing launches for the framework `p.backend`, given the attention implementation the
/// framework runs (`chosen`; the SGLang FP8 store differs for trtllm_mha). Empty when `p.preprocess` is off.
[[nodiscard]] inline std::vector<work::kernel_launch> preprocess_kernels(const attention_problem& p, const gpu::gpu_numbers& g,
                                                                         kernel_impl chosen) {
    std::vector<work::kernel_launch> out;
    if (!p.preprocess) return out;
    validate(p);
    switch (p.backend) {
        case framework::trtllm: out.push_back(preprocess_detail::trtllm_qkv_preprocessing(p, g)); break;
        case framework::sglang: out = preprocess_detail::sglang_kv_store(p, g, chosen); break;
        case framework::vllm:
            out.push_back(preprocess_detail::vllm_reshape_and_cache(p, g));
            // FP8 math on a bf16 query: scaled_fp8_quant of q before the attention kernel.
            if (p.fp8_compute && !p.fp8_inputs)
                out.push_back(preprocess_detail::torch_fp8_cast("scaled_fp8_quant_q", double(p.q_tokens()) * p.heads * p.head_dim, g));
            break;
    }
    return out;
}

/// The op's pre-processing launches for `p.backend`, taking the implementation from `p.kernel`.
[[nodiscard]] inline std::vector<work::kernel_launch> preprocess_kernels(const attention_problem& p, const gpu::gpu_numbers& g) {
    return preprocess_kernels(p, g, p.kernel);
}

}  // namespace synperf::family::attention
