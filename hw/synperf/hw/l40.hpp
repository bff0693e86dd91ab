// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA L40 (Ada AD102, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA L40: Ada AD102, 142 SMs, 48 GB GDDR6, half-rate tensor SKU.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct l40 {
    /// Canonical id.
    static constexpr std::string_view name = "l40";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave L40.json name)
    static constexpr std::string_view display_name = "NVIDIA L40";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA L40",  // CUDA device string
        "L40",  // PipeWeave hardware/L40.json
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89; PipeWeave L40.json computeMajor/Minor
        .cc_minor = 9,  // source: as cc_major
        .sm_count = 142,  // source: PipeWeave L40.json numSms; L40 datasheet 18176 CUDA cores / 128
        .tensor_clock_mhz = 2490.0,  // source: PipeWeave L40.json smFreq; 142 x 512 x 2490 MHz = 181.0 TFLOPS
        .boost_clock_mhz = 2490.0,  // source: L40 boost clock; 2 x 128 x 142 x 2490 MHz = 90.5 TFLOPS FP32
        // source: PipeWeave L40.json tcBf16; derived: 181.05 TFLOPS / (142 x 2490 MHz) = 512
        .tensor_bf16_flop_per_clk = 512.0,
        .tensor_fp8_flop_per_clk = 1024.0,  // derived: 362.1 TFLOPS / (142 x 2490 MHz) = 1024
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 864.0,  // source: L40 datasheet 864 GB/s; PipeWeave L40.json memBandwidth 864.096
        .l2_bytes = 100663296.0,  // source: 96 MB; PipeWeave L40.json l2CacheSize 98304 KB
        .l2_gbps = 5647.0,  // source: PipeWeave L40.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on L40
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction
        .memory_bytes = 47677177856.0,  // source: PipeWeave L40.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 181.05,  // source: L40 datasheet BF16 (dense)
        .fp8_tflops = 362.1,  // source: L40 datasheet FP8 (dense)
        .fp32_tflops = 90.5,  // source: L40 datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::l40>);
