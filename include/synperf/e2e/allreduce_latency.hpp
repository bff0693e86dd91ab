// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file One-call all-reduce latency with the shipped (embedded) model, for end-to-end composition.
///
/// Needs the synperf::models add-on (the shipped weights, generated at build time into by
/// <synperf/models/allreduce.hpp>): `synperf::e2e::allreduce_latency_us("h20", 8, bytes)` is the predicted
/// latency of a bf16 all-reduce of `bytes` over 8 GPUs of the built-in H20 node run by SGLang's custom
/// all-reduce (CUDA graph), in microseconds.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "synperf/cost/mlp_cost.hpp"
#include "synperf/family/allreduce.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/models/allreduce.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/system/catalogue.hpp"

namespace synperf::e2e {

/// The shipped all-reduce model as a cost model (parsed and compiled once).
[[nodiscard]] inline const cost::mlp_cost& allreduce_model() {
    static const cost::mlp_cost model(
        std::shared_ptr<const mlp::network>(&models::allreduce(), [](const mlp::network*) {}));
    return model;
}

/// Predicts one collective on a given system and GPU with `model` (default: the shipped one); `g` is
/// validated first, as `runtime_predictor` does.
[[nodiscard]] inline prediction predict_collective(const family::allreduce_problem& p, const gpu::gpu_numbers& g,
                                                   const cost::mlp_cost& model = allreduce_model()) {
    return predictor_detail::predict<family::allreduce>(p, gpu::validate(g), family::to_string(p.implementation), predictor_detail::schedule_by_dispatch{},
                                                model);
}

/// Predicted latency (us) of an all-reduce of `bytes` over `gpus` GPUs of the built-in node of `gpu`
/// (`system::builtin_system`), as `framework` runs it: sglang (default; also vllm), sglang_eager, trtllm,
/// nccl or torch. One GPU needs no communication: 0. Throws `invalid_argument` for unknown names, more GPUs
/// than the node has, or bytes that are not whole elements.
[[nodiscard]] inline double allreduce_latency_us(std::string_view gpu, int gpus, std::int64_t bytes,
                                                 std::string_view framework = "sglang",
                                                 family::collective_dtype dtype = family::collective_dtype::bf16) {
    const gpu::runtime_gpu g = gpu::find_gpu(gpu);
    const family::allreduce_problem p{system::builtin_system(g.name), family::collective_op::all_reduce, bytes, dtype, gpus,
                              family::parse_collective_impl(framework)};
    if (gpus == 1) {  // no communication, but the inputs still have to make sense
        family::validate(p, true);
        return 0.0;
    }
    return predict_collective(p, g.numbers).latency_us;
}

}  // namespace synperf::e2e
