// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA GeForce RTX 4090 (Ada AD102, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA GeForce RTX 4090: Ada AD102, 128 SMs, 24 GB GDDR6X.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct rtx_4090 {
    /// Canonical id.
    static constexpr std::string_view name = "rtx_4090";
    /// CUDA device string.
    static constexpr std::string_view display_name = "NVIDIA GeForce RTX 4090";  // source: CUDA device string
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA GeForce RTX 4090",  // CUDA device string
        "GeForce RTX 4090",  // device string without vendor
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89 (AD102)
        .cc_minor = 9,  // source: as cc_major
        .sm_count = 128,  // source: Ada whitepaper: 16384 CUDA cores / 128
        .tensor_clock_mhz = 2520.0,  // source: Ada whitepaper boost clock 2520 MHz; 128 x 512 x 2520 MHz = 165.2 TFLOPS
        .boost_clock_mhz = 2520.0,  // source: Ada whitepaper boost clock; 2 x 128 x 128 x 2520 MHz = 82.6 TFLOPS FP32
        // source: GeForce half rate with FP32 accumulate (Ada whitepaper: 165.2 vs 330.3 with FP16 accumulate);
        // derived: 165.2 TFLOPS / (128 x 2520 MHz) = 512
        .tensor_bf16_flop_per_clk = 512.0,
        // source: FP8 with FP32 accumulate; derived: 330.3 TFLOPS / (128 x 2520 MHz) = 1024
        .tensor_fp8_flop_per_clk = 1024.0,
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 1008.0,  // source: Ada whitepaper 1008 GB/s (21 Gbps GDDR6X, 384-bit)
        .l2_bytes = 75497472.0,  // source: 72 MB (Ada whitepaper)
        // derived: RTX 6000 Ada (nearest measured AD102 board) 6326 GB/s = 17.78 B/clk/SM; x 128 SMs x 2520 MHz
        .l2_gbps = 5736.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on RTX 4090
        .pcie_gbps = 32.0,  // source: PCIe 4.0 x16, one direction
        .memory_bytes = 25769803776.0,  // derived: 24 GB GDDR6X taken as 24 GiB
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 165.2,  // source: Ada whitepaper: FP16/BF16 tensor with FP32 accumulate (dense)
        .fp8_tflops = 330.3,  // source: Ada whitepaper: FP8 tensor with FP32 accumulate (dense)
        .fp32_tflops = 82.6,  // source: Ada whitepaper
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::rtx_4090>);
