// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA B200 SXM (Blackwell, sm_100).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA B200 (HGX): Blackwell, two GB100 dies, 148 SMs, HBM3e, NVLink 5.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct b200_sxm {
    /// Canonical id.
    static constexpr std::string_view name = "b200_sxm";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory)
    static constexpr std::string_view display_name = "NVIDIA B200";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA B200",  // CUDA device string
        "B200",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 10,  // source: sm_100; AIC b200_sxm.yaml sm_version 100
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 148,  // source: chipsandcheese B200 article (74 SMs per die); docs/gpus.md#datasheets
        .tensor_clock_mhz = 1855.8,  // derived: 2250 TFLOPS / (148 SMs x 8192) = 1855.8 MHz
        .boost_clock_mhz = 1980.0,  // derived: 75 TFLOPS FP32 / (2 x 128 x 148) = 1979.5 MHz, rounded
        // derived: inferred (docs/gpus.md#tensor-rates): twice Hopper's per-SM rate; with 148 SMs it puts the 2250
        // TFLOPS clock at 1856 MHz
        .tensor_bf16_flop_per_clk = 8192.0,
        .tensor_fp8_flop_per_clk = 16384.0,  // derived: 2 x bf16; 148 x 16384 x 1855.8 MHz = 4500 TFLOPS
        .tensor_fp4_flop_per_clk = 32768.0,  // derived: 4 x bf16; 148 x 32768 x 1855.8 MHz = 9000 TFLOPS
        .fma_fp32_per_clk = 128.0,  // source: Blackwell SM has 128 FP32 lanes (Blackwell architecture brief)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 7700.0,  // source: AIC b200_sxm.yaml mem_bw 7.7 TB/s (HGX B200: 62 TB/s / 8)
        .l2_bytes = 132120576.0,  // source: 126 MB, uncertain (chipsandcheese measurement, docs/gpus.md#datasheets)
        // derived: no measured sm_100 part; H100 SXM measured 8820 GB/s = 36.51 B/clk/SM (the only measured Blackwell,
        // GB202, would put L2 below DRAM bandwidth); x 148 SMs x 1855.8 MHz
        .l2_gbps = 10028.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 10.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 10.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 10.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 10.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 10.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 10.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 10.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 10.0
        .nvlink_gbps = 1800.0,  // source: NVLink 5; AIC b200_sxm.yaml intra_node_bw 900 GB/s per direction x 2
        .pcie_gbps = 128.0,  // source: AIC b200_sxm.yaml pcie_bw (one direction)
        .memory_bytes = 193273528320.0,  // source: AIC b200_sxm.yaml mem_capacity (180 GiB)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        // source: AIC b200_sxm.yaml bfloat16_tc_flops; Blackwell datasheet 4.5 PF with sparsity / 2
        .bf16_tflops = 2250.0,
        .fp8_tflops = 4500.0,  // source: AIC b200_sxm.yaml fp8_tc_flops
        .fp4_tflops = 9000.0,  // source: AIC b200_sxm.yaml fp4_tc_flops
        .fp32_tflops = 75.0,  // source: HGX B200 datasheet FP32 600 TFLOPS / 8 GPUs
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::b200_sxm>);
