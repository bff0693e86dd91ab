// SPDX-License-Identifier: Apache-2.0
// expect: report_bad_number\("sm_count", "must be
// A GPU policy whose numbers fail validate() is not a GpuSpec: validate() calls a non-constexpr
// function for the first bad field, so the compiler names that field (here sm_count = 0).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"

struct zero_sm_gpu {
    static constexpr std::string_view name = "zero_sm_gpu";
    static constexpr std::string_view display_name = "GPU without SMs";
    static constexpr std::array<std::string_view, 1> aliases{"zero_sm"};
    static constexpr synperf::gpu::gpu_numbers numbers{
        .cc_major = 9,
        .cc_minor = 0,
        .sm_count = 0,
        .tensor_clock_mhz = 1830,
        .boost_clock_mhz = 1980,
        .tensor_bf16_flop_per_clk = 4096,
        .tensor_fp8_flop_per_clk = 8192,
        .tensor_fp4_flop_per_clk = 0,
        .fma_fp32_per_clk = 128,
        .xu_per_clk = 16,
        .dram_gbps = 3350,
        .l2_bytes = 50.0 * 1024 * 1024,
        .l2_gbps = 5500,
        .smem_bytes_per_clk = 128,
        .smem_per_sm_bytes = 228 * 1024,
        .smem_per_cta_bytes = 227 * 1024,
        .regs_per_sm = 65536,
        .max_regs_per_thread = 255,
        .max_warps_per_sm = 64,
        .max_threads_per_sm = 2048,
        .max_ctas_per_sm = 32,
        .max_threads_per_cta = 1024,
        .nvlink_gbps = 900,
        .pcie_gbps = 64,
        .memory_bytes = 80e9,
    };
    static constexpr synperf::gpu::datasheet published{.bf16_tflops = 989.4};
};

static_assert(synperf::gpu::GpuSpec<zero_sm_gpu>);
