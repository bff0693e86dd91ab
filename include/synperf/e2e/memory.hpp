// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Memory fit of a run on one GPU: weights + KV cache + peak activations + a fixed runtime reserve
/// against the GPU's memory, and the largest batch / KV-token count that would fit.
///
/// - Weights: this GPU's shard under TP (attention heads, MLP columns and the vocabulary split; KV heads
///   replicated when TP > KV heads; norms replicated), 2 bytes per parameter, 1 for FP8 linear layers (the
///   embedding, norms, router and LM head stay bf16).
/// - KV cache: layers x 2 (K and V) x KV heads on this GPU x head_dim x (1 or 2 bytes) per token, for every
///   request's prompt plus its decoded tokens.
/// - Activations (prefill, the peak): per token the residual and hidden states, the QKV output and the
///   gate/up output plus the SiLU&Mul result (MoE: top-k copies of the expert intermediates), bf16; plus
///   the sampled rows' fp32 logits.
/// - Reserve: the CUDA context, cuBLAS / NCCL workspaces and the CUDA-graph pool: 2 GiB (the CUDA context
///   alone takes ~0.3-0.5 GiB on current GPUs; SGLang keeps 1 - mem_fraction_static of the memory, several
///   GiB on an 80 GB GPU, for the rest — a run that fits here may still need a smaller static fraction).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>

#include "synperf/e2e/model_config.hpp"
#include "synperf/e2e/workload.hpp"
#include "synperf/error.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::e2e {

/// Runtime memory outside weights, KV cache and activations (see the file comment).
inline constexpr double runtime_reserve_bytes = 2.0 * 1024 * 1024 * 1024;

/// Per-GPU memory of a run, in bytes, and what would fit.
struct memory_estimate {
    double weights = 0;           ///< this GPU's weight shard
    double kv_cache = 0;          ///< KV cache of the whole run (prompts + decoded tokens)
    double activations = 0;       ///< peak activations (prefill)
    double reserve = 0;           ///< CUDA context, workspaces, graph pool
    double total = 0;             ///< sum of the above
    double capacity = 0;          ///< the GPU's memory
    double kv_bytes_per_token = 0;
    std::int64_t kv_tokens = 0;       ///< KV tokens the run holds at its end
    std::int64_t max_kv_tokens = 0;   ///< KV tokens that fit next to weights, activations and reserve
    std::int64_t max_batch = 0;       ///< requests of this run's mean prompt length and decode steps that fit
    [[nodiscard]] bool fits() const noexcept { return total <= capacity; }
};

namespace memory_detail {

inline double weight_bytes(const model_config& m, const deployment& d, const tp_heads& h) {
    const double tp = d.tp, hidden = double(m.hidden), hd = m.head_dim;
    const double wb = d.fp8_weights ? 1.0 : 2.0;
    const double vocab_shard = std::ceil(double(m.vocab) / tp);
    double per_layer = hidden * (double(h.heads) + 2.0 * h.kv_heads) * hd * wb  // QKV
                       + double(h.heads) * hd * hidden * wb                     // O
                       + 2.0 * hidden * 2.0                                     // two norms
                       + (m.qk_norm ? 2.0 * hd * 2.0 : 0.0) + (m.qkv_bias ? (double(h.heads) + 2.0 * h.kv_heads) * hd * 2.0 : 0.0);
    if (m.is_moe())
        per_layer += double(m.experts) * 3.0 * hidden * double(m.expert_intermediate) / tp * wb + hidden * m.experts * 2.0;
    else
        per_layer += 3.0 * hidden * double(m.intermediate) / tp * wb;
    const double embedding = vocab_shard * hidden * 2.0;
    const double lm_head = m.tie_embeddings ? 0.0 : vocab_shard * hidden * 2.0;
    return double(m.layers) * per_layer + embedding + lm_head + hidden * 2.0;
}

inline double kv_per_token(const model_config& m, const deployment& d, const tp_heads& h) {
    return double(m.layers) * 2.0 * h.kv_heads * double(m.head_dim) * (d.fp8_kv ? 1.0 : 2.0);
}

/// Peak activation bytes of a prefill of `tokens` tokens and `requests` requests.
inline double activation_bytes(const model_config& m, const deployment& d, const tp_heads& h, double tokens, double requests) {
    const double hidden = double(m.hidden), hd = m.head_dim;
    double per_token = 2.0 * hidden + (double(h.heads) + 2.0 * h.kv_heads) * hd;  // residual, hidden, qkv
    if (m.is_moe())  // every token's top-k slots, each expert's intermediate split tp / ep ways
        per_token += double(m.experts_per_token) * 3.0 * double(m.expert_intermediate) / moe_tensor_parallel(m, d) +
                     double(m.experts_per_token) * hidden;
    else
        per_token += 3.0 * double(m.intermediate) / d.tp;  // gate/up output and the SiLU&Mul result
    const double logits = requests * std::ceil(double(m.vocab) / d.tp) * 4.0;
    return tokens * per_token * 2.0 + logits;
}

}  // namespace memory_detail

/// The memory of a run of `prompt_lens` prompts and `decode_steps` decode steps on one GPU of `g`.
[[nodiscard]] inline memory_estimate estimate_memory(const model_config& m, const deployment& d, const gpu::gpu_numbers& g,
                                                     std::span<const std::int64_t> prompt_lens, std::int64_t decode_steps) {
    const tp_heads h = split_heads(m, d.tp);
    memory_estimate e;
    const double prompt_tokens = double(std::accumulate(prompt_lens.begin(), prompt_lens.end(), std::int64_t{0}));
    const double requests = double(prompt_lens.size());
    e.kv_tokens = std::int64_t(prompt_tokens) + std::int64_t(prompt_lens.size()) * std::max<std::int64_t>(decode_steps, 0);
    e.weights = memory_detail::weight_bytes(m, d, h);
    e.kv_bytes_per_token = memory_detail::kv_per_token(m, d, h);
    e.kv_cache = double(e.kv_tokens) * e.kv_bytes_per_token;
    e.activations = memory_detail::activation_bytes(m, d, h, prompt_tokens, requests);
    e.reserve = runtime_reserve_bytes;
    e.total = e.weights + e.kv_cache + e.activations + e.reserve;
    e.capacity = g.memory_bytes;
    const double free_for_kv = e.capacity - e.weights - e.activations - e.reserve;
    e.max_kv_tokens = free_for_kv > 0 ? std::int64_t(free_for_kv / e.kv_bytes_per_token) : 0;
    // Requests of the mean prompt length: each brings its KV (prompt + decode) and its prefill activations.
    if (requests > 0) {
        const double mean_prompt = prompt_tokens / requests;
        const double per_request = (mean_prompt + double(std::max<std::int64_t>(decode_steps, 0))) * e.kv_bytes_per_token +
                                   memory_detail::activation_bytes(m, d, h, mean_prompt, 1.0);
        const double room = e.capacity - e.weights - e.reserve;
        e.max_batch = room > 0 ? std::int64_t(room / per_request) : 0;
    }
    return e;
}

/// Throws `invalid_argument` when the run does not fit, with the parts, the GPU's memory and what would fit.
inline void require_fit(const memory_estimate& e, const std::string& what) {
    if (e.fits()) return;
    const auto gb = [](double b) {
        const double v = b / 1e9;
        std::string s = std::to_string(v);
        return s.substr(0, s.find('.') + 2) + " GB";
    };
    std::string msg = "e2e: " + what + " does not fit in GPU memory: needs " + gb(e.total) + " per GPU (weights " +
                      gb(e.weights) + ", KV cache " + gb(e.kv_cache) + " for " + std::to_string(e.kv_tokens) +
                      " tokens, activations " + gb(e.activations) + ", runtime reserve " + gb(e.reserve) + ") but the GPU has " +
                      gb(e.capacity);
    if (e.max_batch <= 0) {
        msg += "; the weights alone leave no room: use more tensor-parallel GPUs or FP8 weights";
    } else {
        msg += "; a batch of at most " + std::to_string(e.max_batch) + " requests of this mean prompt length and decode steps fits";
        if (e.max_kv_tokens > 0)
            msg += " (next to this batch's activations, at most " + std::to_string(e.max_kv_tokens) + " KV tokens fit)";
    }
    synperf::detail::report_error(msg);
}

}  // namespace synperf::e2e
