// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The compulsory memory traffic of one GEMM, Y[m,n] = X[m,k] * W[n,k]^T, split between DRAM and L2.
///
/// Shared by the GEMM families whatever their element sizes (bf16 in and out; FP8 in, bf16 out).
#include <algorithm>
#include <cstdint>

#include "synperf/gpu/numbers.hpp"

namespace synperf::family {

/// Bytes a GEMM must move.
/// - `expected_dram`: the weights W read cold (as in serving); X and Y stay in L2 when they fit in half of it
///   (produced and consumed by neighbouring kernels). The traffic a schedule is costed with.
/// - `bound_dram` / `bound_l2`: for the lower bound, only the bytes that cannot stay resident in L2 go to DRAM,
///   the rest to L2 bandwidth.
struct gemm_traffic {
    double weights = 0, footprint = 0, expected_dram = 0, bound_dram = 0, bound_l2 = 0;
};

/// The traffic of an m x n x k GEMM whose inputs take `input_bytes` per element and output `output_bytes`.
[[nodiscard]] inline gemm_traffic compulsory_gemm_traffic(std::int64_t m, std::int64_t n, std::int64_t k, double input_bytes,
                                                          double output_bytes, const gpu::gpu_numbers& g) {
    const double x = double(m) * double(k) * input_bytes;
    const double w = double(n) * double(k) * input_bytes;
    const double y = double(m) * double(n) * output_bytes;
    const double half_l2 = 0.5 * g.l2_bytes;
    gemm_traffic t;
    t.weights = w;
    t.footprint = x + w + y;
    t.expected_dram = w + (x > half_l2 ? x : 0.0) + (y > half_l2 ? y : 0.0);
    t.bound_dram = std::max(0.0, t.footprint - g.l2_bytes);
    t.bound_l2 = t.footprint - t.bound_dram;
    return t;
}

}  // namespace synperf::family
