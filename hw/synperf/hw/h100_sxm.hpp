// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA H100 SXM5 80GB (Hopper GH100, sm_90).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA H100 SXM5 80 GB: Hopper GH100, 132 SMs, HBM3, NVLink 4.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct h100_sxm {
    /// Canonical id.
    static constexpr std::string_view name = "h100_sxm";
    /// CUDA device string.
    // source: CUDA device string (aiconfigurator and NeuSight inventories)
    static constexpr std::string_view display_name = "NVIDIA H100 80GB HBM3";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 5> aliases{
        "NVIDIA H100 80GB HBM3",  // CUDA device string (NVIDIA_H100_80GB_HBM3 normalizes to it)
        "NVIDIA H100",  // PipeWeave H100.json name
        "H100",  // PipeWeave hardware/H100.json; vidur compute/h100
        "H100-SXM5-80GB",  // product name
        "h100_dgx",  // vidur network/h100_dgx (DGX H100 = SXM5)
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 9,  // source: sm_90; PipeWeave H100.json computeMajor/Minor; AIC h100_sxm.yaml sm_version 90
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 132,  // source: PipeWeave H100.json numSms; Hopper whitepaper
        // source: PipeWeave H100.json smFreq; derived: 989.4 TFLOPS / (132 x 4096) = 1830 MHz (docs/gpus.md#clocks)
        .tensor_clock_mhz = 1830.0,
        // source: Hopper whitepaper max boost; NeuSight Freq 1980; 2 x 128 x 132 x 1980 MHz = 66.9 TFLOPS FP32
        .boost_clock_mhz = 1980.0,
        // source: PipeWeave H100.json tcBf16; derived: 989 TFLOPS / (132 x 1830 MHz) = 4094
        .tensor_bf16_flop_per_clk = 4096.0,
        .tensor_fp8_flop_per_clk = 8192.0,  // source: PipeWeave H100.json tcFp8
        .tensor_fp4_flop_per_clk = 0.0,  // source: Hopper has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Hopper SM has 128 FP32 lanes (Hopper whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        // source: AIC h100_sxm.yaml mem_bw; H100 datasheet 3.35 TB/s; PipeWeave H100.json memBandwidth 3352.32
        .dram_gbps = 3350.0,
        .l2_bytes = 52428800.0,  // source: 50 MB; PipeWeave H100.json l2CacheSize 51200 KB
        .l2_gbps = 8820.0,  // source: PipeWeave H100.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 9.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 9.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 9.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 9.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 9.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 9.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 9.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 9.0
        .nvlink_gbps = 900.0,  // source: NVLink 4, 18 links; AIC h100_sxm.yaml intra_node_bw 450 GB/s per direction x 2
        .pcie_gbps = 64.0,  // source: AIC h100_sxm.yaml pcie_bw (PCIe 5.0 x16, one direction)
        .memory_bytes = 84929216512.0,  // source: PipeWeave H100.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 989.0,  // source: AIC h100_sxm.yaml bfloat16_tc_flops; H100 datasheet 1979 with sparsity / 2
        .fp8_tflops = 1979.0,  // source: H100 datasheet 3958 with sparsity / 2; aiconfigurator 1978
        .fp32_tflops = 66.9,  // source: Hopper whitepaper (datasheet rounds to 67)
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::h100_sxm>);
