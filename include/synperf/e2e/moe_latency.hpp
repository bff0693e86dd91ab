// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file One-call MoE block latency with the shipped (embedded) model, for end-to-end composition.
///
/// Needs the synperf::models add-on (the shipped weights, generated at build time into
/// <synperf/models/moe.hpp>): `synperf::e2e::moe_latency_us(g, tokens, hidden, inter, experts, topk)` is the
/// predicted latency in microseconds of one MoE block (routing, alignment, both grouped GEMMs, activation,
/// reduction) on one rank, as SGLang's Triton fused_moe runs it with balanced routing and its default config rule
/// (`g` carries no device name; set `moe_problem::tuned_configs_gpu` and call `predict_moe` for its tuned files).
#include <cstdint>
#include <memory>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/family/moe.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/models/moe.hpp"
#include "synperf/predictor/predictor.hpp"

namespace synperf::e2e {

/// The shipped MoE model as a cost model (parsed and compiled once).
[[nodiscard]] inline const cost::mlp_cost& moe_model() {
    static const cost::mlp_cost model(std::shared_ptr<const mlp::network>(&models::moe(), [](const mlp::network*) {}));
    return model;
}

/// Predicts one MoE block on GPU `g` with `model` (default: the shipped one). `g` is validated first, so a
/// hand-filled spec with a bad field is reported by its name, not by the feature it would corrupt.
[[nodiscard]] inline prediction predict_moe(const family::moe_problem& p, const gpu::gpu_numbers& g, const cost::mlp_cost& model = moe_model()) {
    return predictor_detail::predict<family::moe>(p, gpu::validate(g), "sglang", predictor_detail::schedule_by_dispatch{}, model);
}

/// Predicted latency (us) of one MoE block of `tokens` tokens on one rank of a tp x ep group: `inter` is the
/// full expert intermediate size and `experts` the total expert count. Throws `invalid_argument` for sizes
/// the kernels cannot run (see moe::validate).
[[nodiscard]] inline double moe_latency_us(const gpu::gpu_numbers& g, std::int64_t tokens, std::int64_t hidden,
                                           std::int64_t inter, std::int64_t experts, std::int64_t topk, std::int64_t tp = 1,
                                           std::int64_t ep = 1, family::moe_dtype dtype = family::moe_dtype::bf16) {
    return predict_moe(family::moe_problem{tokens, hidden, inter, experts, topk, tp, ep, dtype, std::nullopt}, g).latency_us;
}

}  // namespace synperf::e2e
