// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The tensor-core instruction Triton emits for a `tl.dot`, which sets the rate its MMAs run at.
///
/// Seen in the PTX of Triton 3.6 on an H200 (bench/measure/triton_mma_kind.py, output in
/// bench/measure/h200_sxm/triton_mma_kind.txt): a dot of BLOCK_M 16 or 32 rows compiles to warp-level
/// mma.sync.m16n8k16, with e4m3 operands converted to f16 first; 64 and 128 rows to wgmma; 4 or 8 warps alike.
/// sm_100/103 (tcgen05) are taken to follow the same threshold. On sm_80-89 and sm_120 mma.sync is the
/// architecture's own instruction (FP8 included from sm_89), so the kind changes no rate there.
#include "synperf/gpu/numbers.hpp"

namespace synperf::family {

/// Instruction kind and MMA input type of one Triton dot.
struct triton_dot {
    gpu::mma_issue issue = gpu::mma_issue::native;
    gpu::tensor_dtype type = gpu::tensor_dtype::bf16;
};

/// The dot of `block_m` rows with operands of `type` on GPU `g`.
[[nodiscard]] constexpr triton_dot triton_dot_of(int block_m, gpu::tensor_dtype type, const gpu::gpu_numbers& g) noexcept {
    if (block_m >= 64) return {gpu::mma_issue::native, type};
    const bool converts_fp8 = g.cc_major == 9 || g.cc_major == 10;
    return {gpu::mma_issue::warp_sync, converts_fp8 ? gpu::tensor_dtype::bf16 : type};
}

}  // namespace synperf::family
