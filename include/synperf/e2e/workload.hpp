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
/// Each op is the problem of the kernel family that prices it, with the framework's choices made here: which kernel
/// implementation and collective run, and which of the family's framework levels its model is asked for.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "synperf/e2e/model_config.hpp"
#include "synperf/e2e/op.hpp"
#include "synperf/error.hpp"
#include "synperf/family/attention/backend.hpp"
#include "synperf/family/attention/problem.hpp"
#include "synperf/family/builtin.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/system/system.hpp"

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
    /// The node the TP ranks share (wiring and links; needed when TP > 1). Its GPU, when a catalogue GPU, also picks
    /// SGLang's tuned MoE configs. `system::make_system` builds one from a GPU's links.
    std::optional<system::system_spec> node{};
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

/// Emits the ops of one iteration as problems of families `List` (the built-in families it uses must be in it).
template <class List>
struct builder {
    const model_config& m;
    const deployment& d;
    const gpu::gpu_numbers& g;
    tp_heads h;
    basic_iteration<List> it;

    [[nodiscard]] std::string_view fw() const noexcept { return to_string(d.fw); }

    template <class F>
    void add(std::string_view name, typename F::problem_type p, std::int64_t count, std::string_view framework,
             double weight_bytes = 0) {
        if (count > 0) it.ops.push_back(make_op<F, List>(name, std::move(p), count, framework, weight_bytes));
    }
    // Device time of the kernel (Vidur's eager level): launch gaps are the overhead model's, not counted twice. The
    // serving frameworks' PyTorch gathers more than 16 rows with its vectorized kernel.
    void elementwise(std::string_view name, family::elementwise_kind kind, std::int64_t tokens, std::int64_t width,
                     std::int64_t count, std::int64_t vocab = 0) {
        family::elementwise_problem q;
        q.kind = kind;
        q.rows = tokens;
        q.cols = width;
        q.vocab = vocab;
        q.gather = family::gather_kernel::vectorized;
        add<family::elementwise>(name, q, count, "vidur");
    }
    // SGLang and TensorRT-LLM's PyTorch flow call FlashInfer's (sgl-kernel's) norm, vLLM its own vectorized one; the
    // family's one trained level is Vidur's device time.
    void rmsnorm(std::string_view name, std::int64_t rows, std::int64_t width, bool fused_add, std::int64_t count) {
        family::rmsnorm_problem q;
        q.tokens = rows;
        q.hidden = width;
        q.fused_add = fused_add;
        q.impl = d.fw == framework::vllm ? family::rmsnorm_impl::vllm_vectorized : family::rmsnorm_impl::flashinfer;
        add<family::rmsnorm>(name, q, count, "vllm");
    }
    void silu_mul(std::int64_t tokens, std::int64_t inter, std::int64_t count) {
        family::silu_mul_problem q;
        q.tokens = tokens;
        q.d = inter;
        q.impl = d.fw == framework::vllm ? family::silu_mul_impl::vllm_scalar : family::silu_mul_impl::flashinfer;
        add<family::silu_mul>("silu_mul", q, count, "vllm");
    }
    // A bf16 GEMM as cuBLAS runs it under the framework.
    void gemm(std::string_view name, std::int64_t m_rows, std::int64_t n, std::int64_t k, std::int64_t count) {
        add<family::gemm>(name, family::gemm_problem{m_rows, n, k, family::gemm_dtype::bf16}, count, fw(), double(n) * double(k) * 2.0);
    }
    void linear(std::string_view name, std::int64_t m_rows, std::int64_t n, std::int64_t k, std::int64_t count) {
        if (d.fp8_weights && d.fw != framework::vllm) {
            // SGLang's and TensorRT-LLM's whole FP8 linear layer: activation quantization + FP8 GEMM, as their collectors time it.
            add<family::fp8_linear>(name, family::fp8_linear_problem{m_rows, n, k, family::fp8_linear::parse_framework(fw()), 0.0}, count,
                                    fw(), double(n) * double(k) * 1.0);
        } else if (d.fp8_weights) {
            // vLLM's: the dynamic per-tensor quantization of the input, then its CUTLASS scaled_mm.
            elementwise("fp8_quantize", family::elementwise_kind::fp8_quantize, m_rows, k, count);
            add<family::gemm_fp8>(name, family::gemm_fp8_problem{m_rows, n, k}, count, "vllm", double(n) * double(k) * 1.0);
        } else {
            gemm(name, m_rows, n, k, count);
        }
    }
    // Custom all-reduce inside CUDA graphs (decode), eager otherwise; TensorRT-LLM's AUTO strategy; NCCL for the
    // all-gather (no custom kernel).
    void collective(std::string_view name, std::int64_t elements, bool gather, std::int64_t count) {
        if (d.tp <= 1 || count <= 0) return;
        if (!d.node)
            synperf::detail::report_error("e2e: TP " + std::to_string(d.tp) +
                                          " needs the node its GPUs share (deployment.node) for its allreduce ops");
        const bool graph = it.decode && d.cuda_graph_decode;
        family::allreduce_problem q;
        q.system = *d.node;
        q.op = gather ? family::collective_op::all_gather : family::collective_op::all_reduce;
        q.bytes = elements * 2;
        q.dtype = family::collective_dtype::bf16;
        q.gpus = d.tp;
        q.implementation = gather                     ? family::collective_impl::nccl
                           : d.fw == framework::trtllm ? family::collective_impl::trtllm
                           : graph                    ? family::collective_impl::sglang
                                                      : family::collective_impl::sglang_eager;
        const std::string_view label = family::to_string(q.implementation);
        add<family::allreduce>(name, std::move(q), count, label);
    }
    void allreduce(std::int64_t tokens, std::int64_t count) { collective("allreduce", tokens * m.hidden, false, count); }
    // SGLang's Triton fused_moe block on one GPU: the intermediate size is this GPU's share of each expert, experts / ep
    // experts local, the slots of other GPUs' experts skipped, balanced routing; FP8 checkpoints run the W8A8 path.
    void moe(std::int64_t tokens, std::int64_t count) {
        const std::int64_t moe_tp = moe_tensor_parallel(m, d);
        family::moe_problem q;
        q.tokens = tokens;
        q.hidden = m.hidden;
        q.inter = m.expert_intermediate / moe_tp;
        q.experts = m.experts;
        q.topk = m.experts_per_token;
        q.ep = d.ep;
        q.remote = family::moe_remote_slots::dropped;
        q.dtype = d.fp8_weights ? family::moe_dtype::fp8 : family::moe_dtype::bf16;
        // SGLang's tuned config files for a catalogue GPU, if it ships any; a GPU from a spec file has none.
        if (d.node && gpu::catalogue_id_of(d.node->gpu)) q.tuned_configs_gpu = d.node->gpu;
        add<family::moe>("moe", std::move(q), count, "sglang");
    }

    void build(const family::attention::attention_problem& attn, std::int64_t lm_rows) {
        const std::int64_t t = it.tokens, L = m.layers, tp = d.tp, hd = m.head_dim;
        elementwise("embedding", family::elementwise_kind::embedding, t, m.hidden, 1, (m.vocab + tp - 1) / tp);
        allreduce(t, 1);  // vocab-parallel embedding: each GPU holds a slice of the vocabulary
        rmsnorm("input_norm", t, m.hidden, false, 1);
        rmsnorm("input_norm_fused", t, m.hidden, true, L - 1);
        linear("qkv_proj", t, (std::int64_t(h.heads) + 2 * h.kv_heads) * hd, m.hidden, L);
        if (m.qk_norm) {
            rmsnorm("q_norm", t * h.heads, hd, false, L);
            rmsnorm("k_norm", t * h.kv_heads, hd, false, L);
        }
        if (d.fw != framework::trtllm) {
            family::elementwise_problem rope;
            rope.kind = family::elementwise_kind::rope;
            rope.rows = t;
            rope.heads = h.heads;
            rope.kv_heads = h.kv_heads;
            rope.head_dim = int(hd);
            rope.gather = family::gather_kernel::vectorized;
            add<family::elementwise>("rope", rope, L, "vidur");
        }
        if (it.decode)
            add<family::attention_decode>("attention", attn, L, fw());
        else
            add<family::attention_prefill>("attention", attn, L, fw());
        linear("o_proj", t, m.hidden, std::int64_t(h.heads) * hd, L);
        allreduce(t, L);
        rmsnorm("post_attention_norm", t, m.hidden, true, L);
        if (m.is_moe()) {
            gemm("router", t, m.experts, m.hidden, L);  // replicated, bf16
            moe(t, L);
        } else {
            const std::int64_t inter = m.intermediate / tp;
            linear("gate_up_proj", t, 2 * inter, m.hidden, L);
            silu_mul(t, inter, L);
            linear("down_proj", t, m.hidden, inter, L);
        }
        allreduce(t, L);
        rmsnorm("final_norm", t, m.hidden, true, 1);
        // LM head stays bf16 in FP8 checkpoints (lm_head is not quantized), vocab split over TP.
        const std::int64_t vocab_shard = (m.vocab + tp - 1) / tp;
        gemm("lm_head", lm_rows, vocab_shard, m.hidden, 1);
        // The logits processor gathers every GPU's vocab shard (SGLang LogitsProcessor, vLLM's gather to rank 0).
        collective("logits_all_gather", lm_rows * vocab_shard * tp, true, 1);
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
template <class List>
family::attention::attention_problem decode_attention(const builder<List>& b, std::span<const std::int64_t> kv_lens) {
    family::attention::attention_problem a = b.attention_base(true);
    const std::vector<std::int64_t> ones(kv_lens.size(), 1);
    a.requests = groups(ones, kv_lens);
    return a;
}

}  // namespace workload_detail

/// The prefill iteration of a batch of prompts (no cached prefix): ragged attention over the prompts. `List`: the
/// family list its ops are problems of (a list that contains the built-in families, e.g. `builtin_families::append<F>`).
template <class List = builtin_families>
[[nodiscard]] basic_iteration<List> prefill_iteration(const model_config& m, const deployment& d, const gpu::gpu_numbers& g,
                                                      std::span<const std::int64_t> prompt_lens) {
    workload_detail::check_lengths(prompt_lens, "prompt length");
    workload_detail::builder<List> b{m, d, g, split_heads(m, d.tp), {}};
    b.it.tokens = std::accumulate(prompt_lens.begin(), prompt_lens.end(), std::int64_t{0});
    b.it.requests = std::int64_t(prompt_lens.size());
    b.it.decode = false;
    family::attention::attention_problem a = b.attention_base(false);
    a.requests = workload_detail::groups(prompt_lens, prompt_lens);
    b.build(a, b.it.requests);
    return std::move(b.it);
}

/// One decode iteration: one new token per request over `kv_lens` cached tokens (the new one included).
template <class List = builtin_families>
[[nodiscard]] basic_iteration<List> decode_iteration(const model_config& m, const deployment& d, const gpu::gpu_numbers& g,
                                                     std::span<const std::int64_t> kv_lens) {
    workload_detail::check_lengths(kv_lens, "KV length");
    workload_detail::builder<List> b{m, d, g, split_heads(m, d.tp), {}};
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
    const workload_detail::builder<builtin_families> b{m, d, g, split_heads(m, d.tp), {}};
    return family::attention::choose_kernel(workload_detail::decode_attention(b, kv_lens), g);
}

}  // namespace synperf::e2e
