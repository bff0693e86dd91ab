// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA A10 (Ampere GA102, sm_86).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA A10: Ampere GA102, 72 SMs, 24 GB GDDR6, 150 W.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct a10 {
    /// Canonical id.
    static constexpr std::string_view name = "a10";
    /// CUDA device string.
    static constexpr std::string_view display_name = "NVIDIA A10";  // source: CUDA device string
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA A10",  // CUDA device string
        "A10",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_86 (GA102)
        .cc_minor = 6,  // source: as cc_major
        .sm_count = 72,  // source: A10 datasheet 9216 CUDA cores / 128; docs/gpus.md#datasheets
        .tensor_clock_mhz = 1695.0,  // source: A10 boost clock; 72 x 1024 x 1695 MHz = 125.0 TFLOPS = published
        .boost_clock_mhz = 1695.0,  // source: A10 boost clock; 2 x 128 x 72 x 1695 MHz = 31.2 TFLOPS FP32
        // derived: 125 TFLOPS / (72 x 1695 MHz) = 1024 (data-center GA102, full-rate FP32 accumulate)
        .tensor_bf16_flop_per_clk = 1024.0,
        .tensor_fp8_flop_per_clk = 0.0,  // source: Ampere has no FP8 tensor cores
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ampere has no FP4 tensor cores
        // source: GA102 has 128 FP32 lanes per SM (Ampere GA102 whitepaper; PipeWeave FmaFp32 = 128)
        .fma_fp32_per_clk = 128.0,
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 600.0,  // source: A10 datasheet 600 GB/s
        .l2_bytes = 6291456.0,  // source: 6 MB (GA102 whitepaper)
        // derived: A40 (same GA102 data-center board) measured 2430 GB/s = 16.63 B/clk/SM; x 72 SMs x 1695 MHz
        .l2_gbps = 2029.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.6: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.6: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.6: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.6
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.6
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.6
        .max_ctas_per_sm = 16,  // source: CUDA Guide cc 8.6
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.6
        .nvlink_gbps = 0.0,  // source: no NVLink on A10
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction
        .memory_bytes = 25769803776.0,  // derived: A10 datasheet 24 GB GDDR6 taken as 24 GiB
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 125.0,  // source: A10 datasheet BF16 tensor (dense)
        .fp32_tflops = 31.2,  // source: A10 datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::a10>);
