// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file What an attention kernel implementation produces, and the AttentionKernel concept.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "synperf/family/attention/problem.hpp"
#include "synperf/gpu/numbers.hpp"
#include "synperf/work/launch.hpp"

namespace synperf::family::attention {

/// The kernels of one attention op and the launch choices worth reporting.
struct attention_plan {
    /// The attention kernel first, then its split-KV combine (if any), then the pre-processing kernels.
    std::vector<work::kernel_launch> kernels;
    kernel_impl implementation = kernel_impl::automatic;  ///< which implementation produced the plan
    std::string variant;        ///< e.g. "fa3_sm90_persistent_lpt", "trtllm_xqa", "flashinfer_fa2_prefill"
    int tile_q = 0;             ///< query rows per CTA tile (packed GQA rows included)
    int tile_kv = 0;            ///< KV tokens per mainloop iteration
    int splits = 1;             ///< KV splits (> 1: partial outputs + a combine kernel)
    bool pack_gqa = false;      ///< the query heads of one KV head share a CTA
    bool fp8_math = false;      ///< the attention MMAs run in FP8 (requested, or the framework's choice)
    std::size_t attention_kernels = 1;  ///< kernels[0 .. attention_kernels) are attention + combine
    double kv_footprint_bytes = 0;      ///< K + V bytes of the batch (one copy per KV head)
    double q_o_bytes = 0;               ///< Q + O bytes of the batch
};

/// An attention kernel implementation (FA3, FA2, FlashInfer, TRT-LLM, Triton): problem + GPU -> kernels.
///
/// Requires:
/// - `K::impl`: the `kernel_impl` it implements.
/// - `K::supports(p, g)`: whether the implementation runs this problem on this GPU (architecture, head dims).
/// - `K::plan(p, g)` -> `attention_plan`: grid, tiles, per-CTA work and dispatch of each kernel, derived
///   from the problem and the GPU (never from measured data); pre-processing kernels not included.
/// Models: `fa3`, `fa2`, `flashinfer`, `trtllm`, `triton` (one header each).
template <class K>
concept AttentionKernel = requires(const attention_problem& p, const gpu::gpu_numbers& g) {
    { K::impl } -> std::convertible_to<kernel_impl>;
    { K::supports(p, g) } -> std::convertible_to<bool>;
    { K::plan(p, g) } -> std::same_as<attention_plan>;
};

}  // namespace synperf::family::attention
