// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA H800 SXM5 80GB (Hopper GH100, sm_90).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA H800 SXM5: Hopper GH100, 132 SMs, HBM3, NVLink cut to 400 GB/s (China SKU).
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct h800 {
    /// Canonical id.
    static constexpr std::string_view name = "h800";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave H800.json name)
    static constexpr std::string_view display_name = "NVIDIA H800";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA H800",  // CUDA device string
        "H800",  // PipeWeave hardware/H800.json
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 9,  // source: sm_90; PipeWeave H800.json computeMajor/Minor
        .cc_minor = 0,  // source: as cc_major
        .sm_count = 132,  // source: PipeWeave H800.json numSms
        .tensor_clock_mhz = 1830.0,  // source: PipeWeave H800.json smFreq; same tensor-spec clock as H100 SXM
        // source: same GH100 SXM5 boost clock as H100 SXM; 2 x 128 x 132 x 1980 MHz = 66.9 TFLOPS FP32
        .boost_clock_mhz = 1980.0,
        .tensor_bf16_flop_per_clk = 4096.0,  // source: PipeWeave H800.json tcBf16
        .tensor_fp8_flop_per_clk = 8192.0,  // source: PipeWeave H800.json tcFp8
        .tensor_fp4_flop_per_clk = 0.0,  // source: Hopper has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Hopper SM has 128 FP32 lanes (Hopper whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 3350.0,  // source: H800 SXM5 datasheet 3.35 TB/s; PipeWeave H800.json memBandwidth 3352.32
        .l2_bytes = 52428800.0,  // source: 50 MB; PipeWeave H800.json l2CacheSize 51200 KB
        .l2_gbps = 8820.0,  // source: PipeWeave H800.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 233472,  // source: CUDA Guide cc 9.0: 228 KB
        .smem_per_cta_bytes = 232448,  // source: CUDA Guide cc 9.0: 227 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 9.0: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 9.0
        .max_warps_per_sm = 64,  // source: CUDA Guide cc 9.0
        .max_threads_per_sm = 2048,  // source: CUDA Guide cc 9.0
        .max_ctas_per_sm = 32,  // source: CUDA Guide cc 9.0
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 9.0
        .nvlink_gbps = 400.0,  // source: H800 SXM5 datasheet: NVLink 400 GB/s bidirectional (export cut)
        .pcie_gbps = 64.0,  // source: PCIe 5.0 x16, one direction
        .memory_bytes = 84929216512.0,  // source: PipeWeave H800.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 989.0,  // source: H800 SXM5 datasheet (same tensor rates as H100 SXM)
        .fp8_tflops = 1979.0,  // source: H800 SXM5 datasheet
        .fp32_tflops = 66.9,  // source: H800 SXM5 datasheet (67)
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::h800>);
