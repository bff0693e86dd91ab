// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA A100-SXM4-80GB (Ampere GA100, sm_80).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA A100 SXM4 80 GB: Ampere GA100, 108 SMs, HBM2e, NVLink 3.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct a100_sxm {
    /// Canonical id.
    static constexpr std::string_view name = "a100_sxm";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator inventory; PipeWeave A100.json name)
    static constexpr std::string_view display_name = "NVIDIA A100-SXM4-80GB";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 4> aliases{
        "NVIDIA A100-SXM4-80GB",  // CUDA device string
        "A100",  // PipeWeave hardware/A100.json; vidur compute/a100
        "A100-SXM4-80GB",  // device string without vendor
        "a100_dgx",  // vidur network/a100_dgx (DGX A100 = SXM4)
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_80; PipeWeave A100.json computeMajor/Minor; AIC a100_sxm.yaml sm_version 80
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 108,  // source: PipeWeave A100.json numSms; A100 whitepaper
        // source: boost clock; PipeWeave A100.json smFreq; 108 x 2048 x 1410 MHz = 311.9 TFLOPS = published 312
        .tensor_clock_mhz = 1410.0,
        .boost_clock_mhz = 1410.0,  // source: A100 datasheet boost clock; 2 x 64 x 108 x 1410 MHz = 19.5 TFLOPS FP32
        // source: PipeWeave A100.json tcBf16; derived: 312 TFLOPS / (108 SMs x 1410 MHz) = 2049
        .tensor_bf16_flop_per_clk = 2048.0,
        .tensor_fp8_flop_per_clk = 0.0,  // source: Ampere has no FP8 tensor cores
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ampere has no FP4 tensor cores
        .fma_fp32_per_clk = 64.0,  // source: sm_80 has 64 FP32 lanes per SM (Ampere whitepaper; PipeWeave FmaFp32 = 64)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 2039.0,  // source: AIC a100_sxm.yaml mem_bw 2.039 TB/s; PipeWeave A100.json memBandwidth 2039.04
        .l2_bytes = 41943040.0,  // source: 40 MB; PipeWeave A100.json l2CacheSize 40960 KB
        .l2_gbps = 3235.0,  // source: PipeWeave A100.json l2CacheBandwidth (measured, not NVIDIA-published)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 167936,  // source: CUDA Guide cc 8.0: 164 KB max carveout
        .smem_per_cta_bytes = 166912,  // source: CUDA Guide cc 8.0: 163 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 8.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 8.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 8.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.0
        .nvlink_gbps = 600.0,  // source: NVLink 3, 12 links; AIC a100_sxm.yaml intra_node_bw 300 GB/s per direction x 2
        .pcie_gbps = 32.0,  // source: AIC a100_sxm.yaml pcie_bw (PCIe 4.0 x16, one direction)
        .memory_bytes = 84987740160.0,  // source: PipeWeave A100.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 312.0,  // source: AIC a100_sxm.yaml bfloat16_tc_flops; A100 datasheet (dense)
        .fp32_tflops = 19.5,  // source: A100 datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::a100_sxm>);
