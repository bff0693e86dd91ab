// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA L20 (Ada AD102, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA L20: Ada AD102, 92 SMs, 48 GB GDDR6, China data-center SKU.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct l20 {
    /// Canonical id.
    static constexpr std::string_view name = "l20";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave L20.json name)
    static constexpr std::string_view display_name = "NVIDIA L20";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA L20",  // CUDA device string
        "L20",  // PipeWeave hardware/L20.json
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89; PipeWeave L20.json computeMajor/Minor
        .cc_minor = 9,  // source: as cc_major
        .sm_count = 92,  // source: PipeWeave L20.json numSms
        // source: PipeWeave L20.json smFreq; 92 x 512 x 2520 MHz = 118.7 TFLOPS, 0.7 % under the quoted 119.5
        .tensor_clock_mhz = 2520.0,
        .boost_clock_mhz = 2520.0,  // source: PipeWeave L20.json smFreq; 2 x 128 x 92 x 2520 MHz = 59.3 TFLOPS FP32
        // source: half-rate product segmentation like L40 (docs/gpus.md#tensor-rates); derived: 119.5 TFLOPS /
        // (92 x 2520 MHz) = 515, PipeWeave tcBf16 516
        .tensor_bf16_flop_per_clk = 512.0,
        // derived: 2 x bf16 (docs/gpus.md#tensor-rates); derived: 239 TFLOPS / (92 x 2520 MHz) = 1031
        .tensor_fp8_flop_per_clk = 1024.0,
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 864.0,  // source: PipeWeave L20.json memBandwidth 864.096
        .l2_bytes = 100663296.0,  // source: 96 MB; PipeWeave L20.json l2CacheSize 98304 KB
        .l2_gbps = 4011.0,  // source: PipeWeave L20.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on L20
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction
        .memory_bytes = 47810936832.0,  // source: PipeWeave L20.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        // source: L20 product brief as quoted by topcpu.net (dense); sparse NVIDIA docs for this China SKU
        .bf16_tflops = 119.5,
        .fp8_tflops = 239.0,  // source: L20 product brief as quoted by topcpu.net (dense), uncertain
        .fp32_tflops = 59.8,  // source: L20 product brief as quoted by topcpu.net
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::l20>);
