// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA A40 (Ampere GA102, sm_86).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA A40: Ampere GA102, 84 SMs, 48 GB GDDR6, passive data-center card.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct a40 {
    /// Canonical id.
    static constexpr std::string_view name = "a40";
    /// CUDA device string.
    // source: CUDA device string (PipeWeave A40.json name)
    static constexpr std::string_view display_name = "NVIDIA A40";
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 3> aliases{
        "NVIDIA A40",  // CUDA device string
        "A40",  // PipeWeave hardware/A40.json; vidur compute/a40
        "a40_pairwise_nvlink",  // vidur network/a40_pairwise_nvlink
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_86; PipeWeave A40.json computeMajor/Minor
        .cc_minor = 6,  // source: as cc_major
        .sm_count = 84,  // source: PipeWeave A40.json numSms; A40 datasheet (10752 CUDA cores / 128)
        // source: PipeWeave A40.json smFreq; A40 boost clock; 84 x 1024 x 1740 MHz = 149.7 TFLOPS
        .tensor_clock_mhz = 1740.0,
        .boost_clock_mhz = 1740.0,  // source: A40 boost clock; 2 x 128 x 84 x 1740 MHz = 37.4 TFLOPS FP32
        // source: PipeWeave A40.json tcBf16; derived: 149.7 TFLOPS / (84 x 1740 MHz) = 1024
        .tensor_bf16_flop_per_clk = 1024.0,
        .tensor_fp8_flop_per_clk = 0.0,  // source: Ampere has no FP8 tensor cores
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ampere has no FP4 tensor cores
        // source: GA102 has 128 FP32 lanes per SM (Ampere GA102 whitepaper; PipeWeave FmaFp32 = 128)
        .fma_fp32_per_clk = 128.0,
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 696.0,  // source: A40 datasheet 696 GB/s; PipeWeave A40.json memBandwidth 696.096
        .l2_bytes = 6291456.0,  // source: 6 MB; PipeWeave A40.json l2CacheSize 6144 KB
        .l2_gbps = 2430.0,  // source: PipeWeave A40.json l2CacheBandwidth (measured)
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.6: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.6: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.6: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.6
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.6
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.6
        .max_ctas_per_sm = 16,  // source: CUDA Guide cc 8.6
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.6
        .nvlink_gbps = 112.5,  // source: A40 datasheet: NVLink bridge for 2 GPUs, 112.5 GB/s bidirectional
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction (A40 datasheet 64 GB/s bidirectional)
        .memory_bytes = 47622258688.0,  // source: PipeWeave A40.json totalGlobalMem (CUDA-reported)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 149.7,  // source: A40 datasheet BF16 tensor (dense)
        .fp32_tflops = 37.4,  // source: A40 datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::a40>);
