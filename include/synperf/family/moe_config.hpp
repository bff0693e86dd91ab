// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The Triton fused_moe_kernel config and the expert dtype, and the shape of one tuned-config file as SGLang
/// ships them (E, N, device, dtype, block shape -> token count -> config).
#include <string_view>

namespace synperf::family {

/// Weight and activation type of the experts.
enum class moe_dtype { bf16, fp8 };

[[nodiscard]] constexpr std::string_view to_string(moe_dtype d) noexcept { return d == moe_dtype::bf16 ? "bf16" : "fp8"; }

/// A Triton fused_moe_kernel config (the keys of SGLang's / vLLM's tuned-config JSON files).
struct moe_kernel_config {
    int bm = 0, bn = 0, bk = 0;
    int group_m = 1;
    int warps = 4;
    int stages = 3;

    friend bool operator==(const moe_kernel_config&, const moe_kernel_config&) = default;
};

/// One tuned-config file: `E=<experts>,N=<n>,device_name=<device>[,dtype=fp8_w8a8][,block_shape=[128, 128]].json`.
struct sglang_tuned_file {
    std::string_view gpu;      ///< synperf GPU id of the device name
    int experts = 0;           ///< E: experts on the rank
    int n = 0;                 ///< N: the rank's intermediate size
    moe_dtype dtype = moe_dtype::bf16;
    bool block_fp8 = false;    ///< 128x128 block scales
    std::string_view folder;   ///< triton_<version> it was taken from
    std::string_view entries;  ///< "M:BM,BN,BK,GROUP_M,warps,stages;..." in increasing M
};

}  // namespace synperf::family
