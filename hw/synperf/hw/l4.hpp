// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file NVIDIA L4 (Ada AD104, sm_89).
#include <array>
#include <string_view>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::hw {

/// NVIDIA L4: Ada AD104, 58 SMs, 24 GB GDDR6, 72 W.
/// Sources: PipeWeave = data/pipeweave/hardware/*.json, AIC = data/aiconfigurator/systems/*.yaml,
/// NeuSight = data/neusight/device_configs/*.json, CUDA Guide = CUDA C++ Programming Guide compute-capability
/// tables; see docs/gpus.md.
struct l4 {
    /// Canonical id.
    static constexpr std::string_view name = "l4";
    /// CUDA device string.
    static constexpr std::string_view display_name = "NVIDIA L4";  // source: CUDA device string (NeuSight inventory)
    /// Other accepted names (matched case-insensitively, '-', '_' and ' ' alike).
    static constexpr std::array<std::string_view, 2> aliases{
        "NVIDIA L4",  // CUDA device string (NeuSight; NVIDIA_L4 normalizes to it)
        "L4",  // short name
    };
    /// The numbers a prediction reads; every one names its source.
    static constexpr gpu::gpu_numbers numbers{
        .cc_major = 8,  // source: sm_89; AIC l4.yaml sm_version 89
        .cc_minor = 9,  // source: as cc_major
        // source: L4 datasheet 7424 CUDA cores / 128; docs/gpus.md#datasheets (NeuSight NVIDIA_L4.json says 60,
        // which is the full AD104)
        .sm_count = 58,
        .tensor_clock_mhz = 2040.0,  // source: L4 boost clock; NeuSight Freq; 58 x 1024 x 2040 MHz = 121.2 TFLOPS
        .boost_clock_mhz = 2040.0,  // source: L4 boost clock; 2 x 128 x 58 x 2040 MHz = 30.3 TFLOPS FP32
        .tensor_bf16_flop_per_clk = 1024.0,  // derived: 121 TFLOPS / (58 x 2040 MHz) = 1023
        .tensor_fp8_flop_per_clk = 2048.0,  // derived: 242 TFLOPS / (58 x 2040 MHz) = 2045
        .tensor_fp4_flop_per_clk = 0.0,  // source: Ada has no FP4 tensor cores
        .fma_fp32_per_clk = 128.0,  // source: Ada SM has 128 FP32 lanes (Ada whitepaper; PipeWeave FmaFp32 = 128)
        // source: 16 MUFU results per clock per SM below cc 10.3 (PipeWeave xuFp32 = 16; docs/gpus.md#sm-rates)
        .xu_per_clk = 16.0,
        .dram_gbps = 300.0,  // source: AIC l4.yaml mem_bw; L4 datasheet 300 GB/s
        .l2_bytes = 50331648.0,  // source: 48 MB; NeuSight L2Cache 48
        // derived: L20 (nearest measured Ada by SM count) 4011 GB/s = 17.30 B/clk/SM; x 58 SMs x 2040 MHz
        .l2_gbps = 2047.0,
        .smem_bytes_per_clk = 128.0,  // source: 128 B/clk/SM (PipeWeave sharedMemoryBandwidth; docs/gpus.md#sm-rates)
        .smem_per_sm_bytes = 102400,  // source: CUDA Guide cc 8.9: 100 KB
        .smem_per_cta_bytes = 101376,  // source: CUDA Guide cc 8.9: 99 KB opt-in per block
        .regs_per_sm = 65536,  // source: CUDA Guide cc 8.9: 64K 32-bit registers
        .max_regs_per_thread = 255,  // source: CUDA Guide cc 8.9
        .max_warps_per_sm = 48,  // source: CUDA Guide cc 8.9
        .max_threads_per_sm = 1536,  // source: CUDA Guide cc 8.9
        .max_ctas_per_sm = 24,  // source: CUDA Guide cc 8.9
        .max_threads_per_cta = 1024,  // source: CUDA Guide cc 8.9
        .nvlink_gbps = 0.0,  // source: no NVLink on L4
        .pcie_gbps = 32.0,  // source: AIC l4.yaml pcie_bw (PCIe 4.0 x16, one direction)
        .memory_bytes = 25769803776.0,  // source: AIC l4.yaml mem_capacity (24 GiB)
    };
    /// Published dense peaks the derived ones are checked against (0 = not published).
    static constexpr gpu::datasheet published{
        .bf16_tflops = 121.0,  // source: AIC l4.yaml bfloat16_tc_flops; L4 datasheet 242 with sparsity / 2
        .fp8_tflops = 242.0,  // source: AIC l4.yaml fp8_tc_flops; L4 datasheet 485 with sparsity / 2
        .fp32_tflops = 30.3,  // source: L4 datasheet
    };
};

}  // namespace synperf::hw

static_assert(synperf::gpu::GpuSpec<synperf::hw::l4>);
