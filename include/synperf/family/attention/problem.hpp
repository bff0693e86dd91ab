// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The attention problem shared by prefill and decode: a ragged batch of requests over a KV cache.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/detail/hash.hpp"
#include "synperf/error.hpp"

namespace synperf::family::attention {

/// Prefill: many query tokens per request (causal over its prompt); decode: one query token per request.
enum class phase { prefill, decode };

/// Element type of the cached K/V.
enum class kv_dtype { bf16, fp8 };

/// Serving framework whose attention backend runs the op (decides the kernels, see backend.hpp).
enum class framework { trtllm, sglang, vllm };

/// A kernel implementation; `automatic` lets the framework's backend policy choose.
enum class kernel_impl { automatic, fa3, fa2, flashinfer, trtllm, triton };

[[nodiscard]] constexpr std::string_view to_string(phase p) noexcept { return p == phase::prefill ? "prefill" : "decode"; }
[[nodiscard]] constexpr std::string_view to_string(kv_dtype d) noexcept { return d == kv_dtype::bf16 ? "bf16" : "fp8"; }
[[nodiscard]] constexpr std::string_view to_string(framework f) noexcept {
    switch (f) {
        case framework::trtllm: return "trtllm";
        case framework::sglang: return "sglang";
        case framework::vllm: return "vllm";
    }
    return "?";
}
[[nodiscard]] constexpr std::string_view to_string(kernel_impl k) noexcept {
    switch (k) {
        case kernel_impl::automatic: return "auto";
        case kernel_impl::fa3: return "fa3";
        case kernel_impl::fa2: return "fa2";
        case kernel_impl::flashinfer: return "flashinfer";
        case kernel_impl::trtllm: return "trtllm";
        case kernel_impl::triton: return "triton";
    }
    return "?";
}

/// Parses a framework name (trtllm, sglang, vllm); throws `invalid_argument` listing the known names.
[[nodiscard]] inline framework parse_framework(std::string_view s) {
    if (s == "trtllm") return framework::trtllm;
    if (s == "sglang") return framework::sglang;
    if (s == "vllm") return framework::vllm;
    synperf::detail::report_error("attention: unknown framework '" + std::string(s) + "'; known: trtllm, sglang, vllm");
}

/// Parses a kernel name (auto, fa3, fa2, flashinfer, trtllm, triton).
[[nodiscard]] inline kernel_impl parse_kernel(std::string_view s) {
    for (kernel_impl k : {kernel_impl::automatic, kernel_impl::fa3, kernel_impl::fa2, kernel_impl::flashinfer,
                          kernel_impl::trtllm, kernel_impl::triton})
        if (s == to_string(k)) return k;
    synperf::detail::report_error("attention: unknown kernel '" + std::string(s) +
                                  "'; known: auto, fa3, fa2, flashinfer, trtllm, triton");
}

/// `count` requests with the same query and KV lengths (a uniform batch is one group, a ragged batch
/// one group per request).
struct request_group {
    std::int64_t q_len = 0;   ///< new (query) tokens per request; 1 in decode
    std::int64_t kv_len = 0;  ///< KV tokens each query attends over, the new ones included
    std::int64_t count = 1;   ///< requests in the group

    friend bool operator==(const request_group&, const request_group&) = default;
};

/// One attention op of one layer on one GPU (heads are the GPU's share under tensor parallelism).
struct attention_problem {
    phase stage = phase::prefill;
    std::vector<request_group> requests;  ///< the batch, in request order
    int heads = 0;                        ///< query heads
    int kv_heads = 0;                     ///< KV heads (== heads: MHA; 1: MQA; else GQA)
    int head_dim = 0;                     ///< Q/K head dimension
    int v_head_dim = 0;                   ///< V head dimension (0: same as head_dim)
    bool causal = true;                   ///< causal mask (prefill); decode attends to every cached token
    std::int64_t window = 0;              ///< sliding window in tokens (0: none)
    kv_dtype kv_type = kv_dtype::bf16;    ///< KV-cache element type
    bool fp8_compute = false;             ///< FP8 attention math requested (TRT-LLM FP8 context FMHA; implies fp8 KV);
                                          ///< SGLang also picks it itself (backend.hpp, framework_fp8_math)
    bool fp8_inputs = false;              ///< q, k, v reach the op already in FP8 (implies fp8 KV): no casts before the kernel
    bool v_aliases_k = false;             ///< the cache holds K only and V's reads land on K's blocks (a measurement
                                          ///< artefact: TensorRT-LLM's pre-1.3 collector allocated CacheType::SELFKONLY),
                                          ///< so V's bytes come from the caches, not DRAM
    int page_size = 64;                   ///< paged KV-cache tokens per page
    framework backend = framework::sglang;    ///< framework whose backend runs the op
    kernel_impl kernel = kernel_impl::automatic;  ///< force one implementation
    bool preprocess = true;               ///< include the op's pre-processing kernels (RoPE + KV write / KV store)

    [[nodiscard]] int dv() const noexcept { return v_head_dim > 0 ? v_head_dim : head_dim; }
    [[nodiscard]] int group_size() const noexcept { return kv_heads > 0 ? heads / kv_heads : 0; }
    [[nodiscard]] double kv_bytes_per_element() const noexcept { return kv_type == kv_dtype::fp8 ? 1.0 : 2.0; }
    /// Requests in the batch.
    [[nodiscard]] std::int64_t batch() const noexcept {
        std::int64_t b = 0;
        for (const auto& r : requests) b += r.count;
        return b;
    }
    /// Query tokens over the batch.
    [[nodiscard]] std::int64_t q_tokens() const noexcept {
        std::int64_t t = 0;
        for (const auto& r : requests) t += r.q_len * r.count;
        return t;
    }
    /// KV tokens over the batch.
    [[nodiscard]] std::int64_t kv_tokens() const noexcept {
        std::int64_t t = 0;
        for (const auto& r : requests) t += r.kv_len * r.count;
        return t;
    }
    /// Query-key pairs the mask lets through, over the batch and one head (the useful work's size).
    [[nodiscard]] double attended_pairs() const noexcept { return attended_pairs(window); }
    /// Share of the mask's query-key pairs the sliding window keeps: 1 without a window or with one longer than
    /// every request (the same computation), towards 0 as the window shrinks.
    [[nodiscard]] double window_fraction() const noexcept {
        if (window <= 0) return 1.0;
        const double all = attended_pairs(0);
        return all > 0 ? attended_pairs(window) / all : 1.0;
    }

    friend bool operator==(const attention_problem&, const attention_problem&) = default;
    friend std::size_t hash_value(const attention_problem& p) noexcept {
        std::size_t h = synperf::detail::hash_fields(p.stage, p.heads, p.kv_heads, p.head_dim, p.v_head_dim, p.causal, p.window,
                                                     p.kv_type, p.fp8_compute, p.fp8_inputs, p.v_aliases_k, p.page_size,
                                                     p.backend, p.kernel, p.preprocess);
        for (const request_group& r : p.requests) h = synperf::detail::hash_fields(h, r.q_len, r.kv_len, r.count);
        return h;
    }

private:
    /// Attended pairs under a sliding window of `sliding_window` tokens (0: none).
    [[nodiscard]] double attended_pairs(std::int64_t sliding_window) const noexcept {
        double pairs = 0;
        for (const auto& r : requests) {
            const double q = double(r.q_len), kv = double(r.kv_len), prefix = kv - q;
            double p = q * kv;
            if (causal && stage == phase::prefill) p = q * prefix + q * (q + 1) / 2;  // query i sees prefix + i + 1 keys
            if (sliding_window > 0) {
                // Each query sees at most `sliding_window` keys (the last ones before it).
                const double w = double(sliding_window);
                double capped = 0;
                if (causal && stage == phase::prefill) {
                    // keys seen by query i: min(prefix + i + 1, w)
                    const double full = std::max(0.0, q - std::max(0.0, w - prefix));  // queries that see w keys
                    const double partial = q - full;  // the first ones: prefix + 1 ... prefix + partial keys
                    capped = full * w + partial * prefix + partial * (partial + 1) / 2;
                } else {
                    capped = q * std::min(kv, w);
                }
                p = std::min(p, capped);
            }
            pairs += p * double(r.count);
        }
        return pairs;
    }
};

/// A uniform batch: `batch` requests of `q_len` query tokens over `kv_len` KV tokens.
[[nodiscard]] inline std::vector<request_group> uniform_batch(std::int64_t batch, std::int64_t q_len, std::int64_t kv_len) {
    return {request_group{q_len, kv_len, batch}};
}

/// A ragged batch from per-request lists (sizes must match; validated by `validate`).
[[nodiscard]] inline std::vector<request_group> ragged_batch(const std::vector<std::int64_t>& q_lens,
                                                             const std::vector<std::int64_t>& kv_lens) {
    if (q_lens.size() != kv_lens.size())
        synperf::detail::report_error("attention: " + std::to_string(q_lens.size()) + " query lengths but " +
                                      std::to_string(kv_lens.size()) + " KV lengths; give one of each per request");
    std::vector<request_group> out;
    out.reserve(q_lens.size());
    for (std::size_t i = 0; i < q_lens.size(); ++i) out.push_back({q_lens[i], kv_lens[i], 1});
    return out;
}

/// Checks an attention problem; throws `invalid_argument` naming the bad field.
inline void validate(const attention_problem& p) {
    const auto fail = [](const std::string& what) { synperf::detail::report_error("attention: " + what); };
    synperf::detail::require_enum(p.stage, phase::decode, "attention: unknown phase");
    synperf::detail::require_enum(p.kv_type, kv_dtype::fp8, "attention: unknown KV-cache dtype");
    synperf::detail::require_enum(p.backend, framework::vllm, "attention: unknown framework");
    synperf::detail::require_enum(p.kernel, kernel_impl::triton, "attention: unknown kernel");
    if (p.requests.empty()) fail("the batch is empty: give at least one request");
    if (p.heads <= 0 || p.heads > 65536) fail("heads must be in 1..65536, got " + std::to_string(p.heads));
    if (p.kv_heads <= 0) fail("kv_heads must be > 0, got " + std::to_string(p.kv_heads));
    if (p.heads % p.kv_heads != 0)
        fail("heads (" + std::to_string(p.heads) + ") must be a multiple of kv_heads (" + std::to_string(p.kv_heads) + ")");
    if (p.head_dim <= 0 || p.head_dim > 1024) fail("head_dim must be in 1..1024, got " + std::to_string(p.head_dim));
    if (p.v_head_dim < 0 || p.v_head_dim > 1024) fail("v_head_dim must be in 0..1024, got " + std::to_string(p.v_head_dim));
    constexpr std::int64_t max_len = std::int64_t{1} << 24;  // 16 M tokens per request
    if (p.window < 0 || p.window > max_len) fail("window must be in 0..2^24 tokens (0: none), got " + std::to_string(p.window));
    if (p.page_size <= 0 || p.page_size > (1 << 24))
        fail("page_size must be in 1..2^24 (tokens per KV page), got " + std::to_string(p.page_size));
    if (p.fp8_compute && p.kv_type != kv_dtype::fp8) fail("fp8 attention math needs an fp8 KV cache");
    if (p.fp8_inputs && p.kv_type != kv_dtype::fp8) fail("fp8 inputs (q, k, v) need an fp8 KV cache");
    if (p.v_aliases_k && p.dv() != p.head_dim) fail("V reads that alias K's blocks need V's head dim equal to K's");
    constexpr std::int64_t max_count = std::int64_t{1} << 20;
    double tokens = 0, queries = 0;
    for (std::size_t i = 0; i < p.requests.size(); ++i) {
        const request_group& r = p.requests[i];
        const auto at = [i] { return "request " + std::to_string(i) + ": "; };  // built only for a message
        if (r.count <= 0 || r.count > max_count) fail(at() + "count must be in 1..2^20, got " + std::to_string(r.count));
        if (r.q_len <= 0 || r.q_len > max_len) fail(at() + "query length must be in 1..2^24, got " + std::to_string(r.q_len));
        if (r.kv_len <= 0 || r.kv_len > max_len) fail(at() + "KV length must be in 1..2^24, got " + std::to_string(r.kv_len));
        if (r.kv_len < r.q_len)
            fail(at() + "KV length (" + std::to_string(r.kv_len) + ") must be >= query length (" + std::to_string(r.q_len) +
                 "): the new tokens are part of the KV");
        if (p.stage == phase::decode && r.q_len != 1)
            fail(at() + "decode has one query token per request, got " + std::to_string(r.q_len));
        tokens += double(r.kv_len) * double(r.count);
        queries += double(r.q_len) * double(r.count);
    }
    if (queries * double(p.heads) * double(std::max(p.head_dim, p.dv())) > 0x1p40)
        fail("the query (or output) of this batch exceeds 2^40 elements (no GPU holds it)");
    if (tokens * double(p.kv_heads) * double(p.head_dim + p.dv()) > 0x1p50)
        fail("the KV cache of this batch exceeds 2^50 elements (no GPU holds it)");
}

}  // namespace synperf::family::attention
