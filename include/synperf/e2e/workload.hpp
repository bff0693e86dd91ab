// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The workload generator: one inference iteration (prefill of a batch of prompts, or one decode
/// step) as the list of kernels the serving framework runs on one GPU, each op with its count.
///
/// Per iteration, in execution order (SGLang / vLLM model code, e.g. sglang/srt/models/llama.py, qwen2.py,
/// qwen3.py, mixtral.py, qwen3_moe.py):
///   embedding (+ all-reduce of the vocab-parallel embedding when TP > 1);
///   per layer: input RMSNorm (plain in layer 0, fused residual add + RMSNorm after: the residual add is
///   folded into fused_add_rmsnorm), QKV GEMM, [Qwen3: q and k per-head RMSNorm], RoPE, attention (its
///   KV-cache store included), O GEMM, [all-reduce], fused add + RMSNorm, gate/up GEMM, SiLU&Mul, down GEMM
///   (MoE: router GEMM + the fused MoE block), [all-reduce];
///   final fused add + RMSNorm over every token; LM head over the sampled rows only (prefill: the last
///   token of each request).
/// TensorRT-LLM applies RoPE inside its attention op's QKV pre-processing, so it has no separate RoPE.
/// With FP8 weights every linear layer but the LM head and router is FP8: under SGLang and TensorRT-LLM one
/// `fp8_linear` op (the framework's dynamic activation quantization and FP8 GEMM), under vLLM the dynamic
/// per-tensor quantization of the input (elementwise `fp8_quantize`) then `gemm_fp8`; the MoE block quantizes
/// inside.
/// Tensor parallelism: query heads are split over the GPUs (they must divide by TP); KV heads are split
/// too, or replicated when TP > KV heads (TP must then be a multiple of them: each GPU holds one).
/// Identical ops are emitted once with a count (a layer's ops once x layers), so an iteration is ~20 ops.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "synperf/e2e/model_config.hpp"
#include "synperf/error.hpp"
#include "synperf/family/attention/backend.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::e2e {

/// Serving framework whose model code and kernels run the iteration.
enum class framework { sglang, vllm, trtllm };

[[nodiscard]] constexpr std::string_view to_string(framework f) noexcept {
    switch (f) {
        case framework::sglang: return "sglang";
        case framework::vllm: return "vllm";
        case framework::trtllm: return "trtllm";
    }
    return "?";
}

/// Parses sglang, vllm or trtllm; throws `invalid_argument` listing them otherwise.
[[nodiscard]] inline framework parse_framework(std::string_view s) {
    if (s == "sglang") return framework::sglang;
    if (s == "vllm") return framework::vllm;
    if (s == "trtllm") return framework::trtllm;
    synperf::detail::report_error("e2e: unknown framework '" + std::string(s) + "'; known: sglang, vllm, trtllm");
}

/// How the model is deployed: parallelism, precision, framework and attention backend.
struct deployment {
    int tp = 1;                                   ///< tensor-parallel degree (GPUs per replica)
    int ep = 1;                                   ///< expert-parallel degree of the MoE layers (divides tp)
    framework fw = framework::sglang;             ///< serving framework
    family::attention::kernel_impl attention = family::attention::kernel_impl::automatic;  ///< attention backend
    bool fp8_weights = false;                     ///< FP8 (e4m3, per-tensor) linear layers
    bool fp8_kv = false;                          ///< FP8 KV cache
    bool cuda_graph_decode = true;                ///< decode iterations replay a CUDA graph
};

/// The kernel families an op can belong to.
enum class op_family { gemm, gemm_fp8, attention_prefill, attention_decode, rmsnorm, silu_mul, elementwise, allreduce, moe, fp8_linear };

[[nodiscard]] constexpr std::string_view to_string(op_family f) noexcept {
    switch (f) {
        case op_family::gemm: return "gemm";
        case op_family::gemm_fp8: return "gemm_fp8";
        case op_family::attention_prefill: return "attention_prefill";
        case op_family::attention_decode: return "attention_decode";
        case op_family::rmsnorm: return "rmsnorm";
        case op_family::silu_mul: return "silu_mul";
        case op_family::elementwise: return "elementwise";
        case op_family::allreduce: return "allreduce";
        case op_family::moe: return "moe";
        case op_family::fp8_linear: return "fp8_linear";
    }
    return "?";
}
inline constexpr std::size_t op_family_count = 10;

/// A GEMM Y[m,n] = X[m,k] W[n,k]^T (bf16, or FP8 inputs with a bf16 output).
struct gemm_op {
    std::int64_t m = 0, n = 0, k = 0;
    bool fp8 = false;
};

/// RMSNorm over `rows` rows of `width` (q/k norms: one row per token and head).
struct norm_op {
    std::int64_t rows = 0, width = 0;
    bool fused_add = false;  ///< fused residual add + RMSNorm
};

/// SiLU-and-mul over [tokens, 2 d].
struct silu_mul_op {
    std::int64_t tokens = 0, d = 0;
};

/// The memory-bound element-wise ops of an LLM iteration.
enum class elementwise_kind { embedding, rope, residual_add, fp8_quantize };

[[nodiscard]] constexpr std::string_view to_string(elementwise_kind k) noexcept {
    switch (k) {
        case elementwise_kind::embedding: return "embedding";
        case elementwise_kind::rope: return "rope";
        case elementwise_kind::residual_add: return "residual_add";
        case elementwise_kind::fp8_quantize: return "fp8_quantize";
    }
    return "?";
}

/// One element-wise op: embedding gather [tokens, width], residual add, FP8 quantize of [tokens, width],
/// or RoPE over q and k (`heads`, `kv_heads` of `head_dim` per token).
struct elementwise_op {
    elementwise_kind kind = elementwise_kind::residual_add;
    std::int64_t tokens = 0, width = 0;
    int heads = 0, kv_heads = 0, head_dim = 0;  ///< RoPE only
    std::int64_t vocab = 0;                     ///< embedding only: table rows on this GPU
};

/// An all-reduce of `elements` bf16 values over `ranks` GPUs, or an all-gather of that many.
struct allreduce_op {
    std::int64_t elements = 0;  ///< bf16 elements reduced, or the gathered output's
    int ranks = 1;
    bool graph = false;   ///< captured in a CUDA graph (decode with graphs on)
    bool gather = false;  ///< an NCCL all-gather (the logits' vocab shards) instead of an all-reduce
};

/// A whole MoE block after the router: top-k routing, the experts' gate/up GEMM, SiLU&Mul, down GEMM and
/// the weighted sum (expert intermediate size per GPU under TP).
struct moe_op {
    std::int64_t tokens = 0, hidden = 0, intermediate = 0;  ///< intermediate: of each expert on this GPU
    int experts = 0, top_k = 0;
    int ep = 1;  ///< expert-parallel degree: this GPU holds experts / ep experts and drops the other slots
    bool fp8 = false;
};

/// An op's problem, by family.
using op_problem = std::variant<gemm_op, family::attention::attention_problem, norm_op, silu_mul_op, elementwise_op,
                                allreduce_op, moe_op>;

/// One op of an iteration with the number of times it runs (e.g. once per layer).
struct op {
    std::string_view name;  ///< role in the model: "qkv_proj", "attention", ...
    op_family family = op_family::gemm;
    op_problem problem;
    std::int64_t count = 1;
};

/// The ops of one iteration on one GPU.
struct iteration {
    std::vector<op> ops;
    std::int64_t tokens = 0;    ///< new tokens processed (prefill: prompt tokens; decode: batch)
    std::int64_t requests = 0;  ///< batch size
    bool decode = false;
    /// Kernel launches of the iteration (sum of counts).
    [[nodiscard]] std::int64_t launches() const noexcept {
        std::int64_t n = 0;
        for (const auto& o : ops) n += o.count;
        return n;
    }
};

/// Heads of one GPU under TP: query heads split, KV heads split or replicated.
struct tp_heads {
    int heads = 0, kv_heads = 0;
};

/// Checks that the model can be split `tp` ways and returns the per-GPU heads; throws `invalid_argument`.
[[nodiscard]] inline tp_heads split_heads(const model_config& m, int tp) {
    if (tp < 1 || tp > 1024) synperf::detail::report_error("e2e: tensor-parallel degree must be in 1..1024, got " + std::to_string(tp));
    if (m.heads % tp != 0)
        synperf::detail::report_error("e2e: " + m.name + " has " + std::to_string(m.heads) +
                                      " query heads, which do not split over TP " + std::to_string(tp) +
                                      "; use a TP that divides " + std::to_string(m.heads));
    tp_heads h;
    h.heads = m.heads / tp;
    if (m.kv_heads >= tp) {
        if (m.kv_heads % tp != 0)
            synperf::detail::report_error("e2e: " + m.name + " has " + std::to_string(m.kv_heads) + " KV heads, which do not split over TP " +
                                          std::to_string(tp));
        h.kv_heads = m.kv_heads / tp;
    } else {
        if (tp % m.kv_heads != 0)
            synperf::detail::report_error("e2e: TP " + std::to_string(tp) + " exceeds the " + std::to_string(m.kv_heads) +
                                          " KV heads of " + m.name + " and is not a multiple of them (KV heads are replicated)");
        h.kv_heads = 1;  // each GPU holds one replicated KV head
    }
    const std::int64_t tp64 = tp;
    if (!m.is_moe() && m.intermediate % tp64 != 0)
        synperf::detail::report_error("e2e: the MLP intermediate size of " + m.name + " does not split over TP " + std::to_string(tp));
    return h;
}

/// Checks how the MoE layers split over the deployment's GPUs and returns their tensor-parallel degree, tp / ep
/// (SGLang's `--ep-size` without an all-to-all backend: each GPU holds experts / ep whole experts, each split
/// tp / ep ways, computes every token's slots on them, drops the others, and the TP all-reduce sums the
/// partial outputs); throws `invalid_argument`.
[[nodiscard]] inline int moe_tensor_parallel(const model_config& m, const deployment& d) {
    if (d.ep < 1 || d.ep > d.tp)
        synperf::detail::report_error("e2e: the expert-parallel degree must be in 1..TP (" + std::to_string(d.tp) + "), got " +
                                      std::to_string(d.ep));
    if (d.tp % d.ep != 0)
        synperf::detail::report_error("e2e: the expert-parallel degree (" + std::to_string(d.ep) + ") must divide TP (" +
                                      std::to_string(d.tp) + ")");
    if (!m.is_moe()) {
        if (d.ep > 1) synperf::detail::report_error("e2e: expert parallelism needs a MoE model; " + m.name + " is dense");
        return d.tp;
    }
    if (m.experts % d.ep != 0)
        synperf::detail::report_error("e2e: the " + std::to_string(m.experts) + " experts of " + m.name +
                                      " do not split over the expert-parallel degree " + std::to_string(d.ep));
    const int moe_tp = d.tp / d.ep;
    if (m.expert_intermediate % moe_tp != 0)
        synperf::detail::report_error("e2e: the expert intermediate size of " + m.name + " does not split over the MoE TP " +
                                      std::to_string(moe_tp) + " (TP / EP)");
    return moe_tp;
}

/// The attention backend a framework uses by default on a GPU (`automatic` lets the attention family's
/// backend policy decide): SGLang 0.5 (server_args.py) picks fa3 on Hopper, trtllm_mha on Blackwell
/// datacenter parts and FlashInfer elsewhere; vLLM's priorities are the attention family's own
/// (backend.hpp); TensorRT-LLM runs its own kernels.
[[nodiscard]] inline family::attention::kernel_impl default_attention(framework f, const gpu::gpu_numbers& g) {
    using k = family::attention::kernel_impl;
    switch (f) {
        case framework::sglang:
            if (g.cc_major == 9) return k::fa3;
            if (g.cc_major == 10) return k::trtllm;
            return k::flashinfer;
        case framework::vllm: return k::automatic;
        case framework::trtllm: return k::trtllm;
    }
    return k::automatic;
}

/// Tokens per KV-cache page each framework uses by default: SGLang --page-size 1, vLLM block_size 16,
/// TensorRT-LLM tokens_per_block 64 (what the attention family's TRT-LLM kernels assume).
[[nodiscard]] constexpr int default_page_size(framework f) noexcept {
    switch (f) {
        case framework::sglang: return 1;
        case framework::vllm: return 16;
        case framework::trtllm: return 64;
    }
    return 1;
}

namespace workload_detail {

struct builder {
    const model_config& m;
    const deployment& d;
    const gpu::gpu_numbers& g;
    tp_heads h;
    iteration it;

    void add(std::string_view name, op_family f, op_problem p, std::int64_t count) {
        if (count > 0) it.ops.push_back(op{name, f, std::move(p), count});
    }
    void linear(std::string_view name, std::int64_t m_rows, std::int64_t n, std::int64_t k, std::int64_t count) {
        if (d.fp8_weights && d.fw != framework::vllm) {
            // The framework's whole FP8 linear layer: its activation quantization and FP8 GEMM, one op.
            add(name, op_family::fp8_linear, gemm_op{m_rows, n, k, true}, count);
        } else if (d.fp8_weights) {
            add("fp8_quantize", op_family::elementwise, elementwise_op{elementwise_kind::fp8_quantize, m_rows, k, 0, 0, 0, 0}, count);
            add(name, op_family::gemm_fp8, gemm_op{m_rows, n, k, true}, count);
        } else {
            add(name, op_family::gemm, gemm_op{m_rows, n, k, false}, count);
        }
    }
    void allreduce(std::int64_t tokens, std::int64_t count) {
        if (d.tp > 1)
            add("allreduce", op_family::allreduce, allreduce_op{tokens * m.hidden, d.tp, it.decode && d.cuda_graph_decode}, count);
    }

    void build(const family::attention::attention_problem& attn, std::int64_t lm_rows) {
        const std::int64_t t = it.tokens, L = m.layers, tp = d.tp, hd = m.head_dim;
        add("embedding", op_family::elementwise,
            elementwise_op{elementwise_kind::embedding, t, m.hidden, 0, 0, 0, (m.vocab + tp - 1) / tp}, 1);
        allreduce(t, 1);  // vocab-parallel embedding: each GPU holds a slice of the vocabulary
        add("input_norm", op_family::rmsnorm, norm_op{t, m.hidden, false}, 1);
        add("input_norm_fused", op_family::rmsnorm, norm_op{t, m.hidden, true}, L - 1);
        linear("qkv_proj", t, (std::int64_t(h.heads) + 2 * h.kv_heads) * hd, m.hidden, L);
        if (m.qk_norm) {
            add("q_norm", op_family::rmsnorm, norm_op{t * h.heads, hd, false}, L);
            add("k_norm", op_family::rmsnorm, norm_op{t * h.kv_heads, hd, false}, L);
        }
        if (d.fw != framework::trtllm)
            add("rope", op_family::elementwise, elementwise_op{elementwise_kind::rope, t, 0, h.heads, h.kv_heads, int(hd), 0}, L);
        add("attention", it.decode ? op_family::attention_decode : op_family::attention_prefill, attn, L);
        linear("o_proj", t, m.hidden, std::int64_t(h.heads) * hd, L);
        allreduce(t, L);
        add("post_attention_norm", op_family::rmsnorm, norm_op{t, m.hidden, true}, L);
        if (m.is_moe()) {
            add("router", op_family::gemm, gemm_op{t, m.experts, m.hidden, false}, L);  // replicated, bf16
            const std::int64_t moe_tp = moe_tensor_parallel(m, d);
            add("moe", op_family::moe,
                moe_op{t, m.hidden, m.expert_intermediate / moe_tp, m.experts, m.experts_per_token, d.ep, d.fp8_weights}, L);
        } else {
            const std::int64_t inter = m.intermediate / tp;
            linear("gate_up_proj", t, 2 * inter, m.hidden, L);
            add("silu_mul", op_family::silu_mul, silu_mul_op{t, inter}, L);
            linear("down_proj", t, m.hidden, inter, L);
        }
        allreduce(t, L);
        add("final_norm", op_family::rmsnorm, norm_op{t, m.hidden, true}, 1);
        // LM head stays bf16 in FP8 checkpoints (lm_head is not quantized), vocab split over TP.
        const std::int64_t vocab_shard = (m.vocab + tp - 1) / tp;
        add("lm_head", op_family::gemm, gemm_op{lm_rows, vocab_shard, m.hidden, false}, 1);
        // The logits processor gathers every GPU's vocab shard (SGLang LogitsProcessor, vLLM's gather to rank 0).
        if (d.tp > 1)
            add("logits_all_gather", op_family::allreduce,
                allreduce_op{lm_rows * vocab_shard * tp, d.tp, it.decode && d.cuda_graph_decode, true}, 1);
    }

    family::attention::attention_problem attention_base(bool decode) const {
        family::attention::attention_problem a;
        a.stage = decode ? family::attention::phase::decode : family::attention::phase::prefill;
        a.heads = h.heads;
        a.kv_heads = h.kv_heads;
        a.head_dim = m.head_dim;
        a.causal = !decode;
        a.kv_type = d.fp8_kv ? family::attention::kv_dtype::fp8 : family::attention::kv_dtype::bf16;
        a.page_size = default_page_size(d.fw);
        a.backend = d.fw == framework::sglang ? family::attention::framework::sglang
                    : d.fw == framework::vllm ? family::attention::framework::vllm
                                              : family::attention::framework::trtllm;
        a.kernel = d.attention == family::attention::kernel_impl::automatic ? default_attention(d.fw, g) : d.attention;
        a.preprocess = true;
        return a;
    }
};

/// Groups equal values: a ragged batch with repeated lengths becomes fewer request groups.
inline std::vector<family::attention::request_group> groups(std::span<const std::int64_t> q, std::span<const std::int64_t> kv) {
    std::vector<family::attention::request_group> out;
    out.reserve(q.size());
    for (std::size_t i = 0; i < q.size(); ++i) {
        bool merged = false;
        for (auto& r : out)
            if (r.q_len == q[i] && r.kv_len == kv[i]) {
                ++r.count;
                merged = true;
                break;
            }
        if (!merged) out.push_back({q[i], kv[i], 1});
    }
    return out;
}

inline void check_lengths(std::span<const std::int64_t> lens, const char* what) {
    if (lens.empty()) synperf::detail::report_error(std::string("e2e: ") + what + ": the batch is empty; give at least one request");
    for (std::size_t i = 0; i < lens.size(); ++i)
        if (lens[i] <= 0 || lens[i] > (std::int64_t{1} << 24))
            synperf::detail::report_error(std::string("e2e: ") + what + " of request " + std::to_string(i) +
                                          " must be in 1..2^24, got " + std::to_string(lens[i]));
}

/// The attention op of a decode iteration: one new token per request over `kv_lens` cached tokens.
inline family::attention::attention_problem decode_attention(const builder& b, std::span<const std::int64_t> kv_lens) {
    family::attention::attention_problem a = b.attention_base(true);
    const std::vector<std::int64_t> ones(kv_lens.size(), 1);
    a.requests = groups(ones, kv_lens);
    return a;
}

}  // namespace workload_detail

/// The prefill iteration of a batch of prompts (no cached prefix): ragged attention over the prompts.
[[nodiscard]] inline iteration prefill_iteration(const model_config& m, const deployment& d, const gpu::gpu_numbers& g,
                                                 std::span<const std::int64_t> prompt_lens) {
    workload_detail::check_lengths(prompt_lens, "prompt length");
    workload_detail::builder b{m, d, g, split_heads(m, d.tp), {}};
    b.it.tokens = std::accumulate(prompt_lens.begin(), prompt_lens.end(), std::int64_t{0});
    b.it.requests = std::int64_t(prompt_lens.size());
    b.it.decode = false;
    family::attention::attention_problem a = b.attention_base(false);
    a.requests = workload_detail::groups(prompt_lens, prompt_lens);
    b.build(a, b.it.requests);
    return std::move(b.it);
}

/// One decode iteration: one new token per request over `kv_lens` cached tokens (the new one included).
[[nodiscard]] inline iteration decode_iteration(const model_config& m, const deployment& d, const gpu::gpu_numbers& g,
                                                std::span<const std::int64_t> kv_lens) {
    workload_detail::check_lengths(kv_lens, "KV length");
    workload_detail::builder b{m, d, g, split_heads(m, d.tp), {}};
    b.it.tokens = std::int64_t(kv_lens.size());
    b.it.requests = b.it.tokens;
    b.it.decode = true;
    b.build(workload_detail::decode_attention(b, kv_lens), b.it.requests);
    return std::move(b.it);
}

/// The attention kernel a decode iteration over `kv_lens` runs: the deployment's, else the one its framework picks
/// for this model's heads and this GPU (vLLM chooses per GPU and shape).
[[nodiscard]] inline family::attention::kernel_impl decode_attention_kernel(const model_config& m, const deployment& d,
                                                                            const gpu::gpu_numbers& g,
                                                                            std::span<const std::int64_t> kv_lens) {
    workload_detail::check_lengths(kv_lens, "KV length");
    const workload_detail::builder b{m, d, g, split_heads(m, d.tp), {}};
    return family::attention::choose_kernel(workload_detail::decode_attention(b, kv_lens), g);
}

}  // namespace synperf::e2e
