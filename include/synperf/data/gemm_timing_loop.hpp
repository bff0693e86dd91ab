// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file How each collector's timing loop cycles a GEMM's operands through L2 (ai-dynamo/aiconfigurator,
/// `collector/<framework>/collect_gemm.py` at the commits that produced the data).
///
/// Each collector captures several copies of the op in one CUDA graph and divides the time by the copy count,
/// so between two runs on the same weights the GPU touches every copy once: that is the GEMM's reuse distance.
/// When it fits in L2 the weights come from L2, not DRAM. On a GPU whose L2 is large next to its DRAM
/// bandwidth (L40S: 96 MB against 864 GB/s) that is a threefold difference for one weight matrix.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "synperf/family/gemm.hpp"

namespace synperf::data {

/// The timing loops in the data.
enum class gemm_timing_loop {
    five_weight_copies,      ///< TensorRT-LLM collector of A100's 1.0.0 data: 5 copies of W; X and Y shared
    l2_sized_weight_copies,  ///< TensorRT-LLM 1.3 collector: ceil(L2 / W) copies of W, at most 5; X and Y shared
    six_op_copies,           ///< SGLang collector: 6 copies of X and W; Y freed after each call, so reused
    six_layer_copies,        ///< vLLM collector: 6 copies of the layer (W and its output Y); X shared
};

/// The loop a table was measured with, from its framework and version ("" = the newest collector).
[[nodiscard]] inline gemm_timing_loop gemm_timing_loop_of(std::string_view framework, std::string_view version) {
    if (framework == "sglang") return gemm_timing_loop::six_op_copies;
    if (framework == "vllm") return gemm_timing_loop::six_layer_copies;
    // The L2-sized rotation replaced the fixed 5 copies in the collector in March 2026 (before 1.3.0rc10).
    return version.starts_with("1.0.") ? gemm_timing_loop::five_weight_copies : gemm_timing_loop::l2_sized_weight_copies;
}

/// Bytes touched between two runs of `p` on the same weights under `loop`. The collectors' memory caps on
/// the copy count are left out: they bind only for operands far beyond L2, where the distance no longer matters.
[[nodiscard]] inline double gemm_reuse_distance(gemm_timing_loop loop, const family::gemm_problem& p, double l2_bytes) {
    constexpr double element_bytes = 2.0;
    const double x = double(p.m) * double(p.k) * element_bytes;
    const double w = double(p.n) * double(p.k) * element_bytes;
    const double y = double(p.m) * double(p.n) * element_bytes;
    switch (loop) {
        case gemm_timing_loop::five_weight_copies: return 5 * w + x + y;
        case gemm_timing_loop::l2_sized_weight_copies: {
            const double copies = std::clamp(std::ceil(l2_bytes / w), 1.0, 5.0);
            return copies * w + x + y;
        }
        case gemm_timing_loop::six_op_copies: return 6 * (x + w) + y;
        case gemm_timing_loop::six_layer_copies: return 6 * (w + y) + x;
    }
    return 0;
}

}  // namespace synperf::data
