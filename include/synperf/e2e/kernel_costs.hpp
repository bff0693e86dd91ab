// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Latency of each op of an iteration, by its kernel family, memoized: identical ops (every layer's
/// QKV GEMM, every decode step's GEMMs) are predicted once.
///
/// Each family is one function of `kernel_estimator` that maps the workload's op to the family's problem
/// and runs that family's predictor (decomposer -> scheduler -> features -> MLP efficiency). A family
/// without a model (no weights given, or no family in this build) is refused with a clear error naming it
/// — never replaced by a guess.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/e2e/workload.hpp"
#include "synperf/error.hpp"
#include "synperf/family/allreduce.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/family/elementwise.hpp"
#include "synperf/family/gemm.hpp"
#include "synperf/family/fp8_linear.hpp"
#include "synperf/family/gemm_fp8.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/family/rmsnorm.hpp"
#include "synperf/family/silu_mul.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/system/system.hpp"

namespace synperf::e2e {

/// The efficiency model of each MLP-based family (null: none available, its ops are refused).
struct family_models {
    std::shared_ptr<const mlp::network> gemm;
    std::shared_ptr<const mlp::network> gemm_fp8;
    std::shared_ptr<const mlp::network> attention_prefill;
    std::shared_ptr<const mlp::network> attention_decode;
    std::shared_ptr<const mlp::network> rmsnorm;
    std::shared_ptr<const mlp::network> silu_mul;
    std::shared_ptr<const mlp::network> elementwise;
    std::shared_ptr<const mlp::network> allreduce;
    std::shared_ptr<const mlp::network> moe;
    std::shared_ptr<const mlp::network> fp8_linear;

    /// The model that prices ops of family `f` (null when this set has none).
    [[nodiscard]] const std::shared_ptr<const mlp::network>& of(op_family f) const noexcept { return member(*this, f); }
    /// The model slot of the family called `name` (null for a family the end-to-end model does not use).
    [[nodiscard]] std::shared_ptr<const mlp::network>* slot(std::string_view name) noexcept {
        for (std::size_t i = 0; i < op_family_count; ++i)
            if (to_string(op_family(i)) == name) return &member(*this, op_family(i));
        return nullptr;
    }

private:
    template <class Self>
    static auto member(Self& self, op_family f) noexcept -> decltype((self.gemm)) {
        switch (f) {
            case op_family::gemm: return self.gemm;
            case op_family::gemm_fp8: return self.gemm_fp8;
            case op_family::attention_prefill: return self.attention_prefill;
            case op_family::attention_decode: return self.attention_decode;
            case op_family::rmsnorm: return self.rmsnorm;
            case op_family::silu_mul: return self.silu_mul;
            case op_family::elementwise: return self.elementwise;
            case op_family::allreduce: return self.allreduce;
            case op_family::moe: return self.moe;
            case op_family::fp8_linear: return self.fp8_linear;
        }
        return self.gemm;  // unreachable: every enumerator is listed
    }
};

/// What a family needs that this build or these models lack, or empty when the family can be predicted.
struct family_status {
    op_family family = op_family::gemm;
    std::string missing;  ///< why it cannot be predicted (empty: available)
};

namespace costs_detail {

/// A compact key of an op's problem (its family first), for the memo.
struct key_hash {
    std::size_t operator()(const std::vector<std::int64_t>& v) const noexcept {
        std::uint64_t h = 1469598103934665603ull;
        for (std::int64_t x : v) {
            h ^= static_cast<std::uint64_t>(x);
            h *= 1099511628211ull;
        }
        return static_cast<std::size_t>(h);
    }
};

inline std::vector<std::int64_t> key_of(const op& o) {
    std::vector<std::int64_t> k{std::int64_t(o.family)};
    std::visit(
        [&](const auto& p) {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, gemm_op>) {
                k.insert(k.end(), {p.m, p.n, p.k, p.fp8});
            } else if constexpr (std::is_same_v<P, family::attention::attention_problem>) {
                k.insert(k.end(), {std::int64_t(p.stage), p.heads, p.kv_heads, p.head_dim, p.v_head_dim, p.causal, p.window,
                                   std::int64_t(p.kv_type), p.fp8_compute, p.fp8_inputs, p.page_size, std::int64_t(p.backend),
                                   std::int64_t(p.kernel), p.preprocess});
                k.reserve(k.size() + 3 * p.requests.size());
                for (const auto& r : p.requests) k.insert(k.end(), {r.q_len, r.kv_len, r.count});
            } else if constexpr (std::is_same_v<P, norm_op>) {
                k.insert(k.end(), {p.rows, p.width, p.fused_add});
            } else if constexpr (std::is_same_v<P, silu_mul_op>) {
                k.insert(k.end(), {p.tokens, p.d});
            } else if constexpr (std::is_same_v<P, elementwise_op>) {
                k.insert(k.end(), {std::int64_t(p.kind), p.tokens, p.width, p.heads, p.kv_heads, p.head_dim, p.vocab});
            } else if constexpr (std::is_same_v<P, allreduce_op>) {
                k.insert(k.end(), {p.elements, p.ranks, p.graph, p.gather});
            } else if constexpr (std::is_same_v<P, moe_op>) {
                k.insert(k.end(), {p.tokens, p.hidden, p.intermediate, p.experts, p.top_k, p.ep, p.fp8});
            }
        },
        o.problem);
    return k;
}

template <class P>
const P& problem_as(const op& o) {
    const P* p = std::get_if<P>(&o.problem);
    if (p == nullptr)
        synperf::detail::report_error("e2e: op '" + std::string(o.name) + "' of family " + std::string(to_string(o.family)) +
                                      " carries the problem of another family");
    return *p;
}

}  // namespace costs_detail

/// Predicts op latencies on one GPU under one framework, remembering every distinct op it has seen.
class kernel_estimator {
public:
    /// `g`: the GPU (per-GPU numbers; TP ranks are alike); `fw`: the framework (the families' categorical
    /// input and kernel choices); `node`: the system collectives run on (needed when TP > 1). The node's wiring and
    /// links are used as given (a node is its own policy, `system::make_system` builds one from a GPU's links), and its
    /// `gpu`, when a catalogue GPU, picks SGLang's tuned MoE configs: build it for the GPU `g` describes.
    kernel_estimator(gpu::gpu_numbers g, framework fw, family_models models, std::optional<system::system_spec> node = {})
        : g_(gpu::validate(g)), fw_(fw), fw_name_(to_string(fw)), models_(std::move(models)), node_(std::move(node)) {
        if (models_.gemm) gemm_.emplace(g_, cost::mlp_cost(models_.gemm));
        if (models_.gemm_fp8) gemm_fp8_.emplace(g_, cost::mlp_cost(models_.gemm_fp8));
        if (models_.attention_prefill) prefill_.emplace(g_, cost::mlp_cost(models_.attention_prefill));
        if (models_.attention_decode) decode_.emplace(g_, cost::mlp_cost(models_.attention_decode));
        if (models_.rmsnorm) rmsnorm_.emplace(g_, cost::mlp_cost(models_.rmsnorm));
        if (models_.silu_mul) silu_mul_.emplace(g_, cost::mlp_cost(models_.silu_mul));
        if (models_.elementwise) elementwise_.emplace(g_, cost::mlp_cost(models_.elementwise));
        if (models_.allreduce) allreduce_.emplace(g_, cost::mlp_cost(models_.allreduce));
        if (models_.moe) moe_.emplace(g_, cost::mlp_cost(models_.moe));
        if (models_.fp8_linear) fp8_linear_.emplace(g_, cost::mlp_cost(models_.fp8_linear));
        if (node_) system::validate(*node_);
    }

    /// Whether each family can be predicted, and if not, why.
    [[nodiscard]] family_status status(op_family f) const {
        const auto no_model = [&](std::string_view fam) {
            return family_status{f, "no trained weights for the " + std::string(fam) + " family were given"};
        };
        switch (f) {
            case op_family::gemm: return gemm_ ? family_status{f, {}} : no_model("gemm");
            case op_family::gemm_fp8: return gemm_fp8_ ? family_status{f, {}} : no_model("gemm_fp8");
            case op_family::attention_prefill: return prefill_ ? family_status{f, {}} : no_model("attention_prefill");
            case op_family::attention_decode: return decode_ ? family_status{f, {}} : no_model("attention_decode");
            case op_family::rmsnorm: return rmsnorm_ ? family_status{f, {}} : no_model("rmsnorm");
            case op_family::silu_mul: return silu_mul_ ? family_status{f, {}} : no_model("silu_mul");
            case op_family::elementwise: return elementwise_ ? family_status{f, {}} : no_model("elementwise");
            case op_family::allreduce:
                if (!node_) return {f, "no system (GPU node wiring) was given for the tensor-parallel all-reduce"};
                return allreduce_ ? family_status{f, {}} : no_model("allreduce");
            case op_family::moe: return moe_ ? family_status{f, {}} : no_model("moe");
            case op_family::fp8_linear: return fp8_linear_ ? family_status{f, {}} : no_model("fp8_linear");
        }
        return {f, "unknown family"};
    }

    /// Throws `invalid_argument` naming every family of `it` that cannot be predicted and the ops that need it.
    void require(const iteration& it) const {
        std::string problems;
        std::array<bool, op_family_count> seen{};
        for (const op& o : it.ops) {
            const auto i = std::size_t(o.family);
            if (seen[i]) continue;
            seen[i] = true;
            const family_status s = status(o.family);
            if (s.missing.empty()) continue;
            std::string users;
            for (const op& u : it.ops)
                if (u.family == o.family && users.find(std::string(u.name)) == std::string::npos)
                    users += (users.empty() ? "" : ", ") + std::string(u.name);
            problems += (problems.empty() ? "" : "; ") + std::string(to_string(o.family)) + " (needed by " + users + "): " + s.missing;
        }
        if (!problems.empty())
            synperf::detail::report_error("e2e: this run cannot be predicted: " + problems);
    }

    /// Latency of one launch of `o`, in microseconds (memoized).
    [[nodiscard]] double latency_us(const op& o) {
        std::vector<std::int64_t> key = costs_detail::key_of(o);
        if (auto it = memo_.find(key); it != memo_.end()) {
            ++hits_;
            return it->second;
        }
        const double us = predict(o);
        memo_.emplace(std::move(key), us);
        return us;
    }

    /// Distinct ops predicted so far (family pipeline runs).
    [[nodiscard]] std::size_t evaluations() const noexcept { return memo_.size(); }
    /// Ops answered from the memo.
    [[nodiscard]] std::size_t hits() const noexcept { return hits_; }
    [[nodiscard]] const gpu::gpu_numbers& numbers() const noexcept { return g_; }
    [[nodiscard]] framework fw() const noexcept { return fw_; }

private:
    double predict(const op& o) const {
        switch (o.family) {
            case op_family::gemm: return gemm_us(costs_detail::problem_as<gemm_op>(o));
            case op_family::gemm_fp8: return gemm_fp8_us(costs_detail::problem_as<gemm_op>(o));
            case op_family::attention_prefill:
            case op_family::attention_decode: return attention_us(costs_detail::problem_as<family::attention::attention_problem>(o));
            case op_family::rmsnorm: return rmsnorm_us(costs_detail::problem_as<norm_op>(o));
            case op_family::silu_mul: return silu_mul_us(costs_detail::problem_as<silu_mul_op>(o));
            case op_family::elementwise: return elementwise_us(costs_detail::problem_as<elementwise_op>(o));
            case op_family::allreduce: return allreduce_us(costs_detail::problem_as<allreduce_op>(o));
            case op_family::moe: return moe_us(costs_detail::problem_as<moe_op>(o));
            case op_family::fp8_linear: return fp8_linear_us(costs_detail::problem_as<gemm_op>(o));
        }
        synperf::detail::report_error("e2e: unknown op family");
    }

    [[noreturn]] void refuse(op_family f) const {
        synperf::detail::report_error("e2e: cannot predict " + std::string(to_string(f)) + ": " + status(f).missing);
    }

    /// The least time of a serving GEMM: its weights come from DRAM. One step reads every layer's weights once, far
    /// more than L2 holds, so none is still cached when its layer comes round again. The families' bounds keep up to
    /// one L2 of a GEMM resident, as the benchmark loops they are trained on do; their models learn how cold the
    /// weights were, but a GPU or shape far outside their training may read as warm.
    double cold_weights_us(const gemm_op& p, double bytes_per_weight) const {
        return double(p.n) * double(p.k) * bytes_per_weight / (g_.dram_gbps * 1e3);
    }
    double gemm_us(const gemm_op& p) const {
        if (!gemm_) refuse(op_family::gemm);
        const double us = gemm_->predict(family::gemm_problem{p.m, p.n, p.k, family::gemm_dtype::bf16}, fw_name_).latency_us;
        return std::max(us, cold_weights_us(p, 2.0));
    }
    // vLLM's FP8 linear layer: its CUTLASS scaled_mm (the quantization is a separate elementwise op).
    double gemm_fp8_us(const gemm_op& p) const {
        if (!gemm_fp8_) refuse(op_family::gemm_fp8);
        const double us = gemm_fp8_->predict(family::gemm_fp8_problem{p.m, p.n, p.k}, "vllm").latency_us;
        return std::max(us, cold_weights_us(p, 1.0));
    }
    // SGLang's and TensorRT-LLM's FP8 linear layer: activation quantization + FP8 GEMM, as their collectors time it.
    double fp8_linear_us(const gemm_op& p) const {
        if (!fp8_linear_) refuse(op_family::fp8_linear);
        const family::fp8_linear_problem q{p.m, p.n, p.k, family::fp8_linear::parse_framework(fw_name_), 0.0};
        return std::max(fp8_linear_->predict(q, fw_name_).latency_us, cold_weights_us(p, 1.0));
    }
    double attention_us(const family::attention::attention_problem& p) const {
        if (p.stage == family::attention::phase::prefill) {
            if (!prefill_) refuse(op_family::attention_prefill);
            return prefill_->predict(p, fw_name_).latency_us;
        }
        if (!decode_) refuse(op_family::attention_decode);
        return decode_->predict(p, fw_name_).latency_us;
    }
    // SGLang and TensorRT-LLM's PyTorch flow call FlashInfer's (sgl-kernel's) norm; vLLM its own vectorized one.
    // The family's one level is the only one trained (Vidur's device time).
    double rmsnorm_us(const norm_op& p) const {
        if (!rmsnorm_) refuse(op_family::rmsnorm);
        family::rmsnorm_problem q;
        q.tokens = p.rows;
        q.hidden = p.width;
        q.fused_add = p.fused_add;
        q.impl = fw_ == framework::vllm ? family::rmsnorm_impl::vllm_vectorized : family::rmsnorm_impl::flashinfer;
        return rmsnorm_->predict(q, "vllm").latency_us;
    }
    double silu_mul_us(const silu_mul_op& p) const {
        if (!silu_mul_) refuse(op_family::silu_mul);
        family::silu_mul_problem q;
        q.tokens = p.tokens;
        q.d = p.d;
        q.impl = fw_ == framework::vllm ? family::silu_mul_impl::vllm_scalar : family::silu_mul_impl::flashinfer;
        return silu_mul_->predict(q, "vllm").latency_us;
    }
    // Device time of the kernel (the eager level): launch gaps are the overhead model's, not counted twice.
    double elementwise_us(const elementwise_op& p) const {
        if (!elementwise_) refuse(op_family::elementwise);
        family::elementwise_problem q;
        q.rows = p.tokens;
        q.cols = p.width;
        q.heads = p.heads;
        q.kv_heads = p.kv_heads;
        q.head_dim = p.head_dim;
        q.vocab = p.vocab;
        // The serving frameworks' PyTorch gathers more than 16 rows with its vectorized kernel.
        q.gather = family::gather_kernel::vectorized;
        switch (p.kind) {
            case elementwise_kind::embedding: q.kind = family::elementwise_kind::embedding; break;
            case elementwise_kind::rope: q.kind = family::elementwise_kind::rope; break;
            case elementwise_kind::residual_add: q.kind = family::elementwise_kind::residual_add; break;
            case elementwise_kind::fp8_quantize: q.kind = family::elementwise_kind::fp8_quantize; break;
        }
        return elementwise_->predict(q, "vidur").latency_us;
    }
    // Custom all-reduce inside CUDA graphs (decode), eager otherwise; TensorRT-LLM's AUTO strategy.
    double allreduce_us(const allreduce_op& p) const {
        if (p.ranks <= 1) return 0.0;
        if (!node_ || !allreduce_) refuse(op_family::allreduce);
        family::allreduce_problem q;
        q.system = *node_;
        q.op = p.gather ? family::collective_op::all_gather : family::collective_op::all_reduce;
        q.bytes = p.elements * 2;
        q.dtype = family::collective_dtype::bf16;
        q.gpus = p.ranks;
        q.implementation = p.gather                 ? family::collective_impl::nccl  // no custom all-gather kernel
                           : fw_ == framework::trtllm ? family::collective_impl::trtllm
                           : p.graph                ? family::collective_impl::sglang
                                                    : family::collective_impl::sglang_eager;
        return allreduce_->predict(q, to_string(q.implementation)).latency_us;
    }
    // SGLang's Triton fused_moe block on one GPU (the op's intermediate size is already this GPU's share of each
    // expert; experts / ep experts local), balanced routing; FP8 checkpoints run the W8A8 path.
    double moe_us(const moe_op& p) const {
        if (!moe_) refuse(op_family::moe);
        family::moe_problem q;
        q.tokens = p.tokens;
        q.hidden = p.hidden;
        q.inter = p.intermediate;
        q.experts = p.experts;
        q.topk = p.top_k;
        q.ep = p.ep;
        q.remote = family::moe_remote_slots::dropped;  // serving: the slots of other GPUs' experts are skipped
        q.dtype = p.fp8 ? family::moe_dtype::fp8 : family::moe_dtype::bf16;
        // SGLang's tuned config files for a catalogue GPU, if it ships any; a GPU from a spec file has none.
        if (node_ && gpu::catalogue_id_of(node_->gpu)) q.tuned_configs_gpu = node_->gpu;
        return moe_->predict(q, "sglang").latency_us;
    }

    gpu::gpu_numbers g_;
    framework fw_;
    std::string_view fw_name_;
    family_models models_;
    std::optional<system::system_spec> node_;
    std::optional<runtime_predictor<family::gemm>> gemm_;
    std::optional<runtime_predictor<family::gemm_fp8>> gemm_fp8_;
    std::optional<runtime_predictor<family::attention_prefill>> prefill_;
    std::optional<runtime_predictor<family::attention_decode>> decode_;
    std::optional<runtime_predictor<family::rmsnorm>> rmsnorm_;
    std::optional<runtime_predictor<family::silu_mul>> silu_mul_;
    std::optional<runtime_predictor<family::elementwise>> elementwise_;
    std::optional<runtime_predictor<family::allreduce>> allreduce_;
    std::optional<runtime_predictor<family::moe>> moe_;
    std::optional<runtime_predictor<family::fp8_linear>> fp8_linear_;
    std::unordered_map<std::vector<std::int64_t>, double, costs_detail::key_hash> memo_;
    std::size_t hits_ = 0;
};

}  // namespace synperf::e2e
